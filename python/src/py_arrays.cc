// Array (any Arrow array), FixedShapeTensorArray and quiver.array().
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "py_capsules.h"
#include "py_buffer_protocol.h"
#include "py_convert.h"
#include "py_dlpack.h"
#include "py_fastcall.h"
#include "py_objects.h"
#include "py_pickle.h"

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

nb::object ValueToPython(const ArrayData& data, int64_t i) {
  if (!data.IsValid(i)) return nb::none();
  const DataType& type = data.type->storage();
  const int64_t at = data.offset + i;
  auto offsets = [&](int64_t* begin, int64_t* end) {
    const uint8_t* raw = data.buffers[1]->data();
    if (type.id() == TypeId::kLargeUtf8 || type.id() == TypeId::kLargeBinary ||
        type.id() == TypeId::kLargeList) {
      std::memcpy(begin, raw + at * 8, 8);
      std::memcpy(end, raw + (at + 1) * 8, 8);
    } else {
      int32_t b, e;
      std::memcpy(&b, raw + at * 4, 4);
      std::memcpy(&e, raw + (at + 1) * 4, 4);
      *begin = b, *end = e;
    }
  };
  if (data.type->is_bool8()) return nb::bool_(data.buffers[1]->data()[at] != 0);
  switch (type.id()) {
    case TypeId::kBool:
      return nb::bool_((data.buffers[1]->data()[at >> 3] >> (at & 7)) & 1);
    case TypeId::kUtf8: case TypeId::kLargeUtf8: case TypeId::kBinary: case TypeId::kLargeBinary: {
      int64_t begin, end;
      offsets(&begin, &end);
      const char* chars = data.buffers[2] ? reinterpret_cast<const char*>(data.buffers[2]->data()) : "";
      if (type.id() == TypeId::kUtf8 || type.id() == TypeId::kLargeUtf8) {
        return nb::str(chars + begin, static_cast<size_t>(end - begin));
      }
      return nb::bytes(chars + begin, static_cast<size_t>(end - begin));
    }
    case TypeId::kFixedSizeBinary:
      return nb::bytes(reinterpret_cast<const char*>(data.buffers[1]->data()) + at * type.fixed_size(),
                       static_cast<size_t>(type.fixed_size()));
    case TypeId::kList: case TypeId::kLargeList: {
      int64_t begin, end;
      offsets(&begin, &end);
      return ValuesToPython(*data.children[0], begin, end);
    }
    case TypeId::kFixedSizeList:
      return ValuesToPython(*data.children[0], at * type.fixed_size(), (at + 1) * type.fixed_size());
    case TypeId::kStruct: {
      nb::dict out;
      for (size_t c = 0; c < type.children().size(); ++c) {
        out[type.children()[c].name.c_str()] = ValueToPython(*data.children[c], at);
      }
      return out;
    }
    default: break;
  }
  if (!type.is_numeric()) return nb::str(("<" + type.ToString() + ">").c_str());
  // Numbers: one element through NumPy, so floats and halves read as NumPy does.
  Tensor one = Unwrap(Tensor::Make(data.type->is_bool8() ? bool8() : data.type, data.buffers[1], {},
                                   {}, {}, at * type.byte_width()));
  return TensorToNumpy(one).attr("item")();
}

std::string ArrayHeader(const char* cls, const std::string& type, int64_t length, int64_t nulls) {
  std::string out = std::string("quiver.") + cls + "<" + type + "> length=" + std::to_string(length);
  if (nulls > 0) out += " null_count=" + std::to_string(nulls);
  return out;
}

// Row i of a tensor column as repr text: its values, or null.
std::string RowText(const Result<Tensor>& row, bool valid, bool with_shape) {
  if (!valid) return "null";
  if (!row.ok()) return "<" + row.status().message() + ">";
  std::string out;
  if (with_shape) {
    out = "(";
    for (size_t k = 0; k < row->shape().size(); ++k) out += (k ? ", " : "") + std::to_string(row->shape()[k]);
    out += row->shape().size() == 1 ? ",) " : ") ";
  }
  return out + FormatValues(TensorToNumpy(*row), "  " + out);
}

