// VariableShapeTensorArray::ToPadded: every row copied into one dense
// batch, writing each output byte once (data or padding, never both).
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <type_traits>

#include "quiver/internal/checked_math.h"
#include "quiver/internal/permutation.h"
#include "quiver/internal/value_types.h"
#include "quiver/internal/variable_shape_storage.h"
#include "quiver/variable_shape_tensor.h"

namespace quiver {

namespace {

// float -> IEEE half bits when the value is exactly representable.
std::optional<uint16_t> ExactHalf(double value) {
  if (std::isnan(value)) return uint16_t{0x7e00};
  const uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  double magnitude = std::fabs(value);
  if (std::isinf(magnitude)) return static_cast<uint16_t>(sign | 0x7c00);
  if (magnitude == 0) return sign;
  int exponent = std::ilogb(magnitude);  // magnitude = m * 2^exponent, m in [1, 2)
  if (exponent > 15) return std::nullopt;
  double mantissa;
  uint16_t biased = 0;
  if (exponent >= -14) {
    mantissa = (std::ldexp(magnitude, -exponent) - 1.0) * 1024.0;
    biased = static_cast<uint16_t>(exponent + 15);
  } else {
    mantissa = std::ldexp(magnitude, 24);  // subnormal: magnitude / 2^-24
  }
  if (mantissa != std::floor(mantissa) || mantissa >= 1024) return std::nullopt;
  return static_cast<uint16_t>(sign | (biased << 10) | static_cast<uint16_t>(mantissa));
}

template <typename T>
std::optional<T> ExactInteger(double value) {
  if (value != std::floor(value)) return std::nullopt;  // NaN and fractions
  // Bounds as doubles: min is exact; max + 1 is a power of two, also exact.
  const double low = static_cast<double>(std::numeric_limits<T>::min());
  const double high = std::ldexp(1.0, std::numeric_limits<T>::digits);
  if (value < low || value >= high) return std::nullopt;
  return static_cast<T>(value);
}

template <typename T>
std::optional<uint64_t> Pattern(std::optional<T> value) {
  if (!value) return std::nullopt;
  uint64_t bits = 0;
  std::memcpy(&bits, &*value, sizeof(T));
  return bits;
}

// The bytes of `pad_value` in `type` (little-endian in the low bytes).
Result<uint64_t> PadPattern(double pad_value, const DataType& type) {
  std::optional<uint64_t> bits;
  if (type.is_bool8()) {
    if (pad_value == 0 || pad_value == 1) bits = pad_value == 1 ? 1 : 0;
  } else {
    bits = internal::VisitValueType(
        type,
        [pad_value](auto tag) -> std::optional<uint64_t> {
          using T = decltype(tag);
          if constexpr (std::is_same_v<T, internal::Half>) {
            return Pattern(ExactHalf(pad_value));
          } else if constexpr (std::is_same_v<T, float>) {
            const float f = static_cast<float>(pad_value);
            if (static_cast<double>(f) != pad_value && !std::isnan(pad_value)) return std::nullopt;
            return Pattern(std::optional<float>(f));
          } else if constexpr (std::is_same_v<T, double>) {
            return Pattern(std::optional<double>(pad_value));
          } else {
            return Pattern(ExactInteger<T>(pad_value));
          }
        },
        []() -> std::optional<uint64_t> { return std::nullopt; });
  }
  if (!bits) {
    char text[32];
    auto written = std::to_chars(text, text + sizeof(text), pad_value);
    return Status::Invalid("pad value " + std::string(text, written.ptr) + " is not exactly " +
                           "representable as " + type.ToString());
  }
  return *bits;
}

// Writes `count` copies of a `width`-byte pattern; a zero pattern writes
// nothing, as the output buffer starts zeroed then.
class Filler {
 public:
  Filler(uint64_t pattern, int64_t width) : pattern_(pattern), width_(width) {}

  void operator()(uint8_t* dst, int64_t count) const {
    if (count <= 0 || pattern_ == 0) return;
    switch (width_) {
      case 1: std::memset(dst, static_cast<int>(pattern_ & 0xff), count); break;
      case 2: Fill<uint16_t>(dst, count); break;
      case 4: Fill<uint32_t>(dst, count); break;
      default: Fill<uint64_t>(dst, count); break;
    }
  }

 private:
  template <typename T>
  void Fill(uint8_t* dst, int64_t count) const {
    const T value = static_cast<T>(pattern_);
    for (int64_t e = 0; e < count; ++e) std::memcpy(dst + e * sizeof(T), &value, sizeof(T));
  }

  uint64_t pattern_;
  int64_t width_;
};

// One row into its padded cell: the row's (logical) block at the origin,
// padding everywhere else. Strides in bytes; `out_strides` row-major over
// `cell`.
struct PadCopier {
  const Filler& fill;
  int64_t width;
  const int64_t* cell;
  const int64_t* out_strides;

