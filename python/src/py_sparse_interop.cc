// Sparse tensors to and from SciPy (coo/csr/csc) and pydata sparse (COO):
// the arrays are shared wherever the other library takes them as they are.
#include <nanobind/stl/string.h>

#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include "py_errors.h"
#include "py_numpy.h"
#include "py_objects.h"
#include "py_optional.h"
#include "py_sparse.h"

namespace quiver::python {

using namespace nb::literals;

namespace {

const char* ScipyFormat(SparseFormat format) {
  switch (format) {
    case SparseFormat::kCOO: return "coo";
    case SparseFormat::kCSR: return "csr";
    case SparseFormat::kCSC: return "csc";
    case SparseFormat::kCSF: break;
  }
  return "csf";
}

std::string TypeName(nb::handle obj) { return nb::type_name(obj.type()).c_str(); }

// The largest value any index of `t` may hold: a dimension or nnz.
int64_t IndexBound(const SparseTensor& t) {
  int64_t bound = t.non_zero_length();
  for (int64_t s : t.shape()) bound = std::max(bound, s);
  return bound;
}

// SciPy indexes a matrix with one integer type, int32 or int64, for all of
// its index arrays (and int64 only for COO beyond 2-D). Arrays that already
// agree on one are handed over as they are; otherwise all are widened to
// int32 when every possible value fits, else int64.
nb::object ScipyIndexDtype(const std::vector<const Tensor*>& arrays, int64_t bound, bool need64) {
  const DataType& first = *arrays.front()->type();
  bool same = first.is_signed_integer() &&
              (first.bit_width() == 64 || (first.bit_width() == 32 && !need64));
  for (const Tensor* t : arrays) {
    same = same && t->type()->is_signed_integer() && t->type()->bit_width() == first.bit_width();
  }
  if (same) return NumpyDtype(first);
  return Numpy().attr("dtype")(need64 || bound > INT32_MAX ? "int64" : "int32");
}

// `view` in `dtype`: the view itself when it already is (zero-copy).
nb::object AsIndexDtype(nb::handle view, nb::handle dtype) {
  return view.attr("astype")(dtype, "copy"_a = false);
}

// A SciPy container of `shape` and the value dtype, its arrays set below.
// Building it empty and setting the documented attributes keeps SciPy from
// re-picking (and copying) the index type the way its constructors do.
nb::object EmptyScipy(const char* name, const SparseTensor& t, nb::handle dtype) {
  if (t.ndim() == 0) Raise(Status::Invalid("to_scipy: SciPy has no 0-D sparse arrays"));
  return ImportOptional("scipy.sparse").attr(name)(ToTuple(t.shape()), "dtype"_a = dtype);
}

nb::object CooToScipy(const SparseTensor& t) {
  const Tensor& coords = t.coo_index()->coords;
  nb::object dtype = ScipyIndexDtype({&coords}, IndexBound(t), t.ndim() > 2);
  nb::object by_axis = TensorToNumpy(coords).attr("T");  // row k: the coordinates along axis k
  nb::list columns;
  for (int k = 0; k < t.ndim(); ++k) columns.append(AsIndexDtype(by_axis[nb::int_(k)], dtype));
  nb::object data = TensorToNumpy(t.values());
  nb::object out = EmptyScipy("coo_array", t, data.attr("dtype"));
  out.attr("coords") = nb::tuple(columns);
  out.attr("data") = data;
  out.attr("has_canonical_format") = t.has_canonical_format();
  return out;
}

nb::object CompressedToScipy(const SparseTensor& t) {
  const SparseCSXIndex& csx = *t.csx_index();
  nb::object dtype = ScipyIndexDtype({&csx.indptr, &csx.indices}, IndexBound(t), false);
  nb::object data = TensorToNumpy(t.values());
  nb::object indptr = AsIndexDtype(TensorToNumpy(csx.indptr), dtype);
  nb::object indices = AsIndexDtype(TensorToNumpy(csx.indices), dtype);
  const bool canonical = t.has_canonical_format();
  if (!canonical) {
    // SciPy sorts a matrix's indices in place when an operation needs them
    // canonical: it gets arrays it may write to.
    data = data.attr("copy")();
    indptr = indptr.attr("copy")();
    indices = indices.attr("copy")();
  }
  nb::object out = EmptyScipy(t.format() == SparseFormat::kCSR ? "csr_array" : "csc_array", t,
                              data.attr("dtype"));
  out.attr("data") = data;
  out.attr("indices") = indices;
  out.attr("indptr") = indptr;
  if (canonical) out.attr("has_canonical_format") = true;
  out.attr("check_format")("full_check"_a = false);
  return out;
}

// `array` cut to its first `n` entries (SciPy may keep spare room after the
// last stored value); unchanged when `n` is not a length it has.
nb::object FirstEntries(nb::object array, int64_t n) {
  if (n < 0 || n >= static_cast<int64_t>(nb::len(array))) return array;
  return array[nb::slice(int64_t{0}, n)];
}

}  // namespace

nb::object SparseFromScipy(nb::handle obj, SparseFormat format) {
  nb::module_ scipy = ImportOptional("scipy.sparse");
  if (!nb::cast<bool>(scipy.attr("issparse")(obj))) {
    Raise(Status::TypeError("from_scipy expects a SciPy sparse array or matrix, got " +
                            TypeName(obj)));
  }
  nb::object m = nb::borrow(obj);
  if (nb::cast<std::string>(m.attr("format")) != ScipyFormat(format)) {
    m = m.attr("asformat")(ScipyFormat(format));  // SciPy's conversion: a copy
  }
  std::vector<int64_t> shape = ShapeArg(m.attr("shape"));
  if (format == SparseFormat::kCOO) {
    // SciPy keeps one array per axis; stacked as (ndim, nnz) and transposed
    // they are the column-major (nnz, ndim) coordinates quiver takes.
    nb::object stacked = Numpy().attr("stack")(nb::tuple(m.attr("coords")));
    Tensor coords = SparseIndexArg(stacked.attr("T"), "obj.coords", 2);
    Tensor values = SparseValuesArg(m.attr("data"), "obj.data");
    return WrapSparse(
        MakeCOOFromPython(std::move(shape), std::move(coords), std::move(values), nb::none(), {}));
  }
  nb::object indptr = m.attr("indptr");
  const int64_t nnz = nb::len(indptr) > 0 ? nb::cast<int64_t>(nb::int_(indptr[nb::int_(-1)])) : 0;
  Tensor ptr = SparseIndexArg(indptr, "obj.indptr", 1);
  Tensor indices = SparseIndexArg(FirstEntries(m.attr("indices"), nnz), "obj.indices", 1);
  Tensor values = SparseValuesArg(FirstEntries(m.attr("data"), nnz), "obj.data");
  return WrapSparse(Unwrap(
      WithoutGil([&] { return SparseTensor::MakeCSX(format, shape, ptr, indices, values); })));
}

nb::object SparseToScipy(const SparseTensor& tensor) {
  if (tensor.coo_index()) return CooToScipy(tensor);
  return CompressedToScipy(tensor);
}

nb::object SparseFromPydata(nb::handle obj) {
  nb::module_ sparse = ImportOptional("sparse");
  if (!nb::isinstance(obj, sparse.attr("SparseArray"))) {
    Raise(Status::TypeError("from_pydata_sparse expects a pydata sparse array (sparse.COO), got " +
                            TypeName(obj)));
  }
  nb::object coo = nb::borrow(obj);
  if (!nb::isinstance(coo, sparse.attr("COO"))) coo = coo.attr("asformat")("coo");
  if (!coo.attr("fill_value").equal(nb::int_(0))) {
    Raise(Status::Invalid("obj.fill_value is " + Str(coo.attr("fill_value")) +
                          "; a quiver sparse tensor is zero where nothing is stored"));
  }
  // pydata keeps (ndim, nnz) coordinates: transposed, a column-major
  // (nnz, ndim) view.
  Tensor coords = SparseIndexArg(coo.attr("coords").attr("T"), "obj.coords", 2);
  Tensor values = SparseValuesArg(coo.attr("data"), "obj.data");
  return WrapSparse(MakeCOOFromPython(ShapeArg(coo.attr("shape")), std::move(coords),
                                      std::move(values), nb::none(), {}));
}

nb::object SparseToPydata(const SparseTensor& tensor) {
  // pydata sorts and sums duplicates in place unless told the coordinates
  // are canonical; canonical ones it only reads, so they can be shared.
  SparseTensor t = tensor.has_canonical_format()
                       ? tensor
                       : Unwrap(WithoutGil([&] { return tensor.Canonicalize(); }));
  nb::object coords = TensorToNumpy(t.coo_index()->coords);
  coords = AsIndexDtype(coords, Numpy().attr("dtype")("intp"));  // pydata's index type
  nb::module_ sparse = ImportOptional("sparse");
  return sparse.attr("COO")(coords.attr("T"), TensorToNumpy(t.values()),
                            "shape"_a = ToTuple(t.shape()), "has_duplicates"_a = false,
                            "sorted"_a = true);
}

}  // namespace quiver::python
