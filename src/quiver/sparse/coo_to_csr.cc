// COO to CSR for sorted coordinates, the most common conversion, in one
// pass: coordinates are read block by block into private memory, checked
// there (in range, and strictly increasing, which is what lets the column
// coordinates become CSR's indices as they are), counted per row and
// written straight into the output index type. Values are shared. Input
// that turns out not to be sorted goes the general way (canonical
// coordinates as the hub).
#include <algorithm>
#include <numeric>
#include <optional>
#include <type_traits>

#include "quiver/internal/value_types.h"
#include "quiver/sparse/sparse_internal.h"

namespace quiver::sparse {

namespace {

constexpr int64_t kBlockRows = 4096;

// The indices of sorted coordinates, written as I; rows counted into
// indptr[r + 1]. False when the coordinates are not strictly increasing.
template <typename I>
Result<bool> CountAndWrite(const Tensor& coords, const std::vector<int64_t>& shape, int64_t* indptr,
                           I* indices) {
  const int64_t nnz = coords.shape()[0];
  int64_t block[2 * kBlockRows];
  int64_t previous_row = -1, previous_col = -1;
  for (int64_t begin = 0; begin < nnz; begin += kBlockRows) {
    const int64_t end = std::min(nnz, begin + kBlockRows);
    ReadIndexRows(coords, begin, end, block);
    for (int64_t i = begin; i < end; ++i) {
      const int64_t r = block[2 * (i - begin)], c = block[2 * (i - begin) + 1];
      if (r < 0 || r >= shape[0] || c < 0 || c >= shape[1]) {
        const int64_t axis = r < 0 || r >= shape[0] ? 0 : 1;
        return Status::Invalid("COO coords[" + std::to_string(i) + ", " + std::to_string(axis) +
                               "] = " + std::to_string(axis == 0 ? r : c) + " is out of range [0, " +
                               std::to_string(shape[axis]) + ")");
      }
      if (r < previous_row || (r == previous_row && c <= previous_col)) return false;
      previous_row = r;
      previous_col = c;
      ++indptr[r + 1];
      indices[i] = static_cast<I>(c);
    }
  }
  return true;
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
  int64_t* counts = reinterpret_cast<int64_t*>((*indptr)->mutable_data());
  Result<bool> sorted = false;
  internal::VisitValueType(
      **type,
      [&](auto tag) {
        using I = decltype(tag);
        if constexpr (std::is_integral_v<I>) {
          sorted = CountAndWrite(coo->coords, shape, counts, reinterpret_cast<I*>((*indices)->mutable_data()));
        }
      },
      [] {});
  if (!sorted.ok()) return sorted.status();
  if (!*sorted) return std::nullopt;
  std::partial_sum(counts, counts + shape[0] + 1, counts);
  Result<Tensor> indptr_t = MakeIndexTensor({counts, static_cast<size_t>(shape[0] + 1)}, *type,
                                            {shape[0] + 1}, "CSR indptr");
  if (!indptr_t.ok()) return indptr_t.status();
  Result<Tensor> indices_t = Tensor::Make(*type, std::move(*indices), {nnz});
  if (!indices_t.ok()) return indices_t.status();
  return SparseTensor::FromParts(SparseFormat::kCSR, shape, t.size(),
                                 SparseCSXIndex{std::move(*indptr_t), std::move(*indices_t)},
                                 t.values(), t.dim_names(), true);
}

}  // namespace quiver::sparse
