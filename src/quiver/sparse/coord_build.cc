// Canonical row-major coordinates to each sparse format, and the sort that
// makes coordinates canonical.
#include <algorithm>
#include <cstring>
#include <numeric>

#include "quiver/internal/checked_math.h"
#include "quiver/internal/permutation.h"
#include "quiver/internal/threads.h"
#include "quiver/sparse/sparse_internal.h"

namespace quiver::sparse {

namespace {

// Keys of each coordinate tuple in the row-major order of `shape` taken in
// `order` (axis order[0] outermost). Every key is below the shape's
// product, which fits int64.
std::vector<int64_t> LinearKeys(const IndexValues& coords, int64_t nnz,
                                const std::vector<int64_t>& shape, std::span<const int64_t> order) {
  const int ndim = static_cast<int>(shape.size());
  std::vector<int64_t> keys(static_cast<size_t>(nnz));
  for (int64_t i = 0; i < nnz; ++i) {
    int64_t key = 0;
    for (int k = 0; k < ndim; ++k) {
      const int64_t axis = order[k];
      key = key * shape[axis] + coords[i * ndim + axis];
    }
    keys[i] = key;
  }
  return keys;
}

// The stable order of `keys`. (key, position) pairs sort without
// indirection, and since positions are unique the order is stable; large
// inputs sort in two halves on two threads, then merge.
std::vector<int64_t> SortOrder(const std::vector<int64_t>& keys, int threads) {
  const int64_t n = static_cast<int64_t>(keys.size());
  std::vector<std::pair<int64_t, int64_t>> pairs(keys.size());
  for (int64_t i = 0; i < n; ++i) pairs[i] = {keys[i], i};
  const int64_t half = internal::WorkerCount(n, threads, int64_t{1} << 16) > 1 ? n / 2 : n;
  internal::ParallelRanges(half < n ? 2 : 1, 2, 1, [&](int64_t b, int64_t e) {
    for (int64_t part = b; part < e; ++part) {
      std::sort(pairs.begin() + (part == 0 ? 0 : half), pairs.begin() + (part == 0 ? half : n));
    }
  });
  if (half < n) std::inplace_merge(pairs.begin(), pairs.begin() + half, pairs.end());
  std::vector<int64_t> perm(keys.size());
  for (int64_t i = 0; i < n; ++i) perm[i] = pairs[i].second;
  return perm;
}

std::vector<int64_t> Identity(int ndim) {
  std::vector<int64_t> order(static_cast<size_t>(ndim));
  std::iota(order.begin(), order.end(), int64_t{0});
  return order;
}

Result<SparseTensor> BuildCOO(CoordList list, const std::vector<int64_t>& shape,
                              const std::vector<std::string>& names, const SparseOptions& options) {
  const int64_t ndim = static_cast<int64_t>(shape.size());
  QUIVER_ASSIGN_OR_RETURN(TypePtr type, ChooseIndexType(options.index_type, MaxIndex(shape)));
  QUIVER_ASSIGN_OR_RETURN(
      Tensor coords, MakeIndexTensor(list.coords.span(), type, {list.nnz(), ndim}, "COO coords"));
  QUIVER_ASSIGN_OR_RETURN(int64_t size, internal::ShapeProduct(shape, "sparse tensor shape"));
  return SparseTensor::FromParts(SparseFormat::kCOO, shape, size, SparseCOOIndex{coords, true},
                                 std::move(list.values), names, true);
}

// CSR from row-major coordinates, or CSC (compressed = 1) through a stable
// counting sort by column, which keeps rows increasing within a column.
Result<SparseTensor> BuildCSX(CoordList list, SparseFormat format,
                              const std::vector<int64_t>& shape,
                              const std::vector<std::string>& names, const SparseOptions& options) {
  const int compressed = format == SparseFormat::kCSR ? 0 : 1;
  const int other = 1 - compressed;
  const int64_t nnz = list.nnz();
  const int64_t axis = shape[compressed];
  QUIVER_ASSIGN_OR_RETURN(BufferPtr indptr_buffer,
                          AllocateIndptr(axis, IndexName(format, "indptr")));
  int64_t* indptr = reinterpret_cast<int64_t*>(indptr_buffer->mutable_data());
  for (int64_t i = 0; i < nnz; ++i) ++indptr[list.coords[2 * i + compressed] + 1];
  std::partial_sum(indptr, indptr + axis + 1, indptr);
  std::vector<int64_t> indices(static_cast<size_t>(nnz));
  Tensor values = list.values;
  if (compressed == 0) {
    for (int64_t i = 0; i < nnz; ++i) indices[i] = list.coords[2 * i + 1];
  } else {
    // indptr[c] serves as column c's next free slot, so that no second
    // array as long as the axis is needed; each then holds the next
    // column's start, and shifting by one restores the pointers.
    std::vector<int64_t> perm(static_cast<size_t>(nnz));
    for (int64_t i = 0; i < nnz; ++i) perm[indptr[list.coords[2 * i + 1]]++] = i;
    std::memmove(indptr + 1, indptr, static_cast<size_t>(axis) * sizeof(int64_t));
    indptr[0] = 0;
    for (int64_t j = 0; j < nnz; ++j) indices[j] = list.coords[2 * perm[j] + other];
    QUIVER_ASSIGN_OR_RETURN(values, GatherValues(list.values, perm));
  }
  QUIVER_ASSIGN_OR_RETURN(TypePtr type,
                          ChooseIndexType(options.index_type, std::max(nnz, shape[other] - 1)));
  QUIVER_ASSIGN_OR_RETURN(Tensor indptr_t,
                          MakeIndexTensor({indptr, static_cast<size_t>(axis + 1)}, type, {axis + 1},
                                          IndexName(format, "indptr").c_str()));
  QUIVER_ASSIGN_OR_RETURN(Tensor indices_t, MakeIndexTensor(indices, type, {nnz},
                                                            IndexName(format, "indices").c_str()));
  QUIVER_ASSIGN_OR_RETURN(int64_t size, internal::ShapeProduct(shape, "sparse tensor shape"));
  return SparseTensor::FromParts(format, shape, size, SparseCSXIndex{indptr_t, indices_t},
                                 std::move(values), names, true);
}

Result<SparseTensor> BuildCSF(CoordList list, const std::vector<int64_t>& shape,
                              const std::vector<std::string>& names, const SparseOptions& options) {
  const int ndim = static_cast<int>(shape.size());
  std::vector<int64_t> order = options.axis_order.empty() ? Identity(ndim) : options.axis_order;
  QUIVER_RETURN_NOT_OK(internal::CheckPermutation(order, ndim, "CSF axis_order"));
  const int64_t nnz = list.nnz();
  // Coordinates in level order (level k = axis order[k]), sorted that way.
  const bool reordered = order != Identity(ndim);
  std::vector<int64_t> perm(static_cast<size_t>(nnz));
  std::iota(perm.begin(), perm.end(), int64_t{0});
  if (reordered) perm = SortOrder(LinearKeys(list.coords, nnz, shape, order), options.threads);
  std::vector<int64_t> level_coords(static_cast<size_t>(nnz * ndim));
  for (int64_t i = 0; i < nnz; ++i) {
    for (int k = 0; k < ndim; ++k)
      level_coords[i * ndim + k] = list.coords[perm[i] * ndim + order[k]];
  }
  Tensor values = list.values;
  if (reordered) {
    QUIVER_ASSIGN_OR_RETURN(values, GatherValues(list.values, perm));
  }
  return MakeCSFFromLevels(BuildCSFLevels(level_coords, ndim), shape, std::move(order),
                           std::move(values), names, options.index_type);
}

}  // namespace

Result<TypePtr> CSFIndexType(const TypePtr& requested, int64_t nnz,
                             const std::vector<int64_t>& shape) {
  return ChooseIndexType(requested, std::max(nnz, MaxIndex(shape)));
}

Result<SparseTensor> MakeCSFFromLevels(CSFLevels levels, const std::vector<int64_t>& shape,
                                       std::vector<int64_t> axis_order, Tensor values,
                                       const std::vector<std::string>& names,
                                       const TypePtr& index_type,
                                       std::optional<Tensor> leaf_indices) {
  const int ndim = static_cast<int>(shape.size());
  QUIVER_ASSIGN_OR_RETURN(TypePtr type, CSFIndexType(index_type, values.size(), shape));
  SparseCSFIndex index;
  index.axis_order = std::move(axis_order);
  for (int k = 0; k < ndim; ++k) {
    const int64_t n = levels.Size(static_cast<size_t>(k));
    if (k + 1 == ndim && leaf_indices) {
      index.indices.push_back(std::move(*leaf_indices));
      break;
    }
    QUIVER_ASSIGN_OR_RETURN(Tensor t, MakeIndexTensor(levels.indices[k], type, {n}, "CSF indices"));
    index.indices.push_back(std::move(t));
    if (k + 1 < ndim) {
      QUIVER_ASSIGN_OR_RETURN(Tensor p,
                              MakeIndexTensor(levels.indptr[k], type, {n + 1}, "CSF indptr"));
      index.indptr.push_back(std::move(p));
    }
  }
  QUIVER_ASSIGN_OR_RETURN(int64_t size, internal::ShapeProduct(shape, "sparse tensor shape"));
  return SparseTensor::FromParts(SparseFormat::kCSF, shape, size, std::move(index),
                                 std::move(values), names, true);
}

CSFLevels BuildCSFLevels(std::span<const int64_t> coords, int ndim) {
  CSFLevels levels(ndim);
  const size_t nnz = coords.size() / static_cast<size_t>(ndim);
  for (size_t i = 0; i < nnz; ++i) {
    const int64_t* c = coords.data() + i * ndim;
    // The first level where this path leaves the previous one: new nodes
    // there and below (no duplicates, so the leaf is always new).
    int first = 0;
    if (i > 0) {
      while (first < ndim - 1 && c[first] == c[first - ndim]) ++first;
    }
    levels.Branch(c, first);
    levels.Leaf(c[ndim - 1]);
  }
  levels.Finish();
  return levels;
}

Result<CoordList> CanonicalCoords(CoordList list, const std::vector<int64_t>& shape, int threads) {
  if (list.canonical) return list;
  const int ndim = static_cast<int>(shape.size());
  const int64_t nnz = list.nnz();
  const std::vector<int64_t> keys = LinearKeys(list.coords, nnz, shape, Identity(ndim));
  const std::vector<int64_t> perm = SortOrder(keys, threads);
  // Runs of equal keys become one entry each.
  std::vector<int64_t> runs;
  for (int64_t j = 0; j < nnz; ++j) {
    if (j == 0 || keys[perm[j]] != keys[perm[j - 1]]) runs.push_back(j);
  }
  runs.push_back(nnz);
  const bool duplicates = static_cast<int64_t>(runs.size()) - 1 != nnz;
  CoordList out;
  const int64_t unique = static_cast<int64_t>(runs.size()) - 1;
  out.coords.owned.resize(static_cast<size_t>(unique * ndim));
  for (int64_t j = 0; j < unique; ++j) {
    const int64_t src = perm[runs[j]];
    std::copy_n(list.coords.data() + src * ndim, ndim, out.coords.owned.data() + j * ndim);
  }
  out.coords.size = unique * ndim;
  QUIVER_ASSIGN_OR_RETURN(out.values, duplicates ? GatherValues(list.values, perm, runs)
                                                 : GatherValues(list.values, perm));
  out.canonical = true;
  return out;
}

Result<SparseTensor> FromCoordList(CoordList list, SparseFormat format,
                                   const std::vector<int64_t>& shape,
                                   const std::vector<std::string>& dim_names,
                                   const SparseOptions& options) {
  if (!list.canonical) return Status::Invalid("internal: sparse coordinates are not canonical");
  switch (format) {
    case SparseFormat::kCOO: return BuildCOO(std::move(list), shape, dim_names, options);
    case SparseFormat::kCSR:
    case SparseFormat::kCSC:
      if (shape.size() != 2) {
        return Status::Invalid(std::string(SparseFormatName(format)), " needs a 2-D tensor, not ",
                               internal::FormatShape(shape));
      }
      return BuildCSX(std::move(list), format, shape, dim_names, options);
    case SparseFormat::kCSF: return BuildCSF(std::move(list), shape, dim_names, options);
  }
  return Status::Invalid("unknown sparse format");
}

}  // namespace quiver::sparse