// Rows equal one by one: validity, then values of the valid rows (NaN != NaN).
template <typename ArrayT>
bool RowsEqual(const ArrayT& a, const ArrayT& b) {
  if (!a.type().Equals(b.type()) || a.length() != b.length()) return false;
  for (int64_t i = 0; i < a.length(); ++i) {
    if (a.IsValid(i) != b.IsValid(i)) return false;
    if (!a.IsValid(i)) continue;
    auto x = a.RowTensor(i), y = b.RowTensor(i);
    if (!x.ok() || !y.ok() || !x->Equals(*y)) return false;
  }
  return true;
}

}  // namespace

bool FixedShapeTensorArraysEqual(const FixedShapeTensorArray& a, const FixedShapeTensorArray& b) {
  nb::gil_scoped_release no_gil;
  if (a.null_count() == 0 && b.null_count() == 0 && a.type().Equals(b.type()) &&
      a.length() == b.length()) {
    auto x = a.ToTensor(), y = b.ToTensor();
    if (x.ok() && y.ok()) return x->Equals(*y);
  }
  return RowsEqual(a, b);
}

bool VariableShapeTensorArraysEqual(const VariableShapeTensorArray& a, const VariableShapeTensorArray& b) {
  nb::gil_scoped_release no_gil;
  return RowsEqual(a, b);
}

std::string TensorColumnRepr(const FixedShapeTensorArray& a) {
  return FormatColumn(ArrayHeader("FixedShapeTensorArray", a.type().ToString(), a.length(), a.null_count()),
                      a.length(), [&](int64_t i) { return RowText(a.RowTensor(i), a.IsValid(i), false); });
}

std::string TensorColumnRepr(const VariableShapeTensorArray& a) {
  return FormatColumn(ArrayHeader("VariableShapeTensorArray", a.type().ToString(), a.length(), a.null_count()),
                      a.length(), [&](int64_t i) { return RowText(a.RowTensor(i), a.IsValid(i), true); });
}

nb::object ArrayToPylist(const ArrayDataPtr& data) { return ValuesToPython(*data, 0, data->length); }

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
    index = static_cast<size_t>(ResolveIndex(nb::cast<int64_t>(key), static_cast<int64_t>(type.children().size())));
  }
  return WrapArray(Unwrap(Slice(data->children[index], data->offset, data->length)));
}

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
      .def("to_pylist", [](const PyArray& a) { return ArrayToPylist(a.data); },
           "The values as Python objects (numbers, bools, str, bytes, lists, dicts for "
           "structs), None for nulls.")
      .def("__iter__", [](const PyArray& a) { return ArrayToPylist(a.data).attr("__iter__")(); })
      .def("equals",
           [](const PyArray& a, const PyArray& b) {
             return a.data->type->Equals(*b.data->type) && a.data->length == b.data->length &&
                    ArrayToPylist(a.data).equal(ArrayToPylist(b.data));
           },
           nb::arg("other"), "Same type, length, nulls and values.")
      .def("__eq__",
           [](const PyArray& a, nb::handle b) {
             if (!nb::isinstance<PyArray>(b)) return false;
             const PyArray& other = nb::cast<PyArray&>(b);
             return a.data->type->Equals(*other.data->type) && a.data->length == other.data->length &&
                    ArrayToPylist(a.data).equal(ArrayToPylist(other.data));
           })
      .def_prop_ro("num_fields",
                   [](const PyArray& a) { return a.data->type->storage().id() == TypeId::kStruct
                                                     ? a.data->type->storage().children().size() : 0; },
                   "Number of fields of a struct array (a record batch imported as one), else 0.")
      .def_prop_ro("field_names",
                   [](const PyArray& a) {
                     std::vector<std::string> names;
                     if (a.data->type->storage().id() == TypeId::kStruct) {
                       for (const Field& f : a.data->type->storage().children()) names.push_back(f.name);
                     }
                     return names;
                   },
                   "The field names of a struct array, in order.")
      .def("field", [](const PyArray& a, nb::handle key) { return StructField(a.data, key); },
           nb::arg("key"),
           "Column `key` (index or name) of a struct array, e.g. a record batch imported with "
           "quiver.array: a FixedShapeTensorArray, VariableShapeTensorArray or Array, zero-copy.")
      .def("__getitem__", [](const PyArray& a, nb::str key) { return StructField(a.data, key); },
           "Column `key` of a struct array (see field()).")
      .def("__reduce_ex__", [](const PyArray& a, int protocol) { return ReduceArray(a.data, protocol); },
           nb::arg("protocol"))
      .def("__copy__", [](nb::handle self) { return nb::borrow(self); })
      .def("__deepcopy__", [](const PyArray& a, nb::handle) { return DeepCopyArray(a.data); }, nb::arg("memo"))
      .def("__repr__", [](const PyArray& a) {
        const std::string header = ArrayHeader("Array", a.data->type->ToString(), a.data->length,
                                               a.data->ComputeNullCount());
        return FormatColumn(header, a.data->length, [&](int64_t i) {
          return std::string(nb::repr(ValueToPython(*a.data, i)).c_str());
        });
      });
  nb::setattr(m.attr("Array"), "__hash__", nb::none());
}

