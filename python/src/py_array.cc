// quiver.Array (any Arrow array quiver understands) and quiver.array(),
// mirroring quiver/array.h: values as Python objects, struct fields, and
// the import of any __arrow_c_array__ producer.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "py_bindings.h"
#include "py_buffer_protocol.h"
#include "py_c_device.h"
#include "py_capsules.h"
#include "py_dlpack.h"
#include "py_errors.h"
#include "py_fastcall.h"
#include "py_index.h"
#include "py_numpy.h"
#include "py_objects.h"
#include "py_pickle.h"
#include "py_repr.h"
#include "quiver/record_batch.h"

#include <cstring>

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

// One value of a plain array as a Python object (None for a null slot).
nb::object ValueToPython(const ArrayData& data, int64_t i);

nb::list ValuesToPython(const ArrayData& data, int64_t begin, int64_t end) {
  nb::list out;
  for (int64_t i = begin; i < end; ++i) out.append(ValueToPython(data, i));
  return out;
}

// Slot `i` of a dictionary array reads as the dictionary's value there;
// an index outside the dictionary is a ValueError (it is read, not trusted).
nb::object DictionaryValue(const ArrayData& data, int64_t i) {
  const int64_t index = DictionaryIndex(data, i);
  const ArrayDataPtr& dictionary = data.dictionary;
  if (!dictionary || index < 0 || index >= dictionary->length) {
    Raise(Status::Invalid("row ", i, ": dictionary index ", index,
                          " lies outside the dictionary of ", dictionary ? dictionary->length : 0,
                          " values"));
  }
  return ValueToPython(*dictionary, index);
}

// Maps as lists of (key, value) tuples, unions as the chosen child's value,
// list views as lists, run-end encoded slots as their run's value and
// year-month / day-time intervals as months / (days, milliseconds), as
// pyarrow reads them; numbers through NumPy; other types as "<type>".
nb::object NewTypeValue(const ArrayData& data, int64_t at) {
  const DataType& type = data.type->storage();
  const int64_t i = at - data.offset;
  auto int32_at = [&](int64_t word) {
    int32_t v;
    std::memcpy(&v, data.buffers[1]->data() + word * 4, 4);
    return v;
  };
  switch (type.id()) {
    case TypeId::kMap: {
      const ArrayData& entries = *data.children[0];
      const Range range = ValueRange(data, i);
      nb::list out;
      for (int64_t k = range.begin; k < range.end; ++k) {
        out.append(nb::make_tuple(ValueToPython(*entries.children[0], entries.offset + k),
                                  ValueToPython(*entries.children[1], entries.offset + k)));
      }
      return out;
    }
    case TypeId::kListView:
    case TypeId::kLargeListView: {
      const Range range = ValueRange(data, i);
      return ValuesToPython(*data.children[0], range.begin, range.end);
    }
    case TypeId::kSparseUnion:
    case TypeId::kDenseUnion: {
      int child = 0;
      int64_t index = 0;
      if (!UnionSlot(data, i, &child, &index)) {
        Raise(Status::Invalid("row " + std::to_string(i) + ": union slot names no child value"));
      }
      return ValueToPython(*data.children[static_cast<size_t>(child)], index);
    }
    case TypeId::kRunEndEncoded:
      return ValueToPython(*data.children[1], RunEndEncodedIndex(data, i));
    case TypeId::kIntervalYearMonth: return nb::int_(int32_at(at));
    case TypeId::kIntervalDayTime: return nb::make_tuple(int32_at(at * 2), int32_at(at * 2 + 1));
    default: break;
  }
  return nb::object();
}

