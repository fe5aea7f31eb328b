// VariableShapeTensorArray: ragged tensor columns to and from NumPy.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "py_capsules.h"
#include "py_convert.h"
#include "py_objects.h"

namespace quiver::python {

namespace {

using Names = std::optional<std::vector<std::string>>;
using Ints = std::optional<std::vector<int64_t>>;
using Uniform = std::optional<UniformShape>;

// Any array-like as a CPU array view (NumPy converts lists and scalars).
InputArray AsArray(nb::handle value, const char* what) {
  InputArray array;
  if (nb::try_cast(value, array)) return array;
  nb::object converted = nb::module_::import_("numpy").attr("asarray")(value);
  if (!nb::try_cast(converted, array)) {
    Raise(Status::TypeError(std::string(what) + " is not an array of numbers: " +
                            std::string(nb::repr(value).c_str())));
  }
  return array;
}

Tensor TensorFrom(nb::handle value, const char* what) {
  return TensorFromArray(AsArray(value, what), {});
}

// The array type: `type` when given, else built from the value type and
// ndim the data shows plus the other parameters.
VariableShapeTensorType ResolveType(nb::handle type, const TypePtr& value_type, int ndim,
                                    Names dim_names, Ints permutation, Uniform uniform_shape) {
  if (!type.is_none()) {
    if (dim_names || permutation || uniform_shape) {
      Raise(Status::Invalid("pass either type= or dim_names / permutation / uniform_shape, "
                            "not both"));
    }
    if (!nb::isinstance<PyVariableShapeTensorType>(type)) {
      Raise(Status::TypeError("type must be a quiver.VariableShapeTensorType"));
    }
    return nb::cast<PyVariableShapeTensorType&>(type).type;
  }
  if (!value_type) {
    Raise(Status::Invalid("cannot infer the value type and ndim without a non-null row; pass "
                          "type=quiver.variable_shape_tensor(...)"));
  }
  return Unwrap(VariableShapeTensorType::Make(value_type, ndim, dim_names.value_or(std::vector<std::string>{}),
                                              permutation.value_or(std::vector<int64_t>{}),
                                              uniform_shape.value_or(UniformShape{})));
}

PyVariableShapeTensorArray FromNumpy(nb::iterable arrays, Names dim_names, Ints permutation,
                                     Uniform uniform_shape, nb::handle type) {
  std::vector<std::optional<Tensor>> rows;
  BorrowedBuffers borrowed;  // released after the copy below
  TypePtr value_type;
  int ndim = 0;
  for (nb::handle item : arrays) {
    if (item.is_none()) {
      rows.emplace_back();
      continue;
    }
    std::optional<Tensor> fast = borrowed.TryBorrow(item);
    Tensor tensor = fast ? std::move(*fast) : TensorFrom(item, ("row " + std::to_string(rows.size())).c_str());
    if (!value_type) value_type = tensor.type(), ndim = tensor.ndim();
    rows.emplace_back(std::move(tensor));
  }
  VariableShapeTensorType resolved = ResolveType(type, value_type, ndim, std::move(dim_names),
                                                 std::move(permutation), std::move(uniform_shape));
  auto built = VariableShapeTensorArray::FromTensors(resolved, rows);
  rows.clear();  // drop the borrowed views before their buffers are released
  return {Unwrap(std::move(built))};
}

PyVariableShapeTensorArray FromPadded(nb::handle batch, nb::handle shapes, Names dim_names,
                                      Ints permutation, Uniform uniform_shape, nb::handle type) {
  Tensor padded = TensorFrom(batch, "batch");
  if (padded.ndim() < 1) Raise(Status::Invalid("a padded batch needs a row axis"));
  VariableShapeTensorType resolved = ResolveType(type, padded.type(), padded.ndim() - 1,
                                                 std::move(dim_names), std::move(permutation),
                                                 std::move(uniform_shape));
  return {Unwrap(VariableShapeTensorArray::FromPadded(resolved, padded, TensorFrom(shapes, "shapes")))};
}

PyVariableShapeTensorArray FromJagged(nb::handle values, nb::handle offsets, nb::handle shapes,
                                      Names dim_names, Ints permutation, Uniform uniform_shape,
                                      nb::handle type) {
  Tensor flat = TensorFrom(values, "values");
  Tensor shape_tensor = TensorFrom(shapes, "shapes");
  int ndim = shape_tensor.ndim() == 2 ? static_cast<int>(shape_tensor.shape()[1]) : 0;
  VariableShapeTensorType resolved = ResolveType(type, flat.type(), ndim, std::move(dim_names),
                                                 std::move(permutation), std::move(uniform_shape));
  std::optional<Tensor> offset_tensor;
  if (!offsets.is_none()) offset_tensor = TensorFrom(offsets, "offsets");
  return {Unwrap(VariableShapeTensorArray::FromJagged(resolved, flat, shape_tensor, offset_tensor))};
}

nb::object RowOrNone(const VariableShapeTensorArray& array, int64_t i) {
  int64_t row = ResolveIndex(i, array.length());
  if (!array.IsValid(row)) return nb::none();
  return TensorToNumpy(Unwrap(array.RowTensor(row)));
}

// Indices as a contiguous int64 NumPy array.
nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig> IndexArray(nb::handle indices) {
  nb::object numpy = nb::module_::import_("numpy");
  nb::object converted = numpy.attr("ascontiguousarray")(indices, numpy.attr("int64"));
  return nb::cast<nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig>>(converted);
}

PyVariableShapeTensorArray Take(const PyVariableShapeTensorArray& a, nb::handle indices) {
  auto index = IndexArray(indices);
  return {Unwrap(a.array.Take({index.data(), index.shape(0)}))};
}

PyVariableShapeTensorArray Filter(const PyVariableShapeTensorArray& a, nb::handle mask) {
  nb::object numpy = nb::module_::import_("numpy");
  nb::object flags = numpy.attr("ascontiguousarray")(mask, numpy.attr("bool_")).attr("view")(numpy.attr("uint8"));
  auto view = nb::cast<nb::ndarray<const uint8_t, nb::ndim<1>, nb::c_contig>>(flags);
  return {Unwrap(a.array.Filter({view.data(), view.shape(0)}))};
}

nb::object GetSlice(const PyVariableShapeTensorArray& a, nb::slice slice) {
  auto [start, stop, step, count] = slice.compute(static_cast<size_t>(a.array.length()));
  if (step == 1) {
    return nb::cast(PyVariableShapeTensorArray{Unwrap(a.array.Slice(start, count))});
  }
  std::vector<int64_t> indices(count);
  for (size_t j = 0; j < count; ++j) indices[j] = static_cast<int64_t>(start) + static_cast<int64_t>(j) * step;
  return nb::cast(PyVariableShapeTensorArray{Unwrap(a.array.Take(indices))});
}

const char* kFromParams =
    " dim_names, permutation and uniform_shape are the type's parameters (physical axes, as "
    "in quiver.variable_shape_tensor); or pass type= instead.";

}  // namespace

void BindVariableShapeTensorArray(nb::module_& m) {
  using A = PyVariableShapeTensorArray;
  nb::class_<A>(m, "VariableShapeTensorArray",
                "A column of arrow.variable_shape_tensor: one tensor per row, each with its own "
                "shape.")
      .def_static("from_numpy", &FromNumpy, nb::arg("arrays"), nb::arg("dim_names") = nb::none(),
                  nb::arg("permutation") = nb::none(), nb::arg("uniform_shape") = nb::none(),
                  nb::kw_only(), nb::arg("type").none() = nb::none(),
                  (std::string("Rows from a sequence of arrays (None = null row), copied once into "
                               "one buffer. The value type and ndim come from the first array.") +
                   kFromParams).c_str())
      .def_static("from_padded", &FromPadded, nb::arg("batch"), nb::arg("shapes"),
                  nb::arg("dim_names") = nb::none(), nb::arg("permutation") = nb::none(),
                  nb::arg("uniform_shape") = nb::none(), nb::kw_only(), nb::arg("type").none() = nb::none(),
                  (std::string("Rows cut from a padded (N, *max_shape) batch: row i is "
                               "batch[i, :shapes[i, 0], :shapes[i, 1], ...]. Copies.") +
                   kFromParams).c_str())
      .def_static("from_jagged", &FromJagged, nb::arg("values"), nb::arg("offsets").none(),
                  nb::arg("shapes"), nb::arg("dim_names") = nb::none(),
                  nb::arg("permutation") = nb::none(), nb::arg("uniform_shape") = nb::none(),
                  nb::kw_only(), nb::arg("type").none() = nb::none(),
                  (std::string("Rows from the storage layout: 1-D values, N + 1 offsets (or None "
                               "to derive them from the shapes) and (N, ndim) physical shapes. "
                               "Zero-copy for values, and for int32 offsets and shapes.") +
                   kFromParams).c_str())
      .def("to_numpy",
           [](const A& a) {
             nb::list out;
             for (int64_t i = 0; i < a.array.length(); ++i) out.append(RowOrNone(a.array, i));
             return out;
           },
           "A list with one read-only NumPy view per row (zero-copy, permutation applied), "
           "None for null rows.")
      .def("__len__", [](const A& a) { return a.array.length(); })
      .def("__getitem__", [](const A& a, int64_t i) { return RowOrNone(a.array, i); }, nb::arg("i"),
           "Row i as a read-only NumPy view (None for a null row).")
      .def("__getitem__", &GetSlice,
           "A slice of rows: zero-copy for step 1, a copy (take) otherwise.")
      .def("row_tensor",
           [](const A& a, int64_t i, bool allow_nulls) {
             return PyTensor{Unwrap(a.array.RowTensor(ResolveIndex(i, a.array.length()),
                                                      NullPolicyFrom(allow_nulls)))};
           },
           nb::arg("i"), nb::arg("allow_nulls") = false,
           "Row i as a quiver.Tensor (zero-copy), e.g. for DLPack: torch.from_dlpack(a.row_tensor(i)).")
      .def("shapes", [](const A& a) { return TensorToNumpy(Unwrap(a.array.Shapes())); },
           "The logical shape of every row as an (N, ndim) int32 array: a read-only view of the "
           "storage without a permutation, a copy with one.")
      .def("to_padded",
           [](const A& a, double pad_value, bool allow_nulls) {
             auto padded = Unwrap(a.array.ToPadded(pad_value, NullPolicyFrom(allow_nulls)));
             return nb::make_tuple(TensorToNumpy(padded.values), TensorToNumpy(padded.shapes));
           },
           nb::arg("pad_value") = 0.0, nb::arg("allow_nulls") = false,
           "(batch, shapes): every row copied into a (N, *max_shape) array filled with pad_value "
           "elsewhere, and the (N, ndim) logical shapes. pad_value must be exactly representable "
           "in the value type. With allow_nulls=True null rows are all padding, shape zeros.")
      .def("to_jagged",
           [](const A& a, bool allow_nulls) {
             auto jagged = Unwrap(a.array.ToJagged(NullPolicyFrom(allow_nulls)));
             return nb::make_tuple(TensorToNumpy(jagged.values), TensorToNumpy(jagged.offsets),
                                   TensorToNumpy(jagged.shapes));
           },
           nb::arg("allow_nulls") = false,
           "(values, offsets, shapes): the flat values (a zero-copy view), N + 1 int64 element "
           "offsets starting at 0, and the (N, ndim) PHYSICAL shapes (the storage layout).")
      .def("take", &Take, nb::arg("indices"), "The rows at `indices` (non-negative), copied.")
      .def("filter", &Filter, nb::arg("mask"), "The rows where `mask` is true, copied.")
      .def("to_fixed",
           [](const A& a, std::optional<bool> copy) {
             return PyFixedShapeTensorArray{Unwrap(a.array.ToFixed(CopyModeFromPython(copy)))};
           },
           nb::arg("copy") = nb::none(),
           "A FixedShapeTensorArray when every row has the same shape (ValueError otherwise). "
           "Zero-copy when the rows' data is evenly spaced; copy=False raises instead of "
           "copying, copy=True always copies.")
      .def("infer_uniform_shape",
           [](const A& a) { return UniformShapeToPython(a.array.InferUniformShape()); },
           "Per physical axis the size every non-null row shares, None where rows differ.")
      .def("with_uniform_shape",
           [](const A& a, Uniform uniform_shape) {
             return A{Unwrap(a.array.WithUniformShape(uniform_shape.value_or(UniformShape{})))};
           },
           nb::arg("uniform_shape"),
           "The same data (zero-copy) with uniform_shape recorded in the type, checked on every "
           "row; None clears it.")
      .def_prop_ro("type", [](const A& a) { return PyVariableShapeTensorType{a.array.type()}; })
      .def_prop_ro("null_count", [](const A& a) { return a.array.null_count(); })
      .def_prop_ro("offset", [](const A& a) { return a.array.data()->offset; })
      .def("is_valid", [](const A& a, int64_t i) { return a.array.IsValid(ResolveIndex(i, a.array.length())); },
           nb::arg("i"))
      .def_prop_ro("storage", [](const A& a) { return PyArray{StorageOf(a.array.data())}; }, "The struct<data, shape> storage as a plain Array (zero-copy).")
      .def("__arrow_c_array__",
           [](const A& a, nb::handle requested) { return ExportArrayWithSchema(a.array.data(), requested); },
           nb::arg("requested_schema") = nb::none(),
           "Exports (schema, array) PyCapsules, zero-copy, with the extension metadata.")
      .def("__repr__", [](const A& a) {
        return "quiver.VariableShapeTensorArray<" + a.array.type().ToString() + ">(length=" +
               std::to_string(a.array.length()) + ")";
      });

  m.def(
      "concat",
      [](std::vector<const A*> arrays) {
        std::vector<VariableShapeTensorArray> parts;
        for (const A* a : arrays) parts.push_back(a->array);
        return A{Unwrap(VariableShapeTensorArray::Concat(parts))};
      },
      nb::arg("arrays"),
      "The rows of several VariableShapeTensorArrays in order (a copy). They must agree on "
      "value type, ndim, dim_names and permutation; uniform_shape keeps an axis only where "
      "every input records the same size.");
}

}  // namespace quiver::python
