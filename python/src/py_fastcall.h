// Vectorcall entry points beside nanobind's bindings, for the protocol
// calls made once per tensor (__dlpack__, from_dlpack) where parsing the
// arguments would cost more than the work: arguments are matched against
// interned names in place, no keyword dict is built, and C++ exceptions
// become Python exceptions here as nanobind would make them.
#pragma once

#include <nanobind/nanobind.h>

#include <cstddef>
#include <exception>
#include <new>
#include <span>

namespace quiver::python {

namespace nb = nanobind;

// `name` as an interned Python string, made once and kept for the life of
// the process.
PyObject* Interned(const char* name);

// Matches the arguments of a METH_FASTCALL | METH_KEYWORDS call against
// `names`: the first `max_positional` may come by position, every one by
// keyword. out[i] is the object passed for names[i] (borrowed) or nullptr
// when it was left out. Returns false with TypeError set for unknown,
// repeated or surplus arguments, naming `function`. At most 64 names.
bool MatchArguments(const char* function, PyObject* const* args, Py_ssize_t nargs,
                    PyObject* kwnames, std::span<PyObject* const> names, Py_ssize_t max_positional,
                    PyObject** out);

// The argument or None when left out.
inline nb::handle ArgOrNone(PyObject* arg) { return arg ? nb::handle(arg) : nb::none(); }

// Runs `body` (returning nb::object) and hands its result to Python, or
// nullptr with the Python error set from whatever it threw.
template <typename Body>
PyObject* Guarded(Body&& body) noexcept {
  try {
    return body().release().ptr();
  } catch (nb::python_error& error) {
    error.restore();
  } catch (const nb::cast_error&) {
    PyErr_SetString(PyExc_TypeError, "an argument has the wrong type");
  } catch (const std::bad_alloc&) {
    PyErr_NoMemory();
  } catch (const std::exception& error) {
    PyErr_SetString(PyExc_RuntimeError, error.what());
  } catch (...) {
    PyErr_SetString(PyExc_RuntimeError, "unknown C++ exception");
  }
  return nullptr;
}

// Adds `def` to the class `cls` as a method (Python checks that self is an
// instance before the call); `def` must outlive the module (a static).
void AddFastMethod(nb::handle cls, PyMethodDef* def);

}  // namespace quiver::python
