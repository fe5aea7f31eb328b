#include "quiver/tensor.h"

#include <limits>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>

#include "quiver/internal/checked_math.h"
#include "quiver/internal/strided_copy.h"
#include "quiver/internal/value_types.h"

namespace quiver {

Result<std::vector<int64_t>> RowMajorStrides(int64_t byte_width, std::span<const int64_t> shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t step = byte_width;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = step;
    // Zero-size axes leave the stride at its row-major value for the rest;
    // the outermost size never enters a stride, so it is not multiplied in.
    if (shape[i] > 0 && i > 0) {
      QUIVER_ASSIGN_OR_RETURN(step, internal::MultiplyChecked(step, shape[i], "strides"));
    }
  }
  return strides;
}

namespace {

Status CheckValueType(const TypePtr& type) {
  if (type && type->is_tensor_value()) return Status::OK();
  return Status::TypeError("tensor value type must be numeric, bool8, bfloat16 or float8, got ",
                           (type ? type->ToString() : std::string("none")));
}

// The bytes the elements of a non-empty tensor span relative to its first
// element, [low, high) (negative strides reach below it), or nullopt when
// the walk or high - low leaves int64. One overflow flag and no Results:
// this runs for every tensor made (Make and Wrap).
std::optional<std::pair<int64_t, int64_t>> ElementSpan(std::span<const int64_t> shape,
                                                       std::span<const int64_t> strides,
                                                       int64_t width) {
  int64_t low = 0, high = width, extent = 0;
  bool overflow = false;
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t span = 0;
    overflow |= __builtin_mul_overflow(shape[i] - 1, strides[i], &span);
    int64_t& end = span < 0 ? low : high;
    overflow |= __builtin_add_overflow(end, span, &end);
  }
  overflow |= __builtin_sub_overflow(high, low, &extent);
  if (overflow) return std::nullopt;
  return std::make_pair(low, high);
}

Status SpanOverflow(std::span<const int64_t> shape, std::span<const int64_t> strides) {
  return Status::Invalid("tensor with shape ", internal::FormatShape(shape), " and strides ",
                         internal::FormatShape(strides), " spans more than 2^63 bytes");
}

// Checks that every element of a tensor lies inside its buffer
// (0 <= byte_offset <= buffer_size is checked before).
Status CheckExtent(std::span<const int64_t> shape, std::span<const int64_t> strides, int64_t size,
                   int64_t byte_offset, int64_t width, int64_t buffer_size) {
  if (size == 0) return Status::OK();
  const auto span = ElementSpan(shape, strides, width);
  if (!span) return SpanOverflow(shape, strides);
  const auto [low, high] = *span;
  if (low < -byte_offset || high > buffer_size - byte_offset) {
    // (The end can only pass int64 when it is far outside; it prints as 2^63 - 1 then.)
    const int64_t end = high > std::numeric_limits<int64_t>::max() - byte_offset
                            ? std::numeric_limits<int64_t>::max()
                            : byte_offset + high;
    return Status::Invalid("tensor with shape ", internal::FormatShape(shape), " and strides ",
                           internal::FormatShape(strides), " at byte offset ", byte_offset,
                           " reaches bytes [", byte_offset + low, ", ", end,
                           ") outside a buffer of ", buffer_size, " bytes");
  }
  return Status::OK();
}

// A floating-point element as double (0 for other types: only floats are
// compared this way).
double ElementAsDouble(const DataType& type, const uint8_t* p) {
  return internal::VisitValueType(
      type,
      [p](auto tag) -> double {
        using T = decltype(tag);
        if constexpr (std::is_same_v<T, internal::Half>) {
          uint16_t bits;
          std::memcpy(&bits, p, 2);
          return HalfToFloat(bits);
        } else if constexpr (internal::kIsLowFloat<T>) {
          decltype(tag.bits) bits;
          std::memcpy(&bits, p, sizeof bits);
          return internal::LowFloatToFloat(T::kFormat, bits);
        } else if constexpr (std::is_floating_point_v<T>) {
          T v;
          std::memcpy(&v, p, sizeof v);
          return static_cast<double>(v);
        } else {
          return 0;
        }
      },
      [] { return 0.0; });
}

}  // namespace

