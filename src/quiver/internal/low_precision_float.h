// Internal: the value of bfloat16, float8_e4m3fn and float8_e5m2 bits, and
// the bits of a double in those formats (docs/formats.md, "Low-precision
// floats"). Kernels that compute on values (sums of duplicate sparse
// entries, pad values, equality) go through these.
#pragma once

#include <cstdint>
#include <optional>
#include <type_traits>

namespace quiver::internal {

// A binary floating-point format narrower than float, by its field widths.
struct LowFloatFormat {
  int exponent_bits;
  int mantissa_bits;
  // IEEE-like: the all-ones exponent holds infinities and NaNs. When false
  // (the "fn" formats), there are no infinities and only the all-ones
  // exponent with an all-ones mantissa is NaN.
  bool has_infinity;
  const char* name;
};

inline constexpr LowFloatFormat kBFloat16Format{8, 7, true, "bfloat16"};
inline constexpr LowFloatFormat kFloat8E4M3FNFormat{4, 3, false, "float8_e4m3fn"};
inline constexpr LowFloatFormat kFloat8E5M2Format{5, 2, true, "float8_e5m2"};

// The tags VisitValueType passes for these types; `bits` is the value's
// storage.
struct BFloat16 {
  uint16_t bits;
  static constexpr const LowFloatFormat& kFormat = kBFloat16Format;
};
struct Float8E4M3FN {
  uint8_t bits;
  static constexpr const LowFloatFormat& kFormat = kFloat8E4M3FNFormat;
};
struct Float8E5M2 {
  uint8_t bits;
  static constexpr const LowFloatFormat& kFormat = kFloat8E5M2Format;
};

template <typename T>
inline constexpr bool kIsLowFloat =
    std::is_same_v<T, BFloat16> || std::is_same_v<T, Float8E4M3FN> || std::is_same_v<T, Float8E5M2>;

// The value of `bits` (every value of these formats is exact as a float).
float LowFloatToFloat(const LowFloatFormat& format, uint32_t bits);

// `value` rounded to the nearest value of `format`, ties to even. Too large
// a magnitude becomes infinity where the format has one, NaN where it does
// not (float8_e4m3fn: the rule ml_dtypes follows; nothing saturates). A
// NaN becomes the format's NaN with the input's sign.
uint32_t LowFloatFromDouble(const LowFloatFormat& format, double value);

// The bits of `value` when the format holds it exactly (NaN included, as
// the format's NaN; infinity only where the format has one); nullopt
// otherwise.
std::optional<uint32_t> ExactLowFloat(const LowFloatFormat& format, double value);

}  // namespace quiver::internal
