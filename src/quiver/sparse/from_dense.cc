// Dense to sparse: one scan of the dense tensor, split into contiguous
// ranges of rows scanned in parallel, each collecting its non-zeros
// branch-free (every element is written, the count advances only past
// non-zeros), then the ranges' results are joined into the format asked for.
//
// The scan walks a view of the dense tensor whose axis order is the
// output's: identity for COO and CSR, [1, 0] for CSC, axis_order for CSF.
// In that view the non-zeros come out sorted, so every output is canonical
// without a sort, whatever the dense tensor's strides.
#include <algorithm>
#include <memory>
#include <numeric>
#include <type_traits>

#include "quiver/internal/checked_math.h"
#include "quiver/internal/value_types.h"
#include "quiver/sparse/sparse_internal.h"
#include "quiver/sparse/value_math.h"

namespace quiver::sparse {

namespace {

// An uninitialised array that grows geometrically (trivially copyable T).
// Its memory comes from Buffer, which maps large blocks with huge pages:
// at high densities the page faults of fresh memory cost more than the
// scan itself.
template <typename T>
class GrowArray {
 public:
  T* data() { return reinterpret_cast<T*>(buffer_->mutable_data()); }
  const T* data() const { return reinterpret_cast<const T*>(buffer_->data()); }
  Status Reserve(int64_t n) {
    if (n <= capacity_) return Status::OK();
    const int64_t capacity = std::max({n, 2 * capacity_, int64_t{1024}});
    QUIVER_ASSIGN_OR_RETURN(BufferPtr grown, Buffer::AllocateUninitialized(capacity * static_cast<int64_t>(sizeof(T))));
    if (size_used_ > 0) std::memcpy(grown->mutable_data(), buffer_->data(), static_cast<size_t>(size_used_) * sizeof(T));
    buffer_ = std::move(grown);
    capacity_ = capacity;
    return Status::OK();
  }
  void set_size(int64_t n) { size_used_ = n; }

