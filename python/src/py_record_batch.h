// Record batches, tables, chunked arrays and schemas in Python.
#pragma once

#include <nanobind/nanobind.h>

#include <memory>
#include <vector>

#include "quiver/c_data.h"
#include "quiver/record_batch.h"

namespace quiver::python {

namespace nb = nanobind;

struct PyField {
  Field field;
};

struct PySchema {
  SchemaPtr schema;
};

struct PyRecordBatch {
  RecordBatchPtr batch;
};

// Batches of one schema, in order.
struct PyTable {
  SchemaPtr schema;
  std::vector<RecordBatchPtr> batches;
};

// Arrays of one type, in order.
struct PyChunkedArray {
  TypePtr type;
  std::vector<ArrayDataPtr> chunks;
};

// A schema from a qv.Schema or anything with __arrow_c_schema__ that
// describes a struct (pyarrow schemas do).
SchemaPtr SchemaFromPython(nb::handle obj);
// A table from a qv.Table / qv.RecordBatch or any __arrow_c_stream__ /
// __arrow_c_array__ producer of record batches.
PyTable TableFromPython(nb::handle obj);
// An ArrayReader of struct arrays over `batches`.
std::shared_ptr<ArrayReader> BatchArrayReader(const SchemaPtr& schema,
                                              std::vector<RecordBatchPtr> batches);
// The struct field a stream of `schema`'s batches carries.
Field BatchField(const SchemaPtr& schema);

void BindRecordBatch(nb::module_& m);
void BindIpc(nb::module_& m);

}  // namespace quiver::python
