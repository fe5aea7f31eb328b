// Equality by value across formats: both sides as canonical coordinates,
// merged in row-major order. A coordinate stored on one side only must
// hold a zero there (an explicitly stored zero equals an absent one).
#include "quiver/sparse/sparse_internal.h"
#include "quiver/sparse/value_math.h"

namespace quiver::sparse {

namespace {

// -1, 0, 1 as coordinate tuple a is before, equal to or after b.
int CompareTuples(const int64_t* a, const int64_t* b, int ndim) {
  for (int k = 0; k < ndim; ++k) {
    if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
  }
  return 0;
}

template <typename T>
bool MergeEqual(const CoordList& a, const CoordList& b, int ndim) {
  const T* va = reinterpret_cast<const T*>(a.values.raw_data());
  const T* vb = reinterpret_cast<const T*>(b.values.raw_data());
  int64_t i = 0, j = 0;
  while (i < a.nnz() || j < b.nnz()) {
    const int order = i == a.nnz()   ? 1
                      : j == b.nnz() ? -1
                                     : CompareTuples(a.coords.data() + i * ndim,
                                                     b.coords.data() + j * ndim, ndim);
    if (order < 0) {
      if (IsNonZero(va[i++])) return false;
    } else if (order > 0) {
      if (IsNonZero(vb[j++])) return false;
    } else if (!ValuesEqual(va[i++], vb[j++])) {
      return false;
    }
  }
  return true;
}

Result<CoordList> Canonical(const SparseTensor& t) {
  QUIVER_ASSIGN_OR_RETURN(CoordList list, ToCoordList(t));
  return CanonicalCoords(std::move(list), t.shape(), 0);
}

}  // namespace

}  // namespace quiver::sparse

namespace quiver {

bool SparseTensor::Equals(const SparseTensor& other) const {
  if (!values_.type() || !other.values_.type()) return !values_.type() && !other.values_.type();
  if (!values_.type()->Equals(*other.values_.type()) || shape_ != other.shape_) return false;
  Result<bool> equal = internal::WithoutThrowing("sparse equality", [&]() -> Result<bool> {
    QUIVER_ASSIGN_OR_RETURN(sparse::CoordList a, sparse::Canonical(*this));
    QUIVER_ASSIGN_OR_RETURN(sparse::CoordList b, sparse::Canonical(other));
    bool same = false;
    sparse::VisitSparseValueType(
        *values_.type(), [&](auto tag) { same = sparse::MergeEqual<decltype(tag)>(a, b, ndim()); });
    return same;
  });
  return equal.ok() && *equal;
}

}  // namespace quiver
