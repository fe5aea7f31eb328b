// COO to CSR for sorted coordinates, the most common conversion, in one
// pass split across threads: each coordinate is read once, checked (in
// range, and strictly increasing, which is what lets the column
// coordinates become CSR's indices as they are), written straight into
// the output index type, and each change of row sets the indptr entries it
// passes. Values are shared. Input that turns
// out not to be sorted goes the general way (canonical coordinates as the
// hub).
#include <algorithm>
#include <atomic>
#include <numeric>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>

#include "quiver/internal/threads.h"
#include "quiver/internal/value_types.h"
#include "quiver/sparse/sparse_internal.h"

namespace quiver::sparse {

namespace {

constexpr int64_t kBlockRows = 4096;

// What the parts of the pass found.
struct PassState {
  std::atomic<int64_t> first_bad;  // lowest position out of range (nnz: none)
  std::atomic<bool> unsorted{false};
  int64_t last_row = -1;  // the row of the last coordinate (its part sets it)
};

// Readers hand out coordinate pairs in increasing order, each read from
// the shared array exactly once (callers keep what they need of earlier
// ones), so a check and the use after it see the same value.

// Any layout and integer type, a block at a time through ReadIndexRows.
class BlockReader {
 public:
  explicit BlockReader(const Tensor& coords) : coords_(coords) {}
  std::pair<int64_t, int64_t> operator()(int64_t i) {
    if (i < low_ || i >= high_) {
      low_ = i;
      high_ = std::min(coords_.shape()[0], i + kBlockRows);
      ReadIndexRows(coords_, low_, high_, block_);
    }
    return {block_[2 * (i - low_)], block_[2 * (i - low_) + 1]};
  }

 private:
  const Tensor& coords_;
  int64_t low_ = 0, high_ = 0;
  int64_t block_[2 * kBlockRows];
};

// Row-major [nnz, 2] coordinates of C (not uint64), read in place.
template <typename C>
struct DirectReader {
  const uint8_t* base;
  std::pair<int64_t, int64_t> operator()(int64_t i) const {
    C pair[2];
    std::memcpy(pair, base + i * static_cast<int64_t>(2 * sizeof(C)), sizeof pair);
    return {static_cast<int64_t>(pair[0]), static_cast<int64_t>(pair[1])};
  }
};

// Coordinates [begin, end) of sorted input: their columns written to
// `indices` as I, and indptr[q] = i for every row q that starts at i (the
// rows between a coordinate's row and the one before it). Parts cover
// disjoint ranges, so with sorted input they write disjoint rows of
// indptr.
template <typename I, typename Reader>
void PassPart(Reader& read, int64_t nnz, const std::vector<int64_t>& shape, int64_t begin,
              int64_t end, int64_t* indptr, I* indices, PassState& state) {
  auto in_range = [&](int64_t r, int64_t c) {
    return r >= 0 && r < shape[0] && c >= 0 && c < shape[1];
  };
  int64_t previous_row = -1, previous_col = -1;
  if (begin > 0) {  // the coordinate before the part: compared with, not written
    std::tie(previous_row, previous_col) = read(begin - 1);
    if (!in_range(previous_row, previous_col)) return RecordLowest(state.first_bad, begin - 1);
  }
  for (int64_t i = begin; i < end; ++i) {
    const auto [r, c] = read(i);
    if (!in_range(r, c)) return RecordLowest(state.first_bad, i);
    if (r < previous_row || (r == previous_row && c <= previous_col)) {
      state.unsorted = true;
      return;
    }
    for (int64_t q = previous_row + 1; q <= r; ++q) indptr[q] = i;
    indices[i] = static_cast<I>(c);
    previous_row = r;
    previous_col = c;
  }
  if (end == nnz) state.last_row = previous_row;
}

// The pass over all coordinates, in parts on up to `threads` threads.
template <typename I>
void Pass(const Tensor& coords, const std::vector<int64_t>& shape, int threads, int64_t* indptr,
          I* indices, PassState& state) {
  const int64_t nnz = coords.shape()[0];
  auto parts = [&](auto make_reader) {
    internal::ParallelRanges(nnz, threads, int64_t{1} << 16, [&](int64_t b, int64_t e) {
      auto read = make_reader();
      PassPart(read, nnz, shape, b, e, indptr, indices, state);
    });
  };
  const bool direct = coords.IsContiguous() && coords.type()->id() != TypeId::kUInt64;
  internal::VisitValueType(
      *coords.type(),
      [&](auto tag) {
        using C = decltype(tag);
        if constexpr (std::is_integral_v<C> && !std::is_same_v<C, uint64_t>) {
          if (direct) return parts([&] { return DirectReader<C>{coords.raw_data()}; });
        }
        parts([&] { return BlockReader(coords); });
      },
      [] {});
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
          Pass(coo->coords, shape, options.threads, starts,
               reinterpret_cast<I*>((*indices)->mutable_data()), state);
        }
      },
      [] {});
  if (state.first_bad.load() < nnz) {
    // Re-read for the message (the failing part stopped there).
    int64_t pair[2];
    const int64_t i = state.first_bad.load();
    ReadIndexRows(coo->coords, i, i + 1, pair);
    const int axis = pair[0] < 0 || pair[0] >= shape[0] ? 0 : 1;
    return CoordOutOfRange(i, axis, pair[axis], shape[axis]);
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
