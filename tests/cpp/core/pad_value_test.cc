// PadValue keeps the kind and the exact value the caller wrote.
#include "quiver/pad_value.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace quiver {
namespace {

TEST(PadValue, KeepsTheKindAndTheExactValue) {
  const PadValue big = int64_t{9007199254740993};  // 2^53 + 1: no double holds it
  EXPECT_EQ(big.kind(), PadValue::Kind::kInt64);
  EXPECT_EQ(big.int64_value(), 9007199254740993);
  EXPECT_EQ(big.ToString(), "9007199254740993");
  const PadValue top = UINT64_MAX;
  EXPECT_EQ(top.kind(), PadValue::Kind::kUInt64);
  EXPECT_EQ(top.ToString(), "18446744073709551615");
  const PadValue half = 0.5;
  EXPECT_EQ(half.kind(), PadValue::Kind::kDouble);
  EXPECT_EQ(half.ToString(), "0.5");
  EXPECT_EQ(PadValue(-1.25f).ToString(), "-1.25");
}

}  // namespace
}  // namespace quiver