  void Copy(const uint8_t* src, const int64_t* shape, const int64_t* strides, uint8_t* dst,
            int axis, int ndim) const {
    if (axis == ndim) {
      std::memcpy(dst, src, width);
      return;
    }
    const int64_t rows = shape[axis];
    if (axis == ndim - 1) {
      if (strides[axis] == width) {
        if (rows > 0) std::memcpy(dst, src, rows * width);
      } else {
        for (int64_t j = 0; j < rows; ++j) std::memcpy(dst + j * width, src + j * strides[axis], width);
      }
    } else {
      for (int64_t j = 0; j < rows; ++j) {
        Copy(src + j * strides[axis], shape, strides, dst + j * out_strides[axis], axis + 1, ndim);
      }
    }
    // The rest of this axis is padding: whole sub-blocks.
    fill(dst + rows * out_strides[axis], (cell[axis] - rows) * (out_strides[axis] / width));
  }
};

}  // namespace

Result<VariableShapeTensorArray::Padded> VariableShapeTensorArray::ToPadded(
    double pad_value, NullPolicy nulls) const {
  if (nulls == NullPolicy::kError) QUIVER_RETURN_NOT_OK(CheckNoNullRows());
  QUIVER_RETURN_NOT_OK(internal::CheckDenseValues(type_, "pad"));
  const TypePtr& value_type = type_.value_type();
  const int64_t width = value_type->byte_width();
  QUIVER_ASSIGN_OR_RETURN(uint64_t pattern, PadPattern(pad_value, *value_type));
  const int ndim = type_.ndim();
  const int64_t n = length();
  const internal::VariableShapeStorage storage(*this);

  // Pass 1 reads and checks every row once: its start in the values and
  // its logical shape (zeros for null rows), and the largest size per
  // axis. Pass 2 copies using only what pass 1 recorded.
  QUIVER_ASSIGN_OR_RETURN(BufferPtr shape_buffer, Buffer::Allocate(n * ndim * 4));
  int32_t* shapes = internal::MutableAs<int32_t>(shape_buffer);
  std::vector<int64_t> begins(static_cast<size_t>(n), -1);  // -1: nothing to copy
  std::vector<int64_t> cell(ndim, 0), physical(ndim);
  for (int64_t i = 0; i < n; ++i) {
    if (!IsValid(i)) continue;
    QUIVER_ASSIGN_OR_RETURN(internal::RowRange range, storage.CheckedLayout(i, physical));
    QUIVER_RETURN_NOT_OK(internal::CheckNoNullElements(storage.values(), range.begin, range.end));
    if (range.size() > 0) begins[i] = range.begin;
    for (int k = 0; k < ndim; ++k) {
      shapes[i * ndim + k] = static_cast<int32_t>(physical[type_.physical_axis(k)]);
      cell[k] = std::max<int64_t>(cell[k], shapes[i * ndim + k]);
    }
  }
  std::vector<int64_t> out_shape = cell;
  out_shape.insert(out_shape.begin(), n);
  QUIVER_ASSIGN_OR_RETURN(int64_t out_elements, internal::ShapeProduct(out_shape, "padded batch"));
  QUIVER_ASSIGN_OR_RETURN(int64_t out_bytes, internal::MultiplyChecked(out_elements, width, "padded batch"));
  // Zero padding needs no writes: a zeroed allocation of this size is
  // cheap (fresh pages from the OS), and only the data is then copied.
  QUIVER_ASSIGN_OR_RETURN(BufferPtr out, pattern == 0 ? Buffer::Allocate(out_bytes)
                                                      : Buffer::AllocateUninitialized(out_bytes));
  QUIVER_ASSIGN_OR_RETURN(std::vector<int64_t> out_strides, RowMajorStrides(width, out_shape));

  const Filler fill(pattern, width);
  const PadCopier copier{fill, width, cell.data(), out_strides.data() + 1};
  const int64_t cell_elements = n > 0 ? out_elements / n : 0;
  const uint8_t* values = storage.values().buffers[1] ? storage.values().buffers[1]->data() : nullptr;
  std::vector<int64_t> logical(ndim);
  for (int64_t i = 0; i < n; ++i) {
    uint8_t* dst = out->mutable_data() + i * cell_elements * width;
    if (begins[i] < 0 || cell_elements == 0) {
      fill(dst, cell_elements);
      continue;
    }
    for (int k = 0; k < ndim; ++k) {
      logical[k] = shapes[i * ndim + k];
      physical[type_.physical_axis(k)] = logical[k];
    }
    const std::vector<int64_t> strides =
        internal::LogicalStrides(width, physical, type_.permutation());
    copier.Copy(values + begins[i] * width, logical.data(), strides.data(), dst, 0, ndim);
  }
  std::vector<std::string> names = type_.logical_dim_names();
  if (!names.empty()) names.insert(names.begin(), "");
  QUIVER_ASSIGN_OR_RETURN(Tensor values_tensor,
                          Tensor::Make(value_type, std::move(out), std::move(out_shape),
                                       std::move(out_strides), std::move(names)));
  QUIVER_ASSIGN_OR_RETURN(Tensor shapes_tensor, Tensor::Make(int32(), std::move(shape_buffer), {n, ndim}));
  return Padded{std::move(values_tensor), std::move(shapes_tensor)};
}

}  // namespace quiver
