// Conversions between quiver values and Python objects shared by the
// binding files: errors, value types and NumPy arrays.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

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

// For Python callbacks that C++ calls (file objects the IPC readers and
// writers read or write): an exception that is not an Exception
// (KeyboardInterrupt, SystemExit) is kept rather than folded into a
// Status, and the next Raise() on this thread raises it in place of the
// Status the C++ side returned, so Ctrl-C still interrupts. Returns whether
// `error` was such an exception (and was kept); the callback then returns
// Status::IOError(kInterruptedMessage), and Raise() swaps the interrupt in
// only for a Status whose message holds that text (any other drops a kept
// interrupt as stale).
bool KeepInterrupt(nb::python_error& error);
inline constexpr const char* kInterruptedMessage = "interrupted";

// str(obj) as a std::string (any object, through Python's str()).
inline std::string Str(nb::handle obj) {
  nb::object text = nb::steal(PyObject_Str(obj.ptr()));
  if (!text.is_valid()) throw nb::python_error();
  return nb::cast<std::string>(text);
}

inline void Check(const Status& status) {
  if (!status.ok()) Raise(status);
}

template <typename T>
T Unwrap(Result<T> result) {
  if (!result.ok()) Raise(result.status());
  return std::move(*result);
}

// Runs `fn` (C++ only, no Python objects) with the GIL released and hands
// back its Result, so errors become Python exceptions with the GIL held.
template <typename Fn>
auto WithoutGil(Fn&& fn) {
  nb::gil_scoped_release no_gil;
  return fn();
}

// The numeric quiver type of a DLPack dtype, or TypeError naming it.
TypePtr TypeFromDtype(nb::dlpack::dtype dtype);
nb::dlpack::dtype DtypeFromType(const DataType& type);

// A zero-copy Tensor over `array`, which stays alive as long as any buffer
// made from it.
Tensor TensorFromArray(const InputArray& array, std::vector<std::string> dim_names);

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

// The NullPolicy a Python `allow_nulls` flag asks for.
inline NullPolicy NullPolicyFrom(bool allow_nulls) {
  return allow_nulls ? NullPolicy::kAllow : NullPolicy::kError;
}

// Core errors name an option in neutral words ("allow null rows", "a copy
// is needed"); a binding that passed a Python argument's value on names the
// argument where it calls. `advice` ("pass copy=None or copy=True") is
// appended in parentheses to an Invalid from the call when `refused`, which
// the caller decides from the call's own arguments (copy=False; null rows
// met with allow_nulls=False), never from the message text.
inline Status NameArgument(Status status, bool refused, const char* advice) {
  if (status.ok() || !refused || status.code() != StatusCode::kInvalid) return status;
  return Status(status.code(), status.message() + " (" + advice + ")");
}
template <typename T>
Result<T> NameArgument(Result<T> result, bool refused, const char* advice) {
  if (result.ok()) return result;
  return NameArgument(result.status(), refused, advice);
}
inline constexpr const char* kPassCopy = "pass copy=None or copy=True";
inline constexpr const char* kPassAllowNulls = "pass allow_nulls=True";

// An error from a call made with the copy mode a Python `copy` chose.
template <typename T>
Result<T> NamingCopy(Result<T> result, CopyMode copy) {
  return NameArgument(std::move(result), copy == CopyMode::kNever, kPassCopy);
}
// An error from a call over rows, `null_rows` of them null, made with the
// null policy a Python `allow_nulls` chose.
template <typename T>
Result<T> NamingAllowNulls(Result<T> result, NullPolicy nulls, int64_t null_rows) {
  return NameArgument(std::move(result), nulls == NullPolicy::kError && null_rows > 0,
                      kPassAllowNulls);
}

// Resolves a Python index (negative counts from the end) against
// `length`, or raises IndexError.
int64_t ResolveIndex(int64_t index, int64_t length, const char* what = "rows");
// The same for any Python integer (int, NumPy integers: whatever has
// __index__): one beyond int64 (np.uint64(2**64 - 1), 2**70) is an
// IndexError quoting it as written, never a wrapped or clipped value.
int64_t ResolveIndex(nb::handle index, int64_t length, const char* what = "rows");
// [start, start + count) of a step-1 Python slice over `length` rows.
std::pair<int64_t, int64_t> ResolveSlice(const nb::slice& slice, int64_t length);
// [start, start + count) of slice(offset, length) over `rows` rows, clipped
// as pyarrow clips it (past the end is empty); IndexError for a negative
// offset or length.
std::pair<int64_t, int64_t> ClipSlice(int64_t offset, std::optional<int64_t> length, int64_t rows);
// The rows a slice with a step other than 1 picks over `length` rows, in
// its order, for take() (pyarrow slices so); false, `rows` untouched, for a
// step of 1, which ResolveSlice serves without a copy.
bool SliceRows(const nb::slice& slice, int64_t length, std::vector<int64_t>* rows);
// copy=None copies only when needed, False never, True always.
CopyMode CopyModeFromPython(std::optional<bool> copy);
// The same from any Python object: TypeError naming `name` for anything but
// None, True and False (NumPy bools included).
CopyMode CopyModeFromPython(nb::handle copy, const char* name = "copy");

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

// The NumPy dtype of a tensor value type (bool8 -> bool).
nb::object NumpyDtype(const DataType& type);

// NumPy's __array__(dtype=None, copy=None) over a zero-copy `view`:
// copy=True always copies, copy=False raises ValueError when a dtype
// conversion needs a copy, None copies only for that.
nb::object ArrayProtocol(nb::object view, nb::handle dtype, nb::handle copy);

// `ndarray`, checked by PrepareArray and viewed as an InputArray.
InputArray ViewArray(nb::handle ndarray, const char* what, CopyMode copy = CopyMode::kIfNeeded);

// NumPy-style text of one array (summarised past a few elements);
// continuation lines start with `prefix` (the text before the array).
std::string FormatValues(nb::handle array, const std::string& prefix = "");
// The repr of a column: `header`, then one line per shown row (the first
// and last three of long columns), `row(i)` giving an array or None (null).
template <typename RowFn>
std::string FormatColumn(const std::string& header, int64_t length, RowFn&& row) {
  std::string out = header + "\n[";
  auto show = [&](int64_t i) {
    out += i == 0 ? "\n  " : ",\n  ";
    out += row(i);
  };
  if (length <= 8) {
    for (int64_t i = 0; i < length; ++i) show(i);
  } else {
    for (int64_t i = 0; i < 3; ++i) show(i);
    out += ",\n  ...";
    for (int64_t i = length - 3; i < length; ++i) show(i);
  }
  out += length > 0 ? "\n]" : "]";
  return out;
}

}  // namespace quiver::python
