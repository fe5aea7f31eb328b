// The C++ objects behind quiver's Python classes.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <optional>
#include <string>
#include <vector>

#include "py_deferred_validation.h"
#include "quiver/array.h"
#include "quiver/chunked_array.h"
#include "quiver/dataset.h"
#include "quiver/fixed_shape_tensor.h"
#include "quiver/record_batch.h"
#include "quiver/sparse_tensor.h"
#include "quiver/table.h"
#include "quiver/tensor.h"
#include "quiver/type.h"
#include "quiver/variable_shape_tensor.h"

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

struct PyDataType {
  TypePtr type;
};

struct PyFixedShapeTensorType {
  FixedShapeTensorType type;
};

struct PyVariableShapeTensorType {
  VariableShapeTensorType type;
};

// Any Arrow array quiver holds without a more specific class.
struct PyArray {
  ArrayDataPtr data;
};

struct PyFixedShapeTensorArray {
  FixedShapeTensorArray array;
};

struct PyVariableShapeTensorArray {
  VariableShapeTensorArray array;
};

struct PyTensor {
  Tensor tensor;
};

// The four sparse classes share one C++ tensor; Python sees a base class
// (SparseTensor) and one subclass per format.
struct PySparseTensor {
  SparseTensor tensor;
};
struct PySparseCOOTensor : PySparseTensor {};
struct PySparseCSRMatrix : PySparseTensor {};
struct PySparseCSCMatrix : PySparseTensor {};
struct PySparseCSFTensor : PySparseTensor {};

// The Python object of the tensor's format (SparseCOOTensor ...).
nb::object WrapSparse(SparseTensor tensor);

// The Python type object for a quiver type: FixedShapeTensorType or
// VariableShapeTensorType for the tensor extensions, DataType otherwise.
nb::object WrapType(const TypePtr& type);
// The Python array object for imported data: FixedShapeTensorArray or
// VariableShapeTensorArray for the tensor extensions, Array otherwise.
nb::object WrapArray(ArrayDataPtr data);

// The data of `storage` (a quiver Array, or anything with __arrow_c_array__)
// under `extension_type`, zero-copy; TypeError unless the storage has the
// extension type's storage type. `what` names the storage in messages.
ArrayDataPtr AsExtensionStorage(const TypePtr& extension_type, const std::string& type_name,
                                nb::handle storage, const char* what);

// Every row of a tensor column as `row_or_none(array, i)` gives it (a
// read-only view, None for a null row), or with `as_lists` each view as
// nested Python lists: what __iter__, to_numpy (ragged) and to_pylist
// return.
template <typename Array, typename RowFn>
nb::list ColumnRows(const Array& array, RowFn&& row_or_none, bool as_lists) {
  nb::list rows;
  for (int64_t i = 0; i < array.length(); ++i) {
    nb::object row = row_or_none(array, i);
    rows.append(as_lists && !row.is_none() ? row.attr("tolist")() : row);
  }
  return rows;
}

// uniform_shape as a tuple of ints and Nones.
nb::tuple UniformShapeToPython(const UniformShape& uniform_shape);
// A VariableShapeTensorType from Python arguments (ValueError / TypeError).
VariableShapeTensorType MakeVariableShapeType(nb::handle value_type, int ndim,
                                              std::optional<std::vector<std::string>> dim_names,
                                              std::optional<std::vector<int64_t>> permutation,
                                              std::optional<UniformShape> uniform_shape);
// A DataType from a name ("float32"), a DataType, or a NumPy dtype-like.
TypePtr TypeFromPython(nb::handle value);

// Shared by the column bindings (py_tensor_columns.cc).
// "quiver.NAME<type> length=N null_count=K", the first line of a repr.
std::string ArrayHeader(const char* cls, const std::string& type, int64_t length, int64_t nulls);
// Per row, 1 where `mask` (a bool array of N rows, any cell shape) masks
// every element; ValueError naming the first row masked only in part.
std::vector<uint8_t> NullRowsFromMask(nb::handle mask, int64_t rows, const char* what);
// take() indices as int64 (TypeError for floats; IndexError quoting an index
// no int64 holds, against `rows`); filter() masks as one byte per row:
// bools from NumPy or a list, an Arrow boolean array or chunked array
// (__arrow_c_array__ / __arrow_c_stream__), a numpy.ma masked array; a null
// (a masked entry, a None) selects nothing, as in pyarrow.
nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig> IndexArray(nb::handle indices, int64_t rows);
// A dataset's cache statistics as a dict (hits, misses, evictions,
// bytes_decoded, bytes_cached, bytes_fetched, requests).
nb::dict CacheStatsToDict(const dataset::CacheStats& stats);
std::vector<uint8_t> MaskArray(nb::handle mask);
// MaskArray packed one bit a row (a NumPy bool array is packed straight
// from its memory, with the GIL held: a snapshot, without a byte copy).
RowMask MaskRows(nb::handle mask);
// Copies `tensor` into the caller's array `out` (dtype, shape, C order and
// writability checked), without the GIL.
void CopyInto(const Tensor& tensor, nb::handle out);
bool FixedShapeTensorArraysEqual(const FixedShapeTensorArray& a, const FixedShapeTensorArray& b);
bool VariableShapeTensorArraysEqual(const VariableShapeTensorArray& a,
                                    const VariableShapeTensorArray& b);
std::string TensorColumnRepr(const FixedShapeTensorArray& a);
std::string TensorColumnRepr(const VariableShapeTensorArray& a);
nb::object ArrayToPylist(const ArrayDataPtr& data);

}  // namespace quiver::python