nb::object ValueToPython(const ArrayData& data, int64_t i) {
  if (!data.IsValid(i)) return nb::none();
  const DataType& type = data.type->storage();
  const int64_t at = data.offset + i;
  if (data.type->is_bool8()) return nb::bool_(GetBool(data, i));
  if (data.type->is_low_precision_float()) {  // natively: no ml_dtypes needed
    uint32_t bits = 0;
    const uint8_t* p = data.buffers[1]->data() + at * type.byte_width();
    if (type.byte_width() == 2) {
      uint16_t two;
      std::memcpy(&two, p, 2);
      bits = two;
    } else {
      bits = *p;
    }
    return nb::float_(static_cast<double>(LowPrecisionFloatToFloat(*data.type, bits)));
  }
  switch (type.id()) {
    case TypeId::kBool: return nb::bool_(GetBool(data, i));
    case TypeId::kUtf8:
    case TypeId::kLargeUtf8:
    case TypeId::kBinary:
    case TypeId::kLargeBinary: {
      const Range range = ValueRange(data, i);
      const char* chars =
          data.buffers[2] ? reinterpret_cast<const char*>(data.buffers[2]->data()) : "";
      if (type.id() == TypeId::kUtf8 || type.id() == TypeId::kLargeUtf8) {
        return nb::str(chars + range.begin, static_cast<size_t>(range.length()));
      }
      return nb::bytes(chars + range.begin, static_cast<size_t>(range.length()));
    }
    case TypeId::kFixedSizeBinary:
      return nb::bytes(
          reinterpret_cast<const char*>(data.buffers[1]->data()) + at * type.fixed_size(),
          static_cast<size_t>(type.fixed_size()));
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kFixedSizeList: {
      const Range range = ValueRange(data, i);
      return ValuesToPython(*data.children[0], range.begin, range.end);
    }
    case TypeId::kDictionary: return DictionaryValue(data, i);
    case TypeId::kStruct: {
      nb::dict out;
      for (size_t c = 0; c < type.children().size(); ++c) {
        out[type.children()[c].name.c_str()] = ValueToPython(*data.children[c], at);
      }
      return out;
    }
    default: {
      nb::object value = NewTypeValue(data, at);
      if (value.is_valid()) return value;
      break;
    }
  }
  if (!type.is_numeric()) return nb::str(("<" + type.ToString() + ">").c_str());
  // Numbers: one element through NumPy, so floats and halves read as NumPy does.
  // The element types quiver knows keep their type; any other extension
  // (or a known name over the wrong storage) reads as its storage.
  const TypePtr& element = data.type->is_low_precision_float()     ? data.type
                           : data.type->id() == TypeId::kExtension ? data.type->storage_type()
                                                                   : data.type;
  Tensor one = Unwrap(Tensor::Make(element, data.buffers[1], {}, {}, {}, at * type.byte_width()));
  return TensorToNumpy(one).attr("item")();
}

// Whether ValueToPython reads every value of `type` itself: it leaves
// dates, times, timestamps, durations, decimals and views to pyarrow.
bool ReadsNatively(const DataType& type) {
  const DataType& storage = type.storage();
  if (storage.id() == TypeId::kDictionary) return ReadsNatively(*storage.value_type());
  switch (storage.id()) {
    case TypeId::kMap:
    case TypeId::kSparseUnion:
    case TypeId::kDenseUnion:
    case TypeId::kListView:
    case TypeId::kLargeListView:
    case TypeId::kRunEndEncoded:
    case TypeId::kIntervalYearMonth:
    case TypeId::kIntervalDayTime: break;  // NewTypeValue
    default:
      if (storage.id() != TypeId::kNull && storage.id() > TypeId::kStruct) return false;
  }
  for (const Field& child : storage.children()) {
    if (!ReadsNatively(*child.type)) return false;
  }
  return true;
}

}  // namespace

nb::object ArrayToPylist(const ArrayDataPtr& data) {
  if (!ReadsNatively(*data->type)) {
    // As pyarrow reads them (datetime, Decimal, ...) when it is installed;
    // without it, such values read as "<type>" placeholders.
    try {
      nb::object pa = nb::module_::import_("pyarrow");
      return pa.attr("array")(WrapArray(data)).attr("to_pylist")();
    } catch (nb::python_error& e) {
      if (!e.matches(PyExc_ImportError)) throw;
    }
  }
  return ValuesToPython(*data, 0, data->length);
}

