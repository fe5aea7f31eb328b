// Sparse tensors: SparseCOOTensor, SparseCSRMatrix, SparseCSCMatrix and
// SparseCSFTensor over one C++ SparseTensor, with pyarrow's names.
#include "py_sparse.h"
#include "py_bindings.h"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <vector>

#include "py_errors.h"
#include "py_numpy.h"
#include "py_objects.h"
#include "py_pickle.h"
#include "py_repr.h"

namespace quiver::python {

using Names = std::optional<std::vector<std::string>>;
using Order = std::optional<std::vector<int64_t>>;

nb::object WrapSparse(SparseTensor tensor) {
  switch (tensor.format()) {
    case SparseFormat::kCOO: return nb::cast(PySparseCOOTensor{{std::move(tensor)}});
    case SparseFormat::kCSR: return nb::cast(PySparseCSRMatrix{{std::move(tensor)}});
    case SparseFormat::kCSC: return nb::cast(PySparseCSCMatrix{{std::move(tensor)}});
    case SparseFormat::kCSF: break;
  }
  return nb::cast(PySparseCSFTensor{{std::move(tensor)}});
}

namespace {

const char* ClassName(SparseFormat format) {
  switch (format) {
    case SparseFormat::kCOO: return "SparseCOOTensor";
    case SparseFormat::kCSR: return "SparseCSRMatrix";
    case SparseFormat::kCSC: return "SparseCSCMatrix";
    case SparseFormat::kCSF: break;
  }
  return "SparseCSFTensor";
}

// `obj` as a NumPy array (zero-copy for arrays and array producers), its
// dtype checked for values a tensor can hold.
nb::object AsNumpy(nb::handle obj, const std::string& what) {
  nb::object prepared = PrepareArray(obj, what.c_str());
  return Numpy().attr("asarray")(prepared);
}

std::string ShapeText(nb::handle array) { return Str(array.attr("shape")); }

// A C-contiguous version of `array`: itself when it already is.
nb::object Contiguous(nb::object array) {
  if (nb::cast<bool>(array.attr("flags").attr("c_contiguous"))) return array;
  return Numpy().attr("ascontiguousarray")(array);
}

Tensor ViewTensor(nb::handle array, const std::string& what) {
  return TensorFromArray(ViewArray(array, what.c_str()), {});
}

}  // namespace

Tensor SparseIndexArg(nb::handle obj, const std::string& what, int ndim) {
  nb::object array = AsNumpy(obj, what);
  std::string kind = nb::cast<std::string>(array.attr("dtype").attr("kind"));
  if (kind != "i" && kind != "u" && nb::cast<int64_t>(array.attr("size")) == 0) {
    // An empty list arrives as float64; with no values there is nothing to lose.
    array = array.attr("astype")("int64");
    kind = "i";
  }
  if (kind != "i" && kind != "u") {
    Raise(Status::TypeError(what + " has dtype " + Str(array.attr("dtype")) +
                            "; sparse indices are integers (int8..int64 or uint8..uint64)"));
  }
  if (nb::cast<int>(array.attr("ndim")) != ndim) {
    Raise(Status::Invalid(what + " must be " + std::to_string(ndim) + "-D" +
                          (ndim == 2 ? " (nnz, ndim)" : "") + ", got shape " + ShapeText(array)));
  }
  return ViewTensor(ndim == 1 ? Contiguous(array) : array, what);
}

Tensor SparseValuesArg(nb::handle obj, const std::string& what) {
  nb::object array = AsNumpy(obj, what);
  nb::tuple shape = nb::borrow<nb::tuple>(array.attr("shape"));
  // pyarrow hands out (and takes) COO data as a (nnz, 1) column.
  if (nb::len(shape) == 2 && nb::cast<int64_t>(shape[1]) == 1) array = array.attr("reshape")(-1);
  if (nb::cast<int>(array.attr("ndim")) != 1) {
    Raise(Status::Invalid(what + " must be 1-D (one value per non-zero), got shape " +
                          ShapeText(array)));
  }
  return ViewTensor(Contiguous(array), what);
}

std::vector<int64_t> ShapeArg(nb::handle shape) {
  if (nb::isinstance<nb::str>(shape) || !PySequence_Check(shape.ptr())) {
    Raise(Status::TypeError("shape must be a sequence of ints, got " +
                            std::string(nb::type_name(shape.type()).c_str())));
  }
  std::vector<int64_t> out;
  const size_t n = nb::len(shape);
  for (size_t i = 0; i < n; ++i) {
    nb::object dim = shape[i];
    if (!PyIndex_Check(dim.ptr())) {
      Raise(Status::TypeError("shape[" + std::to_string(i) + "] must be an int, got " +
                              std::string(nb::repr(dim).c_str())));
    }
    out.push_back(nb::cast<int64_t>(nb::int_(dim)));
  }
  return out;
}

SparseTensor MakeCOOFromPython(std::vector<int64_t> shape, Tensor coords, Tensor values,
                               nb::handle canonical, std::vector<std::string> dim_names) {
  const bool claim = !canonical.is_none() && nb::cast<bool>(nb::bool_(canonical));
  auto make = [&](bool flag) {
    return WithoutGil(
        [&] { return SparseTensor::MakeCOO(shape, coords, values, flag, dim_names); });
  };
  SparseTensor out = Unwrap(make(claim));
  // canonical=None: coordinates that turn out sorted and unique are marked
  // canonical (the builders check a claim but make none themselves).
  if (canonical.is_none() && !out.has_canonical_format()) {
    Result<SparseTensor> sorted = make(true);
    if (sorted.ok()) return std::move(*sorted);
  }
  return out;
}

namespace {

// --- arguments ---------------------------------------------------------------

TypePtr IndexTypeArg(nb::handle index_type) {
  if (index_type.is_none()) return nullptr;
  TypePtr type = TypeFromPython(index_type);
  if (!type->is_integer()) {
    Raise(
        Status::TypeError("index_type must be an integer type (int8..int64 or uint8..uint64), "
                          "got " +
                          type->ToString()));
  }
  return type;
}

SparseOptions OptionsFrom(nb::handle index_type, const Order& axis_order = std::nullopt) {
  SparseOptions options;
  options.index_type = IndexTypeArg(index_type);
  if (axis_order) options.axis_order = *axis_order;
  return options;
}

// The dense argument of from_dense_numpy, zero-copy in any layout.
Tensor DenseArg(nb::handle array, const Names& dim_names) {
  if (IsMaskedArray(array)) {
    Raise(
        Status::TypeError("array is a masked array; fill it first (array.filled(0)): a sparse "
                          "tensor has no masked entries"));
  }
  return TensorFromArray(ViewArray(array, "array"), dim_names.value_or(std::vector<std::string>{}));
}

nb::object FromDense(const Tensor& dense, SparseFormat format, const SparseOptions& options) {
  return WrapSparse(
      Unwrap(WithoutGil([&] { return SparseTensor::FromDense(dense, format, options); })));
}

std::vector<Tensor> IndexList(nb::handle list, const char* what) {
  if (nb::isinstance<nb::str>(list) || !PySequence_Check(list.ptr()) ||
      nb::hasattr(list, "__array_interface__")) {
    Raise(Status::TypeError(std::string(what) + " must be a list of integer arrays (one per " +
                            "level), got " + nb::type_name(list.type()).c_str()));
  }
  std::vector<Tensor> out;
  const size_t n = nb::len(list);
  for (size_t i = 0; i < n; ++i) {
    out.push_back(SparseIndexArg(list[i], std::string(what) + "[" + std::to_string(i) + "]", 1));
  }
  return out;
}

// No coordinates as an empty 1-D list or array read as (0, ndim).
nb::object EmptyCoords(nb::handle coords, size_t ndim) {
  nb::object array = Numpy().attr("asarray")(coords);
  if (nb::cast<int>(array.attr("ndim")) == 1 && nb::cast<int64_t>(array.attr("size")) == 0) {
    return array.attr("reshape")(0, ndim);
  }
  return nb::borrow(coords);
}

// --- outputs -----------------------------------------------------------------

nb::list NumpyList(const std::vector<Tensor>& tensors) {
  nb::list out;
  for (const Tensor& t : tensors) out.append(TensorToNumpy(t));
  return out;
}

// pyarrow's to_numpy: the values, then the index arrays, all read-only views.
// `for_repr`: values through ValuesForRepr (float32 without ml_dtypes).
nb::tuple ToNumpy(const SparseTensor& t, bool for_repr = false) {
  nb::object data = for_repr ? ValuesForRepr(t.values()) : TensorToNumpy(t.values());
  if (const SparseCOOIndex* coo = t.coo_index())
    return nb::make_tuple(data, TensorToNumpy(coo->coords));
  if (const SparseCSXIndex* csx = t.csx_index()) {
    return nb::make_tuple(data, TensorToNumpy(csx->indptr), TensorToNumpy(csx->indices));
  }
  const SparseCSFIndex* csf = t.csf_index();
  return nb::make_tuple(data, NumpyList(csf->indptr), NumpyList(csf->indices));
}

nb::object Convert(const SparseTensor& t, SparseFormat format, const SparseOptions& options) {
  return WrapSparse(Unwrap(WithoutGil([&] { return t.Convert(format, options); })));
}

nb::object Canonicalize(const SparseTensor& t, nb::handle index_type) {
  SparseTensor canonical = Unwrap(WithoutGil([&] { return t.Canonicalize(); }));
  if (index_type.is_none()) return WrapSparse(std::move(canonical));
  // A conversion to the same format re-types the indices of a canonical
  // tensor; CSF keeps its level order.
  SparseOptions options = OptionsFrom(index_type);
  if (const SparseCSFIndex* csf = canonical.csf_index()) options.axis_order = csf->axis_order;
  return Convert(canonical, canonical.format(), options);
}

// --- repr ----------------------------------------------------------------------

int64_t IntAt(nb::handle array, int64_t i) {
  return nb::cast<int64_t>(nb::int_(array[nb::int_(i)]));
}

// The row of node `node` in the level whose pointers are `indptr`.
int64_t ParentOf(nb::handle indptr, int64_t node) {
  nb::object np = Numpy();
  return nb::cast<int64_t>(nb::int_(np.attr("searchsorted")(indptr, node, "right"))) - 1;
}

// The coordinates of stored value `i`, walking the index views up from it.
std::vector<int64_t> CoordinatesOf(const SparseTensor& t, const nb::tuple& views, int64_t i) {
  std::vector<int64_t> at(t.ndim());
  if (t.coo_index()) {
    nb::object row = views[1][nb::int_(i)];
    for (int k = 0; k < t.ndim(); ++k) at[k] = IntAt(row, k);
  } else if (t.csx_index()) {
    const int compressed = t.format() == SparseFormat::kCSR ? 0 : 1;
    at[compressed] = ParentOf(views[1], i);
    at[1 - compressed] = IntAt(views[2], i);
  } else {
    const std::vector<int64_t>& order = t.csf_index()->axis_order;
    int64_t node = i;
    for (int level = t.ndim() - 1; level >= 0; --level) {
      at[order[level]] = IntAt(views[2][level], node);
      if (level > 0) node = ParentOf(views[1][level - 1], node);
    }
  }
  return at;
}

std::string Repr(const SparseTensor& t) {
  std::string shape;
  for (int64_t s : t.shape()) shape += (shape.empty() ? "" : ", ") + std::to_string(s);
  if (t.ndim() == 1) shape += ",";
  // bool8 is an extension type in Arrow's terms; its short name reads better.
  const std::string type = t.type()->is_bool8() ? "bool8" : t.type()->ToString();
  std::string out = std::string("quiver.") + ClassName(t.format()) + "<" + type + "> shape=(" +
                    shape + ") nnz=" + std::to_string(t.non_zero_length());
  if (!t.dim_names().empty()) {
    out += " dim_names=[";
    for (size_t i = 0; i < t.dim_names().size(); ++i) out += (i ? ", " : "") + t.dim_names()[i];
    out += "]";
  }
  if (const SparseCSFIndex* csf = t.csf_index()) {
    out += " axis_order=" + Str(ToTuple(csf->axis_order));
  }
  nb::tuple views = ToNumpy(t, /*for_repr=*/true);
  auto entry = [&](int64_t i) {
    out += "\n  " + Str(ToTuple(CoordinatesOf(t, views, i))) + "  " + Str(views[0][nb::int_(i)]);
  };
  const int64_t nnz = t.non_zero_length();
  for (int64_t i = 0; i < std::min<int64_t>(nnz, nnz > 8 ? 3 : 8); ++i) entry(i);
  if (nnz > 8) {
    out += "\n  ...";
    for (int64_t i = nnz - 3; i < nnz; ++i) entry(i);
  }
  return out;
}

// --- classes -------------------------------------------------------------------

template <SparseFormat F, typename Py>
void BindFromDense(nb::class_<Py, PySparseTensor>& cls) {
  if constexpr (F == SparseFormat::kCSF) {
    cls.def_static(
        "from_dense_numpy",
        [](nb::handle array, Names dim_names, nb::handle index_type, Order axis_order) {
          return FromDense(DenseArg(array, dim_names), F, OptionsFrom(index_type, axis_order));
        },
        nb::arg("array"), nb::arg("dim_names") = nb::none(), nb::arg("index_type") = nb::none(),
        nb::arg("axis_order") = nb::none(),
        "The non-zeros of a dense array (any layout, read without a copy), levels in "
        "axis_order (default 0, 1, ..., ndim - 1).");
    cls.def_static(
        "from_tensor",
        [](const PyTensor& t, nb::handle index_type, Order axis_order) {
          return FromDense(t.tensor, F, OptionsFrom(index_type, axis_order));
        },
        nb::arg("tensor"), nb::arg("index_type") = nb::none(), nb::arg("axis_order") = nb::none(),
        "The non-zeros of a dense quiver Tensor.");
  } else {
    cls.def_static(
        "from_dense_numpy",
        [](nb::handle array, Names dim_names, nb::handle index_type) {
          return FromDense(DenseArg(array, dim_names), F, OptionsFrom(index_type));
        },
        nb::arg("array"), nb::arg("dim_names") = nb::none(), nb::arg("index_type") = nb::none(),
        "The non-zeros of a dense array (any layout, read without a copy); index_type "
        "None picks the smallest signed type that fits.");
    cls.def_static(
        "from_tensor",
        [](const PyTensor& t, nb::handle index_type) {
          return FromDense(t.tensor, F, OptionsFrom(index_type));
        },
        nb::arg("tensor"), nb::arg("index_type") = nb::none(),
        "The non-zeros of a dense quiver Tensor.");
  }
}

template <SparseFormat F, typename Py>
void BindCSX(nb::class_<Py, PySparseTensor>& cls) {
  cls.def_static(
      "from_numpy",
      [](nb::handle data, nb::handle indptr, nb::handle indices, nb::handle shape,
         Names dim_names) {
        Tensor values = SparseValuesArg(data, "data");
        Tensor ptr = SparseIndexArg(indptr, "indptr", 1);
        Tensor idx = SparseIndexArg(indices, "indices", 1);
        std::vector<int64_t> dims = ShapeArg(shape);
        std::vector<std::string> names = dim_names.value_or(std::vector<std::string>{});
        return WrapSparse(Unwrap(
            WithoutGil([&] { return SparseTensor::MakeCSX(F, dims, ptr, idx, values, names); })));
      },
      nb::arg("data"), nb::arg("indptr"), nb::arg("indices"), nb::arg("shape"),
      nb::arg("dim_names") = nb::none(),
      "Wraps SciPy-style arrays, zero-copy when contiguous; every index is checked.");
  cls.def_static(
      "from_scipy", [](nb::handle obj) { return SparseFromScipy(obj, F); }, nb::arg("obj"),
      "From a SciPy sparse array or matrix; zero-copy in its format (others are "
      "converted by SciPy first).");
  cls.def(
      "to_scipy", [](const PySparseTensor& t) { return SparseToScipy(t.tensor); },
      "A SciPy sparse array sharing the memory (read-only) when canonical and indexed by "
      "int32 or int64; other index types are widened in a copy.");
}

}  // namespace

void BindSparse(nb::module_& m) {
  nb::class_<PySparseTensor> base(
      m, "SparseTensor", "A sparse tensor (COO, CSR, CSC or CSF): the base of the four classes.");
  base.def_prop_ro(
          "format",
          [](const PySparseTensor& t) {
            std::string name = SparseFormatName(t.tensor.format());
            for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            return name;
          },
          "'coo', 'csr', 'csc' or 'csf', as SciPy names its formats.")
      .def_prop_ro("shape", [](const PySparseTensor& t) { return ToTuple(t.tensor.shape()); })
      .def_prop_ro("ndim", [](const PySparseTensor& t) { return t.tensor.ndim(); })
      .def_prop_ro(
          "size", [](const PySparseTensor& t) { return t.tensor.size(); },
          "Elements of the dense tensor (the product of the shape).")
      .def_prop_ro(
          "non_zero_length", [](const PySparseTensor& t) { return t.tensor.non_zero_length(); },
          "Stored values (explicit zeros and duplicates included).")
      .def_prop_ro(
          "has_canonical_format",
          [](const PySparseTensor& t) { return t.tensor.has_canonical_format(); },
          "Sorted without duplicates (known after full validation and for conversion outputs).")
      .def_prop_ro("dim_names",
                   [](const PySparseTensor& t) -> Names {
                     if (t.tensor.dim_names().empty()) return std::nullopt;
                     return t.tensor.dim_names();
                   })
      .def(
          "dim_name",
          [](const PySparseTensor& t, int64_t i) {
            if (i < 0 || i >= t.tensor.ndim()) {
              Raise(Status::IndexError("dim_name(" + std::to_string(i) + "): the tensor has " +
                                       std::to_string(t.tensor.ndim()) + " axes"));
            }
            return t.tensor.dim_names().empty() ? std::string() : t.tensor.dim_names()[i];
          },
          nb::arg("i"), "The name of axis i ('' when the tensor has no names).")
      .def_prop_ro("type", [](const PySparseTensor& t) { return PyDataType{t.tensor.type()}; })
      .def_prop_ro(
          "dtype", [](const PySparseTensor& t) { return NumpyDtype(*t.tensor.type()); },
          "The NumPy dtype of the values (bool8 -> bool).")
      .def(
          "to_numpy", [](const PySparseTensor& t) { return ToNumpy(t.tensor); },
          "(data, index arrays...) as pyarrow gives them: read-only views, zero-copy.")
      .def(
          "to_tensor",
          [](const PySparseTensor& t) {
            return PyTensor{Unwrap(WithoutGil([&] { return t.tensor.ToDense(); }))};
          },
          "The dense quiver Tensor (row-major, a new buffer; duplicates summed).")
      .def(
          "to_dense",
          [](const PySparseTensor& t) {
            // Writable: ToDense's output is memory nothing else can see.
            return TensorToNumpy(Unwrap(WithoutGil([&] { return t.tensor.ToDense(); })),
                                 NumpyAccess::kWritable);
          },
          "The dense NumPy array (a writable copy; duplicates summed).")
      .def(
          "to_coo",
          [](const PySparseTensor& t, nb::handle index_type) {
            return Convert(t.tensor, SparseFormat::kCOO, OptionsFrom(index_type));
          },
          nb::arg("index_type") = nb::none(),
          "Canonical COO (values shared when their order stays).")
      .def(
          "to_csr",
          [](const PySparseTensor& t, nb::handle index_type) {
            return Convert(t.tensor, SparseFormat::kCSR, OptionsFrom(index_type));
          },
          nb::arg("index_type") = nb::none(), "Canonical CSR (2-D tensors only).")
      .def(
          "to_csc",
          [](const PySparseTensor& t, nb::handle index_type) {
            return Convert(t.tensor, SparseFormat::kCSC, OptionsFrom(index_type));
          },
          nb::arg("index_type") = nb::none(), "Canonical CSC (2-D tensors only).")
      .def(
          "to_csf",
          [](const PySparseTensor& t, Order axis_order, nb::handle index_type) {
            return Convert(t.tensor, SparseFormat::kCSF, OptionsFrom(index_type, axis_order));
          },
          nb::arg("axis_order") = nb::none(), nb::arg("index_type") = nb::none(),
          "Canonical CSF with levels in axis_order (default 0, 1, ..., ndim - 1).")
      .def(
          "canonicalize",
          [](const PySparseTensor& t, nb::handle index_type) {
            return Canonicalize(t.tensor, index_type);
          },
          nb::arg("index_type") = nb::none(),
          "The same format sorted, duplicates summed (SciPy's sum_duplicates; explicit zeros "
          "stay). Shares everything when already canonical and index_type is None.")
      .def(
          "equals",
          [](const PySparseTensor& a, const PySparseTensor& b) {
            return WithoutGil([&] { return a.tensor.Equals(b.tensor); });
          },
          nb::arg("other"),
          "Same value type, shape and values, whatever the formats and index types.")
      .def("__eq__",
           [](const PySparseTensor& a, nb::handle b) {
             if (!nb::isinstance<PySparseTensor>(b)) return false;
             const SparseTensor& other = nb::cast<PySparseTensor&>(b).tensor;
             return WithoutGil([&] { return a.tensor.Equals(other); });
           })
      .def("__ne__",
           [](const PySparseTensor& a, nb::handle b) {
             if (!nb::isinstance<PySparseTensor>(b)) return true;
             const SparseTensor& other = nb::cast<PySparseTensor&>(b).tensor;
             return WithoutGil([&] { return !a.tensor.Equals(other); });
           })
      .def(
          "__reduce_ex__",
          [](const PySparseTensor& t, int protocol) {
            return ReduceSparseTensor(t.tensor, protocol);
          },
          nb::arg("protocol"))
      .def("__copy__", [](nb::handle self) { return nb::borrow(self); })
      .def(
          "__deepcopy__",
          [](const PySparseTensor& t, nb::handle) {
            // Protocol 4 state holds bytes copies: rebuilding from it copies once.
            return Rebuild(ReduceSparseTensor(t.tensor, 4));
          },
          nb::arg("memo"))
      .def("__repr__", [](const PySparseTensor& t) { return Repr(t.tensor); });
  nb::setattr(base, "__hash__", nb::none());

  nb::class_<PySparseCOOTensor, PySparseTensor> coo(
      m, "SparseCOOTensor", "A sparse tensor of coordinates (nnz, ndim) and values, any rank.");
  BindFromDense<SparseFormat::kCOO>(coo);
  coo.def_static(
         "from_numpy",
         [](nb::handle data, nb::handle coords, nb::handle shape, Names dim_names,
            nb::handle canonical) {
           Tensor values = SparseValuesArg(data, "data");
           std::vector<int64_t> dims = ShapeArg(shape);
           Tensor index = SparseIndexArg(EmptyCoords(coords, dims.size()), "coords", 2);
           return WrapSparse(MakeCOOFromPython(std::move(dims), std::move(index), std::move(values),
                                               canonical,
                                               dim_names.value_or(std::vector<std::string>{})));
         },
         nb::arg("data"), nb::arg("coords"), nb::arg("shape"), nb::arg("dim_names") = nb::none(),
         nb::kw_only(), nb::arg("canonical") = nb::none(),
         "Wraps values and (nnz, ndim) coordinates (any strides), zero-copy; every coordinate "
         "is checked. canonical=True claims sorted, unique coordinates (checked); None finds out.")
      .def_static(
          "from_scipy", [](nb::handle obj) { return SparseFromScipy(obj, SparseFormat::kCOO); },
          nb::arg("obj"),
          "From a SciPy sparse array or matrix (n-D coo_array too); values shared, "
          "coordinates copied into one (nnz, ndim) block.")
      .def(
          "to_scipy", [](const PySparseTensor& t) { return SparseToScipy(t.tensor); },
          "A SciPy coo_array sharing the values and coordinate columns (read-only) when indexed by "
          "int32 or int64 (int64 for more than 2 axes); other index types are widened in a copy.")
      .def_static(
          "from_pydata_sparse", [](nb::handle obj) { return SparseFromPydata(obj); },
          nb::arg("obj"),
          "From a pydata sparse array (COO, zero-copy; other formats converted by sparse).")
      .def(
          "to_pydata_sparse", [](const PySparseTensor& t) { return SparseToPydata(t.tensor); },
          "A sparse.COO sharing the memory (read-only) for canonical int64 coordinates; otherwise "
          "canonicalized and/or widened to int64 first.");

  nb::class_<PySparseCSRMatrix, PySparseTensor> csr(m, "SparseCSRMatrix",
                                                    "A 2-D sparse matrix compressed by rows.");
  BindFromDense<SparseFormat::kCSR>(csr);
  BindCSX<SparseFormat::kCSR>(csr);

  nb::class_<PySparseCSCMatrix, PySparseTensor> csc(m, "SparseCSCMatrix",
                                                    "A 2-D sparse matrix compressed by columns.");
  BindFromDense<SparseFormat::kCSC>(csc);
  BindCSX<SparseFormat::kCSC>(csc);

  nb::class_<PySparseCSFTensor, PySparseTensor> csf(
      m, "SparseCSFTensor", "A sparse tensor as a tree of fibers, one level per axis.");
  BindFromDense<SparseFormat::kCSF>(csf);
  csf.def_static(
         "from_numpy",
         [](nb::handle data, nb::handle indptr, nb::handle indices, nb::handle shape,
            Order axis_order, Names dim_names) {
           Tensor values = SparseValuesArg(data, "data");
           std::vector<Tensor> ptrs = IndexList(indptr, "indptr");
           std::vector<Tensor> idxs = IndexList(indices, "indices");
           std::vector<int64_t> dims = ShapeArg(shape);
           std::vector<int64_t> order = axis_order.value_or(std::vector<int64_t>{});
           if (!axis_order) {
             for (size_t k = 0; k < dims.size(); ++k) order.push_back(static_cast<int64_t>(k));
           }
           std::vector<std::string> names = dim_names.value_or(std::vector<std::string>{});
           return WrapSparse(Unwrap(WithoutGil(
               [&] { return SparseTensor::MakeCSF(dims, ptrs, idxs, order, values, names); })));
         },
         nb::arg("data"), nb::arg("indptr"), nb::arg("indices"), nb::arg("shape"),
         nb::arg("axis_order") = nb::none(), nb::arg("dim_names") = nb::none(),
         "Wraps the fiber tree: ndim - 1 indptr arrays and ndim indices arrays (lists), "
         "zero-copy when contiguous; every index is checked.")
      .def_prop_ro(
          "axis_order",
          [](const PySparseTensor& t) { return ToTuple(t.tensor.csf_index()->axis_order); },
          "The axis each level of the tree indexes.");
}

}  // namespace quiver::python
