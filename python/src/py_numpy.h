// NumPy and the buffer protocol across the binding boundary: dtypes,
// zero-copy tensors over array producers and NumPy arrays over quiver's
// memory, NumPy's __array__ protocol.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <string>
#include <vector>

#include "py_errors.h"
#include "quiver/array.h"
#include "quiver/tensor.h"
#include "quiver/type.h"

namespace quiver::python {

namespace nb = nanobind;

// Any CPU array-like nanobind can view (NumPy arrays, buffer protocol and
// DLPack producers), read-only.
using InputArray = nb::ndarray<nb::ro, nb::device::cpu>;

// The numeric quiver type of a DLPack dtype, or TypeError naming it.
TypePtr TypeFromDtype(nb::dlpack::dtype dtype);
nb::dlpack::dtype DtypeFromType(const DataType& type);

// An array nanobind can view, and the low-precision float type of its
// values when it came from an ml_dtypes array (bfloat16, float8_e4m3fn,
// float8_e5m2: `array` is then a zero-copy unsigned-integer view of the
// same bits, since neither DLPack nor the buffer protocol of NumPy carries
// those dtypes); null otherwise.
struct ArrayView {
  InputArray array;
  TypePtr low_float;
  size_t ndim() const { return array.ndim(); }
};
// A zero-copy Tensor over `view.array`, which stays alive as long as any
// buffer made from it.
Tensor TensorFromArray(const ArrayView& view, std::vector<std::string> dim_names);

// Buffers borrowed through the buffer protocol for the length of one
// call, for reading many small arrays at once without a Tensor each.
class BorrowedBuffers {
 public:
  BorrowedBuffers() = default;
  BorrowedBuffers(const BorrowedBuffers&) = delete;
  BorrowedBuffers& operator=(const BorrowedBuffers&) = delete;
  ~BorrowedBuffers();

  void Reserve(size_t count) { views_.reserve(count); }
  // `obj`'s strided buffer (shape and byte strides filled in) and its
  // value type, or nullptr when it has none of a numeric type quiver
  // holds (the caller falls back to TensorFromArray). `last_type` and
  // `last_format` memoise the format of the previous call: arrays of one
  // dtype are typed with a string comparison. The pointer is valid until
  // the next call; the memory it describes until destruction.
  const Py_buffer* Borrow(PyObject* obj, TypePtr* type);

 private:
  std::vector<Py_buffer> views_;
  TypePtr last_type_;
  std::string last_format_;
  Py_ssize_t last_itemsize_ = 0;
};

// numpy.ndarray, looked up once (kept for the life of the process).
// The numpy module (imported on first use).
nb::object Numpy();
PyTypeObject* NumpyArrayType();

// A Python tuple of ints (shapes, strides).
nb::tuple ToTuple(const std::vector<int64_t>& values);

// Whether `obj` is a numpy.ma.MaskedArray.
bool IsMaskedArray(nb::handle obj);
// `obj` as something InputArray can view: NumPy arrays and other array
// producers as they are, sequences through numpy.asarray. Raises TypeError
// naming `what` and the dtype for objects, strings, dates and complex
// values; a non-native byte order is swapped in a copy, or refused with
// ValueError when `copy` is kNever.
nb::object PrepareArray(nb::handle obj, const char* what, CopyMode copy = CopyMode::kIfNeeded);

// The storage of an extension array as a plain array (zero-copy).
ArrayDataPtr StorageOf(const ArrayDataPtr& data);

// Whether NumPy may write through an array over quiver's memory: only
// memory nothing else shares (a fresh dense copy, a loader batch's
// buffer) is handed out writable.
enum class NumpyAccess { kReadOnly, kWritable };

// A NumPy array over `tensor` (zero-copy) that keeps its buffer alive.
nb::object TensorToNumpy(const Tensor& tensor, NumpyAccess access = NumpyAccess::kReadOnly);

// The quiver type of an ml_dtypes dtype quiver holds (bfloat16,
// float8_e4m3fn, float8_e5m2), or null for any other dtype; never imports
// ml_dtypes.
TypePtr LowFloatTypeOfDtype(nb::handle dtype);
// The NumPy dtype of a tensor value type (bool8 -> bool; the low-precision
// floats -> the ml_dtypes dtype, ModuleNotFoundError naming the extra when
// ml_dtypes is not installed).
nb::object NumpyDtype(const DataType& type);

// NumPy's __array__(dtype=None, copy=None) over a zero-copy `view`:
// copy=True always copies, copy=False raises ValueError when a dtype
// conversion needs a copy, None copies only for that.
nb::object ArrayProtocol(nb::object view, nb::handle dtype, nb::handle copy);

// `ndarray`, checked by PrepareArray and viewed as an InputArray.
ArrayView ViewArray(nb::handle ndarray, const char* what, CopyMode copy = CopyMode::kIfNeeded);

}  // namespace quiver::python