namespace {

nb::object StructField(const ArrayDataPtr& data, nb::handle key) {
  const DataType& type = data->type->storage();
  if (type.id() != TypeId::kStruct) {
    Raise(Status::TypeError("field() needs a struct array (a record batch), this one holds " +
                            data->type->ToString()));
  }
  size_t index = type.children().size();
  if (nb::isinstance<nb::str>(key)) {
    const std::string name = nb::cast<std::string>(key);
    for (size_t c = 0; c < type.children().size(); ++c) {
      if (type.children()[c].name == name) {
        index = c;
        break;
      }
    }
    if (index == type.children().size()) {
      PyErr_SetString(PyExc_KeyError, ("no field named '" + name + "'").c_str());
      throw nb::python_error();
    }
  } else {
    index = static_cast<size_t>(
        ResolveIndex(nb::cast<int64_t>(key), static_cast<int64_t>(type.children().size())));
  }
  return WrapArray(Unwrap(Slice(data->children[index], data->offset, data->length)));
}

}  // namespace

void BindArray(nb::module_& m) {
  nb::class_<PyArray>(m, "Array",
                      "An Arrow array of any type quiver understands, held zero-copy. "
                      "Export it with the Arrow PyCapsule protocol (pyarrow.array(a)).")
      .def("__len__", [](const PyArray& a) { return a.data->length; })
      .def_prop_ro("type", [](const PyArray& a) { return WrapType(a.data->type); })
      .def_prop_ro("null_count", [](const PyArray& a) { return a.data->ComputeNullCount(); })
      .def_prop_ro("offset", [](const PyArray& a) { return a.data->offset; })
      .def(
          "is_valid",
          [](const PyArray& a, int64_t i) {
            return a.data->IsValid(ResolveIndex(i, a.data->length));
          },
          nb::arg("i"), "Whether row i is non-null.")
      .def(
          "__getitem__",
          [](const PyArray& a, nb::slice slice) {
            auto [start, count] = ResolveSlice(slice, a.data->length);
            return PyArray{Unwrap(Slice(a.data, start, count))};
          },
          "A zero-copy slice (step 1).")
      .def(
          "validate",
          [](const PyArray& a, bool full) {
            Check(Validate(*a.data, full ? ValidationLevel::kFull : ValidationLevel::kDefault));
          },
          nb::arg("full") = true, "Raises ValueError if the array's buffers are inconsistent.")
      .def(
          "__arrow_c_array__",
          [](const PyArray& a, nb::handle requested) {
            return ExportArrayWithSchema(a.data, requested);
          },
          nb::arg("requested_schema") = nb::none(),
          "Exports (schema, array) PyCapsules, zero-copy.")
      .def(
          "__arrow_c_device_array__",
          [](const PyArray& a, nb::handle requested, nb::kwargs kwargs) {
            return ExportDeviceArrayWithSchema(a.data, requested, kwargs);
          },
          nb::arg("requested_schema") = nb::none(), nb::arg("kwargs"),
          "Exports (schema, device array) PyCapsules on the CPU, zero-copy.")
      .def(
          "to_pylist", [](const PyArray& a) { return ArrayToPylist(a.data); },
          "The values as Python objects (numbers, bools, str, bytes, lists, dicts for "
          "structs), None for nulls.")
      .def("__iter__", [](const PyArray& a) { return ArrayToPylist(a.data).attr("__iter__")(); })
      .def(
          "equals",
          [](const PyArray& a, const PyArray& b) { return ArrayEquals(*a.data, *b.data); },
          nb::arg("other"),
          "Same type, length, nulls and values (floats compared bitwise, as Table.equals).")
      .def("__eq__",
           [](const PyArray& a, nb::handle b) {
             return nb::isinstance<PyArray>(b) && ArrayEquals(*a.data, *nb::cast<PyArray&>(b).data);
           })
      .def_prop_ro(
          "num_fields",
          [](const PyArray& a) {
            return a.data->type->storage().id() == TypeId::kStruct
                       ? a.data->type->storage().children().size()
                       : 0;
          },
          "Number of fields of a struct array (a record batch imported as one), else 0.")
      .def_prop_ro(
          "field_names",
          [](const PyArray& a) {
            std::vector<std::string> names;
            if (a.data->type->storage().id() == TypeId::kStruct) {
              for (const Field& f : a.data->type->storage().children()) names.push_back(f.name);
            }
            return names;
          },
          "The field names of a struct array, in order.")
      .def(
          "field", [](const PyArray& a, nb::handle key) { return StructField(a.data, key); },
          nb::arg("key"),
          "Column `key` (index or name) of a struct array, e.g. a record batch imported with "
          "quiver.array: a FixedShapeTensorArray, VariableShapeTensorArray or Array, zero-copy.")
      .def(
          "__getitem__", [](const PyArray& a, nb::str key) { return StructField(a.data, key); },
          "Column `key` of a struct array (see field()).")
      .def(
          "__reduce_ex__",
          [](const PyArray& a, int protocol) { return ReduceArray(a.data, protocol); },
          nb::arg("protocol"))
      .def("__copy__", [](nb::handle self) { return nb::borrow(self); })
      .def(
          "__deepcopy__", [](const PyArray& a, nb::handle) { return DeepCopyArray(a.data); },
          nb::arg("memo"))
      .def("__repr__", [](const PyArray& a) {
        const std::string header = ArrayHeader("Array", a.data->type->ToString(), a.data->length,
                                               a.data->ComputeNullCount());
        return FormatColumn(header, a.data->length, [&](int64_t i) {
          return std::string(nb::repr(ValueToPython(*a.data, i)).c_str());
        });
      });
  nb::setattr(m.attr("Array"), "__hash__", nb::none());
  m.def(
      "array",
      [](nb::handle obj) {
        if (nb::isinstance<PyArray>(obj) || nb::isinstance<PyFixedShapeTensorArray>(obj) ||
            nb::isinstance<PyVariableShapeTensorArray>(obj)) {
          return nb::borrow(obj);
        }
        static PyObject* const protocol = Interned("__arrow_c_array__");
        PyObject* self = obj.ptr();
        nb::object capsules = nb::steal(PyObject_VectorcallMethod(protocol, &self, 1, nullptr));
        if (!capsules.is_valid()) {
          nb::python_error error;  // fetched: hasattr below needs a clean state
          if (error.matches(PyExc_AttributeError) && !nb::hasattr(obj, protocol)) {
            // A producer of the device protocol alone (CPU memory only).
            if (HasArrayProtocol(obj)) return WrapArray(ImportArrayFrom(obj).second);
            Raise(
                Status::TypeError("quiver.array() needs an object with __arrow_c_array__ or "
                                  "__arrow_c_device_array__ (a pyarrow Array, say), got " +
                                  std::string(nb::type_name(obj.type()).c_str())));
          }
          throw error;
        }
        if (!PyTuple_Check(capsules.ptr()) || PyTuple_GET_SIZE(capsules.ptr()) != 2) {
          Raise(Status::TypeError("__arrow_c_array__() must return a (schema, array) tuple"));
        }
        auto [field, data] = ImportCapsules(PyTuple_GET_ITEM(capsules.ptr(), 0),
                                            PyTuple_GET_ITEM(capsules.ptr(), 1));
        return WrapArray(std::move(data));
      },
      nb::arg("obj"),
      "Imports any object exposing __arrow_c_array__ (pyarrow, Polars, nanoarrow ...) "
      "zero-copy, validating it fully. Returns a FixedShapeTensorArray or "
      "VariableShapeTensorArray for the tensor extension types, an Array otherwise.");
}

ArrayDataPtr AsExtensionStorage(const TypePtr& extension_type, const std::string& type_name,
                                nb::handle storage, const char* what) {
  nb::object imported = nb::borrow(storage);
  if (!nb::isinstance<PyArray>(storage)) {
    nb::object capsules = storage.attr("__arrow_c_array__")();
    imported = WrapArray(ImportCapsules(capsules[0], capsules[1]).second);
  }
  if (!nb::isinstance<PyArray>(imported)) {
    Raise(Status::TypeError(std::string("storage must be ") + what));
  }
  auto data = std::make_shared<ArrayData>(*nb::cast<PyArray&>(imported).data);
  const TypePtr& needed = extension_type->storage_type();
  if (!data->type->Equals(*needed)) {
    Raise(Status::TypeError("storage has type " + data->type->ToString() + ", " + type_name +
                            " needs " + needed->ToString()));
  }
  data->type = extension_type;
  return data;
}

}  // namespace quiver::python
