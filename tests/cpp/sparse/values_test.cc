// Moving and summing sparse values: GatherValues (the reordering behind
// every conversion, and the duplicate sums of canonicalisation) and the
// float-to-half rounding float16 sums use.
#include <cmath>
#include <limits>
#include <vector>

#include "quiver/sparse/sparse_internal.h"
#include "quiver/sparse/value_math.h"
#include "sparse_test_util.h"
#include "test_util.h"

namespace quiver::sparse {

using test::Values;
using test::Vec;

TEST(SparseValues, GatherReordersValues) {
  Tensor values = Vec<float>({10, 20, 30, 40}, {4});
  const std::vector<int64_t> perm = {3, 0, 0, 2};
  ASSERT_OK_AND_ASSIGN(Tensor out, GatherValues(values, perm));
  EXPECT_EQ(out.shape(), (std::vector<int64_t>{4}));
  EXPECT_EQ(out.type()->id(), TypeId::kFloat32);
  EXPECT_EQ(Values<double>(out), (std::vector<double>{40, 10, 10, 30}));
  ASSERT_OK_AND_ASSIGN(Tensor none, GatherValues(values, std::vector<int64_t>{}));
  EXPECT_EQ(none.shape(), (std::vector<int64_t>{0}));
}

TEST(SparseValues, GatherSumsRunsOfDuplicates) {
  Tensor values = Vec<int32_t>({1, 2, 3, 4, 5}, {5});
  // Gathered order 4, 0, 1, 2, 3 = values 5, 1, 2, 3, 4; runs [0, 1), [1, 4), [4, 5).
  const std::vector<int64_t> perm = {4, 0, 1, 2, 3};
  const std::vector<int64_t> runs = {0, 1, 4, 5};
  ASSERT_OK_AND_ASSIGN(Tensor out, GatherValues(values, perm, runs));
  EXPECT_EQ(Values<int64_t>(out), (std::vector<int64_t>{5, 6, 4}));
  // bool8 duplicates combine with OR.
  Tensor flags = Vec<uint8_t>({0, 1, 0}, {3}, bool8());
  ASSERT_OK_AND_ASSIGN(Tensor any, GatherValues(flags, std::vector<int64_t>{0, 1, 2},
                                                std::vector<int64_t>{0, 2, 3}));
  EXPECT_EQ(Values<int64_t>(any), (std::vector<int64_t>{1, 0}));
  // float16 sums are rounded back to half: 1 + 2^-11 is halfway, to even.
  const std::vector<uint16_t> halves = {0x3C00, 0x1000};  // 1.0, 2^-11
  Tensor h = *Tensor::Make(float16(), test::BufferOf(halves), {2});
  ASSERT_OK_AND_ASSIGN(Tensor sum,
                       GatherValues(h, std::vector<int64_t>{0, 1}, std::vector<int64_t>{0, 2}));
  EXPECT_EQ(reinterpret_cast<const uint16_t*>(sum.raw_data())[0], 0x3C00);
  // bfloat16 sums too: 1 + 2^-8 is halfway between 1 and 1 + 2^-7, to even.
  const std::vector<uint16_t> brains = {0x3F80, 0x3B80};  // 1.0, 2^-8
  Tensor b = *Tensor::Make(bfloat16(), test::BufferOf(brains), {2});
  ASSERT_OK_AND_ASSIGN(Tensor bsum,
                       GatherValues(b, std::vector<int64_t>{0, 1}, std::vector<int64_t>{0, 2}));
  EXPECT_EQ(reinterpret_cast<const uint16_t*>(bsum.raw_data())[0], 0x3F80);
  // float8_e4m3fn has no infinity: 448 + 448 overflows to NaN (0x7f).
  const std::vector<uint8_t> eights = {0x7E, 0x7E, 0x38, 0x38};  // 448, 448, 1, 1
  Tensor e = *Tensor::Make(float8_e4m3fn(), test::BufferOf(eights), {4});
  ASSERT_OK_AND_ASSIGN(Tensor esum, GatherValues(e, std::vector<int64_t>{0, 1, 2, 3},
                                                 std::vector<int64_t>{0, 2, 4}));
  EXPECT_EQ(Values<int64_t>(esum), (std::vector<int64_t>{0x7F, 0x40}));  // NaN, 2.0
}

TEST(SparseValues, FloatToHalfRoundsToNearestEven) {
  EXPECT_EQ(FloatToHalf(0.0f), 0x0000);
  EXPECT_EQ(FloatToHalf(-0.0f), 0x8000);
  EXPECT_EQ(FloatToHalf(1.0f), 0x3C00);
  EXPECT_EQ(FloatToHalf(-2.0f), 0xC000);
  EXPECT_EQ(FloatToHalf(65504.0f), 0x7BFF);  // the largest half
  EXPECT_EQ(FloatToHalf(65520.0f), 0x7C00);  // rounds past it: infinity
  EXPECT_EQ(FloatToHalf(std::numeric_limits<float>::infinity()), 0x7C00);
  EXPECT_EQ(FloatToHalf(-std::numeric_limits<float>::infinity()), 0xFC00);
  EXPECT_EQ(FloatToHalf(std::numeric_limits<float>::quiet_NaN()) & 0x7E00, 0x7E00);
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -24)), 0x0001);             // the smallest subnormal
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -26)), 0x0000);             // below half of it
  EXPECT_EQ(FloatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3C00);      // halfway, even below
  EXPECT_EQ(FloatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);  // halfway, even above
}

}  // namespace quiver::sparse