 private:
  BufferPtr buffer_;
  int64_t capacity_ = 0;
  int64_t size_used_ = 0;
};

// The dense tensor seen in the output's axis order.
struct View {
  const uint8_t* base;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  int ndim() const { return static_cast<int>(shape.size()); }
  // Rows: every index of all axes but the last.
  int64_t rows() const {
    int64_t n = 1;
    for (int k = 0; k + 1 < ndim(); ++k) n *= shape[k];
    return n;
  }
};

// The outer index of row `row` (all axes but the last), row-major.
std::vector<int64_t> RowIndex(const View& v, int64_t row) {
  std::vector<int64_t> index(static_cast<size_t>(std::max(v.ndim() - 1, 0)));
  for (int k = v.ndim() - 2; k >= 0; --k) {
    index[k] = row % v.shape[k];
    row /= v.shape[k];
  }
  return index;
}

// Steps `index` to the next row; returns the byte change of the row start.
// Only addresses of existing rows are formed (see internal/strided_copy.h).
int64_t NextRow(const View& v, std::vector<int64_t>& index) {
  int64_t delta = 0;
  for (int k = v.ndim() - 2; k >= 0; --k) {
    if (++index[k] < v.shape[k]) return delta + v.strides[k];
    delta -= v.strides[k] * (v.shape[k] - 1);
    index[k] = 0;
  }
  return delta;
}

template <typename T>
struct Chunk {
  int64_t row_begin = 0, row_end = 0;
  std::vector<int64_t> row_counts;
  GrowArray<int64_t> cols;
  GrowArray<T> values;
  int64_t nnz = 0;
  Status status;  // OutOfMemory from a growth, reported after the join
};

constexpr int64_t kScanBlock = int64_t{1} << 16;

// Elements [j0, j1) of one row: every element is written at position n,
// which advances only past non-zeros (no branch on the data). Returns the
// new n.
template <typename T>
int64_t ScanBlock(const uint8_t* row, int64_t step, int64_t j0, int64_t j1, int64_t* cols,
                  T* values, int64_t n) {
  if (step == static_cast<int64_t>(sizeof(T))) {
    for (int64_t j = j0; j < j1; ++j) {
      T x;
      std::memcpy(&x, row + j * static_cast<int64_t>(sizeof(T)), sizeof(T));
      values[n] = x;
      cols[n] = j;
      n += IsNonZero(x) ? 1 : 0;
    }
  } else {
    for (int64_t j = j0; j < j1; ++j) {
      T x;
      std::memcpy(&x, row + j * step, sizeof(T));
      values[n] = x;
      cols[n] = j;
      n += IsNonZero(x) ? 1 : 0;
    }
  }
  return n;
}

template <typename T>
void ScanRows(const View& v, Chunk<T>& chunk) {
  const int64_t inner = v.shape.back();
  const int64_t step = v.strides.back();
  std::vector<int64_t> index = RowIndex(v, chunk.row_begin);
  int64_t offset = 0;
  for (int k = 0; k + 1 < v.ndim(); ++k) offset += index[k] * v.strides[k];
  chunk.row_counts.assign(static_cast<size_t>(chunk.row_end - chunk.row_begin), 0);
  int64_t n = 0;
  for (int64_t r = chunk.row_begin; r < chunk.row_end; ++r) {
    const uint8_t* row = v.base + offset;
    const int64_t start = n;
    // Long rows go in blocks, so the room reserved ahead of the non-zeros
    // found stays bounded (a 1-D tensor is one row).
    for (int64_t j0 = 0; j0 < inner; j0 += kScanBlock) {
      const int64_t j1 = std::min(inner, j0 + kScanBlock);
      chunk.cols.set_size(n);  // what a growth must keep
      chunk.values.set_size(n);
      chunk.status = chunk.cols.Reserve(n + (j1 - j0));
      if (chunk.status.ok()) chunk.status = chunk.values.Reserve(n + (j1 - j0));
      if (!chunk.status.ok()) return;
      n = ScanBlock<T>(row, step, j0, j1, chunk.cols.data(), chunk.values.data(), n);
    }
    chunk.row_counts[r - chunk.row_begin] = n - start;
    if (r == chunk.row_begin && n > 0) {
      // Room for the whole range at the first row's density (and a quarter
      // more), so that dense inputs do not regrow and copy many times.
      const int64_t rows_left = chunk.row_end - r;
      const int64_t expected = std::min(rows_left * inner, n * rows_left + n * rows_left / 4);
      chunk.cols.set_size(n);
      chunk.values.set_size(n);
      chunk.status = chunk.cols.Reserve(expected);
      if (chunk.status.ok()) chunk.status = chunk.values.Reserve(expected);
      if (!chunk.status.ok()) return;
    }
    if (r + 1 < chunk.row_end) offset += NextRow(v, index);
  }
  chunk.nnz = n;
}

// Everything the joins need, independent of the value type.
struct Scan {
  std::vector<int64_t> row_counts;  // per row of the view
  BufferPtr cols_buffer;            // (huge-page backed, see GrowArray)
  std::span<const int64_t> cols;    // last-axis coordinate per non-zero
  Tensor values;
  int64_t nnz = 0;
};

template <typename T>
Result<Scan> ScanAll(const View& v, const TypePtr& type, int threads) {
  const int64_t rows = v.rows();
  const int64_t inner = v.shape.back();
  // Parallel only past about 256 Ki elements per thread: below that the
  // thread start costs more than it saves.
  const int64_t per_thread = std::max<int64_t>(1, (int64_t{1} << 18) / std::max<int64_t>(inner, 1));
  const int parts = WorkerCount(rows, threads, per_thread);
  std::vector<Chunk<T>> chunks(static_cast<size_t>(parts));
  const int64_t step = (rows + parts - 1) / parts;
  for (int p = 0; p < parts; ++p) {
    chunks[p].row_begin = std::min(rows, p * step);
    chunks[p].row_end = std::min(rows, chunks[p].row_begin + step);
  }
  ParallelFor(parts, parts, 1, [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) ScanRows(v, chunks[p]);
  });
  Scan scan;
  for (const Chunk<T>& c : chunks) {
    QUIVER_RETURN_NOT_OK(c.status);
    scan.row_counts.insert(scan.row_counts.end(), c.row_counts.begin(), c.row_counts.end());
    scan.nnz += c.nnz;
  }
  const int64_t width = static_cast<int64_t>(sizeof(T));
  QUIVER_ASSIGN_OR_RETURN(BufferPtr buffer, Buffer::AllocateUninitialized(scan.nnz * width));
  QUIVER_ASSIGN_OR_RETURN(scan.cols_buffer, Buffer::AllocateUninitialized(scan.nnz * 8));
  int64_t* cols = reinterpret_cast<int64_t*>(scan.cols_buffer->mutable_data());
  scan.cols = {cols, static_cast<size_t>(scan.nnz)};
  std::vector<int64_t> starts(chunks.size(), 0);
  for (size_t p = 1; p < chunks.size(); ++p) starts[p] = starts[p - 1] + chunks[p - 1].nnz;
  ParallelFor(parts, parts, 1, [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      if (chunks[p].nnz == 0) continue;
      std::memcpy(buffer->mutable_data() + starts[p] * width, chunks[p].values.data(),
                  static_cast<size_t>(chunks[p].nnz * width));
      std::copy_n(chunks[p].cols.data(), chunks[p].nnz, cols + starts[p]);
    }
  });
  QUIVER_ASSIGN_OR_RETURN(scan.values, MakeVector(type, std::move(buffer), scan.nnz));
  return scan;
}

