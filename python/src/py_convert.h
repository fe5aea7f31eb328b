// Conversions between quiver values and Python objects shared by the
// binding files: errors, value types and NumPy arrays.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <optional>
#include <string>
#include <utility>

#include "quiver/array.h"
#include "quiver/fixed_shape_tensor.h"
#include "quiver/status.h"
#include "quiver/tensor.h"
#include "quiver/type.h"

namespace quiver::python {

namespace nb = nanobind;

// Any CPU array-like nanobind can view (NumPy arrays, buffer protocol and
// DLPack producers), read-only.
using InputArray = nb::ndarray<nb::ro, nb::device::cpu>;

// Raises the Python exception matching status.code() (ValueError,
// TypeError, IndexError, NotImplementedError, OSError, MemoryError).
[[noreturn]] void Raise(const Status& status);

inline void Check(const Status& status) {
  if (!status.ok()) Raise(status);
}

template <typename T>
T Unwrap(Result<T> result) {
  if (!result.ok()) Raise(result.status());
  return std::move(*result);
}

// The numeric quiver type of a DLPack dtype, or TypeError naming it.
TypePtr TypeFromDtype(nb::dlpack::dtype dtype);
nb::dlpack::dtype DtypeFromType(const DataType& type);

// A zero-copy Tensor over `array`, which stays alive as long as any buffer
// made from it.
Tensor TensorFromArray(const InputArray& array, std::vector<std::string> dim_names);

// Tensors borrowed through the buffer protocol for the length of one
// call: cheaper than TensorFromArray when many small arrays are read and
// copied at once. The tensors must not outlive this object.
class BorrowedBuffers {
 public:
  BorrowedBuffers() = default;
  BorrowedBuffers(const BorrowedBuffers&) = delete;
  BorrowedBuffers& operator=(const BorrowedBuffers&) = delete;
  ~BorrowedBuffers();

  // A tensor over `obj`'s buffer, or nullopt when `obj` has no buffer of
  // a numeric type quiver holds (the caller falls back to TensorFromArray).
  std::optional<Tensor> TryBorrow(nb::handle obj);

 private:
  std::vector<Py_buffer> views_;
};

// A Python tuple of ints (shapes, strides).
nb::tuple ToTuple(const std::vector<int64_t>& values);

// The NullPolicy a Python `allow_nulls` flag asks for.
inline NullPolicy NullPolicyFrom(bool allow_nulls) {
  return allow_nulls ? NullPolicy::kAllow : NullPolicy::kError;
}

// Resolves a Python index (negative counts from the end) against
// `length`, or raises IndexError.
int64_t ResolveIndex(int64_t index, int64_t length);
// [start, start + count) of a step-1 Python slice over `length` rows.
std::pair<int64_t, int64_t> ResolveSlice(const nb::slice& slice, int64_t length);
// copy=None copies only when needed, False never, True always.
CopyMode CopyModeFromPython(std::optional<bool> copy);

// The storage of an extension array as a plain array (zero-copy).
ArrayDataPtr StorageOf(const ArrayDataPtr& data);

// A read-only NumPy view of `tensor` that keeps its buffer alive.
nb::object TensorToNumpy(const Tensor& tensor);

}  // namespace quiver::python
