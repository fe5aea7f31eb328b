#include "quiver/internal/low_precision_float.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace quiver::internal {
namespace {

// bfloat16 is the top half of a float: every bfloat16 value checks against
// the float with those bits.
TEST(LowPrecisionFloat, BFloat16DecodesAsTheTopHalfOfAFloat) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    const uint32_t wide = bits << 16;
    float expected;
    std::memcpy(&expected, &wide, 4);
    const float got = LowFloatToFloat(kBFloat16Format, bits);
    if (std::isnan(expected)) {
      EXPECT_TRUE(std::isnan(got)) << bits;
    } else {
      ASSERT_EQ(got, expected) << bits;
      ASSERT_EQ(std::signbit(got), std::signbit(expected)) << bits;
    }
  }
}

TEST(LowPrecisionFloat, Float8E4M3FNValues) {
  EXPECT_EQ(LowFloatToFloat(kFloat8E4M3FNFormat, 0x38), 1.0f);
  EXPECT_EQ(LowFloatToFloat(kFloat8E4M3FNFormat, 0x7e), 448.0f);  // largest finite
  EXPECT_EQ(LowFloatToFloat(kFloat8E4M3FNFormat, 0x78), 256.0f);  // all-ones exponent is finite
  EXPECT_EQ(LowFloatToFloat(kFloat8E4M3FNFormat, 0x01), std::ldexp(1.0f, -9));  // subnormal
  EXPECT_TRUE(std::isnan(LowFloatToFloat(kFloat8E4M3FNFormat, 0x7f)));
  EXPECT_TRUE(std::isnan(LowFloatToFloat(kFloat8E4M3FNFormat, 0xff)));
  EXPECT_EQ(LowFloatToFloat(kFloat8E4M3FNFormat, 0xb8), -1.0f);
}

TEST(LowPrecisionFloat, Float8E5M2Values) {
  EXPECT_EQ(LowFloatToFloat(kFloat8E5M2Format, 0x3c), 1.0f);
  EXPECT_EQ(LowFloatToFloat(kFloat8E5M2Format, 0x7b), 57344.0f);
  EXPECT_EQ(LowFloatToFloat(kFloat8E5M2Format, 0x7c), INFINITY);
  EXPECT_EQ(LowFloatToFloat(kFloat8E5M2Format, 0xfc), -INFINITY);
  EXPECT_TRUE(std::isnan(LowFloatToFloat(kFloat8E5M2Format, 0x7e)));
  EXPECT_EQ(LowFloatToFloat(kFloat8E5M2Format, 0x01), std::ldexp(1.0f, -16));
}

// Every value of every format encodes back to its own bits (NaNs to the
// format's NaN).
TEST(LowPrecisionFloat, EveryValueRoundTrips) {
  for (const LowFloatFormat* f : {&kBFloat16Format, &kFloat8E4M3FNFormat, &kFloat8E5M2Format}) {
    const uint32_t count = 1u << (1 + f->exponent_bits + f->mantissa_bits);
    for (uint32_t bits = 0; bits < count; ++bits) {
      const float v = LowFloatToFloat(*f, bits);
      if (std::isnan(v)) {
        EXPECT_TRUE(std::isnan(LowFloatToFloat(*f, LowFloatFromDouble(*f, v)))) << f->name;
        continue;
      }
      ASSERT_EQ(LowFloatFromDouble(*f, v), bits) << f->name << " " << bits;
      ASSERT_EQ(ExactLowFloat(*f, v), bits) << f->name << " " << bits;
    }
  }
}

TEST(LowPrecisionFloat, RoundsToNearestEven) {
  // 1 + 2^-8 is halfway between bfloat16 1.0 and 1 + 2^-7: even is 1.0.
  EXPECT_EQ(LowFloatFromDouble(kBFloat16Format, 1.0 + std::ldexp(1.0, -8)), 0x3f80u);
  // 1 + 3 * 2^-8 is halfway between 1 + 2^-7 (odd) and 1 + 2^-6: even is up.
  EXPECT_EQ(LowFloatFromDouble(kBFloat16Format, 1.0 + 3 * std::ldexp(1.0, -8)), 0x3f82u);
  EXPECT_EQ(LowFloatFromDouble(kFloat8E4M3FNFormat, 1.0625), 0x38u);  // tie down to 1.0
  EXPECT_EQ(LowFloatFromDouble(kFloat8E4M3FNFormat, 1.1), 0x39u);     // nearest: 1.125
  EXPECT_EQ(LowFloatFromDouble(kFloat8E4M3FNFormat, 464), 0x7eu);     // tie: 448, not NaN
  EXPECT_EQ(LowFloatFromDouble(kFloat8E5M2Format, 1.125), 0x3cu);     // tie down to 1.0
}

TEST(LowPrecisionFloat, OverflowGivesInfinityOrNaN) {
  EXPECT_EQ(LowFloatFromDouble(kFloat8E4M3FNFormat, 480), 0x7fu);  // no infinity: NaN
  EXPECT_EQ(LowFloatFromDouble(kFloat8E4M3FNFormat, -1e9), 0xffu);
  EXPECT_EQ(LowFloatFromDouble(kFloat8E4M3FNFormat, INFINITY), 0x7fu);
  EXPECT_EQ(LowFloatFromDouble(kFloat8E5M2Format, 61440), 0x7cu);  // tie past the top: infinity
  EXPECT_EQ(LowFloatFromDouble(kFloat8E5M2Format, 60000), 0x7bu);
  EXPECT_EQ(LowFloatFromDouble(kBFloat16Format, 1e39), 0x7f80u);
  EXPECT_EQ(LowFloatFromDouble(kBFloat16Format, -0.0), 0x8000u);
  EXPECT_EQ(LowFloatFromDouble(kBFloat16Format, NAN), 0x7fc0u);
  EXPECT_EQ(LowFloatFromDouble(kFloat8E5M2Format, NAN), 0x7eu);
}

TEST(LowPrecisionFloat, ExactRefusesWhatTheFormatCannotHold) {
  EXPECT_FALSE(ExactLowFloat(kBFloat16Format, 1.0 + std::ldexp(1.0, -8)));
  EXPECT_FALSE(ExactLowFloat(kFloat8E4M3FNFormat, INFINITY));
  EXPECT_FALSE(ExactLowFloat(kFloat8E4M3FNFormat, 512));
  EXPECT_FALSE(ExactLowFloat(kFloat8E4M3FNFormat, 0.1));
  EXPECT_EQ(ExactLowFloat(kFloat8E5M2Format, -INFINITY), 0xfcu);
  EXPECT_EQ(ExactLowFloat(kFloat8E4M3FNFormat, NAN), 0x7fu);
  EXPECT_EQ(ExactLowFloat(kFloat8E4M3FNFormat, -2.0), 0xc0u);
}

}  // namespace
}  // namespace quiver::internal
