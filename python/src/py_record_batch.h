// Record batches, tables, chunked arrays and schemas in Python: the
// conversions their binding files share (the objects are in py_objects.h).
#pragma once

#include <nanobind/nanobind.h>

#include <memory>
#include <vector>

#include "py_objects.h"
#include "quiver/c_data.h"
#include "quiver/chunked_array.h"
#include "quiver/record_batch.h"
#include "quiver/table.h"

namespace quiver::python {

namespace nb = nanobind;

// Key/value metadata as a dict of bytes to bytes (Arrow metadata allows
// any bytes), as pyarrow gives it.
nb::dict MetadataToPython(const KeyValueMetadata& metadata);
// A schema from a qv.Schema or anything with __arrow_c_schema__ that
// describes a struct (pyarrow schemas do).
SchemaPtr SchemaFromPython(nb::handle obj);
// A table from a qv.Table / qv.RecordBatch or any __arrow_c_stream__ /
// __arrow_c_array__ producer of record batches.
TablePtr TableFromPython(nb::handle obj);
// The record batches `obj` holds, as TableFromPython takes them: a table
// cut as Table::ToRecordBatches cuts it (pyarrow's write_table), a batch
// as itself, a stream's batches as they come, zero-row ones included.
// `schema` receives their schema.
std::vector<RecordBatchPtr> BatchesFromPython(nb::handle obj, SchemaPtr* schema);
// Column i (negative counts from the end) or the column named `key`
// (KeyError / IndexError / TypeError).
int ColumnIndex(const Schema& schema, nb::handle key);
// One column from a quiver array or chunked array, a NumPy array (1-D
// numeric: zero-copy; N-D: fixed_shape_tensor), an Arrow PyCapsule
// producer, or a list (through pyarrow). `what` names it in errors.
ChunkedArrayPtr ColumnFromPython(nb::handle obj, const char* what);
// `obj`, or while Ray Data or Hugging Face datasets is imported and `obj`
// is a pyarrow table or batch holding their tensor types (or a
// datasets.Dataset), the same with the canonical types (quiver.ray and
// quiver.huggingface do it, the values shared).
nb::object WithCanonicalTensorTypes(nb::handle obj);
// An ArrayReader of struct arrays over `batches`.
std::shared_ptr<ArrayReader> BatchArrayReader(const SchemaPtr& schema,
                                              std::vector<RecordBatchPtr> batches);
// The struct field a stream of `schema`'s batches carries.
Field BatchField(const SchemaPtr& schema);

}  // namespace quiver::python