Result<Tensor> Tensor::Make(TypePtr type, BufferPtr buffer, Dims shape, Dims strides,
                            std::vector<std::string> dim_names, int64_t byte_offset) {
  QUIVER_RETURN_NOT_OK(CheckValueType(type));
  if (!buffer) return Status::Invalid("tensor has no buffer");
  QUIVER_ASSIGN_OR_RETURN(const int64_t size, internal::ShapeProduct(shape, "tensor shape"));
  const int64_t width = type->byte_width();
  if (strides.empty() && !shape.empty()) {
    QUIVER_ASSIGN_OR_RETURN(strides, RowMajorStrides(width, shape));
  }
  if (strides.size() != shape.size()) {
    return Status::Invalid("tensor has ", shape.size(), " dimensions but ", strides.size(),
                           " strides");
  }
  if (!dim_names.empty() && dim_names.size() != shape.size()) {
    return Status::Invalid("tensor has ", shape.size(), " dimensions but ", dim_names.size(),
                           " dim_names");
  }
  if (byte_offset < 0 || byte_offset > buffer->size()) {
    return Status::Invalid("tensor byte offset ", byte_offset, " is outside a buffer of ",
                           buffer->size(), " bytes");
  }
  QUIVER_RETURN_NOT_OK(CheckExtent(shape, strides, size, byte_offset, width, buffer->size()));
  // Built from its checked parts in one go: a default-constructed Tensor
  // filled in afterwards was zeroed first (a `rep stos` of 200 bytes,
  // a tenth of a DLPack import).
  return Tensor(std::move(type), std::move(buffer), std::move(shape), std::move(strides),
                std::move(dim_names), byte_offset, size);
}

Result<Tensor> Tensor::Wrap(TypePtr type, uintptr_t first, Dims&& shape, Dims&& strides,
                            Buffer::ReleaseHook release, Device device,
                            std::vector<std::string> dim_names) {
  auto fail = [&release](Status status) {
    if (release) release();
    return status;
  };
  if (Status st = CheckValueType(type); !st.ok()) return fail(std::move(st));
  if (strides.size() != shape.size() || (!dim_names.empty() && dim_names.size() != shape.size())) {
    return fail(Status::Invalid("tensor has ", shape.size(), " dimensions, ", strides.size(),
                                " strides and ", dim_names.size(), " dim_names"));
  }
  auto size = internal::ShapeProduct(shape, "tensor shape");
  if (!size.ok()) return fail(size.status());
  int64_t low = 0, high = 0;
  if (*size > 0) {
    const auto span = ElementSpan(shape, strides, type->byte_width());
    if (!span) return fail(SpanOverflow(shape, strides));
    std::tie(low, high) = *span;
  }
  if (first == 0 && *size > 0) return fail(Status::Invalid("tensor has no data (a null pointer)"));
  // Address arithmetic on integers: nothing is dereferenced here.
  // (A non-empty tensor may not start at address 0 either.)
  if (first < static_cast<uint64_t>(-low) || (*size > 0 && first == static_cast<uint64_t>(-low))) {
    return fail(Status::Invalid("negative strides reach ", -low,
                                " bytes below the data pointer, before the start of memory"));
  }
  if (first > std::numeric_limits<uintptr_t>::max() - static_cast<uint64_t>(high)) {
    return fail(Status::Invalid("tensor at address ", first, " spanning ", high,
                                " bytes wraps around the address space"));
  }
  const auto* start = reinterpret_cast<const uint8_t*>(first - static_cast<uint64_t>(-low));
  BufferPtr buffer = Buffer::Wrap(start, high - low, std::move(release), device);
  return Tensor(std::move(type), std::move(buffer), std::move(shape), std::move(strides),
                std::move(dim_names), -low, *size);
}

