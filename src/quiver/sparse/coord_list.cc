// Any format to row-major coordinates, canonicalisation (sort, sum
// duplicates), and coordinates to any format: the hub every conversion
// between sparse formats goes through. Every index read is checked here,
// whatever level the tensor was validated at.
#include <algorithm>
#include <numeric>
#include <string>

#include "quiver/internal/checked_math.h"
#include "quiver/sparse/sparse_internal.h"

namespace quiver::sparse {

namespace {

std::string Str(int64_t v) { return std::to_string(v); }

Result<CoordList> FromCOO(const SparseTensor& t, const SparseCOOIndex& index) {
  CoordList list;
  list.coords = ReadIndexValues(index.coords);
  list.values = t.values();
  QUIVER_RETURN_NOT_OK(CheckCoords(list.coords, t.shape()));
  return list;
}

Result<CoordList> FromCSX(const SparseTensor& t, const SparseCSXIndex& index) {
  const bool csr = t.format() == SparseFormat::kCSR;
  const IndexValues p = ReadIndexValues(index.indptr);
  const IndexValues v = ReadIndexValues(index.indices);
  QUIVER_RETURN_NOT_OK(CheckIndptr(p, IndexName(t.format(), "indptr"), v.size));
  const int64_t bound = t.shape()[csr ? 1 : 0];
  CoordList list;
  list.coords.owned.resize(static_cast<size_t>(2 * v.size));
  int64_t* out = list.coords.owned.data();
  for (int64_t s = 0; s + 1 < p.size; ++s) {
    for (int64_t i = p[s]; i < p[s + 1]; ++i) {
      if (v[i] < 0 || v[i] >= bound)
        return IndexOutOfRange(IndexName(t.format(), "indices"), i, v[i], bound);
      out[2 * i + (csr ? 0 : 1)] = s;
      out[2 * i + (csr ? 1 : 0)] = v[i];
    }
  }
  list.coords.size = 2 * v.size;
  list.values = t.values();
  return list;
}

// Depth-first over the fiber tree: each leaf's path gives its coordinates.
Result<CoordList> FromCSF(const SparseTensor& t, const SparseCSFIndex& index) {
  const int ndim = t.ndim();
  std::vector<IndexValues> ptr, idx;
  for (int k = 0; k < ndim; ++k) {
    idx.push_back(ReadIndexValues(index.indices[k]));
    QUIVER_RETURN_NOT_OK(
        CheckInRange(idx[k], "CSF indices[" + Str(k) + "]", t.shape()[index.axis_order[k]]));
  }
  for (int k = 0; k + 1 < ndim; ++k) {
    ptr.push_back(ReadIndexValues(index.indptr[k]));
    QUIVER_RETURN_NOT_OK(CheckIndptr(ptr[k], "CSF indptr[" + Str(k) + "]", idx[k + 1].size));
  }
  // With every indptr running from 0 to the next level's size without
  // decreasing, each leaf has exactly one ancestor per level: the node n
  // at level k is the parent of [ptr[k][n], ptr[k][n + 1]).
  CoordList list;
  const int64_t nnz = idx[ndim - 1].size;
  list.coords.owned.resize(static_cast<size_t>(nnz * ndim));
  int64_t* out = list.coords.owned.data();
  const int64_t last_axis = index.axis_order[ndim - 1];
  for (int64_t i = 0; i < nnz; ++i) out[i * ndim + last_axis] = idx[ndim - 1][i];
  // node[i]: the ancestor of leaf i at the level being filled, found by
  // mapping each level's nodes to their parents, bottom up.
  std::vector<int64_t> node(static_cast<size_t>(nnz));
  std::iota(node.begin(), node.end(), int64_t{0});
  std::vector<int64_t> parent_of;
  for (int k = ndim - 2; k >= 0; --k) {
    parent_of.assign(static_cast<size_t>(idx[k + 1].size), 0);
    for (int64_t n = 0; n + 1 < ptr[k].size; ++n) {
      for (int64_t j = ptr[k][n]; j < ptr[k][n + 1]; ++j) parent_of[j] = n;
    }
    const int64_t axis = index.axis_order[k];
    for (int64_t i = 0; i < nnz; ++i) {
      node[i] = parent_of[node[i]];
      out[i * ndim + axis] = idx[k][node[i]];
    }
  }
  list.coords.size = nnz * ndim;
  list.values = t.values();
  return list;
}

}  // namespace

int64_t FirstUnsortedRow(std::span<const int64_t> coords, int ndim, bool* duplicate) {
  const int64_t n = ndim > 0 ? static_cast<int64_t>(coords.size()) / ndim : 0;
  for (int64_t i = 1; i < n; ++i) {
    const int64_t* a = coords.data() + (i - 1) * ndim;
    const int64_t* b = a + ndim;
    int k = 0;
    while (k < ndim && a[k] == b[k]) ++k;
    if (k == ndim || a[k] > b[k]) {
      if (duplicate != nullptr) *duplicate = k == ndim;
      return i;
    }
  }
  return -1;
}

Result<CoordList> ToCoordList(const SparseTensor& t) {
  Result<CoordList> list = Status::Invalid("sparse tensor has no index");
  if (const auto* coo = t.coo_index()) list = FromCOO(t, *coo);
  if (const auto* csx = t.csx_index()) list = FromCSX(t, *csx);
  if (const auto* csf = t.csf_index()) list = FromCSF(t, *csf);
  if (!list.ok()) return list;
  // Sortedness is checked, never taken from a flag: one cheap pass, and a
  // wrong claim can then never mislead the kernels after it.
  list->canonical = SortedUnique(list->coords.span(), t.ndim());
  return list;
}

}  // namespace quiver::sparse
