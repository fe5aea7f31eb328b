// Dense to sparse: one scan of the dense tensor, split into contiguous
// ranges of rows that the threads take in turn, each collecting its
// non-zeros branch-free (every element is written, the count advances only
// past non-zeros; in very sparse rows all-zero runs of 16 are passed over
// first), then the ranges' results are joined into the format asked for.
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
#include "quiver/internal/permutation.h"
#include "quiver/internal/threads.h"
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
  // (null before the first Reserve)
  T* data() { return buffer_ ? reinterpret_cast<T*>(buffer_->mutable_data()) : nullptr; }
  const T* data() const { return buffer_ ? reinterpret_cast<const T*>(buffer_->data()) : nullptr; }
  // The memory, handed over; the array is empty afterwards.
  BufferPtr Release() {
    capacity_ = size_used_ = 0;
    return std::move(buffer_);
  }
  Status Reserve(int64_t n) {
    if (n <= capacity_) return Status::OK();
    const int64_t capacity = std::max({n, 2 * capacity_, int64_t{1024}});
    QUIVER_ASSIGN_OR_RETURN(
        BufferPtr grown, Buffer::AllocateUninitialized(capacity * static_cast<int64_t>(sizeof(T))));
    if (size_used_ > 0)
      std::memcpy(grown->mutable_data(), buffer_->data(),
                  static_cast<size_t>(size_used_) * sizeof(T));
    buffer_ = std::move(grown);
    capacity_ = capacity;
    return Status::OK();
  }
  void set_size(int64_t n) { size_used_ = n; }
  int64_t capacity() const { return capacity_; }

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

// One thread's share of the scan: rows [row_begin, row_end) of the view,
// whose nnz non-zeros come at position `first` of the whole scan and have
// last-axis coordinates cols[0, nnz). The joins read the parts' columns
// where they lie: every output converts them anyway, so joining them into
// one array first would be a copy for nothing.
struct ScanPart {
  int64_t row_begin = 0, row_end = 0;
  int64_t first = 0, nnz = 0;
  GrowArray<int64_t> cols;
};

template <typename T>
struct Chunk {
  ScanPart part;
  GrowArray<T> values;
  Status status;  // OutOfMemory from a growth, reported after the join
};

constexpr int64_t kScanBlock = int64_t{1} << 16;

// Elements [j0, j1) of one row: every element is written at position n,
// which advances only past non-zeros (no branch on the data). Returns the
// new n.
template <typename T>
int64_t ScanBlock(const uint8_t* row, int64_t step, int64_t j0, int64_t j1, int64_t* cols,
                  T* values, int64_t n);

// Elements a skipping scan tests at once.
constexpr int64_t kSkipRun = 16;

// Whether the kSkipRun contiguous elements at `p` are all zero: a test
// without branches or stores, which the compiler turns into vector
// compares.
template <typename T>
bool AllZero(const uint8_t* p) {
  bool any = false;
  for (int64_t k = 0; k < kSkipRun; ++k) {
    T x;
    std::memcpy(&x, p + k * static_cast<int64_t>(sizeof(T)), sizeof(T));
    any |= IsNonZero(x);
  }
  return !any;
}

// ScanBlock for contiguous elements of a sparse row: runs of kSkipRun
// elements that are all zero are passed over without writing anything;
// the others, and the tail, are scanned element by element.
template <typename T>
int64_t ScanSparseBlock(const uint8_t* row, int64_t j0, int64_t j1, int64_t* cols, T* values,
                        int64_t n) {
  constexpr int64_t width = static_cast<int64_t>(sizeof(T));
  int64_t j = j0;
  for (; j + kSkipRun <= j1; j += kSkipRun) {
    if (AllZero<T>(row + j * width)) continue;
    n = ScanBlock<T>(row, width, j, j + kSkipRun, cols, values, n);
  }
  return ScanBlock<T>(row, width, j, j1, cols, values, n);
}

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

// Both arrays of a chunk grown to hold n elements, keeping the first `kept`.
template <typename T>
Status Reserve(Chunk<T>& chunk, int64_t kept, int64_t n) {
  chunk.part.cols.set_size(kept);
  chunk.values.set_size(kept);
  QUIVER_RETURN_NOT_OK(chunk.part.cols.Reserve(n));
  return chunk.values.Reserve(n);
}