Range Tensor::ByteSpan() const {
  if (size_ == 0) return {byte_offset_, byte_offset_};
  // Make and Wrap computed the same span without overflow (and refuse
  // tensors whose span overflows, so the fallback is never taken).
  const auto span = ElementSpan(shape_, strides_, type_->byte_width());
  if (!span) return {byte_offset_, byte_offset_};
  return {byte_offset_ + span->first, byte_offset_ + span->second};
}

namespace {

// Whether the axes, taken from the last (row-major) or the first
// (column-major), each step by the size of all the axes taken before them.
// Size-1 axes may have any stride; an empty tensor is contiguous.
bool NoGaps(const Tensor& t, bool row_major) {
  int64_t expected = t.type()->byte_width();
  if (t.size() == 0) return true;
  for (int k = 0; k < t.ndim(); ++k) {
    const int i = row_major ? t.ndim() - 1 - k : k;
    if (t.shape()[i] != 1 && t.strides()[i] != expected) return false;
    expected *= t.shape()[i];
  }
  return true;
}

}  // namespace

bool Tensor::IsContiguous() const { return NoGaps(*this, true); }

bool Tensor::IsColumnMajor() const { return NoGaps(*this, false); }

Status Tensor::CheckOnHost() const {
  if (buffer_->device().is_cpu()) return Status::OK();
  const Device device = buffer_->device();
  return Status::NotImplemented("tensor data lives on ", DeviceTypeName(device.type),
                                " (device type ", device.type, ", id ", device.id,
                                "); quiver reads only CPU memory");
}

Result<Tensor> Tensor::ToContiguous() const {
  QUIVER_RETURN_NOT_OK(CheckOnHost());
  int64_t width = type_->byte_width();
  QUIVER_ASSIGN_OR_RETURN(int64_t bytes, internal::MultiplyChecked(size_, width, "tensor size"));
  QUIVER_ASSIGN_OR_RETURN(BufferPtr out, Buffer::Allocate(bytes));
  if (size_ == 0) {
    // No element to place: any strides do, and row-major ones may not even
    // fit int64 when the other axes are huge.
    return Make(type_, std::move(out), shape_, std::vector<int64_t>(shape_.size(), width),
                dim_names_);
  }
  QUIVER_RETURN_NOT_OK(CopyToRowMajor(out->mutable_data(), bytes));
  QUIVER_ASSIGN_OR_RETURN(std::vector<int64_t> out_strides, RowMajorStrides(width, shape_));
  return Make(type_, std::move(out), shape_, std::move(out_strides), dim_names_);
}

Status Tensor::CopyToRowMajor(void* out, int64_t out_bytes) const {
  QUIVER_RETURN_NOT_OK(CheckOnHost());
  const int64_t width = type_->byte_width();
  QUIVER_ASSIGN_OR_RETURN(int64_t bytes, internal::MultiplyChecked(size_, width, "tensor size"));
  if (out_bytes != bytes) {
    return Status::Invalid("a row-major copy of this tensor takes ", bytes,
                           " bytes, the destination has ", out_bytes);
  }
  if (size_ == 0) return Status::OK();
  if (out == nullptr) return Status::Invalid("the destination of a row-major copy is null");
  QUIVER_ASSIGN_OR_RETURN(std::vector<int64_t> out_strides, RowMajorStrides(width, shape_));
  internal::CopyStrided(raw_data(), strides_, static_cast<uint8_t*>(out), out_strides, shape_,
                        width);
  return Status::OK();
}

