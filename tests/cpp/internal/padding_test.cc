// The padding kernel: pad values as exact bits in every value type (or a
// clear error), the filler, and rows copied into their cells with the rest
// padded, from contiguous and strided rows.
#include "quiver/internal/padding.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "test_util.h"

namespace quiver::internal {
namespace {

TEST(Padding, PatternIsTheValueInTheType) {
  ASSERT_OK_AND_ASSIGN(uint64_t bits, PadPattern(PadValue(-1), *int16()));
  EXPECT_EQ(bits, 0xffffu);
  ASSERT_OK_AND_ASSIGN(bits, PadPattern(PadValue(1.5), *float32()));
  float value = 0;
  std::memcpy(&value, &bits, 4);
  EXPECT_EQ(value, 1.5f);
  ASSERT_OK_AND_ASSIGN(bits, PadPattern(PadValue(1), *float16()));
  EXPECT_EQ(bits, 0x3c00u);
  ASSERT_OK_AND_ASSIGN(bits, PadPattern(PadValue(uint64_t{1} << 63), *uint64()));
  EXPECT_EQ(bits, uint64_t{1} << 63);
  EXPECT_ERROR(kInvalid, "pad value 0.1 is not exactly representable as float32",
               PadPattern(PadValue(0.1), *float32()));
  EXPECT_ERROR(kInvalid, "pad value 300 is not exactly representable as uint8",
               PadPattern(PadValue(300), *uint8()));
  EXPECT_ERROR(kInvalid, "pad value 9007199254740993 is not exactly representable as float64",
               PadPattern(PadValue(int64_t{9007199254740993}), *float64()));
}

// bfloat16 and float8 pads are their exact bits; what the format cannot
// hold (a fraction between its values, a magnitude past its largest,
// infinity in float8_e4m3fn) is refused, never rounded or saturated.
TEST(Padding, LowPrecisionFloatPadsAreExactOrRefused) {
  ASSERT_OK_AND_ASSIGN(uint64_t bits, PadPattern(PadValue(1), *bfloat16()));
  EXPECT_EQ(bits, 0x3f80u);
  ASSERT_OK_AND_ASSIGN(bits, PadPattern(PadValue(-0.0), *bfloat16()));
  EXPECT_EQ(bits, 0x8000u);
  ASSERT_OK_AND_ASSIGN(bits, PadPattern(PadValue(448.0), *float8_e4m3fn()));
  EXPECT_EQ(bits, 0x7eu);
  ASSERT_OK_AND_ASSIGN(bits, PadPattern(PadValue(std::nan("")), *float8_e4m3fn()));
  EXPECT_EQ(bits, 0x7fu);
  ASSERT_OK_AND_ASSIGN(bits, PadPattern(PadValue(-INFINITY), *float8_e5m2()));
  EXPECT_EQ(bits, 0xfcu);
  ASSERT_OK_AND_ASSIGN(bits, PadPattern(PadValue(-2), *float8_e5m2()));
  EXPECT_EQ(bits, 0xc0u);
  EXPECT_ERROR(kInvalid, "pad value 0.1 is not exactly representable as bfloat16",
               PadPattern(PadValue(0.1), *bfloat16()));
  EXPECT_ERROR(kInvalid, "pad value 257 is not exactly representable as bfloat16",
               PadPattern(PadValue(257), *bfloat16()));
  EXPECT_ERROR(kInvalid, "pad value inf is not exactly representable as float8_e4m3fn",
               PadPattern(PadValue(INFINITY), *float8_e4m3fn()));
  EXPECT_ERROR(kInvalid, "pad value 480 is not exactly representable as float8_e4m3fn",
               PadPattern(PadValue(480), *float8_e4m3fn()));
}

TEST(Padding, FillerWritesThePatternAndSkipsZerosWhenAllowed) {
  std::vector<uint8_t> out(8, 0xaa);
  PadFiller(0x0102, 2, /*write_zeros=*/false)(out.data(), 3);
  EXPECT_EQ(out, (std::vector<uint8_t>{0x02, 0x01, 0x02, 0x01, 0x02, 0x01, 0xaa, 0xaa}));
  PadFiller(0, 2, /*write_zeros=*/false)(out.data(), 4);  // a zeroed buffer: nothing written
  EXPECT_EQ(out[0], 0x02);
  PadFiller(0, 2, /*write_zeros=*/true)(out.data(), 4);
  EXPECT_EQ(out, std::vector<uint8_t>(8, 0));
}

TEST(Padding, RowsGoToTheCellOriginAndTheRestIsPadding) {
  const PadFiller fill(9, 1, /*write_zeros=*/true);
  const std::vector<int64_t> cell = {2, 3};
  const CellCopier copier(fill, 1, cell);
  EXPECT_EQ(copier.cell_bytes(), 6);
  // A (1, 2) row, contiguous.
  const uint8_t row[] = {1, 2};
  const int64_t shape[] = {1, 2};
  const int64_t strides[] = {2, 1};
  std::vector<uint8_t> out(6, 0);
  copier.Copy(row, shape, strides, out.data());
  EXPECT_EQ(out, (std::vector<uint8_t>{1, 2, 9, 9, 9, 9}));
  // A (2, 1) column of a (2, 2) block: strided.
  const uint8_t block[] = {5, 6, 7, 8};
  const int64_t column_shape[] = {2, 1};
  const int64_t column_strides[] = {2, 1};
  copier.Copy(block, column_shape, column_strides, out.data());
  EXPECT_EQ(out, (std::vector<uint8_t>{5, 9, 9, 7, 9, 9}));
  // No row: all padding.
  copier.Copy(nullptr, nullptr, nullptr, out.data());
  EXPECT_EQ(out, std::vector<uint8_t>(6, 9));
}

}  // namespace
}  // namespace quiver::internal
