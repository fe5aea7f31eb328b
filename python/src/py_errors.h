// Errors and the GIL across the binding boundary: Status to Python
// exceptions, interrupts kept from callbacks, the GIL released around C++
// work, and the Python arguments that choose C++ options (copy=,
// allow_nulls=), named in errors where a binding passed them on.
#pragma once

#include <nanobind/nanobind.h>

#include <optional>
#include <string>
#include <utility>

#include "quiver/conversion.h"
#include "quiver/status.h"

namespace quiver::python {

namespace nb = nanobind;

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
inline constexpr const char* kPassCopy = "pass copy=None or copy=True";
inline constexpr const char* kPassAllowNulls = "pass allow_nulls=True";

// Unwrap for a call made with the copy mode a Python `copy` chose: its
// error names the argument. The value is moved out once (these calls
// return tensors on hot paths such as to_numpy).
template <typename T>
T UnwrapCopy(Result<T>&& result, CopyMode copy) {
  if (!result.ok()) Raise(NameArgument(result.status(), copy == CopyMode::kNever, kPassCopy));
  return std::move(*result);
}
// The same for a call over rows, `null_rows` of them null, made with the
// null policy a Python `allow_nulls` chose.
template <typename T>
T UnwrapAllowNulls(Result<T>&& result, NullPolicy nulls, int64_t null_rows) {
  if (!result.ok()) {
    Raise(NameArgument(result.status(), nulls == NullPolicy::kError && null_rows > 0,
                       kPassAllowNulls));
  }
  return std::move(*result);
}

// copy=None copies only when needed, False never, True always.
CopyMode CopyModeFromPython(std::optional<bool> copy);
// The same from any Python object: TypeError naming `name` for anything but
// None, True and False (NumPy bools included).
CopyMode CopyModeFromPython(nb::handle copy, const char* name = "copy");

}  // namespace quiver::python
