// COO to CSR for sorted coordinates, the most common conversion, in one
// pass split across threads: coordinates are read block by block into
// private memory, checked there (in range, and strictly increasing, which
// is what lets the column coordinates become CSR's indices as they are),
// written straight into the output index type, and each change of row
// sets the indptr entries it passes. Values are shared. Input that turns
// out not to be sorted goes the general way (canonical coordinates as the
// hub).
#include <algorithm>
#include <atomic>
#include <numeric>
#include <optional>
#include <type_traits>

#include "quiver/internal/value_types.h"
#include "quiver/sparse/sparse_internal.h"

namespace quiver::sparse {

namespace {

constexpr int64_t kBlockRows = 4096;

// What the parts of the pass found.
struct PassState {
  std::atomic<int64_t> first_bad;    // lowest position out of range (nnz: none)
  std::atomic<bool> unsorted{false};
  int64_t last_row = -1;             // the row of the last coordinate (its part sets it)
};

// Coordinates [begin, end) of sorted input: their columns written to
// `indices` as I, and indptr[q] = i for every row q that starts at i (the
// rows between a coordinate's row and the one before it). Parts cover
// disjoint ranges, so with sorted input they write disjoint rows of
// indptr. Each block is read once into private memory, checked, used.
template <typename I>
void PassPart(const Tensor& coords, const std::vector<int64_t>& shape, int64_t begin, int64_t end,
              int64_t* indptr, I* indices, PassState& state) {
  int64_t block[2 * (kBlockRows + 1)];
  for (int64_t b = begin; b < end; b += kBlockRows) {
    const int64_t e = std::min(end, b + kBlockRows);
    const int64_t first = b == 0 ? 0 : b - 1;  // one coordinate before, to compare with
    ReadIndexRows(coords, first, e, block);
    for (int64_t i = first; i < e; ++i) {
      const int64_t r = block[2 * (i - first)], c = block[2 * (i - first) + 1];
      if (r < 0 || r >= shape[0] || c < 0 || c >= shape[1]) {
        int64_t seen = state.first_bad.load();
        while (i < seen && !state.first_bad.compare_exchange_weak(seen, i)) {
        }
        return;
      }
      if (i < b) continue;  // the coordinate before: checked, only compared with
      const int64_t previous_row = i == 0 ? -1 : block[2 * (i - 1 - first)];
      const int64_t previous_col = i == 0 ? -1 : block[2 * (i - 1 - first) + 1];
      if (r < previous_row || (r == previous_row && c <= previous_col)) {
        state.unsorted = true;
        return;
      }
      for (int64_t q = previous_row + 1; q <= r; ++q) indptr[q] = i;
      indices[i] = static_cast<I>(c);
      if (i + 1 == static_cast<int64_t>(coords.shape()[0])) state.last_row = r;
    }
  }
}

}  // namespace

std::optional<Result<SparseTensor>> SortedCOOToCSR(const SparseTensor& t,
                                                   const SparseOptions& options) {
  const SparseCOOIndex* coo = t.coo_index();
  if (coo == nullptr || t.ndim() != 2) return std::nullopt;
  const std::vector<int64_t>& shape = t.shape();
  const int64_t nnz = t.non_zero_length();
  Result<TypePtr> type = ChooseIndexType(options.index_type, std::max(nnz, shape[1] - 1));
  if (!type.ok()) return type.status();
  Result<BufferPtr> indptr = AllocateIndptr(shape[0], "CSR indptr");
  if (!indptr.ok()) return indptr.status();
  Result<BufferPtr> indices = Buffer::AllocateUninitialized(nnz * (*type)->byte_width());
  if (!indices.ok()) return indices.status();
  int64_t* starts = reinterpret_cast<int64_t*>((*indptr)->mutable_data());
  PassState state;
  state.first_bad = nnz;
  internal::VisitValueType(
      **type,
      [&](auto tag) {
        using I = decltype(tag);
        if constexpr (std::is_integral_v<I>) {
          I* out = reinterpret_cast<I*>((*indices)->mutable_data());
          ParallelFor(nnz, options.threads, int64_t{1} << 16, [&](int64_t b, int64_t e) {
            PassPart(coo->coords, shape, b, e, starts, out, state);
          });
        }
      },
      [] {});
  if (state.first_bad.load() < nnz) {
    // Re-read for the message (the failing part stopped there).
    int64_t pair[2];
    const int64_t i = state.first_bad.load();
    ReadIndexRows(coo->coords, i, i + 1, pair);
    const int axis = pair[0] < 0 || pair[0] >= shape[0] ? 0 : 1;
    return Status::Invalid("COO coords[" + std::to_string(i) + ", " + std::to_string(axis) + "] = " +
                           std::to_string(pair[axis]) + " is out of range [0, " +
                           std::to_string(shape[axis]) + ")");
  }
  if (state.unsorted) return std::nullopt;
  // Rows after the last coordinate's start at nnz (all rows when empty).
  for (int64_t q = state.last_row + 1; q <= shape[0]; ++q) starts[q] = nnz;
  Result<Tensor> indptr_t = MakeIndexTensor({starts, static_cast<size_t>(shape[0] + 1)}, *type,
                                            {shape[0] + 1}, "CSR indptr");
  if (!indptr_t.ok()) return indptr_t.status();
  Result<Tensor> indices_t = Tensor::Make(*type, std::move(*indices), {nnz});
  if (!indices_t.ok()) return indices_t.status();
  return SparseTensor::FromParts(SparseFormat::kCSR, shape, t.size(),
                                 SparseCSXIndex{std::move(*indptr_t), std::move(*indices_t)},
                                 t.values(), t.dim_names(), true);
}

}  // namespace quiver::sparse