nb::object RowView(const PyFixedShapeTensorArray& a, int64_t i, bool allow_nulls) {
  return TensorToNumpy(Unwrap(a.array.RowTensor(
      ResolveIndex(i, a.array.length()), NullPolicyFrom(allow_nulls))));
}

nb::object RowOrNone(const FixedShapeTensorArray& a, int64_t i) {
  if (!a.IsValid(i)) return nb::none();
  return TensorToNumpy(Unwrap(a.RowTensor(i)));
}

}  // namespace

// Masked-array rows: True where every element of a row is masked (a null
// row); ValueError naming the first row masked only in part.
std::vector<uint8_t> NullRowsFromMask(nb::handle mask, int64_t rows, const char* what) {
  nb::object numpy = Numpy();
  nb::object flags = numpy.attr("asarray")(mask, numpy.attr("bool_"));
  if (nb::cast<int64_t>(flags.attr("ndim")) == 0) {
    flags = numpy.attr("broadcast_to")(flags, nb::make_tuple(rows));
  }
  if (nb::cast<int64_t>(flags.attr("shape")[0]) != rows) {
    Raise(Status::Invalid(std::string(what) + " has " +
                          std::to_string(nb::cast<int64_t>(flags.attr("shape")[0])) +
                          " rows, the array " + std::to_string(rows)));
  }
  nb::object per_row = flags.attr("reshape")(rows, -1);
  nb::object all = numpy.attr("ascontiguousarray")(per_row.attr("all")(1)).attr("view")(numpy.attr("uint8"));
  nb::object any = per_row.attr("any")(1);
  nb::object partial = numpy.attr("flatnonzero")(any.attr("__and__")(all.attr("view")(numpy.attr("bool_")).attr("__invert__")()));
  if (nb::len(partial) > 0) {
    Raise(Status::Invalid("row " + Str(partial[0]) +
                          " is masked in part; a tensor column can only make whole rows null "
                          "(fill the masked elements, e.g. x.filled(0), or mask the whole row)"));
  }
  auto view = nb::cast<nb::ndarray<const uint8_t, nb::ndim<1>, nb::c_contig>>(all);
  return std::vector<uint8_t>(view.data(), view.data() + view.shape(0));
}

static PyFixedShapeTensorArray FixedFromNumpy(nb::handle ndarray, std::optional<std::vector<std::string>> dim_names,
                                       nb::handle copy, nb::handle mask) {
  const CopyMode mode = CopyModeFromPython(copy);
  nb::handle data = ndarray;
  nb::object masked_data, row_mask = nb::borrow(mask);
  if (IsMaskedArray(ndarray)) {
    masked_data = ndarray.attr("data");
    data = masked_data;
    nb::object array_mask = nb::module_::import_("numpy.ma").attr("getmaskarray")(ndarray);
    if (!row_mask.is_none()) {
      Raise(Status::Invalid("pass either a masked array or mask=, not both"));
    }
    row_mask = array_mask;
  }
  InputArray view = ViewArray(data, "ndarray", mode);
  std::vector<std::string> names;
  if (dim_names) {
    if (dim_names->size() + 1 != view.ndim()) {
      Raise(Status::Invalid("dim_names has " + std::to_string(dim_names->size()) +
                            " entries for cells of " + std::to_string(view.ndim() - 1) +
                            " dimensions"));
    }
    names.push_back("");
    names.insert(names.end(), dim_names->begin(), dim_names->end());
  }
  Tensor tensor = TensorFromArray(view, std::move(names));
  std::vector<uint8_t> null_rows;
  if (!row_mask.is_none()) {
    if (tensor.ndim() < 1) Raise(Status::Invalid("a tensor column needs a row axis"));
    null_rows = NullRowsFromMask(row_mask, tensor.shape()[0], "mask");
  }
  Result<FixedShapeTensorArray> built = Status::Invalid("");
  {
    nb::gil_scoped_release no_gil;  // a copy, when one is needed, is long
    built = FixedShapeTensorArray::FromTensor(tensor, mode);
    if (built.ok() && !null_rows.empty()) built = built->WithNullRows(null_rows);
  }
  return PyFixedShapeTensorArray{Unwrap(std::move(built))};
}