// Calls fn(outer_index, first, count) for each row holding non-zeros, in
// order: its index on every axis but the last, and its non-zeros
// [first, first + count) of scan.cols / scan.values.
template <typename Fn>
void ForEachFilledRow(const View& v, const Scan& scan, Fn&& fn) {
  if (scan.nnz == 0) return;  // (a zero-size axis has no row index)
  std::vector<int64_t> index = RowIndex(v, 0);
  int64_t first = 0;
  for (int64_t count : scan.row_counts) {
    if (count > 0) fn(index, first, count);
    first += count;
    // Only the index values matter here, not byte offsets.
    for (int k = v.ndim() - 2; k >= 0; --k) {
      if (++index[k] < v.shape[k]) break;
      index[k] = 0;
    }
  }
}

// COO coordinates written straight into the index type: row-major
// [nnz, ndim], the outer index repeated for each non-zero of its row.
template <typename I>
void WriteCoords(const View& v, const Scan& scan, I* out) {
  const int ndim = v.ndim();
  ForEachFilledRow(v, scan, [&](const std::vector<int64_t>& index, int64_t first, int64_t count) {
    for (int64_t n = first; n < first + count; ++n) {
      I* row = out + n * ndim;
      for (int k = 0; k + 1 < ndim; ++k) row[k] = static_cast<I>(index[k]);
      row[ndim - 1] = static_cast<I>(scan.cols[n]);
    }
  });
}

// CSF levels straight from the rows: a row starts new nodes from the
// first outer axis where its index differs from the previous filled row;
// its non-zeros are the leaves.
CSFLevels LevelsFromRows(const View& v, const Scan& scan) {
  const int ndim = v.ndim();
  CSFLevels levels(ndim);
  std::vector<int64_t> previous;
  ForEachFilledRow(v, scan, [&](const std::vector<int64_t>& index, int64_t first, int64_t count) {
    int level = 0;
    if (!previous.empty()) {
      while (level < ndim - 1 && index[level] == previous[level]) ++level;
    }
    levels.Branch(index.data(), level);
    for (int64_t n = first; n < first + count; ++n) levels.Leaf(scan.cols[n]);
    previous = index;
  });
  levels.Finish();
  return levels;
}

Result<SparseTensor> JoinCSX(const View& v, Scan scan, SparseFormat format, const Tensor& dense,
                             const SparseOptions& options) {
  // One entry per row of the view, filled or not: an empty dense tensor
  // was not scanned, and its absent row counts stay zero.
  const int64_t rows = v.shape[0];
  QUIVER_ASSIGN_OR_RETURN(BufferPtr indptr_buffer, AllocateIndptr(rows, IndexName(format, "indptr")));
  int64_t* indptr = reinterpret_cast<int64_t*>(indptr_buffer->mutable_data());
  std::partial_sum(scan.row_counts.begin(), scan.row_counts.end(), indptr + 1);
  QUIVER_ASSIGN_OR_RETURN(TypePtr type,
                          ChooseIndexType(options.index_type, std::max(scan.nnz, v.shape[1] - 1)));
  QUIVER_ASSIGN_OR_RETURN(Tensor indptr_t,
                          MakeIndexTensor({indptr, static_cast<size_t>(rows + 1)}, type, {rows + 1},
                                          IndexName(format, "indptr").c_str()));
  QUIVER_ASSIGN_OR_RETURN(Tensor indices_t, MakeIndexTensor(scan.cols, type, {scan.nnz},
                                                            IndexName(format, "indices").c_str()));
  return SparseTensor::FromParts(format, dense.shape(), dense.size(),
                                 SparseCSXIndex{indptr_t, indices_t}, std::move(scan.values),
                                 dense.dim_names(), true);
}

