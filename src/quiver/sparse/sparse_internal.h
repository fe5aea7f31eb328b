// Internal: what the sparse kernels share. Kernels read index arrays as
// int64 into private memory (IndexValues, ReadIndexRows), so only the
// value type needs templates; outputs are narrowed to the chosen index
// type in one pass at the end.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "quiver/internal/without_throwing.h"
#include "quiver/sparse_tensor.h"

namespace quiver::sparse {

// int8..int64, uint8..uint64.
bool IsIndexType(const DataType& type);

// The values of an integer index tensor as int64, copied (the kernels
// check and use this private copy, never the shared array). uint64 values
// above 2^63 - 1 read as 2^63 - 1 (out of range for any shape, so they
// fail the same checks). 1-D tensors read in order; COO coords [nnz, ndim]
// read row-major, whatever their strides.
struct IndexValues {
  std::vector<int64_t> owned;
  int64_t size = 0;
  const int64_t* data() const { return owned.data(); }
  int64_t operator[](int64_t i) const { return owned[static_cast<size_t>(i)]; }
  std::span<const int64_t> span() const { return {owned.data(), static_cast<size_t>(size)}; }
};
IndexValues ReadIndexValues(const Tensor& index);
// Rows [begin, end) of an index tensor (elements of a 1-D one, rows of
// COO's [nnz, ndim] coords) into out, as int64, row-major: the blockwise
// form of ReadIndexValues, for kernels that check and use one block at a
// time.
void ReadIndexRows(const Tensor& index, int64_t begin, int64_t end, int64_t* out);

// An index tensor of `type` with `shape` holding `values` (row-major),
// Invalid when a value does not fit `type`.
Result<Tensor> MakeIndexTensor(std::span<const int64_t> values, const TypePtr& type,
                               std::vector<int64_t> shape, const char* what);

// The index type to build with: `requested` (TypeError unless an integer
// type; Invalid when `max_value` does not fit it), or the smallest signed
// type that holds `max_value`.
Result<TypePtr> ChooseIndexType(const TypePtr& requested, int64_t max_value);

// Zeroed CSR/CSC indptr room for a compressed axis of `axis` entries
// (axis + 1 int64 values). It follows the shape, not nnz, so it may not
// fit in memory: OutOfMemory then (Invalid when axis + 1 overflows),
// never a throw from std::vector.
Result<BufferPtr> AllocateIndptr(int64_t axis, const std::string& what);

// A 1-D contiguous tensor over `buffer` of `length` values of `type`.
Result<Tensor> MakeVector(const TypePtr& type, BufferPtr buffer, int64_t length);

// Lowers `lowest` to `position` unless it is already lower: parallel
// parts record the first bad position this way, to report after the join.
inline void RecordLowest(std::atomic<int64_t>& lowest, int64_t position) {
  int64_t seen = lowest.load();
  while (position < seen && !lowest.compare_exchange_weak(seen, position)) {
  }
}

// The non-zeros of a sparse tensor as row-major coordinates
// (coords[i * ndim + k]) and a contiguous values tensor; every coordinate
// has been checked against the shape.
struct CoordList {
  IndexValues coords;  // nnz * ndim entries
  Tensor values;
  bool canonical = false;  // sorted row-major, no duplicates
  int64_t nnz() const { return values.size(); }
};

// Reads any format's index (checking every index it uses).
Result<CoordList> ToCoordList(const SparseTensor& tensor);
// Sorts into row-major order and sums duplicates (no-op when canonical);
// large sorts use up to `threads` threads (0: one per core).
Result<CoordList> CanonicalCoords(CoordList list, const std::vector<int64_t>& shape, int threads);
// Builds `format` from a canonical list (options.index_type and
// options.axis_order apply).
Result<SparseTensor> FromCoordList(CoordList list, SparseFormat format,
                                   const std::vector<int64_t>& shape,
                                   const std::vector<std::string>& dim_names,
                                   const SparseOptions& options);

// The levels of a CSF fiber tree, built from paths that arrive sorted in
// level order: Branch adds new nodes along `path` (level k's coordinate is
// path[k]) from level `from` down to the level above the leaves, Leaf adds
// a leaf under the newest node, Finish closes every indptr.
struct CSFLevels {
  explicit CSFLevels(int ndim)
      : indptr(static_cast<size_t>(ndim - 1)), indices(static_cast<size_t>(ndim)) {}
  void Branch(const int64_t* path, int from) {
    for (size_t k = static_cast<size_t>(from); k + 1 < indices.size(); ++k) {
      indptr[k].push_back(Size(k + 1));
      indices[k].push_back(path[k]);
    }
  }
  void Leaf(int64_t coordinate) {
    indices.back().push_back(coordinate);
    ++leaves;
  }
  // `count` leaves whose indices the caller keeps (MakeCSFFromLevels then
  // takes them as a ready tensor): only counted here.
  void CountLeaves(int64_t count) { leaves += count; }
  void Finish() {
    for (size_t k = 0; k < indptr.size(); ++k) indptr[k].push_back(Size(k + 1));
  }
  int64_t Size(size_t level) const {
    return level + 1 == indices.size() ? leaves : static_cast<int64_t>(indices[level].size());
  }