// Scans the chunk's rows, writing each row's count at row_counts[row].
// `rows_ahead`: the rows whose non-zeros the chunk's values array should
// have room for (all of the tensor's from chunk 0, whose array the join
// appends the other chunks' values to).
template <typename T>
void ScanRows(const View& v, Chunk<T>& chunk, int64_t rows_ahead, int64_t* row_counts) {
  ScanPart& part = chunk.part;
  const int64_t inner = v.shape.back();
  const int64_t step = v.strides.back();
  std::vector<int64_t> index = RowIndex(v, part.row_begin);
  int64_t offset = 0;
  for (int k = 0; k + 1 < v.ndim(); ++k) offset += index[k] * v.strides[k];
  int64_t n = 0, scanned = 0;
  for (int64_t r = part.row_begin; r < part.row_end; ++r) {
    const uint8_t* row = v.base + offset;
    const int64_t start = n;
    // Long rows go in blocks, so the room reserved ahead of the non-zeros
    // found stays bounded (a 1-D tensor is one row).
    for (int64_t j0 = 0; j0 < inner; j0 += kScanBlock) {
      const int64_t j1 = std::min(inner, j0 + kScanBlock);
      chunk.status = Reserve(chunk, n, n + (j1 - j0));
      if (!chunk.status.ok()) return;
      // Below one non-zero in 256 so far, most runs of 16 are all zero and
      // skipping them saves the stores; above, the test would be wasted.
      if (step == static_cast<int64_t>(sizeof(T)) && n * 256 < scanned) {
        n = ScanSparseBlock<T>(row, j0, j1, part.cols.data(), chunk.values.data(), n);
      } else {
        n = ScanBlock<T>(row, step, j0, j1, part.cols.data(), chunk.values.data(), n);
      }
      scanned += j1 - j0;
    }
    row_counts[r] = n - start;
    if (r == part.row_begin && n > 0) {
      // Room at the first row's density (and a quarter more), so that
      // dense inputs do not regrow and copy many times.
      auto expected = [&](int64_t rows) { return std::min(rows * inner, n * rows + n * rows / 4); };
      chunk.status = Reserve(chunk, n, expected(part.row_end - r));
      if (chunk.status.ok()) chunk.status = chunk.values.Reserve(expected(rows_ahead));
      if (!chunk.status.ok()) return;
    }
    if (r + 1 < part.row_end) offset += NextRow(v, index);
  }
  part.nnz = n;
}

// Everything the joins need, independent of the value type.
struct Scan {
  std::vector<int64_t> row_counts;  // per row of the view
  std::vector<ScanPart> parts;      // in row order
  Tensor values;                    // all non-zeros, in order
  int64_t nnz = 0;
  int workers = 1;  // threads the scan ran on
  // Threads for passes over the non-zeros: the scan's, when there are
  // enough of them to pay for starting threads.
  int JoinWorkers() const { return nnz >= (int64_t{1} << 16) ? workers : 1; }
};

// The chunks' values one after another. Chunk 0's array reserved room
// for the whole tensor at its first row's density, so usually they join
// there and only the other chunks' values move. When that guess was short,
// or so long that the result would pin far more memory than its values
// (a first row much denser than the rest), they all move to a new array of
// their own size.
template <typename T>
Result<Tensor> JoinValues(std::vector<Chunk<T>>& chunks, const TypePtr& type, int64_t nnz,
                          int workers) {
  GrowArray<T>& head = chunks.front().values;
  const int64_t bytes = nnz * static_cast<int64_t>(sizeof(T));
  // (A few KiB of slack, not a scan block's: a small or empty result in
  // a block sized for a long row would pin hundreds of KiB.)
  const int64_t room = head.capacity() * static_cast<int64_t>(sizeof(T));
  const bool in_place = head.capacity() >= nnz && room <= 2 * bytes + 4096;
  BufferPtr out;
  if (in_place) {
    out = head.Release();
  } else {
    QUIVER_ASSIGN_OR_RETURN(out, Buffer::AllocateUninitialized(bytes));
  }
  T* values = reinterpret_cast<T*>(out->mutable_data());
  const int64_t skip = in_place ? 1 : 0;  // chunk 0's values are in place
  internal::RunQueueAll(static_cast<int64_t>(chunks.size()) - skip, workers, [&](int64_t q) {
    const Chunk<T>& chunk = chunks[q + skip];
    std::copy_n(chunk.values.data(), chunk.part.nnz, values + chunk.part.first);
  });
  if (in_place) {
    QUIVER_ASSIGN_OR_RETURN(out, Buffer::Slice(std::move(out), 0, bytes));
  }
  return MakeVector(type, std::move(out), nnz);
}

