// Record batches, tables, chunked arrays and schemas in Python.
#pragma once

#include <nanobind/nanobind.h>

#include <memory>
#include <vector>

#include "py_deferred_validation.h"
#include "quiver/c_data.h"
#include "quiver/chunked_array.h"
#include "quiver/record_batch.h"
#include "quiver/table.h"

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

// Named chunked columns of equal length. A table read with
// read_all(validate="lazy") validates each column the first time its
// values are asked for (py_deferred_validation.h); every other table was
// validated when it was made. The table is reached through table(),
// column() or outline() only, so no caller can skip that check.
class PyTable {
 public:
  PyTable(TablePtr table);  // NOLINT(google-explicit-constructor): PyTable{t}
  // A table whose columns are validated on first use; its chunk K is
  // record batch first_batch + K of the file or stream it was read from.
  static PyTable Deferred(TablePtr table, int64_t first_batch);

  // The table, every column validated (raises the first column's error).
  const TablePtr& table() const;
  // Column i validated (raises its error).
  const ChunkedArrayPtr& column(int i) const;
  // The table for its schema and row and column counts only, unvalidated:
  // nothing that reads values may use it.
  const TablePtr& outline() const { return table_; }
  // Whether it came from read_all(validate="lazy").
  bool deferred() const { return deferred_ != nullptr; }

 private:
  TablePtr table_;
  std::shared_ptr<DeferredValidation> deferred_;  // null: validated
};

// One column in chunks.
struct PyChunkedArray {
  ChunkedArrayPtr column;
};

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
// `obj`, or while Ray Data is imported and `obj` is a pyarrow table or
// batch holding Ray's tensor types, the same with the canonical types
// (quiver.ray does it, the values shared).
nb::object WithoutRayTypes(nb::handle obj);
// An ArrayReader of struct arrays over `batches`.
std::shared_ptr<ArrayReader> BatchArrayReader(const SchemaPtr& schema,
                                              std::vector<RecordBatchPtr> batches);
// The struct field a stream of `schema`'s batches carries.
Field BatchField(const SchemaPtr& schema);

void BindRecordBatch(nb::module_& m);
void BindTable(nb::module_& m);
void BindChunkedArray(nb::module_& m);
void BindIpc(nb::module_& m);

}  // namespace quiver::python
