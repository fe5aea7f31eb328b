// Validation of sparse tensors: the O(1) size checks every builder runs,
// and the O(nnz) index checks of ValidationLevel::kFull. Messages name the
// array and the position ("CSR indptr[4] = 7 is less than indptr[3] = 9").
#include <string>

#include "quiver/internal/checked_math.h"
#include "quiver/internal/permutation.h"
#include "quiver/sparse/sparse_internal.h"
#include "quiver/sparse/sparse_validate.h"

namespace quiver::sparse {

namespace {

std::string Str(int64_t v) { return std::to_string(v); }

Status CheckIndexTensor(const Tensor& t, const std::string& name, int ndim) {
  if (!t.type()) return Status::Invalid(name, " is missing");
  if (!IsIndexType(*t.type())) {
    return Status::TypeError(name, " must have an integer type (int8..int64, uint8..uint64), not ",
                             t.type()->ToString());
  }
  if (t.ndim() != ndim) {
    return Status::Invalid(name, " must have ", ndim, " dimension(s), not ", t.ndim());
  }
  return t.CheckOnHost();
}

Status CheckLength(const Tensor& t, const std::string& name, int64_t expected, const char* why) {
  if (t.shape()[0] != expected) {
    return Status::Invalid(name, " has ", t.shape()[0], " entries, expected ", expected, " (", why,
                           ")");
  }
  return Status::OK();
}

Status CheckValuesAndNames(const SparseTensor& t) {
  const Tensor& values = t.values();
  if (values.ndim() != 1) {
    return Status::Invalid("sparse values must be 1-D, not ", values.ndim(), "-D");
  }
  if (!values.IsContiguous()) return Status::Invalid("sparse values must be contiguous");
  // The kernels read values through typed pointers.
  const int64_t width = values.type()->byte_width();
  if (reinterpret_cast<uintptr_t>(values.raw_data()) % static_cast<uintptr_t>(width) != 0) {
    return Status::Invalid("sparse values are not aligned to their ", width, "-byte width");
  }
  for (size_t k = 0; k < t.shape().size(); ++k) {
    if (t.shape()[k] < 0) {
      return Status::Invalid("sparse tensor shape ", internal::FormatShape(t.shape()),
                             " has a negative size on axis ", k);
    }
  }
  if (!t.dim_names().empty() && t.dim_names().size() != t.shape().size()) {
    return Status::Invalid("sparse tensor has ", t.ndim(), " dimensions but ", t.dim_names().size(),
                           " dim_names");
  }
  return values.CheckOnHost();
}

Status CheckCOOSizes(const SparseTensor& t, const SparseCOOIndex& index) {
  QUIVER_RETURN_NOT_OK(CheckIndexTensor(index.coords, "COO coords", 2));
  if (index.coords.shape()[0] != t.non_zero_length() || index.coords.shape()[1] != t.ndim()) {
    return Status::Invalid("COO coords have shape ", internal::FormatShape(index.coords.shape()),
                           ", expected [", t.non_zero_length(), ", ", t.ndim(),
                           "] (non-zeros x dimensions)");
  }
  return Status::OK();
}

Status CheckCSXSizes(const SparseTensor& t, const SparseCSXIndex& index) {
  const std::string indptr = IndexName(t.format(), "indptr");
  const std::string indices = IndexName(t.format(), "indices");
  if (t.ndim() != 2) {
    return Status::Invalid(std::string(SparseFormatName(t.format())), " needs a 2-D shape, not ",
                           internal::FormatShape(t.shape()));
  }
  QUIVER_RETURN_NOT_OK(CheckIndexTensor(index.indptr, indptr, 1));
  QUIVER_RETURN_NOT_OK(CheckIndexTensor(index.indices, indices, 1));
  const int64_t compressed = t.shape()[t.format() == SparseFormat::kCSR ? 0 : 1];
  QUIVER_ASSIGN_OR_RETURN(int64_t expected, internal::AddChecked(compressed, 1, indptr));
  QUIVER_RETURN_NOT_OK(CheckLength(index.indptr, indptr, expected,
                                   t.format() == SparseFormat::kCSR ? "rows + 1" : "columns + 1"));
  return CheckLength(index.indices, indices, t.non_zero_length(), "one per non-zero");
}

Status CheckCSFSizes(const SparseTensor& t, const SparseCSFIndex& index) {
  const int ndim = t.ndim();
  QUIVER_RETURN_NOT_OK(internal::CheckPermutation(index.axis_order, ndim, "CSF axis_order"));
  if (static_cast<int>(index.indices.size()) != ndim ||
      static_cast<int>(index.indptr.size()) != ndim - 1) {
    return Status::Invalid("CSF has ", index.indptr.size(), " indptr and ", index.indices.size(),
                           " indices arrays, expected ", ndim - 1, " and ", ndim);
  }
  for (int k = 0; k < ndim; ++k) {
    QUIVER_RETURN_NOT_OK(CheckIndexTensor(index.indices[k], "CSF indices[" + Str(k) + "]", 1));
  }
  for (int k = 0; k + 1 < ndim; ++k) {
    const std::string name = "CSF indptr[" + Str(k) + "]";
    QUIVER_RETURN_NOT_OK(CheckIndexTensor(index.indptr[k], name, 1));
    QUIVER_ASSIGN_OR_RETURN(int64_t expected,
                            internal::AddChecked(index.indices[k].shape()[0], 1, name));
    QUIVER_RETURN_NOT_OK(CheckLength(index.indptr[k], name, expected, "level size + 1"));
  }
  return CheckLength(index.indices[ndim - 1], "CSF indices[" + Str(ndim - 1) + "]",
                     t.non_zero_length(), "one per non-zero");
}

// Whether each segment [p[s], p[s + 1]) of `v` is strictly increasing.
bool SegmentsStrictlyIncreasing(const IndexValues& p, const IndexValues& v) {
  for (int64_t s = 0; s + 1 < p.size; ++s) {
    for (int64_t i = p[s] + 1; i < p[s + 1]; ++i) {
      if (v[i] <= v[i - 1]) return false;
    }
  }
  return true;
}

Result<bool> CheckCOOValues(const SparseTensor& t, const SparseCOOIndex& index) {
  const IndexValues c = ReadIndexValues(index.coords);
  QUIVER_RETURN_NOT_OK(CheckCoords(c, t.shape()));
  if (!index.canonical) return false;
  bool duplicate = false;
  const int64_t i = FirstUnsortedRow(c.span(), t.ndim(), &duplicate);
  if (i >= 0) {
    return Status::Invalid("COO coords are marked canonical but row ", i, " is ",
                           (duplicate ? "a duplicate of" : "not after"), " row ", i - 1);
  }
  return true;
}

Result<bool> CheckCSXValues(const SparseTensor& t, const SparseCSXIndex& index) {
  const std::string name = IndexName(t.format(), "indptr");
  const IndexValues p = ReadIndexValues(index.indptr);
  const IndexValues v = ReadIndexValues(index.indices);
  QUIVER_RETURN_NOT_OK(CheckIndptr(p, name, t.non_zero_length()));
  const int64_t bound = t.shape()[t.format() == SparseFormat::kCSR ? 1 : 0];
  QUIVER_RETURN_NOT_OK(CheckInRange(v, IndexName(t.format(), "indices"), bound));
  return SegmentsStrictlyIncreasing(p, v);
}

Result<bool> CheckCSFValues(const SparseTensor& t, const SparseCSFIndex& index) {
  const int ndim = t.ndim();
  bool canonical = true;
  std::vector<IndexValues> indices;
  for (int k = 0; k < ndim; ++k) {
    indices.push_back(ReadIndexValues(index.indices[k]));
    QUIVER_RETURN_NOT_OK(
        CheckInRange(indices[k], "CSF indices[" + Str(k) + "]", t.shape()[index.axis_order[k]]));
  }
  // The root level has one implicit parent covering all of it.
  const IndexValues root{{0, indices[0].size}, 2};
  canonical = SegmentsStrictlyIncreasing(root, indices[0]);
  for (int k = 0; k + 1 < ndim; ++k) {
    const IndexValues p = ReadIndexValues(index.indptr[k]);
    QUIVER_RETURN_NOT_OK(CheckIndptr(p, "CSF indptr[" + Str(k) + "]", indices[k + 1].size));
    canonical = canonical && SegmentsStrictlyIncreasing(p, indices[k + 1]);
  }
  return canonical;
}

}  // namespace

Result<bool> ValidateSparse(const SparseTensor& t, ValidationLevel level) {
  QUIVER_RETURN_NOT_OK(CheckValuesAndNames(t));
  if (const auto* coo = t.coo_index()) {
    QUIVER_RETURN_NOT_OK(CheckCOOSizes(t, *coo));
    if (level == ValidationLevel::kFull) return CheckCOOValues(t, *coo);
  } else if (const auto* csx = t.csx_index()) {
    QUIVER_RETURN_NOT_OK(CheckCSXSizes(t, *csx));
    if (level == ValidationLevel::kFull) return CheckCSXValues(t, *csx);
  } else if (const auto* csf = t.csf_index()) {
    QUIVER_RETURN_NOT_OK(CheckCSFSizes(t, *csf));
    if (level == ValidationLevel::kFull) return CheckCSFValues(t, *csf);
  }
  return false;
}

}  // namespace quiver::sparse