namespace {

// What one slice keeps of an axis of `size`: the first position it picks
// and how many, as Python's slice.indices and PySlice_AdjustIndices count
// them (bounds clamped, never an error). `step` is non-zero.
std::pair<int64_t, int64_t> SliceExtent(const TensorIndex& slice, int64_t size) {
  const int64_t step = slice.step;
  auto clamp = [&](int64_t bound) {
    if (bound < 0) {
      bound += size;  // no overflow: size >= 0
      if (bound < 0) bound = step < 0 ? -1 : 0;
    } else if (bound >= size) {
      bound = step < 0 ? size - 1 : size;
    }
    return bound;
  };
  const int64_t start = slice.start ? clamp(*slice.start) : (step < 0 ? size - 1 : 0);
  const int64_t stop = slice.stop ? clamp(*slice.stop) : (step < 0 ? -1 : size);
  // Both lie in [-1, size], so the differences fit; the step's magnitude
  // is taken unsigned (INT64_MIN has no positive int64).
  const uint64_t magnitude = step < 0 ? 0 - static_cast<uint64_t>(step) : step;
  int64_t count = 0;
  if (step < 0 && stop < start) {
    count = static_cast<int64_t>(static_cast<uint64_t>(start - stop - 1) / magnitude + 1);
  } else if (step > 0 && start < stop) {
    count = static_cast<int64_t>(static_cast<uint64_t>(stop - start - 1) / magnitude + 1);
  }
  return {start, count};
}

}  // namespace

Result<Tensor> Tensor::View(std::span<const TensorIndex> index) const {
  int taken = 0, ellipses = 0;  // entries that consume an axis; ellipses seen
  for (const TensorIndex& entry : index) {
    taken += entry.kind == TensorIndex::Kind::kInteger || entry.kind == TensorIndex::Kind::kSlice;
    ellipses += entry.kind == TensorIndex::Kind::kEllipsis;
  }
  if (ellipses > 1) return Status::IndexError("an index can only have a single ellipsis ('...')");
  if (taken > ndim()) {
    return Status::IndexError("too many indices for tensor: tensor is ", ndim(),
                              "-dimensional, but ", taken, " were indexed");
  }
  const bool named = !dim_names_.empty();
  std::vector<std::string> names;
  std::vector<int64_t> out_shape, out_strides;
  int64_t offset = byte_offset_;
  bool overflow = false;
  int axis = 0;  // the next axis of this tensor an entry applies to
  auto keep = [&](int64_t size, int64_t stride, const std::string& name) {
    out_shape.push_back(size);
    out_strides.push_back(stride);
    if (named) names.push_back(name);
  };
  for (const TensorIndex& entry : index) {
    switch (entry.kind) {
      case TensorIndex::Kind::kNewAxis: keep(1, 0, ""); break;
      case TensorIndex::Kind::kEllipsis:
        for (const int end = axis + ndim() - taken; axis < end; ++axis) {
          keep(shape_[axis], strides_[axis], named ? dim_names_[axis] : "");
        }
        break;
      case TensorIndex::Kind::kInteger: {
        const int64_t size = shape_[axis];
        const int64_t i = entry.index < 0 ? entry.index + size : entry.index;
        if (i < 0 || i >= size) {
          return Status::IndexError("index ", entry.index, " is out of bounds for axis ", axis,
                                    " with size ", size);
        }
        int64_t step = 0;
        overflow |= __builtin_mul_overflow(i, strides_[axis], &step);
        overflow |= __builtin_add_overflow(offset, step, &offset);
        ++axis;
        break;
      }
      case TensorIndex::Kind::kSlice: {
        if (entry.step == 0) return Status::Invalid("slice step cannot be zero");
        const auto [first, count] = SliceExtent(entry, shape_[axis]);
        int64_t stride = strides_[axis];
        // A stride of an axis of at most one position is never followed;
        // multiplying it by a huge step could only overflow.
        if (count > 1) overflow |= __builtin_mul_overflow(stride, entry.step, &stride);
        if (count > 0) {
          int64_t step = 0;
          overflow |= __builtin_mul_overflow(first, strides_[axis], &step);
          overflow |= __builtin_add_overflow(offset, step, &offset);
        }
        keep(count, stride, named ? dim_names_[axis] : "");
        ++axis;
        break;
      }
    }
  }
  for (; axis < ndim(); ++axis) keep(shape_[axis], strides_[axis], named ? dim_names_[axis] : "");
  // Every position picked lies inside this tensor, so nothing above can
  // overflow; checked all the same, as Make checks the extent again.
  if (overflow) return Status::Invalid("tensor view offsets overflow int64");
  // A view without elements points at nothing: it keeps this tensor's
  // offset (the one computed may lie past the buffer, as on an empty axis).
  bool empty = false;
  for (int64_t size : out_shape) empty = empty || size == 0;
  return Make(type_, buffer_, Dims(out_shape), Dims(out_strides), std::move(names),
              empty ? byte_offset_ : offset);
}

