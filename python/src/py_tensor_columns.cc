// What the two tensor column bindings share (py_fixed_shape_tensor_array.cc,
// py_variable_shape_tensor_array.cc): reprs, row-by-row equality, masks,
// take() indices and out= copies.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>
#include <limits>
#include <optional>
#include <span>

#include "py_buffer_protocol.h"
#include "py_c_device.h"
#include "py_capsules.h"
#include "py_dlpack.h"
#include "py_errors.h"
#include "py_fastcall.h"
#include "py_numpy.h"
#include "py_objects.h"
#include "py_pickle.h"
#include "py_repr.h"

#include <cstring>

#include "quiver/selection.h"

namespace quiver::python {

std::string ArrayHeader(const char* cls, const std::string& type, int64_t length, int64_t nulls) {
  std::string out =
      std::string("quiver.") + cls + "<" + type + "> length=" + std::to_string(length);
  if (nulls > 0) out += " null_count=" + std::to_string(nulls);
  return out;
}

namespace {

// Row i of a tensor column as repr text: its values, or null.
std::string RowText(const Result<Tensor>& row, bool valid, bool with_shape) {
  if (!valid) return "null";
  if (!row.ok()) return "<" + row.status().message() + ">";
  std::string out;
  if (with_shape) {
    out = "(";
    for (size_t k = 0; k < row->shape().size(); ++k)
      out += (k ? ", " : "") + std::to_string(row->shape()[k]);
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

bool VariableShapeTensorArraysEqual(const VariableShapeTensorArray& a,
                                    const VariableShapeTensorArray& b) {
  nb::gil_scoped_release no_gil;
  return RowsEqual(a, b);
}

std::string TensorColumnRepr(const FixedShapeTensorArray& a) {
  return FormatColumn(
      ArrayHeader("FixedShapeTensorArray", a.type().ToString(), a.length(), a.null_count()),
      a.length(), [&](int64_t i) { return RowText(a.RowTensor(i), a.IsValid(i), false); });
}

std::string TensorColumnRepr(const VariableShapeTensorArray& a) {
  return FormatColumn(
      ArrayHeader("VariableShapeTensorArray", a.type().ToString(), a.length(), a.null_count()),
      a.length(), [&](int64_t i) { return RowText(a.RowTensor(i), a.IsValid(i), true); });
}

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
  if (rows == 0) return {};  // reshape(0, -1) cannot infer the row width
  nb::object per_row = flags.attr("reshape")(rows, -1);
  nb::object all =
      numpy.attr("ascontiguousarray")(per_row.attr("all")(1)).attr("view")(numpy.attr("uint8"));
  nb::object any = per_row.attr("any")(1);
  nb::object partial = numpy.attr("flatnonzero")(
      any.attr("__and__")(all.attr("view")(numpy.attr("bool_")).attr("__invert__")()));
  if (nb::len(partial) > 0) {
    Raise(Status::Invalid("row " + Str(partial[0]) +
                          " is masked in part; a tensor column can only make whole rows null "
                          "(fill the masked elements, e.g. x.filled(0), or mask the whole row)"));
  }
  auto view = nb::cast<nb::ndarray<const uint8_t, nb::ndim<1>, nb::c_contig>>(all);
  return std::vector<uint8_t>(view.data(), view.data() + view.shape(0));
}

namespace {

// An index that no int64 holds (a uint64 above 2^63 - 1, or a Python int
// beyond 64 bits) is out of range for any column: IndexError quoting it as
// written, at its position, before a conversion to int64 could wrap it.
[[noreturn]] void RaiseIndexTooLarge(const std::string& value, int64_t position, int64_t rows) {
  Raise(Status::IndexError("index ", value, " at position ", position, " is out of range for ",
                           rows, " rows"));
}

}  // namespace

// Indices as a contiguous int64 NumPy array; TypeError for non-integers.
nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig> IndexArray(nb::handle indices, int64_t rows) {
  nb::object numpy = Numpy();
  nb::object array = numpy.attr("asarray")(indices);
  std::string kind = nb::cast<std::string>(array.attr("dtype").attr("kind"));
  std::string as_floats;  // the dtype NumPy chose, when the items are looked at below
  if (kind == "f" && !nb::isinstance(indices, numpy.attr("ndarray"))) {
    // NumPy makes float64 of a list mixing ints it types differently (0 and
    // 2**64 - 1), which would lose the index: look at the items themselves.
    as_floats = Str(array.attr("dtype"));
    array = numpy.attr("asarray")(indices, nb::arg("dtype") = numpy.attr("object_"));
    kind = "O";
  }
  const int64_t size = nb::cast<int64_t>(array.attr("size"));
  if (nb::cast<int64_t>(array.attr("ndim")) != 1) {
    Raise(Status::Invalid("indices must be one-dimensional"));
  }
  if (kind == "O" && size > 0) {
    // NumPy keeps Python ints beyond 64 bits (and mixes it cannot type) as
    // objects: each must be an integer, and one that no int64 holds is
    // reported as it is.
    for (int64_t j = 0; j < size; ++j) {
      nb::object item = array[nb::int_(j)];
      if (PyBool_Check(item.ptr()) || !PyIndex_Check(item.ptr())) {
        if (!as_floats.empty())
          Raise(Status::TypeError("indices must be integers, got dtype ", as_floats));
        Raise(Status::TypeError("indices must be integers, got ",
                                nb::type_name(item.type()).c_str(), " at position ", j));
      }
      nb::object value = nb::steal(PyNumber_Index(item.ptr()));
      if (!value.is_valid()) throw nb::python_error();
      int overflow = 0;
      PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
      if (overflow != 0) RaiseIndexTooLarge(Str(value), j, rows);
    }
  } else if (kind != "i" && kind != "u" && size > 0) {
    Raise(Status::TypeError("indices must be integers, got dtype " + Str(array.attr("dtype"))));
  }
  if (kind == "u" && nb::cast<int64_t>(array.attr("dtype").attr("itemsize")) == 8 && size > 0) {
    nb::object too_large = numpy.attr("flatnonzero")(
        array.attr("__gt__")(numpy.attr("uint64")(std::numeric_limits<int64_t>::max())));
    if (nb::len(too_large) > 0) {
      const int64_t j = nb::cast<int64_t>(too_large[0]);
      RaiseIndexTooLarge(Str(array[nb::int_(j)]), j, rows);
    }
  }
  nb::object converted = numpy.attr("ascontiguousarray")(array, numpy.attr("int64"));
  return nb::cast<nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig>>(converted);
}

namespace {

// A NumPy-convertible mask's bytes: bools, or (an object array, from a
// list) bools and None, a None selecting nothing as a null does.
std::vector<uint8_t> NumpyMaskBytes(nb::handle mask) {
  nb::object numpy = Numpy();
  nb::object array = numpy.attr("asarray")(mask);
  if (nb::cast<int64_t>(array.attr("ndim")) != 1) {
    Raise(Status::Invalid("mask must be one-dimensional, got shape " + Str(array.attr("shape"))));
  }
  const std::string kind = nb::cast<std::string>(array.attr("dtype").attr("kind"));
  const auto size = nb::cast<int64_t>(array.attr("size"));
  if (kind == "O") {
    std::vector<uint8_t> out;
    out.reserve(static_cast<size_t>(size));
    nb::handle np_bool = numpy.attr("bool_");
    for (nb::handle item : array) {
      if (!item.is_none() && !PyBool_Check(item.ptr()) && !nb::isinstance(item, np_bool)) {
        Raise(Status::TypeError("mask entry " + std::to_string(out.size()) + " is " +
                                Str(item.type().attr("__name__")) +
                                "; a mask holds bools (None: null, selects nothing)"));
      }
      out.push_back(!item.is_none() && PyObject_IsTrue(item.ptr()) == 1);
    }
    return out;
  }
  if (kind != "b" && size != 0) {
    Raise(Status::TypeError("mask must hold bools, got dtype " + Str(array.attr("dtype"))));
  }
  nb::object flags =
      numpy.attr("ascontiguousarray")(array, numpy.attr("bool_")).attr("view")(numpy.attr("uint8"));
  auto view = nb::cast<nb::ndarray<const uint8_t, nb::ndim<1>, nb::c_contig>>(flags);
  return std::vector<uint8_t>(view.data(), view.data() + view.shape(0));
}

// A plain NumPy bool array (1-D, C-contiguous, on the CPU) as it is,
// borrowed with no copy, or nullopt for any other mask: a numpy.ma array
// (whose mask its bytes leave out), or anything that offers Arrow data
// (whose nulls they would leave out), even if it converts. The bytes live
// as long as the returned array: an object exporting them through
// __dlpack__ may hand out memory that only the export keeps alive.
using BoolArray = nb::ndarray<const bool, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
std::optional<BoolArray> NumpyBools(nb::handle mask) {
  if (IsMaskedArray(mask) || HasArrayProtocol(mask) || HasStreamProtocol(mask)) return std::nullopt;
  BoolArray bools;
  if (!nb::try_cast(mask, bools, /*convert=*/false)) return std::nullopt;
  return bools;
}

std::span<const uint8_t> BoolBytes(const BoolArray& bools) {
  return {reinterpret_cast<const uint8_t*>(bools.data()), bools.shape(0)};
}

}  // namespace

// Nulls select nothing, as in pyarrow's filter (null_selection_behavior=
// "drop"): an Arrow mask's nulls, a numpy.ma mask's masked entries.
std::vector<uint8_t> MaskArray(nb::handle mask) {
  // A NumPy bool array is copied at once, with the GIL held: the filter
  // then reads a snapshot of its own (without the GIL, in several passes),
  // whatever another thread does to the array meanwhile.
  if (std::optional<BoolArray> bools = NumpyBools(mask)) {
    const std::span<const uint8_t> bytes = BoolBytes(*bools);
    return std::vector<uint8_t>(bytes.begin(), bytes.end());
  }
  if (IsMaskedArray(mask)) {
    std::vector<uint8_t> flags = NumpyMaskBytes(mask.attr("data"));
    std::vector<uint8_t> masked =
        NumpyMaskBytes(nb::module_::import_("numpy.ma").attr("getmaskarray")(mask));
    for (size_t i = 0; i < flags.size(); ++i) flags[i] &= static_cast<uint8_t>(!masked[i]);
    return flags;
  }
  if (HasArrayProtocol(mask)) {
    ArrayDataPtr data = ImportArrayFrom(mask).second;
    return Unwrap(FilterMask(data));
  }
  if (HasStreamProtocol(mask)) {
    std::shared_ptr<ArrayReader> reader = ImportStreamFrom(mask);
    std::vector<ArrayDataPtr> chunks;
    while (ArrayDataPtr chunk = Unwrap(reader->Next())) chunks.push_back(std::move(chunk));
    if (chunks.empty()) chunks.push_back(Unwrap(MakeEmptyArray(reader->field().type)));
    return Unwrap(FilterMask(chunks));
  }
  return NumpyMaskBytes(mask);
}

RowMask MaskRows(nb::handle mask) {
  // A NumPy bool array is packed straight from its memory (the packed
  // mask is the snapshot); any other mask goes through MaskArray's bytes.
  if (std::optional<BoolArray> bools = NumpyBools(mask)) {
    return RowMask::FromBytes(BoolBytes(*bools));
  }
  return RowMask::FromBytes(MaskArray(mask));
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
    Raise(Status::TypeError("out has dtype " + Str(out.attr("dtype")) + ", the values are " +
                            Str(want)));
  }
  std::vector<int64_t> shape(target.ndim());
  for (size_t k = 0; k < target.ndim(); ++k) shape[k] = static_cast<int64_t>(target.shape(k));
  if (shape != tensor.shape()) {
    Raise(Status::Invalid("out has shape " + Str(out.attr("shape")) + ", the values " +
                          Str(ToTuple(tensor.shape()))));
  }
  const auto bytes = static_cast<int64_t>(target.nbytes());
  Check(WithoutGil([&] { return tensor.CopyToRowMajor(target.data(), bytes); }));
}

}  // namespace quiver::python
