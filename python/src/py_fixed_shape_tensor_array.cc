// quiver.FixedShapeTensorArray, mirroring quiver/fixed_shape_tensor.h.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "py_bindings.h"
#include "py_buffer_protocol.h"
#include "py_capsules.h"
#include "py_dlpack.h"
#include "py_errors.h"
#include "py_fastcall.h"
#include "py_index.h"
#include "py_numpy.h"
#include "py_objects.h"
#include "py_pickle.h"
#include "py_tensor_columns.h"

#include <cstring>

namespace quiver::python {

namespace {

nb::object RowView(const PyFixedShapeTensorArray& a, int64_t i, bool allow_nulls) {
  const int64_t row = ResolveIndex(i, a.array.length());
  const NullPolicy nulls = NullPolicyFrom(allow_nulls);
  return TensorToNumpy(
      UnwrapAllowNulls(a.array.RowTensor(row, nulls), nulls, a.array.IsValid(row) ? 0 : 1));
}

nb::object RowOrNone(const FixedShapeTensorArray& a, int64_t i) {
  if (!a.IsValid(i)) return nb::none();
  return TensorToNumpy(Unwrap(a.RowTensor(i)));
}

template <typename Fn>
PyFixedShapeTensorArray Released(Fn&& fn) {
  Result<FixedShapeTensorArray> out = Status::Invalid("");
  {
    nb::gil_scoped_release no_gil;
    out = fn();
  }
  return PyFixedShapeTensorArray{Unwrap(std::move(out))};
}

PyFixedShapeTensorArray FixedFromNumpy(nb::handle ndarray,
                                       std::optional<std::vector<std::string>> dim_names,
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
  ArrayView view = ViewArray(data, "ndarray", mode);
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
  return PyFixedShapeTensorArray{UnwrapCopy(std::move(built), mode)};
}

// NumPy indexing of the (N, *logical shape) view: what col[i, ...],
// col[a:b, ::2] and col[...] return (dask slices columns this way). Null
// rows have no values: selecting any is a ValueError.
nb::object NumpyItem(const PyFixedShapeTensorArray& a, nb::handle key) {
  nb::object view = TensorToNumpy(Unwrap(a.array.ToTensor(NullPolicy::kAllow)));
  nb::object out = view[key];
  if (a.array.null_count() == 0) return out;
  // Which elements of the result come from a null row: the row validity,
  // broadcast over the cells (no copy), indexed by the same key.
  const int64_t rows = a.array.length();
  nb::object numpy = Numpy();
  std::string flags(static_cast<size_t>(rows), '\0');
  for (int64_t i = 0; i < rows; ++i) flags[static_cast<size_t>(i)] = a.array.IsValid(i);
  nb::object valid =
      numpy.attr("frombuffer")(nb::bytes(flags.data(), flags.size()), numpy.attr("bool_"));
  nb::list cell_axes;
  cell_axes.append(rows);
  for (size_t k = 0; k < a.array.type().shape().size(); ++k) cell_axes.append(1);
  nb::object spread =
      numpy.attr("broadcast_to")(valid.attr("reshape")(nb::tuple(cell_axes)), view.attr("shape"));
  const int all_valid = PyObject_IsTrue(numpy.attr("all")(spread[key]).ptr());
  if (all_valid < 0) throw nb::python_error();
  if (!all_valid) {
    Raise(Status::Invalid(
        "the selection includes null rows; col.to_numpy(allow_nulls=True)[key] shows "
        "whatever their slots hold"));
  }
  return out;
}

}  // namespace

void BindFixedShapeTensorArray(nb::module_& m) {
  using A = PyFixedShapeTensorArray;
  nb::class_<A> cls(m, "FixedShapeTensorArray",
                    "A column of arrow.fixed_shape_tensor: one tensor of the same shape per row.",
                    nb::type_slots(BufferSlots<A, &ColumnView>()));
  cls.def_static(
         "from_numpy", &FixedFromNumpy, nb::arg("ndarray"), nb::arg("dim_names") = nb::none(),
         nb::arg("copy") = nb::none(), nb::kw_only(), nb::arg("mask") = nb::none(),
         "Rows from axis 0 of an (N, *cell_shape) array. Zero-copy when every cell is a "
         "(possibly transposed) contiguous block and rows are adjacent; the permutation is "
         "recorded in the type. copy=None copies only when the layout (or a non-native byte "
         "order) needs it, copy=False raises ValueError instead, copy=True always copies. "
         "dim_names names the cell axes in logical (NumPy) order. mask (N bools, True = null "
         "row) or a numpy.ma masked array makes rows null; a row masked in part is an error.")
      .def_static(
          "from_storage",
          [](const PyFixedShapeTensorType& type, nb::handle storage) {
            ArrayDataPtr data = AsExtensionStorage(type.type.data_type(), type.type.ToString(),
                                                   storage, "a plain fixed_size_list array");
            return A{Unwrap(FixedShapeTensorArray::Make(std::move(data), ValidationLevel::kFull))};
          },
          nb::arg("type"), nb::arg("storage"),
          "The column of `type` over `storage` (a quiver Array or anything with "
          "__arrow_c_array__ holding the fixed_size_list storage), zero-copy, validated.")
      .def(
          "to_numpy",
          [](const A& a, bool allow_nulls, nb::handle out) -> nb::object {
            const NullPolicy nulls = NullPolicyFrom(allow_nulls);
            Tensor tensor = UnwrapAllowNulls(a.array.ToTensor(nulls), nulls, a.array.null_count());
            if (out.is_none()) return TensorToNumpy(tensor);
            CopyInto(tensor, out);
            return nb::borrow(out);
          },
          nb::arg("allow_nulls") = false, nb::kw_only(), nb::arg("out") = nb::none(),
          "A read-only (N, *logical_shape) NumPy view, zero-copy, with the permutation "
          "applied. Null rows raise ValueError unless allow_nulls=True (their slots then "
          "show whatever bytes the storage holds). out=: copy into this C-contiguous, "
          "writable array of the same dtype and shape instead, allocating nothing.")
      .def(
          "__array__",
          [](const A& a, nb::handle dtype, nb::handle copy) {
            return ArrayProtocol(TensorToNumpy(Unwrap(a.array.ToTensor())), dtype, copy);
          },
          nb::arg("dtype") = nb::none(), nb::kw_only(), nb::arg("copy") = nb::none(),
          "NumPy's array protocol, used where the buffer protocol gives no view (null rows): "
          "the view col.to_numpy() gives (zero-copy, read-only); copy=True gives a writable "
          "copy, copy=False refuses a dtype conversion.")
      .def(
          "to_tensor",
          [](const A& a, bool allow_nulls) {
            const NullPolicy nulls = NullPolicyFrom(allow_nulls);
            return PyTensor{UnwrapAllowNulls(a.array.ToTensor(nulls), nulls, a.array.null_count())};
          },
          nb::arg("allow_nulls") = false, "The whole column as one quiver Tensor, zero-copy.")
      .def("__len__", [](const A& a) { return a.array.length(); })
      .def(
          "__getitem__", [](const A& a, int64_t i) { return RowView(a, i, false); }, nb::arg("i"),
          "Row i as a read-only NumPy view (ValueError for a null row).")
      .def(
          "__getitem__",
          [](const A& a, nb::slice slice) {
            auto [start, stop, step, count] = slice.compute(static_cast<size_t>(a.array.length()));
            if (step == 1)
              return A{
                  Unwrap(a.array.Slice(static_cast<int64_t>(start), static_cast<int64_t>(count)))};
            std::vector<int64_t> indices(count);
            for (size_t j = 0; j < count; ++j) {
              indices[j] = static_cast<int64_t>(start) +
                           static_cast<int64_t>(j) * static_cast<int64_t>(step);
            }
            return Released([&] { return a.array.Take(indices); });
          },
          "A slice of rows: zero-copy for step 1, a copy (take) otherwise.")
      .def(
          "__getitem__",
          [](const A& a, nb::handle key) -> nb::object {
            if (PyTuple_Check(key.ptr()) || key.is_none() || key.ptr() == Py_Ellipsis) {
              return NumpyItem(a, key);
            }
            // NumPy integers (this overload sees them before the int64
            // one converts them); bools are not row numbers.
            if (!PyBool_Check(key.ptr()) && PyIndex_Check(key.ptr())) {
              return RowView(a, ResolveIndex(key, a.array.length()), false);
            }
            Raise(Status::TypeError(
                std::string("column indices are an int (a row), a slice (rows) or a tuple "
                            "(NumPy indexing), got ") +
                nb::type_name(key.type()).c_str() + "; take() picks a list of rows"));
          },
          nb::arg("key").none(),
          "A tuple (or ... or None) indexes the (N, *logical_shape) array as NumPy does and "
          "returns NumPy: col[i, j] is element j of row i, col[:, 0] the first entry of every "
          "row; zero-copy for basic indexing. ValueError when it selects a null row.")
      .def(
          "__iter__",
          [](const A& a) { return ColumnRows(a.array, RowOrNone, false).attr("__iter__")(); },
          "Row views in order, None for null rows.")
      .def(
          "to_pylist", [](const A& a) { return ColumnRows(a.array, RowOrNone, true); },
          "Every row as nested Python lists (logical shape), None for null rows.")
      .def("row", &RowView, nb::arg("i"), nb::arg("allow_nulls") = false,
           "Row i as a read-only NumPy view.")
      .def(
          "take",
          [](const A& a, nb::handle indices) {
            auto index = IndexArray(indices, a.array.length());
            return Released([&] { return a.array.Take({index.data(), index.shape(0)}); });
          },
          nb::arg("indices"),
          "The rows at `indices` (integers, non-negative), copied; null rows kept.")
      .def(
          "filter",
          [](const A& a, nb::handle mask) {
            auto flags = MaskArray(mask);
            return Released([&] { return a.array.Filter(flags); });
          },
          nb::arg("mask"),
          "The rows where `mask` is true, copied; null rows kept. A null in the mask "
          "selects nothing, as in pyarrow.")
      .def(
          "equals",
          [](const A& a, const A& b) { return FixedShapeTensorArraysEqual(a.array, b.array); },
          nb::arg("other"), "Same type, length, null rows and values (NaN != NaN).")
      .def("__eq__",
           [](const A& a, nb::handle b) {
             return nb::isinstance<A>(b) &&
                    FixedShapeTensorArraysEqual(a.array, nb::cast<A&>(b).array);
           })
      .def(
          "__reduce_ex__",
          [](const A& a, int protocol) { return ReduceArray(a.array.data(), protocol); },
          nb::arg("protocol"))
      .def("__copy__", [](nb::handle self) { return nb::borrow(self); })
      .def(
          "__deepcopy__", [](const A& a, nb::handle) { return DeepCopyArray(a.array.data()); },
          nb::arg("memo"))
      .def(
          "to_variable",
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
      .def_prop_ro(
          "shape",
          [](const A& a) {
            std::vector<int64_t> shape = a.array.type().logical_shape();
            shape.insert(shape.begin(), a.array.length());
            return ToTuple(shape);
          },
          "(N, *logical_shape): the shape of to_numpy()'s array.")
      .def_prop_ro(
          "ndim", [](const A& a) { return 1 + a.array.type().ndim(); },
          "1 + the number of cell dimensions: len(shape).")
      .def_prop_ro(
          "nbytes", [](const A& a) { return Unwrap(ReferencedBytes(*a.array.data())); },
          "Bytes of buffer memory the rows reference: the row validity bitmap's bytes for "
          "these rows (if any) plus N * cell bytes of values (and the values' own bitmap); "
          "a slice counts only its rows, an empty one 0. pyarrow's nbytes of the same column "
          "(which counts a bitmap byte for some empty slices).")
      .def("__repr__", [](const A& a) { return TensorColumnRepr(a.array); });
  AddColumnBasics(cls, "The fixed_size_list storage as a plain Array (zero-copy).",
                  "Exports (schema, array) PyCapsules, zero-copy, with the extension metadata; a "
                  "requested schema equal to the storage type gets the storage (best-effort).");
  nb::setattr(m.attr("FixedShapeTensorArray"), "__hash__", nb::none());
  AddColumnDLPack(m.attr("FixedShapeTensorArray"));
}

}  // namespace quiver::python
