#include "py_fastcall.h"

#include <cassert>
#include <cstdint>
#include <string>

namespace quiver::python {

PyObject* Interned(const char* name) {
  PyObject* text = PyUnicode_InternFromString(name);
  if (text == nullptr) throw nb::python_error();
  return text;  // the reference is kept: callers hold these in statics
}

namespace {

// Index of `key` in `names`: by identity first (interned keywords), then
// by value for keyword names built at run time.
Py_ssize_t FindName(PyObject* key, std::span<PyObject* const> names) {
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == key) return static_cast<Py_ssize_t>(i);
  }
  for (size_t i = 0; i < names.size(); ++i) {
    int equal = PyUnicode_Compare(names[i], key);
    if (equal == 0) return static_cast<Py_ssize_t>(i);
    if (equal == -1 && PyErr_Occurred()) PyErr_Clear();
  }
  return -1;
}

}  // namespace

bool MatchArguments(const char* function, PyObject* const* args, Py_ssize_t nargs,
                    PyObject* kwnames, std::span<PyObject* const> names, Py_ssize_t max_positional,
                    PyObject** out) {
  assert(names.size() <= 64);  // the `seen` mask below
  for (size_t i = 0; i < names.size(); ++i) out[i] = nullptr;
  if (nargs > max_positional) {
    PyErr_Format(PyExc_TypeError, "%s() takes at most %zd positional arguments (%zd given)",
                 function, max_positional, nargs);
    return false;
  }
  // Which names have a value, kept in a register: reading out[at] back
  // right after the (vectorised) clearing above stalls on store forwarding.
  uint64_t seen = 0;
  for (Py_ssize_t i = 0; i < nargs; ++i) {
    out[i] = args[i];
    seen |= uint64_t{1} << i;
  }
  const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < nkw; ++k) {
    PyObject* key = PyTuple_GET_ITEM(kwnames, k);
    const Py_ssize_t at = FindName(key, names);
    if (at < 0) {
      PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", function, key);
      return false;
    }
    if (seen & (uint64_t{1} << at)) {
      PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%U'", function, key);
      return false;
    }
    seen |= uint64_t{1} << at;
    out[at] = args[nargs + k];
  }
  return true;
}

void AddFastMethod(nb::handle cls, PyMethodDef* def) {
  PyObject* method = PyDescr_NewMethod(reinterpret_cast<PyTypeObject*>(cls.ptr()), def);
  if (method == nullptr) throw nb::python_error();
  nb::setattr(cls, def->ml_name, nb::steal(method));
}

}  // namespace quiver::python
