#include "py_errors.h"

#include <memory>
#include <string>

namespace quiver::python {

namespace {

// The interrupt KeepInterrupt kept, per thread; raw so that no Python
// object is released at thread exit without the GIL.
thread_local nb::python_error* kept_interrupt = nullptr;

}  // namespace

bool KeepInterrupt(nb::python_error& error) {
  if (error.matches(PyExc_Exception)) return false;
  delete kept_interrupt;  // GIL held: the caller caught it in Python code
  kept_interrupt = new nb::python_error(std::move(error));
  return true;
}

void Raise(const Status& status) {
  if (kept_interrupt != nullptr) {
    std::unique_ptr<nb::python_error> interrupt(kept_interrupt);
    kept_interrupt = nullptr;
    // Only the Status the interrupted callback returned (as it is, or
    // wrapped in context) stands for the interrupt. Any other means that
    // Status was dropped on the way (an abandoned writer ignores what its
    // closing write said), and the kept interrupt is stale: raising it here
    // would turn an unrelated error into a KeyboardInterrupt.
    if (status.message().find(kInterruptedMessage) != std::string::npos) {
      interrupt->restore();
      throw nb::python_error();
    }
  }
  PyObject* type = PyExc_ValueError;
  switch (status.code()) {
    case StatusCode::kTypeError: type = PyExc_TypeError; break;
    case StatusCode::kIndexError: type = PyExc_IndexError; break;
    case StatusCode::kNotImplemented: type = PyExc_NotImplementedError; break;
    case StatusCode::kIOError: type = PyExc_OSError; break;
    case StatusCode::kOutOfMemory: type = PyExc_MemoryError; break;
    default: break;
  }
  PyErr_SetString(type, status.message().c_str());
  throw nb::python_error();
}

CopyMode CopyModeFromPython(std::optional<bool> copy) {
  if (!copy) return CopyMode::kIfNeeded;
  return *copy ? CopyMode::kAlways : CopyMode::kNever;
}

CopyMode CopyModeFromPython(nb::handle copy, const char* name) {
  if (copy.is_none()) return CopyMode::kIfNeeded;
  if (copy.ptr() == Py_True) return CopyMode::kAlways;
  if (copy.ptr() == Py_False) return CopyMode::kNever;
  // NumPy bools are bools too.
  if (nb::hasattr(copy, "dtype") && nb::hasattr(copy, "__bool__") &&
      Str(copy.attr("dtype")) == "bool") {
    return nb::cast<bool>(nb::bool_(copy)) ? CopyMode::kAlways : CopyMode::kNever;
  }
  Raise(Status::TypeError(std::string(name) + " must be None, True or False, got " +
                          nb::repr(copy).c_str()));
}

}  // namespace quiver::python
