// DataType and FixedShapeTensorType.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "py_bindings.h"
#include "py_capsules.h"
#include "py_errors.h"
#include "py_numpy.h"
#include "py_objects.h"
#include "py_pickle.h"

namespace quiver::python {

nb::object WrapType(const TypePtr& type) {
  if (type->id() == TypeId::kExtension &&
      type->extension_name() == FixedShapeTensorType::kExtensionName) {
    return nb::cast(PyFixedShapeTensorType{Unwrap(FixedShapeTensorType::FromDataType(type))});
  }
  if (type->id() == TypeId::kExtension &&
      type->extension_name() == VariableShapeTensorType::kExtensionName) {
    return nb::cast(PyVariableShapeTensorType{Unwrap(VariableShapeTensorType::FromDataType(type))});
  }
  return nb::cast(PyDataType{type});
}

nb::tuple UniformShapeToPython(const UniformShape& uniform_shape) {
  nb::list out;
  for (const auto& size : uniform_shape) {
    if (size) {
      out.append(*size);
    } else {
      out.append(nb::none());
    }
  }
  return nb::tuple(out);
}

VariableShapeTensorType MakeVariableShapeType(nb::handle value_type, int ndim,
                                              std::optional<std::vector<std::string>> dim_names,
                                              std::optional<std::vector<int64_t>> permutation,
                                              std::optional<UniformShape> uniform_shape) {
  return Unwrap(VariableShapeTensorType::Make(
      TypeFromPython(value_type), ndim, dim_names.value_or(std::vector<std::string>{}),
      permutation.value_or(std::vector<int64_t>{}), uniform_shape.value_or(UniformShape{})));
}

namespace {

// Whether `p` is 0, 1, ..., n-1: the bindings hand such a permutation to
// the type constructors as "none", as readers of both spellings expect.
bool IsIdentity(const std::vector<int64_t>& p) {
  for (size_t k = 0; k < p.size(); ++k) {
    if (p[k] != static_cast<int64_t>(k)) return false;
  }
  return true;
}

// The value type of a NumPy dtype: bools are arrow.bool8 (one byte each,
// as NumPy stores them); TypeError naming the dtype for the rest.
TypePtr TypeFromNumpyDtype(nb::handle dtype) {
  const std::string kind = nb::cast<std::string>(dtype.attr("kind"));
  const std::string name = Str(dtype);
  if (!nb::cast<bool>(dtype.attr("isnative"))) {
    Raise(Status::TypeError("value type " + name + " is in non-native byte order"));
  }
  if (TypePtr low_float = LowFloatTypeOfDtype(dtype)) return low_float;
  if (kind == "b") return bool8();
  if (kind == "i" || kind == "u" || kind == "f") {
    Result<TypePtr> type = TypeFromName(nb::cast<std::string>(dtype.attr("name")));
    if (type.ok()) return *type;
  }
  Raise(Status::TypeError("dtype " + name +
                          " is not a tensor value type (int, uint, float, bool or the "
                          "ml_dtypes bfloat16, float8_e4m3fn, float8_e5m2)"));
}

}  // namespace

TypePtr TypeFromPython(nb::handle value) {
  if (nb::isinstance<PyDataType>(value)) return nb::cast<PyDataType&>(value).type;
  nb::object numpy = Numpy();
  if (nb::isinstance<nb::str>(value)) {
    const std::string name = nb::cast<std::string>(value);
    if (name == "bool8") return bool8();
    if (name == "bfloat16") return bfloat16();
    if (name == "float8_e4m3fn") return float8_e4m3fn();
    if (name == "float8_e5m2") return float8_e5m2();
    Result<TypePtr> named = TypeFromName(name);
    if (named.ok()) return *named;
    nb::object dtype;
    try {
      dtype = numpy.attr("dtype")(value);  // "f4", "<i8", "uint16" ...
    } catch (nb::python_error&) {
      Raise(Status::TypeError(
          "unknown value type '" + name +
          "' (expected a name such as "
          "'float32', 'bool8' or 'bfloat16', or a NumPy dtype string such as 'f4')"));
    }
    return TypeFromNumpyDtype(dtype);
  }
  const bool is_dtype = nb::isinstance(value, numpy.attr("dtype"));
  if (!is_dtype && nb::hasattr(value, "__arrow_c_schema__")) {
    // pyarrow DataTypes and any other schema producer.
    return ImportSchemaCapsule(value.attr("__arrow_c_schema__")()).type;
  }
  nb::object dtype;
  try {
    dtype = numpy.attr("dtype")(value);
  } catch (nb::python_error&) {
    Raise(
        Status::TypeError("expected a value type (a name such as 'float32', a quiver "
                          "DataType, a NumPy dtype or a pyarrow DataType), got " +
                          std::string(nb::repr(value).c_str())));
  }
  return TypeFromNumpyDtype(dtype);
}

namespace {

bool HasTimeUnit(const DataType& type) {
  const TypeId id = type.id();
  return id == TypeId::kTime32 || id == TypeId::kTime64 || id == TypeId::kTimestamp ||
         id == TypeId::kDuration;
}

bool IsDecimal(const DataType& type) {
  const TypeId id = type.id();
  return id == TypeId::kDecimal32 || id == TypeId::kDecimal64 || id == TypeId::kDecimal128 ||
         id == TypeId::kDecimal256;
}

template <typename T>
std::optional<std::vector<T>> NoneIfEmpty(const std::vector<T>& values) {
  if (values.empty()) return std::nullopt;
  return values;
}

void BindDataType(nb::module_& m) {
  nb::class_<PyDataType>(m, "DataType", "An Arrow data type.")
      .def_prop_ro(
          "id", [](const PyDataType& t) { return t.type->ToString(); },
          "The type's name with its parameters, e.g. 'fixed_size_list<item: float32>[4]'.")
      .def_prop_ro(
          "bit_width", [](const PyDataType& t) { return t.type->bit_width(); },
          "Bits per value for fixed-width types, 0 otherwise.")
      .def_prop_ro(
          "extension_name",
          [](const PyDataType& t) -> std::optional<std::string> {
            if (t.type->id() != TypeId::kExtension) return std::nullopt;
            return t.type->extension_name();
          },
          "The ARROW:extension:name of an extension type, None otherwise.")
      .def_prop_ro(
          "unit",
          [](const PyDataType& t) -> std::optional<std::string> {
            if (!HasTimeUnit(*t.type)) return std::nullopt;
            return std::string(TimeUnitName(t.type->time_unit()));
          },
          "'s', 'ms', 'us' or 'ns' for time32/64, timestamp and duration types, "
          "None otherwise.")
      .def_prop_ro(
          "tz",
          [](const PyDataType& t) -> std::optional<std::string> {
            if (t.type->id() != TypeId::kTimestamp || t.type->timezone().empty()) {
              return std::nullopt;
            }
            return t.type->timezone();
          },
          "The time zone of a timestamp type, None when it has none.")
      .def_prop_ro(
          "precision",
          [](const PyDataType& t) -> std::optional<int32_t> {
            if (!IsDecimal(*t.type)) return std::nullopt;
            return t.type->precision();
          },
          "Decimal digits of a decimal32/64/128/256 type, None otherwise.")
      .def_prop_ro(
          "scale",
          [](const PyDataType& t) -> std::optional<int32_t> {
            if (!IsDecimal(*t.type)) return std::nullopt;
            return t.type->scale();
          },
          "Digits after the decimal point of a decimal type, None otherwise.")
      .def_prop_ro(
          "index_type",
          [](const PyDataType& t) -> nb::object {
            if (t.type->id() != TypeId::kDictionary) return nb::none();
            return WrapType(t.type->index_type());
          },
          "The index type of a dictionary type, None otherwise.")
      .def_prop_ro(
          "value_type",
          [](const PyDataType& t) -> nb::object {
            if (t.type->id() != TypeId::kDictionary) return nb::none();
            return WrapType(t.type->value_type());
          },
          "The value type of a dictionary type, None otherwise.")
      .def_prop_ro(
          "ordered",
          [](const PyDataType& t) -> std::optional<bool> {
            if (t.type->id() != TypeId::kDictionary) return std::nullopt;
            return t.type->ordered();
          },
          "Whether a dictionary type's order is meaningful, None for other types.")
      .def("__eq__",
           [](const PyDataType& a, nb::handle b) {
             return nb::isinstance<PyDataType>(b) && a.type->Equals(*nb::cast<PyDataType&>(b).type);
           })
      .def("__hash__",
           [](const PyDataType& t) { return std::hash<std::string>{}(t.type->ToString()); })
      .def("__reduce__", [](const PyDataType& t) { return ReduceType(t.type); })
      .def("__copy__", [](nb::handle self) { return nb::borrow(self); })
      .def(
          "__deepcopy__", [](nb::handle self, nb::handle) { return nb::borrow(self); },
          nb::arg("memo"))
      .def(
          "to_numpy_dtype", [](const PyDataType& t) { return NumpyDtype(*t.type); },
          "The NumPy dtype holding this value type (bool8 -> bool; bfloat16 and float8 -> the "
          "ml_dtypes dtype); TypeError for the rest.")
      .def("__str__", [](const PyDataType& t) { return t.type->ToString(); })
      .def("__repr__",
           [](const PyDataType& t) { return "quiver.DataType(" + t.type->ToString() + ")"; })
      .def(
          "__arrow_c_schema__",
          [](const PyDataType& t) {
            return SchemaCapsule(Field{"", t.type, true, {}});
          },
          "Exports the type as an 'arrow_schema' PyCapsule (Arrow PyCapsule protocol).");
  m.def(
      "type_for", [](nb::handle value) { return PyDataType{TypeFromPython(value)}; },
      nb::arg("value"),
      "The DataType named by a string ('float32'), a NumPy dtype, or a DataType.");
  m.def(
      "type_from_arrow",
      [](nb::handle obj) {
        if (!nb::hasattr(obj, "__arrow_c_schema__")) {
          Raise(
              Status::TypeError("type_from_arrow needs an object with __arrow_c_schema__ (a "
                                "pyarrow DataType, Field or Schema, say), got " +
                                std::string(nb::type_name(obj.type()).c_str())));
        }
        return WrapType(ImportSchemaCapsule(obj.attr("__arrow_c_schema__")()).type);
      },
      nb::arg("obj"),
      "Imports the type of any object with __arrow_c_schema__ (pyarrow types too).");
}

void BindFixedShapeTensorType(nb::module_& m) {
  nb::class_<PyFixedShapeTensorType>(m, "FixedShapeTensorType",
                                     "The arrow.fixed_shape_tensor extension type. shape and "
                                     "dim_names describe each cell's physical (row-major) "
                                     "layout; permutation maps logical to physical axes.")
      .def_prop_ro("value_type",
                   [](const PyFixedShapeTensorType& t) { return PyDataType{t.type.value_type()}; })
      .def_prop_ro("shape", [](const PyFixedShapeTensorType& t) { return ToTuple(t.type.shape()); })
      .def_prop_ro("dim_names",
                   [](const PyFixedShapeTensorType& t) { return NoneIfEmpty(t.type.dim_names()); })
      .def_prop_ro(
          "permutation",
          [](const PyFixedShapeTensorType& t) { return NoneIfEmpty(t.type.permutation()); })
      .def_prop_ro("ndim", [](const PyFixedShapeTensorType& t) { return t.type.ndim(); })
      .def_prop_ro(
          "logical_shape",
          [](const PyFixedShapeTensorType& t) { return ToTuple(t.type.logical_shape()); },
          "The cell shape as to_numpy() shows it: shape permuted by permutation.")
      .def_prop_ro("extension_name",
                   [](const PyFixedShapeTensorType&) {
                     return std::string(FixedShapeTensorType::kExtensionName);
                   })
      .def_prop_ro("storage_type",
                   [](const PyFixedShapeTensorType& t) {
                     return PyDataType{t.type.data_type()->storage_type()};
                   })
      .def(
          "serialize", [](const PyFixedShapeTensorType& t) { return t.type.Serialize(); },
          "The ARROW:extension:metadata JSON string.")
      .def("__eq__",
           [](const PyFixedShapeTensorType& a, nb::handle b) {
             return nb::isinstance<PyFixedShapeTensorType>(b) &&
                    a.type.Equals(nb::cast<PyFixedShapeTensorType&>(b).type);
           })
      .def("__hash__",
           [](const PyFixedShapeTensorType& t) {
             // Equal types hash alike: an explicit identity permutation is none.
             const auto& p = t.type.permutation();
             auto plain =
                 FixedShapeTensorType::Make(t.type.value_type(), t.type.shape(), t.type.dim_names(),
                                            IsIdentity(p) ? std::vector<int64_t>{} : p);
             return std::hash<std::string>{}(plain.ok() ? plain->ToString() : t.type.ToString());
           })
      .def("__reduce__",
           [](const PyFixedShapeTensorType& t) { return ReduceType(t.type.data_type()); })
      .def("__copy__", [](nb::handle self) { return nb::borrow(self); })
      .def(
          "__deepcopy__", [](nb::handle self, nb::handle) { return nb::borrow(self); },
          nb::arg("memo"))
      .def("__str__", [](const PyFixedShapeTensorType& t) { return t.type.ToString(); })
      .def("__repr__",
           [](const PyFixedShapeTensorType& t) { return "quiver." + t.type.ToString(); })
      .def(
          "__arrow_c_schema__",
          [](const PyFixedShapeTensorType& t) {
            return SchemaCapsule(Field{"", t.type.data_type(), true, {}});
          },
          "Exports the extension type as an 'arrow_schema' PyCapsule.");
  m.def(
      "fixed_shape_tensor",
      [](nb::handle value_type, std::vector<int64_t> shape,
         std::optional<std::vector<std::string>> dim_names,
         std::optional<std::vector<int64_t>> permutation) {
        return PyFixedShapeTensorType{
            Unwrap(FixedShapeTensorType::Make(TypeFromPython(value_type), std::move(shape),
                                              dim_names.value_or(std::vector<std::string>{}),
                                              permutation.value_or(std::vector<int64_t>{})))};
      },
      nb::arg("value_type"), nb::arg("shape"), nb::arg("dim_names") = nb::none(),
      nb::arg("permutation") = nb::none(),
      "An arrow.fixed_shape_tensor type. value_type: a name ('float32'), NumPy dtype or "
      "DataType; shape: the physical cell shape; dim_names: one name per axis; permutation: "
      "logical axis i is physical axis permutation[i].");
}

void BindVariableShapeTensorType(nb::module_& m) {
  using T = PyVariableShapeTensorType;
  nb::class_<T>(m, "VariableShapeTensorType",
                "The arrow.variable_shape_tensor extension type: one tensor of ndim axes per "
                "row, each with its own shape. dim_names and uniform_shape describe physical "
                "axes; permutation maps logical to physical axes.")
      .def_prop_ro("value_type", [](const T& t) { return PyDataType{t.type.value_type()}; })
      .def_prop_ro("ndim", [](const T& t) { return t.type.ndim(); })
      .def_prop_ro("dim_names", [](const T& t) { return NoneIfEmpty(t.type.dim_names()); })
      .def_prop_ro("permutation", [](const T& t) { return NoneIfEmpty(t.type.permutation()); })
      .def_prop_ro(
          "uniform_shape",
          [](const T& t) -> std::optional<nb::tuple> {
            if (t.type.uniform_shape().empty()) return std::nullopt;
            return UniformShapeToPython(t.type.uniform_shape());
          },
          "Per physical axis the size every row shares, None where sizes vary; None "
          "when the type records nothing.")
      .def_prop_ro("extension_name",
                   [](const T&) { return std::string(VariableShapeTensorType::kExtensionName); })
      .def_prop_ro("storage_type",
                   [](const T& t) { return PyDataType{t.type.data_type()->storage_type()}; })
      .def(
          "serialize", [](const T& t) { return t.type.Serialize(); },
          "The ARROW:extension:metadata JSON string (final form).")
      .def("__eq__",
           [](const T& a, nb::handle b) {
             return nb::isinstance<T>(b) && a.type.Equals(nb::cast<T&>(b).type);
           })
      .def("__hash__",
           [](const T& t) {
             const auto& p = t.type.permutation();
             auto plain = VariableShapeTensorType::Make(
                 t.type.value_type(), t.type.ndim(), t.type.dim_names(),
                 IsIdentity(p) ? std::vector<int64_t>{} : p, t.type.uniform_shape());
             return std::hash<std::string>{}(plain.ok() ? plain->ToString() : t.type.ToString());
           })
      .def("__reduce__", [](const T& t) { return ReduceType(t.type.data_type()); })
      .def("__copy__", [](nb::handle self) { return nb::borrow(self); })
      .def(
          "__deepcopy__", [](nb::handle self, nb::handle) { return nb::borrow(self); },
          nb::arg("memo"))
      .def("__str__", [](const T& t) { return t.type.ToString(); })
      .def("__repr__", [](const T& t) { return "quiver." + t.type.ToString(); })
      .def(
          "__arrow_c_schema__",
          [](const T& t) {
            return SchemaCapsule(Field{"", t.type.data_type(), true, {}});
          },
          "Exports the extension type as an 'arrow_schema' PyCapsule.");
  m.def(
      "variable_shape_tensor",
      [](nb::handle value_type, int ndim, std::optional<std::vector<std::string>> dim_names,
         std::optional<std::vector<int64_t>> permutation,
         std::optional<UniformShape> uniform_shape) {
        return T{MakeVariableShapeType(value_type, ndim, std::move(dim_names),
                                       std::move(permutation), std::move(uniform_shape))};
      },
      nb::arg("value_type"), nb::arg("ndim"), nb::arg("dim_names") = nb::none(),
      nb::arg("permutation") = nb::none(), nb::arg("uniform_shape") = nb::none(),
      "An arrow.variable_shape_tensor type. value_type: a name ('float32'), NumPy dtype or "
      "DataType; ndim: axes per tensor; dim_names: one name per physical axis; permutation: "
      "logical axis i is physical axis permutation[i]; uniform_shape: per physical axis an "
      "int (every row has that size) or None (sizes vary).");
}

}  // namespace

void BindTypes(nb::module_& m) {
  BindDataType(m);
  BindFixedShapeTensorType(m);
  BindVariableShapeTensorType(m);
}

}  // namespace quiver::python