template <typename T>
Result<Scan> ScanAll(const View& v, const TypePtr& type, int threads) {
  const int64_t rows = v.rows();
  const int64_t inner = v.shape.back();
  // Parallel only past about 256 Ki elements per part: below that the
  // thread start costs more than it saves. Eight parts per thread let
  // the threads share the work out as they go.
  const int64_t per_part = std::max<int64_t>(1, (int64_t{1} << 18) / std::max<int64_t>(inner, 1));
  const int workers = internal::WorkerCount(rows, threads, per_part);
  const int64_t parts = workers == 1 ? 1 : std::min<int64_t>(rows / per_part, int64_t{8} * workers);
  std::vector<Chunk<T>> chunks(static_cast<size_t>(parts));
  const int64_t step = (rows + parts - 1) / parts;
  for (int64_t p = 0; p < parts; ++p) {
    chunks[p].part.row_begin = std::min(rows, p * step);
    chunks[p].part.row_end = std::min(rows, chunks[p].part.row_begin + step);
  }
  Scan scan;
  scan.row_counts.assign(static_cast<size_t>(rows), 0);
  internal::RunQueueAll(parts, workers, [&](int64_t p) {
    const ScanPart& part = chunks[p].part;
    ScanRows(v, chunks[p], p == 0 ? rows : part.row_end - part.row_begin, scan.row_counts.data());
  });
  for (Chunk<T>& c : chunks) {
    QUIVER_RETURN_NOT_OK(c.status);
    c.part.first = scan.nnz;
    scan.nnz += c.part.nnz;
  }
  scan.workers = workers;
  QUIVER_ASSIGN_OR_RETURN(scan.values, JoinValues(chunks, type, scan.nnz, scan.JoinWorkers()));
  for (Chunk<T>& c : chunks) scan.parts.push_back(std::move(c.part));
  return scan;
}

// Calls fn(outer_index, first, cols, count) for each row of `part` holding
// non-zeros, in order: its index on every axis but the last, and its
// non-zeros: positions [first, first + count) of the scan, with last-axis
// coordinates cols[0, count).
template <typename Fn>
void ForEachFilledRow(const View& v, const Scan& scan, const ScanPart& part, Fn&& fn) {
  if (part.nnz == 0) return;  // (a zero-size axis has no row index)
  std::vector<int64_t> index = RowIndex(v, part.row_begin);
  int64_t n = 0;
  for (int64_t r = part.row_begin; r < part.row_end; ++r) {
    const int64_t count = scan.row_counts[r];
    if (count > 0) fn(index, part.first + n, part.cols.data() + n, count);
    n += count;
    // Only the index values matter here, not byte offsets.
    for (int k = v.ndim() - 2; k >= 0; --k) {
      if (++index[k] < v.shape[k]) break;
      index[k] = 0;
    }
  }
}

// Runs fn(part) for every part of the scan, in parallel when the parts
// hold enough non-zeros to pay for starting threads.
template <typename Fn>
void ForEachPart(const Scan& scan, Fn&& fn) {
  internal::RunQueueAll(static_cast<int64_t>(scan.parts.size()), scan.JoinWorkers(),
                        [&](int64_t p) { fn(scan.parts[p]); });
}

// COO coordinates written straight into the index type: row-major
// [nnz, ndim], the outer index repeated for each non-zero of its row.
template <typename I>
void WriteCoords(const View& v, const Scan& scan, I* out) {
  const int ndim = v.ndim();
  ForEachPart(scan, [&](const ScanPart& part) {
    ForEachFilledRow(
        v, scan, part,
        [&](const std::vector<int64_t>& index, int64_t first, const int64_t* cols, int64_t count) {
          for (int64_t i = 0; i < count; ++i) {
            I* row = out + (first + i) * ndim;
            for (int k = 0; k + 1 < ndim; ++k) row[k] = static_cast<I>(index[k]);
            row[ndim - 1] = static_cast<I>(cols[i]);
          }
        });
  });
}

// CSF levels straight from the rows: a row starts new nodes from the
// first outer axis where its index differs from the previous filled row;
// its non-zeros are the leaves, counted here (their indices are the scan's
// columns, made into a tensor by IndicesFromScan).
CSFLevels LevelsFromRows(const View& v, const Scan& scan) {
  const int ndim = v.ndim();
  CSFLevels levels(ndim);
  std::vector<int64_t> previous;
  for (const ScanPart& part : scan.parts) {
    ForEachFilledRow(
        v, scan, part,
        [&](const std::vector<int64_t>& index, int64_t, const int64_t*, int64_t count) {
          int level = 0;
          if (!previous.empty()) {
            while (level < ndim - 1 && index[level] == previous[level]) ++level;
          }
          levels.Branch(index.data(), level);
          levels.CountLeaves(count);
          previous = index;
        });
  }
  levels.Finish();
  return levels;
}

