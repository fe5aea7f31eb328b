// Overflow-checked int64 arithmetic and its error messages.
#include "quiver/internal/checked_math.h"

#include <limits>
#include <vector>

#include "test_util.h"

namespace quiver::internal {
namespace {

using test::kMax;
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

}  // namespace

TEST(CheckedMath, MultiplyAndAdd) {
  EXPECT_EQ(*MultiplyChecked(-3, 7, "bytes"), -21);
  EXPECT_EQ(*MultiplyChecked(kMax, 1, "bytes"), kMax);
  EXPECT_EQ(*AddChecked(kMax - 1, 1, "bytes"), kMax);
  EXPECT_EQ(*AddChecked(kMin, 0, "bytes"), kMin);
  EXPECT_EQ(test::StatusOf(MultiplyChecked(kMax, 2, "row bytes")).message(),
            "row bytes: 9223372036854775807 * 2 overflows int64");
  EXPECT_EQ(test::StatusOf(AddChecked(kMax, 1, "end")).message(),
            "end: 9223372036854775807 + 1 overflows int64");
  EXPECT_ERROR(kInvalid, "overflows int64", AddChecked(kMin, -1, "end"));
}

TEST(CheckedMath, ShapeProduct) {
  EXPECT_EQ(*ShapeProduct(std::vector<int64_t>{}, "shape"), 1);
  EXPECT_EQ(*ShapeProduct(std::vector<int64_t>{2, 3, 4}, "shape"), 24);
  // A zero anywhere wins over sizes whose product would overflow.
  EXPECT_EQ(*ShapeProduct(std::vector<int64_t>{kMax, kMax, 0}, "shape"), 0);
  EXPECT_EQ(test::StatusOf(
                ShapeProduct(std::vector<int64_t>{int64_t{1} << 32, int64_t{1} << 32}, "tensor"))
                .message(),
            "tensor: product of shape [4294967296, 4294967296] overflows int64");
  EXPECT_EQ(test::StatusOf(ShapeProduct(std::vector<int64_t>{2, -1, 0}, "tensor")).message(),
            "tensor: dimension 1 has negative size -1");
}

TEST(CheckedMath, FormatShape) {
  EXPECT_EQ(FormatShape(std::vector<int64_t>{}), "[]");
  EXPECT_EQ(FormatShape(std::vector<int64_t>{3, -4}), "[3, -4]");
  EXPECT_EQ(FormatShape(std::vector<int32_t>{7}), "[7]");
}

}  // namespace quiver::internal