// Indices as a contiguous int64 NumPy array; TypeError for non-integers.
nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig> IndexArray(nb::handle indices) {
  nb::object numpy = Numpy();
  nb::object array = numpy.attr("asarray")(indices);
  const std::string kind = nb::cast<std::string>(array.attr("dtype").attr("kind"));
  if (kind != "i" && kind != "u" && !(nb::cast<int64_t>(array.attr("size")) == 0)) {
    Raise(Status::TypeError("indices must be integers, got dtype " +
                            Str(array.attr("dtype"))));
  }
  if (nb::cast<int64_t>(array.attr("ndim")) != 1) {
    Raise(Status::Invalid("indices must be one-dimensional"));
  }
  nb::object converted = numpy.attr("ascontiguousarray")(array, numpy.attr("int64"));
  return nb::cast<nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig>>(converted);
}

// A filter mask as contiguous bytes; TypeError unless it holds bools.
nb::ndarray<const uint8_t, nb::ndim<1>, nb::c_contig> MaskArray(nb::handle mask) {
  nb::object numpy = Numpy();
  nb::object array = numpy.attr("asarray")(mask);
  const std::string kind = nb::cast<std::string>(array.attr("dtype").attr("kind"));
  if (kind != "b" && !(nb::cast<int64_t>(array.attr("size")) == 0)) {
    Raise(Status::TypeError("mask must hold bools, got dtype " +
                            Str(array.attr("dtype"))));
  }
  nb::object flags = numpy.attr("ascontiguousarray")(array, numpy.attr("bool_")).attr("view")(numpy.attr("uint8"));
  return nb::cast<nb::ndarray<const uint8_t, nb::ndim<1>, nb::c_contig>>(flags);
}

// Copies `tensor` into a caller's NumPy array: same dtype and shape,
// C-contiguous and writable, else ValueError / TypeError naming the problem.
void CopyInto(const Tensor& tensor, nb::handle out) {
  if (nb::hasattr(out, "flags") && !nb::cast<bool>(out.attr("flags").attr("writeable"))) {
    Raise(Status::Invalid("out is read-only"));
  }
  nb::ndarray<nb::numpy, nb::c_contig, nb::device::cpu> target;
  if (!nb::try_cast(out, target, /*convert=*/false)) {
    Raise(Status::TypeError("out must be a C-contiguous NumPy array on the CPU, got " +
                            std::string(nb::repr(out.attr("__class__")).c_str()) +
                            (nb::hasattr(out, "flags") ? " (not C-contiguous)" : "")));
  }
  nb::object want = NumpyDtype(*tensor.type());
  if (!want.equal(out.attr("dtype"))) {
    Raise(Status::TypeError("out has dtype " + Str(out.attr("dtype")) +
                            ", the values are " + Str(want)));
  }
  std::vector<int64_t> shape(target.ndim());
  for (size_t k = 0; k < target.ndim(); ++k) shape[k] = static_cast<int64_t>(target.shape(k));
  if (shape != tensor.shape()) {
    Raise(Status::Invalid("out has shape " + Str(out.attr("shape")) +
                          ", the values " + Str(ToTuple(tensor.shape()))));
  }
  const auto bytes = static_cast<int64_t>(target.nbytes());
  Check(WithoutGil([&] { return tensor.CopyToRowMajor(target.data(), bytes); }));
}