Result<SparseTensor> JoinCOO(const View& v, Scan scan, const Tensor& dense,
                             const SparseOptions& options) {
  QUIVER_ASSIGN_OR_RETURN(TypePtr type, ChooseIndexType(options.index_type, MaxIndex(dense.shape())));
  QUIVER_ASSIGN_OR_RETURN(int64_t count, internal::MultiplyChecked(scan.nnz, dense.ndim(), "COO coords"));
  QUIVER_ASSIGN_OR_RETURN(BufferPtr buffer,
                          Buffer::AllocateUninitialized(count * type->byte_width()));
  internal::VisitValueType(
      *type,
      [&](auto tag) {
        using I = decltype(tag);
        if constexpr (std::is_integral_v<I>) WriteCoords(v, scan, reinterpret_cast<I*>(buffer->mutable_data()));
      },
      [] {});
  QUIVER_ASSIGN_OR_RETURN(Tensor coords, Tensor::Make(type, std::move(buffer), {scan.nnz, dense.ndim()}));
  return SparseTensor::FromParts(SparseFormat::kCOO, dense.shape(), dense.size(),
                                 SparseCOOIndex{coords, true}, std::move(scan.values),
                                 dense.dim_names(), true);
}

Result<SparseTensor> FromDenseTensor(const Tensor& dense, SparseFormat format,
                                     const SparseOptions& options) {
  if (!dense.type()) return Status::Invalid("FromDense needs a tensor");
  QUIVER_RETURN_NOT_OK(dense.CheckOnHost());
  const int ndim = dense.ndim();
  if (ndim == 0) return Status::Invalid("a sparse tensor needs at least one dimension");
  const bool csx = format == SparseFormat::kCSR || format == SparseFormat::kCSC;
  if (csx && ndim != 2) {
    return Status::Invalid(std::string(SparseFormatName(format)) + " needs a 2-D tensor, not " +
                           internal::FormatShape(dense.shape()));
  }
  std::vector<int64_t> order(static_cast<size_t>(ndim));
  std::iota(order.begin(), order.end(), int64_t{0});
  if (format == SparseFormat::kCSC) order = {1, 0};
  if (format == SparseFormat::kCSF && !options.axis_order.empty()) order = options.axis_order;
  QUIVER_RETURN_NOT_OK(CheckAxisOrder(order, ndim));
  View view{dense.raw_data(), {}, {}};
  for (int64_t axis : order) {
    view.shape.push_back(dense.shape()[axis]);
    view.strides.push_back(dense.strides()[axis]);
  }
  Result<Scan> scan = Status::Invalid("no scan");
  if (dense.size() == 0) {
    Scan empty;
    QUIVER_ASSIGN_OR_RETURN(BufferPtr none, Buffer::Allocate(0));
    QUIVER_ASSIGN_OR_RETURN(empty.values, MakeVector(dense.type(), std::move(none), 0));
    scan = std::move(empty);
  } else {
    VisitSparseValueType(*dense.type(), [&](auto tag) {
      scan = ScanAll<decltype(tag)>(view, dense.type(), options.threads);
    });
  }
  if (!scan.ok()) return scan.status();
  switch (format) {
    case SparseFormat::kCOO: return JoinCOO(view, std::move(*scan), dense, options);
    case SparseFormat::kCSR:
    case SparseFormat::kCSC: return JoinCSX(view, std::move(*scan), format, dense, options);
    case SparseFormat::kCSF: {
      return MakeCSFFromLevels(LevelsFromRows(view, *scan), dense.shape(),
                                       std::move(order), std::move(scan->values), dense.dim_names(),
                                       options.index_type);
    }
  }
  return Status::Invalid("unknown sparse format");
}

}  // namespace

}  // namespace quiver::sparse

namespace quiver {

Result<SparseTensor> SparseTensor::FromDense(const Tensor& dense, SparseFormat format,
                                             const SparseOptions& options) {
  return sparse::WithoutThrowing("dense to sparse",
                                 [&] { return sparse::FromDenseTensor(dense, format, options); });
}

}  // namespace quiver
