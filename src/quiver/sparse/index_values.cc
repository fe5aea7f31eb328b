// Index arrays in and out of the int64 form the sparse kernels work on,
// and the small helpers they share.
#include <algorithm>
#include <limits>
#include <type_traits>

#include "quiver/internal/checked_math.h"
#include "quiver/internal/threads.h"
#include "quiver/internal/value_types.h"
#include "quiver/sparse/sparse_internal.h"

namespace quiver::sparse {

bool IsIndexType(const DataType& type) { return type.is_integer(); }

namespace {

template <typename T>
int64_t Widen(T v) {
  if constexpr (std::is_same_v<T, uint64_t>) {
    return v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
               ? std::numeric_limits<int64_t>::max()
               : static_cast<int64_t>(v);
  } else {
    return static_cast<int64_t>(v);
  }
}

}  // namespace

void ReadIndexRows(const Tensor& index, int64_t begin, int64_t end, int64_t* out) {
  const int64_t cols = index.ndim() == 2 ? index.shape()[1] : 1;
  const int64_t s0 = index.strides()[0];
  const int64_t s1 = index.ndim() == 2 ? index.strides()[1] : 0;
  internal::VisitValueType(
      *index.type(),
      [&](auto tag) {
        using T = decltype(tag);
        if constexpr (std::is_integral_v<T>) {
          const uint8_t* base = index.raw_data();
          if (index.IsContiguous()) {  // 1-D, or 2-D row-major: one flat run
            const int64_t first = begin * cols, count = (end - begin) * cols;
            for (int64_t i = 0; i < count; ++i) {
              T v;
              std::memcpy(&v, base + (first + i) * static_cast<int64_t>(sizeof(T)), sizeof(T));
              out[i] = Widen(v);
            }
            return;
          }
          for (int64_t r = begin; r < end; ++r) {
            for (int64_t c = 0; c < cols; ++c) {
              T v;
              std::memcpy(&v, base + r * s0 + c * s1, sizeof(T));
              out[(r - begin) * cols + c] = Widen(v);
            }
          }
        }
      },
      [] {});
}

IndexValues ReadIndexValues(const Tensor& index) {
  // Always a private copy, even of contiguous int64 arrays: index arrays
  // may be shared with NumPy, and kernels run without the GIL, so another
  // thread could change an index between its check and its use. Checking
  // and using the copy keeps every access in bounds.
  IndexValues out;
  out.size = index.size();
  out.owned.resize(static_cast<size_t>(out.size));
  if (out.size > 0) ReadIndexRows(index, 0, index.shape()[0], out.owned.data());
  return out;
}

Result<Tensor> MakeIndexTensor(std::span<const int64_t> values, const TypePtr& type,
                               std::vector<int64_t> shape, const char* what) {
  const int64_t n = static_cast<int64_t>(values.size());
  QUIVER_ASSIGN_OR_RETURN(int64_t bytes, internal::MultiplyChecked(n, type->byte_width(), what));
  QUIVER_ASSIGN_OR_RETURN(BufferPtr buffer, Buffer::AllocateUninitialized(bytes));
  Status status = internal::VisitValueType(
      *type,
      [&](auto tag) -> Status {
        using T = decltype(tag);
        if constexpr (std::is_integral_v<T>) {
          T* dst = reinterpret_cast<T*>(buffer->mutable_data());
          for (int64_t i = 0; i < n; ++i) {
            const int64_t v = values[i];
            if (v < 0 || static_cast<uint64_t>(v) > std::numeric_limits<T>::max()) {
              return Status::Invalid(std::string(what), " value ", std::to_string(v),
                                     " does not fit the index type ", type->ToString());
            }
            dst[i] = static_cast<T>(v);
          }
          return Status::OK();
        } else {
          return Status::TypeError(std::string(what), ": index type must be an integer type, got ",
                                   type->ToString());
        }
      },
      [&] {
        return Status::TypeError(std::string(what), ": index type must be an integer type, got ",
                                 type->ToString());
      });
  QUIVER_RETURN_NOT_OK(status);
  return Tensor::Make(type, std::move(buffer), std::move(shape));
}

Result<TypePtr> ChooseIndexType(const TypePtr& requested, int64_t max_value) {
  if (requested) {
    if (!IsIndexType(*requested)) {
      return Status::TypeError(
          "index type must be an integer type (int8..int64, uint8..uint64), got ",
          requested->ToString());
    }
    const int64_t bits = requested->bit_width() - (requested->is_signed_integer() ? 1 : 0);
    if (bits < 63 && max_value >= (int64_t{1} << bits)) {
      return Status::Invalid("index value ", std::to_string(max_value),
                             " does not fit the requested index type ", requested->ToString());
    }
    return requested;
  }
  if (max_value <= std::numeric_limits<int8_t>::max()) return int8();
  if (max_value <= std::numeric_limits<int16_t>::max()) return int16();
  if (max_value <= std::numeric_limits<int32_t>::max()) return int32();
  return int64();
}

Result<BufferPtr> AllocateIndptr(int64_t axis, const std::string& what) {
  QUIVER_ASSIGN_OR_RETURN(int64_t count, internal::AddChecked(axis, 1, what + " length"));
  QUIVER_ASSIGN_OR_RETURN(int64_t bytes, internal::MultiplyChecked(count, 8, what + " bytes"));
  return Buffer::Allocate(bytes);
}

Result<Tensor> MakeVector(const TypePtr& type, BufferPtr buffer, int64_t length) {
  return Tensor::Make(type, std::move(buffer), {length});
}

Status CheckIndptr(const IndexValues& p, const std::string& name, int64_t end) {
  if (p[0] != 0) return Status::Invalid(name, "[0] = ", std::to_string(p[0]), ", expected 0");
  for (int64_t i = 1; i < p.size; ++i) {
    if (p[i] < p[i - 1]) {
      return Status::Invalid(name, "[", std::to_string(i), "] = ", std::to_string(p[i]),
                             " is less than ", name, "[", std::to_string(i - 1),
                             "] = ", std::to_string(p[i - 1]));
    }
  }
  if (p[p.size - 1] != end) {
    return Status::Invalid(name, "[", std::to_string(p.size - 1),
                           "] = ", std::to_string(p[p.size - 1]), ", expected ",
                           std::to_string(end), " (the size of the next level)");
  }
  return Status::OK();
}

Status IndexOutOfRange(const std::string& name, int64_t i, int64_t value, int64_t bound) {
  return Status::Invalid(name, "[", std::to_string(i), "] = ", std::to_string(value),
                         " is out of range [0, ", std::to_string(bound), ")");
}

Status CoordOutOfRange(int64_t i, int64_t k, int64_t value, int64_t bound) {
  return Status::Invalid("COO coords[", std::to_string(i), ", ", std::to_string(k),
                         "] = ", std::to_string(value), " is out of range [0, ",
                         std::to_string(bound), ")");
}

Status CheckInRange(const IndexValues& v, const std::string& name, int64_t bound) {
  for (int64_t i = 0; i < v.size; ++i) {
    if (v[i] < 0 || v[i] >= bound) return IndexOutOfRange(name, i, v[i], bound);
  }
  return Status::OK();
}

Status CheckCoords(const IndexValues& coords, const std::vector<int64_t>& shape) {
  const int64_t ndim = static_cast<int64_t>(shape.size());
  const int64_t nnz = ndim > 0 ? coords.size / ndim : 0;
  for (int64_t i = 0; i < nnz; ++i) {
    for (int64_t k = 0; k < ndim; ++k) {
      const int64_t v = coords[i * ndim + k];
      if (v < 0 || v >= shape[k]) return CoordOutOfRange(i, k, v, shape[k]);
    }
  }
  return Status::OK();
}

int64_t MaxIndex(const std::vector<int64_t>& shape) {
  int64_t max = 0;
  for (int64_t d : shape) max = std::max(max, d - 1);
  return max;
}

std::string IndexName(SparseFormat format, const char* part) {
  return std::string(SparseFormatName(format)) + " " + part;
}

}  // namespace quiver::sparse