namespace {

template <typename Fn>
PyFixedShapeTensorArray Released(Fn&& fn) {
  Result<FixedShapeTensorArray> out = Status::Invalid("");
  {
    nb::gil_scoped_release no_gil;
    out = fn();
  }
  return PyFixedShapeTensorArray{Unwrap(std::move(out))};
}

void BindFixedShapeTensorArray(nb::module_& m) {
  using A = PyFixedShapeTensorArray;
  nb::class_<A>(
      m, "FixedShapeTensorArray",
      "A column of arrow.fixed_shape_tensor: one tensor of the same shape per row.",
      nb::type_slots(BufferSlots<A, &ColumnView>()))
      .def_static("from_numpy", &FixedFromNumpy, nb::arg("ndarray"), nb::arg("dim_names") = nb::none(),
                  nb::arg("copy") = nb::none(), nb::kw_only(), nb::arg("mask") = nb::none(),
          "Rows from axis 0 of an (N, *cell_shape) array. Zero-copy when every cell is a "
          "(possibly transposed) contiguous block and rows are adjacent; the permutation is "
          "recorded in the type. copy=None copies only when the layout (or a non-native byte "
          "order) needs it, copy=False raises ValueError instead, copy=True always copies. "
          "dim_names names the cell axes in logical (NumPy) order. mask (N bools, True = null "
          "row) or a numpy.ma masked array makes rows null; a row masked in part is an error.")
      .def_static("from_storage",
                  [](const PyFixedShapeTensorType& type, nb::handle storage) {
                    ArrayDataPtr data = AsExtensionStorage(type.type.data_type(), type.type.ToString(),
                                                           storage, "a plain fixed_size_list array");
                    return A{Unwrap(FixedShapeTensorArray::Make(std::move(data), ValidationLevel::kFull))};
                  },
                  nb::arg("type"), nb::arg("storage"),
                  "The column of `type` over `storage` (a quiver Array or anything with "
                  "__arrow_c_array__ holding the fixed_size_list storage), zero-copy, validated.")
      .def("to_numpy",
           [](const A& a, bool allow_nulls, nb::handle out) -> nb::object {
             Tensor tensor = Unwrap(a.array.ToTensor(NullPolicyFrom(allow_nulls)));
             if (out.is_none()) return TensorToNumpy(tensor);
             CopyInto(tensor, out);
             return nb::borrow(out);
           },
           nb::arg("allow_nulls") = false, nb::kw_only(), nb::arg("out") = nb::none(),
           "A read-only (N, *logical_shape) NumPy view, zero-copy, with the permutation "
           "applied. Null rows raise ValueError unless allow_nulls=True (their slots then "
           "show whatever bytes the storage holds). out=: copy into this C-contiguous, "
           "writable array of the same dtype and shape instead, allocating nothing.")
      .def("__array__",
           [](const A& a, nb::handle dtype, nb::handle copy) {
             return ArrayProtocol(TensorToNumpy(Unwrap(a.array.ToTensor())), dtype, copy);
           },
           nb::arg("dtype") = nb::none(), nb::kw_only(), nb::arg("copy") = nb::none(),
           "NumPy's array protocol, used where the buffer protocol gives no view (null rows): "
           "the view col.to_numpy() gives (zero-copy, read-only); copy=True gives a writable "
           "copy, copy=False refuses a dtype conversion.")
      .def("to_tensor",
           [](const A& a, bool allow_nulls) {
             return PyTensor{Unwrap(a.array.ToTensor(NullPolicyFrom(allow_nulls)))};
           },
           nb::arg("allow_nulls") = false, "The whole column as one quiver Tensor, zero-copy.")
      .def("__len__", [](const A& a) { return a.array.length(); })
      .def("__getitem__", [](const A& a, int64_t i) { return RowView(a, i, false); },
           nb::arg("i"), "Row i as a read-only NumPy view (ValueError for a null row).")
      .def("__getitem__",
           [](const A& a, nb::slice slice) {
             auto [start, stop, step, count] = slice.compute(static_cast<size_t>(a.array.length()));
             if (step == 1) return A{Unwrap(a.array.Slice(static_cast<int64_t>(start), static_cast<int64_t>(count)))};
             std::vector<int64_t> indices(count);
             for (size_t j = 0; j < count; ++j) {
               indices[j] = static_cast<int64_t>(start) + static_cast<int64_t>(j) * static_cast<int64_t>(step);
             }
             return Released([&] { return a.array.Take(indices); });
           },
           "A slice of rows: zero-copy for step 1, a copy (take) otherwise.")
      .def("__iter__",
           [](const A& a) { return ColumnRows(a.array, RowOrNone, false).attr("__iter__")(); },
           "Row views in order, None for null rows.")
      .def("to_pylist", [](const A& a) { return ColumnRows(a.array, RowOrNone, true); },
           "Every row as nested Python lists (logical shape), None for null rows.")
      .def("row", &RowView, nb::arg("i"), nb::arg("allow_nulls") = false,
           "Row i as a read-only NumPy view.")
      .def("take",
           [](const A& a, nb::handle indices) {
             auto index = IndexArray(indices);
             return Released([&] { return a.array.Take({index.data(), index.shape(0)}); });
           },
           nb::arg("indices"), "The rows at `indices` (integers, non-negative), copied; null rows kept.")
      .def("filter",
           [](const A& a, nb::handle mask) {
             auto flags = MaskArray(mask);
             return Released([&] { return a.array.Filter({flags.data(), flags.shape(0)}); });
           },
           nb::arg("mask"), "The rows where `mask` is true, copied; null rows kept.")
      .def("equals",
           [](const A& a, const A& b) { return FixedShapeTensorArraysEqual(a.array, b.array); },
           nb::arg("other"), "Same type, length, null rows and values (NaN != NaN).")
      .def("__eq__",
           [](const A& a, nb::handle b) {
             return nb::isinstance<A>(b) && FixedShapeTensorArraysEqual(a.array, nb::cast<A&>(b).array);
           })
      .def("__reduce_ex__", [](const A& a, int protocol) { return ReduceArray(a.array.data(), protocol); },
           nb::arg("protocol"))
      .def("__copy__", [](nb::handle self) { return nb::borrow(self); })
      .def("__deepcopy__", [](const A& a, nb::handle) { return DeepCopyArray(a.array.data()); }, nb::arg("memo"))
      .def("to_variable",
           [](const A& a) {
             Result<VariableShapeTensorArray> out = Status::Invalid("");
             {
               nb::gil_scoped_release no_gil;
               out = VariableShapeTensorArray::FromFixed(a.array);
             }
             return PyVariableShapeTensorArray{Unwrap(std::move(out))};
           },
           "The rows as a VariableShapeTensorArray with the same dim_names and permutation and "
           "uniform_shape = shape; the values are shared (zero-copy).")
      .def_prop_ro("type", [](const A& a) { return PyFixedShapeTensorType{a.array.type()}; })
      .def_prop_ro("null_count", [](const A& a) { return a.array.null_count(); })
      .def_prop_ro("offset", [](const A& a) { return a.array.data()->offset; })
      .def("is_valid",
           [](const A& a, int64_t i) {
             return a.array.IsValid(ResolveIndex(i, a.array.length()));
           },
           nb::arg("i"))
      .def_prop_ro("storage", [](const A& a) { return PyArray{StorageOf(a.array.data())}; }, "The fixed_size_list storage as a plain Array (zero-copy).")
      .def("__arrow_c_array__",
           [](const A& a, nb::handle requested) {
             return ExportArrayWithSchema(a.array.data(), requested);
           },
           nb::arg("requested_schema") = nb::none(),
           "Exports (schema, array) PyCapsules, zero-copy, with the extension metadata; a "
           "requested schema equal to the storage type gets the storage (best-effort).")
      .def("__repr__", [](const A& a) { return TensorColumnRepr(a.array); });
  nb::setattr(m.attr("FixedShapeTensorArray"), "__hash__", nb::none());
  AddColumnDLPack(m.attr("FixedShapeTensorArray"));
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
        static PyObject* const protocol = Interned("__arrow_c_array__");
        PyObject* self = obj.ptr();
        nb::object capsules = nb::steal(PyObject_VectorcallMethod(protocol, &self, 1, nullptr));
        if (!capsules.is_valid()) {
          nb::python_error error;  // fetched: hasattr below needs a clean state
          if (error.matches(PyExc_AttributeError) && !nb::hasattr(obj, protocol)) {
            Raise(Status::TypeError("quiver.array() needs an object with __arrow_c_array__ "
                                    "(a pyarrow Array, say), got " +
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