// The scan's last-axis coordinates as one index array of `type` (which
// holds every one of them: ChooseIndexType saw the largest).
Result<Tensor> IndicesFromScan(const Scan& scan, const TypePtr& type, const char* what) {
  QUIVER_ASSIGN_OR_RETURN(int64_t bytes,
                          internal::MultiplyChecked(scan.nnz, type->byte_width(), what));
  QUIVER_ASSIGN_OR_RETURN(BufferPtr buffer, Buffer::AllocateUninitialized(bytes));
  internal::VisitValueType(
      *type,
      [&](auto tag) {
        using I = decltype(tag);
        if constexpr (std::is_integral_v<I>) {
          I* out = reinterpret_cast<I*>(buffer->mutable_data());
          ForEachPart(scan, [&](const ScanPart& part) {
            std::copy_n(part.cols.data(), part.nnz, out + part.first);
          });
        }
      },
      [] {});
  return Tensor::Make(type, std::move(buffer), {scan.nnz});
}

Result<SparseTensor> JoinCSX(const View& v, Scan scan, SparseFormat format, const Tensor& dense,
                             const SparseOptions& options) {
  // One entry per row of the view, filled or not: an empty dense tensor
  // was not scanned, and its absent row counts stay zero.
  const int64_t rows = v.shape[0];
  QUIVER_ASSIGN_OR_RETURN(BufferPtr indptr_buffer,
                          AllocateIndptr(rows, IndexName(format, "indptr")));
  int64_t* indptr = reinterpret_cast<int64_t*>(indptr_buffer->mutable_data());
  std::partial_sum(scan.row_counts.begin(), scan.row_counts.end(), indptr + 1);
  QUIVER_ASSIGN_OR_RETURN(TypePtr type,
                          ChooseIndexType(options.index_type, std::max(scan.nnz, v.shape[1] - 1)));
  QUIVER_ASSIGN_OR_RETURN(Tensor indptr_t,
                          MakeIndexTensor({indptr, static_cast<size_t>(rows + 1)}, type, {rows + 1},
                                          IndexName(format, "indptr").c_str()));
  QUIVER_ASSIGN_OR_RETURN(Tensor indices_t,
                          IndicesFromScan(scan, type, IndexName(format, "indices").c_str()));
  return SparseTensor::FromParts(format, dense.shape(), dense.size(),
                                 SparseCSXIndex{indptr_t, indices_t}, std::move(scan.values),
                                 dense.dim_names(), true);
}

Result<SparseTensor> JoinCOO(const View& v, Scan scan, const Tensor& dense,
                             const SparseOptions& options) {
  QUIVER_ASSIGN_OR_RETURN(TypePtr type,
                          ChooseIndexType(options.index_type, MaxIndex(dense.shape())));
  QUIVER_ASSIGN_OR_RETURN(int64_t count,
                          internal::MultiplyChecked(scan.nnz, dense.ndim(), "COO coords"));
  QUIVER_ASSIGN_OR_RETURN(BufferPtr buffer,
                          Buffer::AllocateUninitialized(count * type->byte_width()));
  internal::VisitValueType(
      *type,
      [&](auto tag) {
        using I = decltype(tag);
        if constexpr (std::is_integral_v<I>)
          WriteCoords(v, scan, reinterpret_cast<I*>(buffer->mutable_data()));
      },
      [] {});
  QUIVER_ASSIGN_OR_RETURN(Tensor coords,
                          Tensor::Make(type, std::move(buffer), {scan.nnz, dense.ndim()}));
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
    return Status::Invalid(std::string(SparseFormatName(format)), " needs a 2-D tensor, not ",
                           internal::FormatShape(dense.shape()));
  }
  std::vector<int64_t> order(static_cast<size_t>(ndim));
  std::iota(order.begin(), order.end(), int64_t{0});
  if (format == SparseFormat::kCSC) order = {1, 0};
  if (format == SparseFormat::kCSF && !options.axis_order.empty()) order = options.axis_order;
  QUIVER_RETURN_NOT_OK(internal::CheckPermutation(order, ndim, "CSF axis_order"));
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
      QUIVER_ASSIGN_OR_RETURN(TypePtr type,
                              CSFIndexType(options.index_type, scan->nnz, dense.shape()));
      QUIVER_ASSIGN_OR_RETURN(Tensor leaves, IndicesFromScan(*scan, type, "CSF indices"));
      return MakeCSFFromLevels(LevelsFromRows(view, *scan), dense.shape(), std::move(order),
                               std::move(scan->values), dense.dim_names(), type, std::move(leaves));
    }
  }
  return Status::Invalid("unknown sparse format");
}

}  // namespace

}  // namespace quiver::sparse

namespace quiver {

Result<SparseTensor> SparseTensor::FromDense(const Tensor& dense, SparseFormat format,
                                             const SparseOptions& options) {
  return internal::WithoutThrowing("dense to sparse",
                                   [&] { return sparse::FromDenseTensor(dense, format, options); });
}

}  // namespace quiver