  std::vector<std::vector<int64_t>> indptr;
  std::vector<std::vector<int64_t>> indices;
  int64_t leaves = 0;
};
// The levels of coordinates given in level order (coords[i * ndim + k] is
// level k's coordinate), sorted lexicographically, without duplicates.
CSFLevels BuildCSFLevels(std::span<const int64_t> coords, int ndim);
// The index type of a CSF tensor built from levels: `requested`, or the
// smallest that holds nnz and every coordinate of `shape`.
Result<TypePtr> CSFIndexType(const TypePtr& requested, int64_t nnz,
                             const std::vector<int64_t>& shape);
// The CSF tensor of those levels, one index type for every array
// (CSFIndexType). `leaf_indices`, when given, is the last level's indices
// made already, in that type (the levels only counted them).
Result<SparseTensor> MakeCSFFromLevels(CSFLevels levels, const std::vector<int64_t>& shape,
                                       std::vector<int64_t> axis_order, Tensor values,
                                       const std::vector<std::string>& names,
                                       const TypePtr& index_type,
                                       std::optional<Tensor> leaf_indices = std::nullopt);

// The first row i of row-major coordinates that is not strictly after row
// i - 1 (`*duplicate` tells whether it equals it), or -1 when they are
// sorted without duplicates.
int64_t FirstUnsortedRow(std::span<const int64_t> coords, int ndim, bool* duplicate = nullptr);
// Whether row-major coordinates are strictly increasing (sorted, unique).
inline bool SortedUnique(std::span<const int64_t> coords, int ndim) {
  return FirstUnsortedRow(coords, ndim) < 0;
}

// values[perm[i]] for each i, as a new contiguous tensor; when `sum_runs`
// is given, runs [sum_runs[j], sum_runs[j + 1]) of the gathered values are
// summed into one (duplicates).
Result<Tensor> GatherValues(const Tensor& values, std::span<const int64_t> perm,
                            std::span<const int64_t> sum_runs = {});

// COO to CSR in one pass when the coordinates are sorted (the usual case);
// nullopt when they are not (or the tensor is not a 2-D COO), for the
// general path to handle.
std::optional<Result<SparseTensor>> SortedCOOToCSR(const SparseTensor& tensor,
                                                   const SparseOptions& options);

// indptr (`name`) starts at 0, never decreases and ends at `end`: what
// every walk over its segments relies on to stay inside the next level.
Status CheckIndptr(const IndexValues& indptr, const std::string& name, int64_t end);

// "<name>[i] = v is out of range [0, bound)", and the COO form naming the
// coordinate "COO coords[i, k] = ...".
Status IndexOutOfRange(const std::string& name, int64_t i, int64_t value, int64_t bound);
Status CoordOutOfRange(int64_t i, int64_t k, int64_t value, int64_t bound);
// Every value of `v` in [0, bound), or the first that is not.
Status CheckInRange(const IndexValues& v, const std::string& name, int64_t bound);
// Every row-major coordinate tuple inside `shape`, or the first that is not.
Status CheckCoords(const IndexValues& coords, const std::vector<int64_t>& shape);

// The largest index a tensor of `shape` has on any axis (0 for empty axes).
int64_t MaxIndex(const std::vector<int64_t>& shape);

// "COO coords", "CSR indptr", ... for messages.
std::string IndexName(SparseFormat format, const char* part);

}  // namespace quiver::sparse
