// Array (any Arrow array), FixedShapeTensorArray and quiver.array().
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "py_capsules.h"
#include "py_convert.h"
#include "py_dlpack.h"
#include "py_objects.h"

namespace quiver::python {

nb::object WrapArray(ArrayDataPtr data) {
  if (data->type->id() == TypeId::kExtension &&
      data->type->extension_name() == FixedShapeTensorType::kExtensionName) {
    // Already validated on import; parse the type only.
    return nb::cast(PyFixedShapeTensorArray{
        Unwrap(FixedShapeTensorArray::Make(std::move(data), ValidationLevel::kNone))});
  }
  if (data->type->id() == TypeId::kExtension &&
      data->type->extension_name() == VariableShapeTensorType::kExtensionName) {
    // The storage was validated on import; the rows are checked here.
    return nb::cast(PyVariableShapeTensorArray{
        Unwrap(VariableShapeTensorArray::Make(std::move(data), ValidationLevel::kFull))});
  }
  return nb::cast(PyArray{std::move(data)});
}

namespace {

void BindArray(nb::module_& m) {
  nb::class_<PyArray>(m, "Array",
                      "An Arrow array of any type quiver understands, held zero-copy. "
                      "Export it with the Arrow PyCapsule protocol (pyarrow.array(a)).")
      .def("__len__", [](const PyArray& a) { return a.data->length; })
      .def_prop_ro("type", [](const PyArray& a) { return WrapType(a.data->type); })
      .def_prop_ro("null_count", [](const PyArray& a) { return a.data->ComputeNullCount(); })
      .def_prop_ro("offset", [](const PyArray& a) { return a.data->offset; })
      .def("is_valid",
           [](const PyArray& a, int64_t i) { return a.data->IsValid(ResolveIndex(i, a.data->length)); },
           nb::arg("i"), "Whether row i is non-null.")
      .def("__getitem__",
           [](const PyArray& a, nb::slice slice) {
             auto [start, count] = ResolveSlice(slice, a.data->length);
             return PyArray{Unwrap(Slice(a.data, start, count))};
           },
           "A zero-copy slice (step 1).")
      .def("validate",
           [](const PyArray& a, bool full) {
             Check(Validate(*a.data, full ? ValidationLevel::kFull : ValidationLevel::kDefault));
           },
           nb::arg("full") = true, "Raises ValueError if the array's buffers are inconsistent.")
      .def("__arrow_c_array__",
           [](const PyArray& a, nb::handle requested) { return ExportArrayWithSchema(a.data, requested); },
           nb::arg("requested_schema") = nb::none(),
           "Exports (schema, array) PyCapsules, zero-copy.")
      .def("__repr__", [](const PyArray& a) {
        return "quiver.Array<" + a.data->type->ToString() + ">(length=" +
               std::to_string(a.data->length) + ")";
      });
}

nb::object RowView(const PyFixedShapeTensorArray& a, int64_t i, bool allow_nulls) {
  return TensorToNumpy(Unwrap(a.array.RowTensor(
      ResolveIndex(i, a.array.length()), NullPolicyFrom(allow_nulls))));
}

void BindFixedShapeTensorArray(nb::module_& m) {
  nb::class_<PyFixedShapeTensorArray>(
      m, "FixedShapeTensorArray",
      "A column of arrow.fixed_shape_tensor: one tensor of the same shape per row.")
      .def_static(
          "from_numpy",
          [](InputArray ndarray, std::optional<std::vector<std::string>> dim_names,
             std::optional<bool> copy) {
            std::vector<std::string> names;
            if (dim_names) {
              if (dim_names->size() + 1 != ndarray.ndim()) {
                Raise(Status::Invalid("dim_names has " + std::to_string(dim_names->size()) +
                                      " entries for cells of " +
                                      std::to_string(ndarray.ndim() - 1) + " dimensions"));
              }
              names.push_back("");
              names.insert(names.end(), dim_names->begin(), dim_names->end());
            }
            Tensor tensor = TensorFromArray(ndarray, std::move(names));
            return PyFixedShapeTensorArray{
                Unwrap(FixedShapeTensorArray::FromTensor(tensor, CopyModeFromPython(copy)))};
          },
          nb::arg("ndarray"), nb::arg("dim_names") = nb::none(), nb::arg("copy") = nb::none(),
          "Rows from axis 0 of an (N, *cell_shape) array. Zero-copy when every cell is a "
          "(possibly transposed) contiguous block and rows are adjacent; the permutation is "
          "recorded in the type. copy=None copies only when the layout needs it, copy=False "
          "raises ValueError instead, copy=True always copies. dim_names names the cell axes "
          "in logical (NumPy) order.")
      .def("to_numpy",
           [](const PyFixedShapeTensorArray& a, bool allow_nulls) {
             return TensorToNumpy(
                 Unwrap(a.array.ToTensor(NullPolicyFrom(allow_nulls))));
           },
           nb::arg("allow_nulls") = false,
           "A read-only (N, *logical_shape) NumPy view, zero-copy, with the permutation "
           "applied. Null rows raise ValueError unless allow_nulls=True (their slots then "
           "show whatever bytes the storage holds).")
      .def("to_tensor",
           [](const PyFixedShapeTensorArray& a, bool allow_nulls) {
             return PyTensor{Unwrap(a.array.ToTensor(NullPolicyFrom(allow_nulls)))};
           },
           nb::arg("allow_nulls") = false, "The whole column as one quiver Tensor, zero-copy.")
      .def("__len__", [](const PyFixedShapeTensorArray& a) { return a.array.length(); })
      .def("__getitem__", [](const PyFixedShapeTensorArray& a, int64_t i) { return RowView(a, i, false); },
           nb::arg("i"), "Row i as a read-only NumPy view (ValueError for a null row).")
      .def("__getitem__",
           [](const PyFixedShapeTensorArray& a, nb::slice slice) {
             auto [start, count] = ResolveSlice(slice, a.array.length());
             return PyFixedShapeTensorArray{Unwrap(a.array.Slice(start, count))};
           },
           "A zero-copy slice of rows (step 1).")
      .def("row", &RowView, nb::arg("i"), nb::arg("allow_nulls") = false,
           "Row i as a read-only NumPy view.")
      .def("__dlpack__",
           [](const PyFixedShapeTensorArray& a, nb::handle stream, nb::handle max_version,
              nb::handle dl_device, nb::handle copy) {
             return ColumnDLPackCapsule(a.array, stream, max_version, dl_device, copy);
           },
           nb::kw_only(), nb::arg("stream").none() = nb::none(),
           nb::arg("max_version").none() = nb::none(), nb::arg("dl_device").none() = nb::none(),
           nb::arg("copy").none() = nb::none(),
           "The whole column as one (N, *logical_shape) DLPack tensor, zero-copy (bit-packed "
           "bools are unpacked into a copy, refused with copy=False). Null rows raise "
           "BufferError.")
      .def("__dlpack_device__",
           [](const PyFixedShapeTensorArray& a) {
             const BufferPtr& values = a.array.data()->children[0]->buffers[1];
             return DLPackDevice(values ? values->device() : Device{});
           })
      .def("to_variable",
           [](const PyFixedShapeTensorArray& a) {
             return PyVariableShapeTensorArray{Unwrap(VariableShapeTensorArray::FromFixed(a.array))};
           },
           "The rows as a VariableShapeTensorArray with the same dim_names and permutation and "
           "uniform_shape = shape; the values are shared (zero-copy).")
      .def_prop_ro("type", [](const PyFixedShapeTensorArray& a) { return PyFixedShapeTensorType{a.array.type()}; })
      .def_prop_ro("null_count", [](const PyFixedShapeTensorArray& a) { return a.array.null_count(); })
      .def_prop_ro("offset", [](const PyFixedShapeTensorArray& a) { return a.array.data()->offset; })
      .def("is_valid",
           [](const PyFixedShapeTensorArray& a, int64_t i) {
             return a.array.IsValid(ResolveIndex(i, a.array.length()));
           },
           nb::arg("i"))
      .def_prop_ro("storage", [](const PyFixedShapeTensorArray& a) { return PyArray{StorageOf(a.array.data())}; }, "The fixed_size_list storage as a plain Array (zero-copy).")
      .def("__arrow_c_array__",
           [](const PyFixedShapeTensorArray& a, nb::handle requested) {
             return ExportArrayWithSchema(a.array.data(), requested);
           },
           nb::arg("requested_schema") = nb::none(),
           "Exports (schema, array) PyCapsules, zero-copy, with the extension metadata.")
      .def("__repr__", [](const PyFixedShapeTensorArray& a) {
        return "quiver.FixedShapeTensorArray<" + a.array.type().ToString() + ">(length=" +
               std::to_string(a.array.length()) + ")";
      });
}

}  // namespace

void BindArrays(nb::module_& m) {
  BindArray(m);
  BindFixedShapeTensorArray(m);
  m.def(
      "array",
      [](nb::handle obj) {
        if (nb::isinstance<PyArray>(obj) || nb::isinstance<PyFixedShapeTensorArray>(obj) ||
            nb::isinstance<PyVariableShapeTensorArray>(obj)) {
          return nb::borrow(obj);
        }
        if (!nb::hasattr(obj, "__arrow_c_array__")) {
          Raise(Status::TypeError("quiver.array() needs an object with __arrow_c_array__ "
                                  "(a pyarrow Array, say), got " +
                                  std::string(nb::type_name(obj.type()).c_str())));
        }
        nb::object capsules = obj.attr("__arrow_c_array__")();
        if (!nb::isinstance<nb::tuple>(capsules) || nb::len(capsules) != 2) {
          Raise(Status::TypeError("__arrow_c_array__() must return a (schema, array) tuple"));
        }
        auto [field, data] = ImportCapsules(capsules[0], capsules[1]);
        return WrapArray(std::move(data));
      },
      nb::arg("obj"),
      "Imports any object exposing __arrow_c_array__ (pyarrow, Polars, nanoarrow ...) "
      "zero-copy, validating it fully. Returns a FixedShapeTensorArray or "
      "VariableShapeTensorArray for the tensor extension types, an Array otherwise.");
}

}  // namespace quiver::python
