// What the two tensor column bindings share at class level (see also the
// helpers declared in py_objects.h, defined in py_tensor_columns.cc).
#pragma once

#include <nanobind/nanobind.h>

#include "py_c_device.h"
#include "py_capsules.h"
#include "py_index.h"
#include "py_numpy.h"
#include "py_objects.h"

namespace quiver::python {

// The members both tensor column classes have alike: null_count, offset,
// is_valid(i), storage (zero-copy, `storage_doc`) and __arrow_c_array__
// (`export_doc`), and __arrow_c_device_array__.
template <typename A>
void AddColumnBasics(nb::class_<A>& cls, const char* storage_doc, const char* export_doc) {
  cls.def_prop_ro("null_count", [](const A& a) { return a.array.null_count(); })
      .def_prop_ro(
          "dtype",
          [](const A& a) {
            const DataType& value = *a.array.type().value_type();
            return value.id() == TypeId::kBool ? Numpy().attr("dtype")("bool") : NumpyDtype(value);
          },
          "The NumPy dtype of the values (bool for bool and bool8).")
      .def_prop_ro("offset", [](const A& a) { return a.array.data()->offset; })
      .def(
          "is_valid",
          [](const A& a, int64_t i) { return a.array.IsValid(ResolveIndex(i, a.array.length())); },
          nb::arg("i"))
      .def_prop_ro(
          "storage", [](const A& a) { return PyArray{StorageOf(a.array.data())}; }, storage_doc)
      .def(
          "__arrow_c_array__",
          [](const A& a, nb::handle requested) {
            return ExportArrayWithSchema(a.array.data(), requested);
          },
          nb::arg("requested_schema") = nb::none(), export_doc)
      .def(
          "__arrow_c_device_array__",
          [](const A& a, nb::handle requested, nb::kwargs kwargs) {
            return ExportDeviceArrayWithSchema(a.array.data(), requested, kwargs);
          },
          nb::arg("requested_schema") = nb::none(), nb::arg("kwargs"),
          "The same as __arrow_c_array__ as (schema, device array) PyCapsules: the CPU, "
          "device_id -1.");
}

}  // namespace quiver::python
