#include "quiver/internal/low_precision_float.h"

#include <algorithm>
#include <cmath>

namespace quiver::internal {

namespace {

int Bias(const LowFloatFormat& f) { return (1 << (f.exponent_bits - 1)) - 1; }
uint32_t ExponentMask(const LowFloatFormat& f) { return (1u << f.exponent_bits) - 1; }
uint32_t MantissaMask(const LowFloatFormat& f) { return (1u << f.mantissa_bits) - 1; }
uint32_t SignBit(const LowFloatFormat& f) { return 1u << (f.exponent_bits + f.mantissa_bits); }

uint32_t NaNBits(const LowFloatFormat& f, bool negative) {
  // IEEE-like formats: the quiet NaN (top mantissa bit); fn formats: their
  // one NaN pattern.
  const uint32_t payload = f.has_infinity ? 1u << (f.mantissa_bits - 1) : MantissaMask(f);
  return (negative ? SignBit(f) : 0) | (ExponentMask(f) << f.mantissa_bits) | payload;
}

// The largest finite magnitude: in fn formats the all-ones exponent is
// finite except for its all-ones mantissa.
double MaxFinite(const LowFloatFormat& f) {
  const int top =
      f.has_infinity ? static_cast<int>(ExponentMask(f)) - 1 : static_cast<int>(ExponentMask(f));
  const uint32_t mantissa = f.has_infinity ? MantissaMask(f) : MantissaMask(f) - 1;
  return std::ldexp(1.0 + std::ldexp(static_cast<double>(mantissa), -f.mantissa_bits),
                    top - Bias(f));
}

// The bits of a finite magnitude the format holds exactly.
uint32_t EncodeExact(const LowFloatFormat& f, double magnitude) {
  if (magnitude == 0) return 0;
  const int min_exponent = 1 - Bias(f);
  int exponent = std::ilogb(magnitude);
  if (exponent < min_exponent) {  // subnormal: a multiple of the smallest step
    return static_cast<uint32_t>(std::ldexp(magnitude, f.mantissa_bits - min_exponent));
  }
  const double mantissa =
      std::ldexp(magnitude, f.mantissa_bits - exponent) - std::ldexp(1.0, f.mantissa_bits);
  return (static_cast<uint32_t>(exponent + Bias(f)) << f.mantissa_bits) |
         static_cast<uint32_t>(mantissa);
}

}  // namespace

float LowFloatToFloat(const LowFloatFormat& f, uint32_t bits) {
  const bool negative = (bits & SignBit(f)) != 0;
  const uint32_t exponent = (bits >> f.mantissa_bits) & ExponentMask(f);
  const uint32_t mantissa = bits & MantissaMask(f);
  double magnitude;
  if (exponent == ExponentMask(f) && f.has_infinity) {
    magnitude = mantissa == 0 ? INFINITY : NAN;
  } else if (exponent == ExponentMask(f) && mantissa == MantissaMask(f)) {
    magnitude = NAN;
  } else if (exponent == 0) {
    magnitude = std::ldexp(static_cast<double>(mantissa), 1 - Bias(f) - f.mantissa_bits);
  } else {
    magnitude = std::ldexp(static_cast<double>(mantissa | (MantissaMask(f) + 1)),
                           static_cast<int>(exponent) - Bias(f) - f.mantissa_bits);
  }
  return static_cast<float>(negative ? -magnitude : magnitude);
}

uint32_t LowFloatFromDouble(const LowFloatFormat& f, double value) {
  const bool negative = std::signbit(value);
  if (std::isnan(value)) return NaNBits(f, negative);
  const uint32_t sign = negative ? SignBit(f) : 0;
  const double magnitude = std::fabs(value);
  const uint32_t overflow =
      f.has_infinity ? sign | (ExponentMask(f) << f.mantissa_bits) : NaNBits(f, negative);
  if (std::isinf(magnitude)) return overflow;
  if (magnitude == 0) return sign;
  // The spacing of the format's values around `magnitude` (subnormals share
  // the smallest normal's); scaling by it is exact, so nearbyint's default
  // ties-to-even rounding is the format's rounding.
  const int exponent = std::max(std::ilogb(magnitude), 1 - Bias(f));
  const double step = std::ldexp(1.0, exponent - f.mantissa_bits);
  const double rounded = std::nearbyint(magnitude / step) * step;
  if (rounded > MaxFinite(f)) return overflow;
  return sign | EncodeExact(f, rounded);
}

std::optional<uint32_t> ExactLowFloat(const LowFloatFormat& f, double value) {
  if (std::isnan(value)) return NaNBits(f, std::signbit(value));
  if (std::isinf(value) && !f.has_infinity) return std::nullopt;
  const uint32_t bits = LowFloatFromDouble(f, value);
  if (static_cast<double>(LowFloatToFloat(f, bits)) != value) return std::nullopt;
  return bits;
}

}  // namespace quiver::internal
