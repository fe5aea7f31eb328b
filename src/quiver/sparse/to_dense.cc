// Sparse to dense: a zeroed row-major tensor, then every stored value
// written (canonical input) or added (duplicates possible) at its place.
// CSR and CSC scatter straight from their index arrays, rows (columns) in
// parallel; COO and CSF go through their checked coordinates.
#include <atomic>
#include <vector>

#include "quiver/internal/checked_math.h"
#include "quiver/internal/threads.h"
#include "quiver/sparse/sparse_internal.h"
#include "quiver/sparse/value_math.h"

namespace quiver::sparse {

namespace {

template <typename T>
void Place(T* out, int64_t at, T v, bool add) {
  out[at] = add ? AddValues(out[at], v) : v;
}

template <typename T>
Status ScatterCoords(const CoordList& list, const std::vector<int64_t>& shape, T* out,
                     int threads) {
  // Nothing to place. Also the only case where a row-major stride may not
  // fit int64 ([0, 2^40, 2^40]): with a value stored, no axis is empty and
  // every stride is at most the size.
  if (list.nnz() == 0) return Status::OK();
  const int ndim = static_cast<int>(shape.size());
  QUIVER_ASSIGN_OR_RETURN(const std::vector<int64_t> strides, RowMajorStrides(1, shape));
  const T* values = reinterpret_cast<const T*>(list.values.raw_data());
  const bool add = !list.canonical;
  // Without duplicates no two values share a place, so ranges of the
  // values can be written by different threads.
  internal::ParallelRanges(list.nnz(), add ? 1 : threads, int64_t{1} << 16,
                           [&](int64_t b, int64_t e) {
                             for (int64_t i = b; i < e; ++i) {
                               int64_t at = 0;
                               for (int k = 0; k < ndim; ++k)
                                 at += list.coords[i * ndim + k] * strides[k];
                               Place(out, at, values[i], add);
                             }
                           });
  return Status::OK();
}

// CSR (CSC): segment s of indptr is row (column) s. indptr is read once
// into private memory and checked; then segments are scattered in
// parallel, each reading its indices once into private memory, checking
// them and using that copy. Values are added within a segment whose
// indices repeat or go back (only there can two values share a place),
// written otherwise.
template <typename T>
Status ScatterCSX(const SparseTensor& t, const SparseCSXIndex& index, T* out, int threads) {
  const bool csr = t.format() == SparseFormat::kCSR;
  const IndexValues p = ReadIndexValues(index.indptr);
  const int64_t nnz = index.indices.size();
  const int64_t bound = t.shape()[csr ? 1 : 0];
  const int64_t row_stride = csr ? t.shape()[1] : 1;
  const int64_t col_stride = csr ? 1 : t.shape()[1];
  // The segments must tile [0, nnz) in order before any is walked.
  QUIVER_RETURN_NOT_OK(CheckIndptr(p, IndexName(t.format(), "indptr"), nnz));
  const T* values = reinterpret_cast<const T*>(t.values().raw_data());
  std::atomic<int64_t> first_bad{nnz};  // the lowest position out of range
  internal::ParallelRanges(
      p.size - 1, threads, std::max<int64_t>(1, (int64_t{1} << 16) / std::max<int64_t>(1, bound)),
      [&](int64_t b, int64_t e) {
        std::vector<int64_t> local;
        for (int64_t s = b; s < e; ++s) {
          const int64_t begin = p[s], count = p[s + 1] - p[s];
          local.resize(static_cast<size_t>(count));
          ReadIndexRows(index.indices, begin, begin + count, local.data());
          bool add = false;
          int64_t bad = -1;
          for (int64_t k = 0; k < count && bad < 0; ++k) {
            if (local[k] < 0 || local[k] >= bound) bad = begin + k;
            add = add || (k > 0 && local[k] <= local[k - 1]);
          }
          if (bad >= 0) {  // reported after the join; nothing placed
            RecordLowest(first_bad, bad);
            continue;
          }
          for (int64_t k = 0; k < count; ++k) {
            Place(out, s * row_stride + local[k] * col_stride, values[begin + k], add);
          }
        }
      });
  if (first_bad.load() < nnz) {
    int64_t v = 0;
    ReadIndexRows(index.indices, first_bad.load(), first_bad.load() + 1, &v);
    return IndexOutOfRange(IndexName(t.format(), "indices"), first_bad.load(), v, bound);
  }
  return Status::OK();
}

Result<Tensor> ToDenseTensor(const SparseTensor& t, int threads) {
  const Tensor& values = t.values();
  if (!values.type()) return Status::Invalid("empty sparse tensor object");
  const int64_t width = values.type()->byte_width();
  QUIVER_ASSIGN_OR_RETURN(int64_t bytes,
                          internal::MultiplyChecked(t.size(), width, "dense tensor size"));
  QUIVER_ASSIGN_OR_RETURN(BufferPtr buffer, Buffer::Allocate(bytes));
  uint8_t* out = buffer->mutable_data();
  Status status;
  if (const auto* csx = t.csx_index()) {
    VisitSparseValueType(*values.type(), [&](auto tag) {
      using T = decltype(tag);
      status = ScatterCSX<T>(t, *csx, reinterpret_cast<T*>(out), threads);
    });
  } else {
    QUIVER_ASSIGN_OR_RETURN(CoordList list, ToCoordList(t));
    VisitSparseValueType(*values.type(), [&](auto tag) {
      using T = decltype(tag);
      status = ScatterCoords<T>(list, t.shape(), reinterpret_cast<T*>(out), threads);
    });
  }
  QUIVER_RETURN_NOT_OK(status);
  // An empty tensor has no element to reach: any strides do, and row-major
  // ones may not fit int64 ([0, 2^40, 2^40]), as in Tensor::ToContiguous.
  std::vector<int64_t> strides;
  if (t.size() == 0) strides.assign(t.shape().size(), width);
  return Tensor::Make(values.type(), std::move(buffer), t.shape(), std::move(strides),
                      t.dim_names());
}

}  // namespace

}  // namespace quiver::sparse

namespace quiver {

Result<Tensor> SparseTensor::ToDense(int threads) const {
  return internal::WithoutThrowing("sparse to dense",
                                   [&] { return sparse::ToDenseTensor(*this, threads); });
}

}  // namespace quiver