Result<const uint8_t*> Tensor::ElementPointer(std::span<const int64_t> index) const {
  QUIVER_RETURN_NOT_OK(CheckOnHost());
  if (static_cast<int>(index.size()) != ndim()) {
    return Status::IndexError("index has ", index.size(), " entries for a tensor of ", ndim(),
                              " dimensions");
  }
  int64_t offset = byte_offset_;
  for (int i = 0; i < ndim(); ++i) {
    if (index[i] < 0 || index[i] >= shape_[i]) {
      return Status::IndexError("index ", index[i], " is out of range for axis ", i, " of size ",
                                shape_[i]);
    }
    offset += index[i] * strides_[i];
  }
  return buffer_->data() + offset;
}

bool Tensor::Equals(const Tensor& other) const {
  if (!type_->Equals(*other.type_) || shape_ != other.shape_) return false;
  if (size_ == 0) return true;
  if (!CheckOnHost().ok() || !other.CheckOnHost().ok()) return false;  // never read device memory
  int64_t width = type_->byte_width();
  bool floating = type_->is_floating() || type_->is_low_precision_float();
  bool boolean = type_->is_bool8();
  bool equal = true;
  internal::ForEachElementPair(raw_data(), strides_, other.raw_data(), other.strides_, shape_,
                               [&](const uint8_t* a, const uint8_t* b) {
                                 if (boolean) {
                                   equal = equal && (*a != 0) == (*b != 0);
                                 } else if (floating) {
                                   equal = equal &&
                                           ElementAsDouble(*type_, a) == ElementAsDouble(*type_, b);
                                 } else {
                                   equal = equal && std::memcmp(a, b, width) == 0;
                                 }
                               });
  return equal;
}

float LowPrecisionFloatToFloat(const DataType& type, uint32_t bits) {
  if (type.is_bfloat16()) return internal::LowFloatToFloat(internal::kBFloat16Format, bits);
  if (type.is_float8_e4m3fn())
    return internal::LowFloatToFloat(internal::kFloat8E4M3FNFormat, bits);
  if (type.is_float8_e5m2()) return internal::LowFloatToFloat(internal::kFloat8E5M2Format, bits);
  return std::numeric_limits<float>::quiet_NaN();
}

float HalfToFloat(uint16_t half) {
  uint32_t sign = (half >> 15) & 1;
  uint32_t exponent = (half >> 10) & 0x1F;
  uint32_t mantissa = half & 0x3FF;
  uint32_t bits;
  if (exponent == 0) {
    if (mantissa == 0) {
      bits = sign << 31;
    } else {  // subnormal: renormalise
      int shift = 0;
      while ((mantissa & 0x400) == 0) {
        mantissa <<= 1;
        ++shift;
      }
      mantissa &= 0x3FF;
      bits = (sign << 31) | ((127 - 15 + 1 - shift) << 23) | (mantissa << 13);
    }
  } else if (exponent == 0x1F) {
    bits = (sign << 31) | 0x7F800000 | (mantissa << 13);
  } else {
    bits = (sign << 31) | ((exponent - 15 + 127) << 23) | (mantissa << 13);
  }
  float out;
  std::memcpy(&out, &bits, 4);
  return out;
}

}  // namespace quiver
