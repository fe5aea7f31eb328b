// VariableShapeTensorArray: ragged tensor columns to and from NumPy.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <deque>
#include <limits>
#include <memory>
#include <type_traits>

// NumPy arrays are read through their public fields (PyArray_DATA ...);
// no NumPy C-API function is called, so no import_array().
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/ndarraytypes.h>

#include "py_bindings.h"
#include "py_capsules.h"
#include "py_errors.h"
#include "py_index.h"
#include "py_numpy.h"
#include "py_objects.h"
#include "py_pickle.h"
#include "py_tensor_columns.h"

namespace quiver::python {

namespace {

using Names = std::optional<std::vector<std::string>>;
using Ints = std::optional<std::vector<int64_t>>;
using Uniform = std::optional<UniformShape>;

Tensor TensorFrom(nb::handle value, const char* what) {
  return TensorFromArray(ViewArray(value, what), {});
}

// The array type: `type` when given, else built from the value type and
// ndim the data shows plus the other parameters.
VariableShapeTensorType ResolveType(nb::handle type, const TypePtr& value_type, int ndim,
                                    Names dim_names, Ints permutation, Uniform uniform_shape) {
  if (!type.is_none()) {
    if (dim_names || permutation || uniform_shape) {
      Raise(
          Status::Invalid("pass either type= or dim_names / permutation / uniform_shape, "
                          "not both"));
    }
    if (!nb::isinstance<PyVariableShapeTensorType>(type)) {
      Raise(Status::TypeError("type must be a quiver.VariableShapeTensorType"));
    }
    return nb::cast<PyVariableShapeTensorType&>(type).type;
  }
  if (!value_type) {
    Raise(
        Status::Invalid("cannot infer the value type and ndim without a non-null row; pass "
                        "type=quiver.variable_shape_tensor(...)"));
  }
  return Unwrap(VariableShapeTensorType::Make(
      value_type, ndim, dim_names.value_or(std::vector<std::string>{}),
      permutation.value_or(std::vector<int64_t>{}), uniform_shape.value_or(UniformShape{})));
}

// TypeError naming row `i` when its values are not the column's.
void CheckRowType(size_t i, const DataType& row, const DataType& column) {
  if (&row == &column || row.Equals(column)) return;
  Raise(Status::TypeError("row " + std::to_string(i) + ": tensor holds " + row.ToString() +
                          ", the array holds " + column.ToString()));
}

// A row that is not a plain NumPy array (masked arrays, other array
// producers, sequences, non-native byte order): a Tensor through the
// general conversion, or nullopt for a fully masked (null) row.
std::optional<Tensor> SlowRow(nb::handle item, size_t i) {
  const std::string what = "row " + std::to_string(i);
  if (IsMaskedArray(item)) {
    // A fully masked array is a null row; a row masked in part is an error.
    nb::object mask = nb::module_::import_("numpy.ma").attr("getmaskarray")(item);
    std::vector<uint8_t> null = NullRowsFromMask(mask.attr("reshape")(1, -1), 1, what.c_str());
    if (null[0] && nb::cast<int64_t>(mask.attr("size")) > 0) return std::nullopt;
    return TensorFrom(item.attr("data"), what.c_str());
  }
  return TensorFrom(item, what.c_str());
}

// `count` default-initialised objects of T (trivially destructible: the
// block is freed without destroying them) in a block from quiver's
// allocator, which `block` keeps.
template <typename T>
std::span<T> ScratchArray(size_t count, BufferPtr* block) {
  static_assert(std::is_trivially_destructible_v<T> && alignof(T) <= 64);
  if (count > static_cast<size_t>(std::numeric_limits<int64_t>::max()) / sizeof(T)) {
    Raise(Status::OutOfMemory("cannot allocate " + std::to_string(count) + " row entries"));
  }
  *block = Unwrap(Buffer::AllocateUninitialized(static_cast<int64_t>(count * sizeof(T))));
  T* first = reinterpret_cast<T*>((*block)->mutable_data());
  std::uninitialized_default_construct_n(first, count);
  return {first, count};
}

// Rows of more axes than NumPy allows are refused (by ndim) without
// copying their sizes.
constexpr int kMaxRowDims = 64;

// ValueError when the list being read changed under it: its size or
// storage (Python code run for one row cleared or grew it: `items` would
// dangle), or more plain arrays in it than counted first.
[[noreturn]] void RaiseChanged() {
  Raise(
      Status::Invalid("arrays changed while from_numpy read it (a row's __array__ or mask "
                      "changed the list)"));
}

void CheckUnchanged(const nb::object& sequence, PyObject** items, size_t n) {
  if (PySequence_Fast_ITEMS(sequence.ptr()) != items ||
      static_cast<size_t>(PySequence_Fast_GET_SIZE(sequence.ptr())) != n) {
    RaiseChanged();
  }
}

// The ndim every row must have: type='s when given, else -1 (the first
// non-null row's).
int ExpectedNdim(nb::handle type) {
  if (type.is_none() || !nb::isinstance<PyVariableShapeTensorType>(type)) return -1;
  return nb::cast<PyVariableShapeTensorType&>(type).type.ndim();
}

PyVariableShapeTensorArray FromNumpy(nb::handle arrays, Names dim_names, Ints permutation,
                                     Uniform uniform_shape, nb::handle type) {
  // Lists and tuples are read in place; other iterables are listed once.
  nb::object sequence = nb::steal(PySequence_Fast(arrays.ptr(), "arrays must be an iterable"));
  if (!sequence.is_valid()) throw nb::python_error();
  const size_t n = static_cast<size_t>(PySequence_Fast_GET_SIZE(sequence.ptr()));
  PyObject** items = PySequence_Fast_ITEMS(sequence.ptr());
  PyTypeObject* ndarray = NumpyArrayType();
  // The views and their sizes and strides live in blocks from quiver's
  // allocator, which keeps freed large blocks for the next call: 10^5 rows
  // would otherwise fault in about 10 MB of fresh pages on every call.
  BufferPtr view_block;
  std::span<VariableShapeTensorArray::RowView> views =
      ScratchArray<VariableShapeTensorArray::RowView>(n, &view_block);
  // Each plain row's sizes then strides, copied out of its array (another
  // thread may reshape it while the copy below runs without the GIL):
  // 2 * ndim entries for each plain NumPy row, allocated once the first
  // row tells ndim. A row of another ndim gets spans of its own length
  // over zeros instead: FromRowViews refuses it in row order (as every
  // other row error) and reads only the spans' lengths to do so.
  static constexpr int64_t kNoDims[kMaxRowDims] = {};
  size_t plain_rows = 0;
  for (size_t i = 0; i < n; ++i) plain_rows += Py_TYPE(items[i]) == ndarray;
  int ndim = ExpectedNdim(type);  // -1 until the first non-null row
  BufferPtr dims_block;
  int64_t* dims = nullptr;
  size_t slots_used = 0;
  auto set_view = [&](size_t i, const void* data, int row_ndim, const int64_t* sizes,
                      const int64_t* strides) {
    if (ndim < 0) ndim = row_ndim;
    const auto length = static_cast<size_t>(row_ndim);
    const auto* bytes = static_cast<const uint8_t*>(data);
    if (row_ndim > kMaxRowDims) {  // (NumPy and the buffer protocol stop at 64)
      Raise(Status::Invalid("row " + std::to_string(i) + ": tensor has " +
                            std::to_string(row_ndim) + " dimensions, more than " +
                            std::to_string(kMaxRowDims)));
    }
    if (row_ndim != ndim) {
      views[i] = {false, bytes, {kNoDims, length}, {kNoDims, length}};
      return;
    }
    // More plain rows than counted: Python code run for a row put arrays
    // into the list in place of other objects.
    if (slots_used == plain_rows) RaiseChanged();
    const size_t slot = 2 * length;
    if (!dims) dims = ScratchArray<int64_t>(slot * plain_rows, &dims_block).data();
    int64_t* at = dims + slot * slots_used++;
    std::copy(sizes, sizes + row_ndim, at);
    std::copy(strides, strides + row_ndim, at + row_ndim);
    views[i] = {false, bytes, {at, length}, {at + row_ndim, length}};
  };
  std::deque<Tensor> converted;  // slow rows; never moved once made
  BorrowedBuffers borrowed;      // released after the copy below
  // The rows read through their fields are held here for the copy, which
  // runs without the GIL (another thread may empty the list meanwhile).
  std::vector<nb::object> held;
  held.reserve(n);
  const PyArray_Descr* known_descr = nullptr;
  TypePtr known_type;
  TypePtr value_type;
  size_t first_row = 0;
  for (size_t i = 0; i < n; ++i) {
    PyObject* item = items[i];
    if (item == Py_None) {
      views[i].null = true;
      continue;
    }
    const bool plain = Py_TYPE(item) == ndarray;
    auto* array = reinterpret_cast<PyArrayObject*>(item);
    const DataType* row_type = nullptr;
    TypePtr borrowed_type;  // set by the two paths that can type a first row
    if (plain && known_descr != nullptr && PyArray_DESCR(array) == known_descr) {
      // A dtype already typed below: the array's own fields, no call.
      held.push_back(nb::borrow(item));
      row_type = known_type.get();  // (no shared_ptr copy: two atomics a row)
      set_view(i, PyArray_DATA(array), PyArray_NDIM(array), PyArray_DIMS(array),
               PyArray_STRIDES(array));
    } else if (const Py_buffer* view = plain ? borrowed.Borrow(item, &borrowed_type) : nullptr) {
      // The buffer protocol types a dtype (format, byte order) once.
      known_descr = PyArray_DESCR(array);
      known_type = borrowed_type;
      row_type = known_type.get();
      set_view(i, view->buf, view->ndim, view->shape, view->strides);
    } else {
      // Converting may run Python code (__array__, numpy.ma), which may
      // change the list under `items`.
      std::optional<Tensor> tensor = SlowRow(item, i);
      CheckUnchanged(sequence, items, n);
      if (!tensor) {
        views[i].null = true;
        continue;
      }
      const Tensor& kept = converted.emplace_back(std::move(*tensor));
      borrowed_type = kept.type();
      row_type = borrowed_type.get();
      if (ndim < 0) ndim = kept.ndim();
      views[i] = {false, kept.raw_data(), kept.shape(), kept.strides()};  // (the Tensor's own)
    }
    if (!value_type) {
      value_type = borrowed_type;  // (the first row is never read by the fast path)
      first_row = i;
    } else {
      CheckRowType(i, *row_type, *value_type);
    }
  }
  VariableShapeTensorType resolved =
      ResolveType(type, value_type, std::max(ndim, 0), std::move(dim_names), std::move(permutation),
                  std::move(uniform_shape));
  // The rows all have value_type; type= may name another.
  if (value_type) CheckRowType(first_row, *value_type, *resolved.value_type());
  Result<VariableShapeTensorArray> built = Status::Invalid("");
  {
    nb::gil_scoped_release no_gil;  // one long copy of every row
    built = VariableShapeTensorArray::FromRowViews(resolved, views);
  }
  return {Unwrap(std::move(built))};
}

PyVariableShapeTensorArray FromPadded(nb::handle batch, nb::handle shapes, Names dim_names,
                                      Ints permutation, Uniform uniform_shape, nb::handle type) {
  Tensor padded = TensorFrom(batch, "batch");
  if (padded.ndim() < 1) Raise(Status::Invalid("a padded batch needs a row axis"));
  VariableShapeTensorType resolved =
      ResolveType(type, padded.type(), padded.ndim() - 1, std::move(dim_names),
                  std::move(permutation), std::move(uniform_shape));
  Tensor shape_tensor = TensorFrom(shapes, "shapes");
  Result<VariableShapeTensorArray> built = Status::Invalid("");
  {
    nb::gil_scoped_release no_gil;
    built = VariableShapeTensorArray::FromPadded(resolved, padded, shape_tensor);
  }
  return {Unwrap(std::move(built))};
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
  return {
      Unwrap(VariableShapeTensorArray::FromJagged(resolved, flat, shape_tensor, offset_tensor))};
}

nb::object RowOrNone(const VariableShapeTensorArray& array, int64_t i) {
  int64_t row = ResolveIndex(i, array.length());
  if (!array.IsValid(row)) return nb::none();
  return TensorToNumpy(Unwrap(array.RowTensor(row)));
}

// Every row as a read-only NumPy view, None for null rows (to_numpy). One
// flat view of the values buffer the rows share is sliced and reshaped per
// row: a slice and a reshape cost a fraction of exporting an array with a
// capsule of its own per row (TensorToNumpy), which rows that are not
// contiguous (a permuted type) still take.
nb::list RowsToNumpy(const VariableShapeTensorArray& array) {
  const std::vector<std::optional<Tensor>> rows = Unwrap(array.RowTensors());
  nb::list out;
  nb::object flat;  // made on the first contiguous row
  const Tensor* flat_source = nullptr;
  const nb::str reshape("reshape");
  for (const std::optional<Tensor>& row : rows) {
    if (!row) {
      out.append(nb::none());
      continue;
    }
    const Tensor& t = *row;
    const int64_t width = t.type()->byte_width();
    const bool shares = flat_source == nullptr || t.buffer() == flat_source->buffer();
    if (!t.IsContiguous() || width == 0 || !shares || !t.buffer()) {
      out.append(TensorToNumpy(t));
      continue;
    }
    if (flat_source == nullptr) {
      const int64_t elements = t.buffer()->size() / width;
      flat = TensorToNumpy(Unwrap(Tensor::Make(t.type(), t.buffer(), {elements})));
      flat_source = &t;
    }
    const int64_t begin = (t.raw_data() - t.buffer()->data()) / width;
    nb::object piece = nb::steal(PySequence_GetSlice(flat.ptr(), begin, begin + t.size()));
    if (!piece.is_valid()) throw nb::python_error();
    nb::tuple shape = nb::steal<nb::tuple>(PyTuple_New(static_cast<Py_ssize_t>(t.ndim())));
    for (int d = 0; d < t.ndim(); ++d) {
      PyTuple_SET_ITEM(shape.ptr(), d, PyLong_FromLongLong(t.shape()[static_cast<size_t>(d)]));
    }
    out.append(piece.attr(reshape)(shape));
  }
  return out;
}

template <typename Fn>
PyVariableShapeTensorArray Released(Fn&& fn) {
  Result<VariableShapeTensorArray> out = Status::Invalid("");
  {
    nb::gil_scoped_release no_gil;
    out = fn();
  }
  return {Unwrap(std::move(out))};
}

PyVariableShapeTensorArray Take(const PyVariableShapeTensorArray& a, nb::handle indices) {
  auto index = IndexArray(indices, a.array.length());
  return Released([&] { return a.array.Take({index.data(), index.shape(0)}); });
}

PyVariableShapeTensorArray Filter(const PyVariableShapeTensorArray& a, nb::handle mask) {
  auto flags = MaskArray(mask);
  return Released([&] { return a.array.Filter(flags); });
}

// A Python pad value as the C++ PadValue: ints exactly (int64, or uint64
// past its range), floats as double; errors quote the value as written.
PadValue PadValueFromPython(nb::handle value) {
  if (PyBool_Check(value.ptr())) return PadValue(value.ptr() == Py_True ? 1 : 0);
  if (PyLong_Check(value.ptr()) ||
      (nb::hasattr(value, "dtype") && nb::hasattr(value, "__index__"))) {
    nb::object index = nb::steal(PyNumber_Index(value.ptr()));
    if (!index.is_valid()) throw nb::python_error();
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
    if (overflow == 0) return PadValue(static_cast<int64_t>(v));
    if (overflow > 0) {
      const unsigned long long u = PyLong_AsUnsignedLongLong(index.ptr());
      if (!PyErr_Occurred()) return PadValue(static_cast<uint64_t>(u));
      PyErr_Clear();
    }
    Raise(Status::Invalid("pad value " + Str(index) + " does not fit any 64-bit integer type"));
  }
  if (PyFloat_Check(value.ptr()) || nb::hasattr(value, "__float__")) {
    return PadValue(PyFloat_AsDouble(value.ptr()));
  }
  Raise(
      Status::TypeError("pad_value must be a number, got " + std::string(nb::repr(value).c_str())));
}

nb::object GetSlice(const PyVariableShapeTensorArray& a, nb::slice slice) {
  auto [start, stop, step, count] = slice.compute(static_cast<size_t>(a.array.length()));
  if (step == 1) {
    return nb::cast(PyVariableShapeTensorArray{Unwrap(a.array.Slice(start, count))});
  }
  std::vector<int64_t> indices(count);
  for (size_t j = 0; j < count; ++j)
    indices[j] = static_cast<int64_t>(start) + static_cast<int64_t>(j) * step;
  return nb::cast(Released([&] { return a.array.Take(indices); }));
}

const char* kFromParams =
    " dim_names, permutation and uniform_shape are the type's parameters (physical axes, as "
    "in quiver.variable_shape_tensor); or pass type= instead.";

}  // namespace

void BindVariableShapeTensorArray(nb::module_& m) {
  using A = PyVariableShapeTensorArray;
  nb::class_<A> cls(m, "VariableShapeTensorArray",
                    "A column of arrow.variable_shape_tensor: one tensor per row, each with its "
                    "own shape.");
  cls.def_static("from_numpy", &FromNumpy, nb::arg("arrays"), nb::arg("dim_names") = nb::none(),
                 nb::arg("permutation") = nb::none(), nb::arg("uniform_shape") = nb::none(),
                 nb::kw_only(), nb::arg("type").none() = nb::none(),
                 (std::string("Rows from a sequence of arrays (None = null row), copied once into "
                              "one buffer. The value type and ndim come from the first array.") +
                  kFromParams)
                     .c_str())
      .def_static("from_padded", &FromPadded, nb::arg("batch"), nb::arg("shapes"),
                  nb::arg("dim_names") = nb::none(), nb::arg("permutation") = nb::none(),
                  nb::arg("uniform_shape") = nb::none(), nb::kw_only(),
                  nb::arg("type").none() = nb::none(),
                  (std::string("Rows cut from a padded (N, *max_shape) batch: row i is "
                               "batch[i, :shapes[i, 0], :shapes[i, 1], ...]. Copies.") +
                   kFromParams)
                      .c_str())
      .def_static("from_jagged", &FromJagged, nb::arg("values"), nb::arg("offsets").none(),
                  nb::arg("shapes"), nb::arg("dim_names") = nb::none(),
                  nb::arg("permutation") = nb::none(), nb::arg("uniform_shape") = nb::none(),
                  nb::kw_only(), nb::arg("type").none() = nb::none(),
                  (std::string("Rows from the storage layout: 1-D values, N + 1 offsets (or None "
                               "to derive them from the shapes) and (N, ndim) physical shapes. "
                               "Zero-copy for values, and for int32 offsets and shapes.") +
                   kFromParams)
                      .c_str())
      .def(
          "to_numpy", [](const A& a) { return RowsToNumpy(a.array); },
          "A list with one read-only NumPy view per row (zero-copy, permutation applied), "
          "None for null rows.")
      .def("__len__", [](const A& a) { return a.array.length(); })
      .def(
          "__getitem__", [](const A& a, int64_t i) { return RowOrNone(a.array, i); }, nb::arg("i"),
          "Row i as a read-only NumPy view (None for a null row).")
      .def("__getitem__", &GetSlice,
           "A slice of rows: zero-copy for step 1, a copy (take) otherwise.")
      .def(
          "__getitem__",
          [](const A& a, nb::handle key) -> nb::object {
            // What the overloads above refused: an integer no int64 holds
            // (IndexError quoting it), or not a row index at all.
            if (!PyBool_Check(key.ptr()) && PyIndex_Check(key.ptr())) {
              return RowOrNone(a.array, ResolveIndex(key, a.array.length()));
            }
            Raise(
                Status::TypeError("a VariableShapeTensorArray takes an int (a row) or a slice "
                                  "(rows), got ",
                                  nb::type_name(key.type()).c_str()));
          },
          nb::arg("key"))
      .def(
          "row_tensor",
          [](const A& a, int64_t i, bool allow_nulls) {
            const int64_t row = ResolveIndex(i, a.array.length());
            const NullPolicy nulls = NullPolicyFrom(allow_nulls);
            return PyTensor{UnwrapAllowNulls(a.array.RowTensor(row, nulls), nulls,
                                             a.array.IsValid(row) ? 0 : 1)};
          },
          nb::arg("i"), nb::arg("allow_nulls") = false,
          "Row i as a quiver.Tensor (zero-copy), e.g. for DLPack: "
          "torch.from_dlpack(a.row_tensor(i)).")
      .def(
          "shapes", [](const A& a) { return TensorToNumpy(Unwrap(a.array.Shapes())); },
          "The logical shape of every row as an (N, ndim) int32 array: a read-only view of the "
          "storage without a permutation, a copy with one.")
      .def(
          "to_padded",
          [](const A& a, nb::handle pad_value, bool allow_nulls, nb::handle out) {
            const PadValue pad = PadValueFromPython(pad_value);
            const NullPolicy nulls = NullPolicyFrom(allow_nulls);
            if (out.is_none()) {
              Result<VariableShapeTensorArray::Padded> padded = Status::Invalid("");
              {
                nb::gil_scoped_release no_gil;
                padded = a.array.ToPadded(pad, nulls);
              }
              auto result = UnwrapAllowNulls(std::move(padded), nulls, a.array.null_count());
              return nb::make_tuple(TensorToNumpy(result.values), TensorToNumpy(result.shapes));
            }
            if (nb::hasattr(out, "flags") && !nb::cast<bool>(out.attr("flags").attr("writeable"))) {
              Raise(Status::Invalid("out is read-only"));
            }
            nb::ndarray<nb::numpy, nb::c_contig, nb::device::cpu> target;
            if (!nb::try_cast(out, target, /*convert=*/false)) {
              Raise(Status::TypeError("out must be a C-contiguous NumPy array on the CPU"));
            }
            nb::object want = NumpyDtype(*a.array.type().value_type());
            if (!want.equal(out.attr("dtype"))) {
              Raise(Status::TypeError("out has dtype " + Str(out.attr("dtype")) +
                                      ", the values are " + Str(want)));
            }
            std::vector<int64_t> shape(target.ndim());
            for (size_t k = 0; k < target.ndim(); ++k)
              shape[k] = static_cast<int64_t>(target.shape(k));
            auto* dst = static_cast<uint8_t*>(target.data());
            Result<Tensor> shapes = Status::Invalid("");
            {
              nb::gil_scoped_release no_gil;
              shapes = a.array.ToPaddedInto(dst, shape, pad, nulls);
            }
            return nb::make_tuple(
                nb::borrow(out),
                TensorToNumpy(UnwrapAllowNulls(std::move(shapes), nulls, a.array.null_count())));
          },
          nb::arg("pad_value") = 0, nb::arg("allow_nulls") = false, nb::kw_only(),
          nb::arg("out") = nb::none(),
          "(batch, shapes): every row copied into a (N, *max_shape) array filled with pad_value "
          "elsewhere, and the (N, ndim) logical shapes. pad_value must be exactly representable "
          "in the value type (Python ints are exact, up to 64 bits). With allow_nulls=True null "
          "rows are all padding, shape zeros. out=: write the batch into this C-contiguous, "
          "writable array of the value dtype and the padded shape instead (nothing but the "
          "small shapes array is allocated). Large batches are copied by two threads, without "
          "the GIL.")
      .def(
          "to_jagged",
          [](const A& a, bool allow_nulls) {
            const NullPolicy nulls = NullPolicyFrom(allow_nulls);
            auto jagged = UnwrapAllowNulls(a.array.ToJagged(nulls), nulls, a.array.null_count());
            return nb::make_tuple(TensorToNumpy(jagged.values), TensorToNumpy(jagged.offsets),
                                  TensorToNumpy(jagged.shapes));
          },
          nb::arg("allow_nulls") = false,
          "(values, offsets, shapes): the flat values (a zero-copy view), N + 1 int64 element "
          "offsets starting at 0, and the (N, ndim) PHYSICAL shapes (the storage layout).")
      .def("take", &Take, nb::arg("indices"), "The rows at `indices` (non-negative), copied.")
      .def("filter", &Filter, nb::arg("mask"),
           "The rows where `mask` is true, copied; a null in the mask selects nothing.")
      .def(
          "to_fixed",
          [](const A& a, nb::handle copy) {
            const CopyMode mode = CopyModeFromPython(copy);
            Result<FixedShapeTensorArray> fixed = Status::Invalid("");
            {
              nb::gil_scoped_release no_gil;
              fixed = a.array.ToFixed(mode);
            }
            return PyFixedShapeTensorArray{UnwrapCopy(std::move(fixed), mode)};
          },
          nb::arg("copy") = nb::none(),
          "A FixedShapeTensorArray when every row has the same shape (ValueError otherwise). "
          "Zero-copy when the rows' data is evenly spaced; copy=False raises instead of "
          "copying, copy=True always copies.")
      .def(
          "infer_uniform_shape",
          [](const A& a) { return UniformShapeToPython(a.array.InferUniformShape()); },
          "Per physical axis the size every non-null row shares, None where rows differ.")
      .def(
          "with_uniform_shape",
          [](const A& a, Uniform uniform_shape) {
            return A{Unwrap(a.array.WithUniformShape(uniform_shape.value_or(UniformShape{})))};
          },
          nb::arg("uniform_shape"),
          "The same data (zero-copy) with uniform_shape recorded in the type, checked on every "
          "row; None clears it.")
      .def_prop_ro("type", [](const A& a) { return PyVariableShapeTensorType{a.array.type()}; })
      // No `shape`: rows differ in shape (shapes() lists them, to_padded()
      // gives one array).
      .def_prop_ro(
          "ndim", [](const A& a) { return 1 + a.array.type().ndim(); },
          "1 + the number of dimensions of each row's tensor (the row axis counts, as in "
          "to_padded()'s batch). There is no .shape: rows differ in shape.")
      .def_prop_ro(
          "nbytes", [](const A& a) { return Unwrap(ReferencedBytes(*a.array.data())); },
          "Bytes of buffer memory the rows reference: for these rows only, the bitmaps' bytes, "
          "N + 1 data offsets, the values the offsets delimit and N shapes. (pyarrow counts "
          "one offset and the struct bitmap fewer.)")
      .def_static(
          "from_storage",
          [](const PyVariableShapeTensorType& type, nb::handle storage) {
            ArrayDataPtr data = AsExtensionStorage(type.type.data_type(), type.type.ToString(),
                                                   storage, "a plain struct<data, shape> array");
            return A{
                Unwrap(VariableShapeTensorArray::Make(std::move(data), ValidationLevel::kFull))};
          },
          nb::arg("type"), nb::arg("storage"),
          "The column of `type` over `storage` (a quiver Array or anything with "
          "__arrow_c_array__ holding the struct<data, shape> storage), zero-copy, validated.")
      .def(
          "__iter__",
          [](const A& a) { return ColumnRows(a.array, RowOrNone, false).attr("__iter__")(); },
          "Row views in order, None for null rows.")
      .def(
          "to_pylist", [](const A& a) { return ColumnRows(a.array, RowOrNone, true); },
          "Every row as nested Python lists (logical shape), None for null rows.")
      .def(
          "equals",
          [](const A& a, const A& b) { return VariableShapeTensorArraysEqual(a.array, b.array); },
          nb::arg("other"), "Same type, length, null rows, shapes and values (NaN != NaN).")
      .def("__eq__",
           [](const A& a, nb::handle b) {
             return nb::isinstance<A>(b) &&
                    VariableShapeTensorArraysEqual(a.array, nb::cast<A&>(b).array);
           })
      .def(
          "__reduce_ex__",
          [](const A& a, int protocol) { return ReduceArray(a.array.data(), protocol); },
          nb::arg("protocol"))
      .def("__copy__", [](nb::handle self) { return nb::borrow(self); })
      .def(
          "__deepcopy__", [](const A& a, nb::handle) { return DeepCopyArray(a.array.data()); },
          nb::arg("memo"))
      .def("__repr__", [](const A& a) { return TensorColumnRepr(a.array); });
  AddColumnBasics(cls, "The struct<data, shape> storage as a plain Array (zero-copy).",
                  "Exports (schema, array) PyCapsules, zero-copy, with the extension metadata.");
  nb::setattr(m.attr("VariableShapeTensorArray"), "__hash__", nb::none());

  m.def(
      "concat",
      [](nb::sequence arrays) -> nb::object {
        std::vector<VariableShapeTensorArray> variable;
        std::vector<FixedShapeTensorArray> fixed;
        for (nb::handle item : arrays) {
          if (nb::isinstance<A>(item)) {
            variable.push_back(nb::cast<A&>(item).array);
          } else if (nb::isinstance<PyFixedShapeTensorArray>(item)) {
            fixed.push_back(nb::cast<PyFixedShapeTensorArray&>(item).array);
          } else {
            Raise(Status::TypeError(
                "concat takes FixedShapeTensorArrays or VariableShapeTensorArrays, got " +
                std::string(nb::type_name(item.type()).c_str())));
          }
        }
        if (!variable.empty() && !fixed.empty()) {
          Raise(
              Status::TypeError("cannot concat fixed- and variable-shape columns; convert with "
                                "to_variable() first"));
        }
        if (!fixed.empty()) {
          Result<FixedShapeTensorArray> out = Status::Invalid("");
          {
            nb::gil_scoped_release no_gil;
            out = FixedShapeTensorArray::Concat(fixed);
          }
          return nb::cast(PyFixedShapeTensorArray{Unwrap(std::move(out))});
        }
        return nb::cast(Released([&] { return VariableShapeTensorArray::Concat(variable); }));
      },
      nb::arg("arrays"),
      "The rows of several tensor columns in order (a copy, without the GIL). "
      "FixedShapeTensorArrays must have equal types; VariableShapeTensorArrays must agree on "
      "value type, ndim, dim_names and permutation (an explicit identity permutation equals "
      "none), and uniform_shape keeps an axis only where every input records the same size.");
}

}  // namespace quiver::python
