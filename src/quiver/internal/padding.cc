// The padding kernel shared by VariableShapeTensorArray::ToPadded and the
// loader's padded batches: the pad value's bits, the fill, the row copy.
#include "quiver/internal/padding.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <type_traits>
#include <utility>

#include "quiver/internal/value_types.h"

namespace quiver::internal {

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

// An integer in integer type T, when it fits.
template <typename T, typename V>
std::optional<T> FitInteger(V value) {
  if (!std::in_range<T>(value)) return std::nullopt;
  return static_cast<T>(value);
}

// An integer as a double, when the double holds it exactly.
template <typename V>
std::optional<double> ExactDouble(V value) {
  const double d = static_cast<double>(value);
  // 2^64 and 2^63 are exact doubles just past the ranges: no round trip.
  if (d >= std::ldexp(1.0, std::numeric_limits<V>::digits)) return std::nullopt;
  if (static_cast<V>(d) != value) return std::nullopt;
  return d;
}

template <typename T>
std::optional<uint64_t> Pattern(std::optional<T> value) {
  if (!value) return std::nullopt;
  uint64_t bits = 0;
  std::memcpy(&bits, &*value, sizeof(T));
  return bits;
}

// The bits of `pad_value` in floating-point type T, when exact (the
// low-precision floats too: a pad value they do not hold exactly, or
// infinity in float8_e4m3fn, is refused rather than rounded or saturated).
template <typename T>
std::optional<uint64_t> FloatPattern(double pad_value) {
  if constexpr (kIsLowFloat<T>) {
    const std::optional<uint32_t> bits = ExactLowFloat(T::kFormat, pad_value);
    if (!bits) return std::nullopt;
    return uint64_t{*bits};
  } else if constexpr (std::is_same_v<T, Half>) {
    return Pattern(ExactHalf(pad_value));
  } else if constexpr (std::is_same_v<T, float>) {
    const float f = static_cast<float>(pad_value);
    if (static_cast<double>(f) != pad_value && !std::isnan(pad_value)) return std::nullopt;
    return Pattern(std::optional<float>(f));
  } else {
    return Pattern(std::optional<double>(pad_value));
  }
}

// The bits of integer `value` in value type T, when exact.
template <typename T, typename V>
std::optional<uint64_t> IntegerPattern(V value) {
  if constexpr (std::is_same_v<T, Half> || kIsLowFloat<T> || std::is_floating_point_v<T>) {
    std::optional<double> d = ExactDouble(value);
    if (!d) return std::nullopt;
    return FloatPattern<T>(*d);
  } else {
    return Pattern(FitInteger<T>(value));
  }
}

}  // namespace

Result<uint64_t> PadPattern(const PadValue& pad_value, const DataType& type) {
  std::optional<uint64_t> bits;
  if (type.is_bool8()) {
    const bool zero = pad_value.kind() == PadValue::Kind::kDouble  ? pad_value.double_value() == 0
                      : pad_value.kind() == PadValue::Kind::kInt64 ? pad_value.int64_value() == 0
                                                                   : pad_value.uint64_value() == 0;
    const bool one = pad_value.kind() == PadValue::Kind::kDouble  ? pad_value.double_value() == 1
                     : pad_value.kind() == PadValue::Kind::kInt64 ? pad_value.int64_value() == 1
                                                                  : pad_value.uint64_value() == 1;
    if (zero || one) bits = one ? 1 : 0;
  } else {
    bits = VisitValueType(
        type,
        [&pad_value](auto tag) -> std::optional<uint64_t> {
          using T = decltype(tag);
          switch (pad_value.kind()) {
            case PadValue::Kind::kInt64: return IntegerPattern<T>(pad_value.int64_value());
            case PadValue::Kind::kUInt64: return IntegerPattern<T>(pad_value.uint64_value());
            case PadValue::Kind::kDouble: break;
          }
          if constexpr (std::is_same_v<T, Half> || kIsLowFloat<T> || std::is_floating_point_v<T>) {
            return FloatPattern<T>(pad_value.double_value());
          } else {
            return Pattern(ExactInteger<T>(pad_value.double_value()));
          }
        },
        []() -> std::optional<uint64_t> { return std::nullopt; });
  }
  if (!bits) {
    return Status::Invalid("pad value ", pad_value.ToString(), " is not exactly representable as ",
                           type.ToString());
  }
  return *bits;
}

PadFiller::PadFiller(uint64_t pattern, int64_t width, bool write_zeros)
    : pattern_(pattern), width_(width), write_zeros_(write_zeros) {}

void PadFiller::operator()(uint8_t* dst, int64_t count) const {
  if (count <= 0 || (pattern_ == 0 && !write_zeros_)) return;
  if (pattern_ == 0) {
    std::memset(dst, 0, static_cast<size_t>(count * width_));
    return;
  }
  switch (width_) {
    case 1: std::memset(dst, static_cast<int>(pattern_ & 0xff), static_cast<size_t>(count)); break;
    case 2: Fill<uint16_t>(dst, count); break;
    case 4: Fill<uint32_t>(dst, count); break;
    default: Fill<uint64_t>(dst, count); break;
  }
}

template <typename T>
void PadFiller::Fill(uint8_t* dst, int64_t count) const {
  const T value = static_cast<T>(pattern_);
  for (int64_t e = 0; e < count; ++e) std::memcpy(dst + e * sizeof(T), &value, sizeof(T));
}

CellCopier::CellCopier(const PadFiller& fill, int64_t width, std::span<const int64_t> cell)
    : fill_(fill), width_(width), cell_(cell.begin(), cell.end()), out_strides_(cell.size()) {
  int64_t stride = width;
  for (size_t k = cell.size(); k-- > 0;) {
    out_strides_[k] = stride;
    stride *= cell[k];
  }
  cell_bytes_ = stride;
}

void CellCopier::Copy(const uint8_t* src, const int64_t* shape, const int64_t* strides,
                      uint8_t* dst) const {
  if (cell_bytes_ == 0) return;
  if (src == nullptr) {
    fill_(dst, cell_bytes_ / width_);
    return;
  }
  CopyAxis(src, shape, strides, dst, 0);
}

void CellCopier::CopyAxis(const uint8_t* src, const int64_t* shape, const int64_t* strides,
                          uint8_t* dst, size_t axis) const {
  const size_t ndim = cell_.size();
  if (axis == ndim) {
    std::memcpy(dst, src, static_cast<size_t>(width_));
    return;
  }
  const int64_t rows = shape[axis];
  if (axis == ndim - 1) {
    if (strides[axis] == width_) {
      if (rows > 0) std::memcpy(dst, src, static_cast<size_t>(rows * width_));
    } else {
      for (int64_t j = 0; j < rows; ++j)
        std::memcpy(dst + j * width_, src + j * strides[axis], static_cast<size_t>(width_));
    }
  } else {
    for (int64_t j = 0; j < rows; ++j) {
      CopyAxis(src + j * strides[axis], shape, strides, dst + j * out_strides_[axis], axis + 1);
    }
  }
  // The rest of this axis is padding: whole sub-blocks.
  fill_(dst + rows * out_strides_[axis], (cell_[axis] - rows) * (out_strides_[axis] / width_));
}

}  // namespace quiver::internal
