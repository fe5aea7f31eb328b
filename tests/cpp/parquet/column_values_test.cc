// ColumnValues::Make: the width of each physical type, the first offset of
// byte arrays, and a fixed-length byte array without a length.
#include <cstring>

#include "quiver/parquet/value_decoder.h"
#include "test_util.h"

namespace quiver::parquet {
namespace {

TEST(ColumnValuesTest, WidthsOfThePhysicalTypes) {
  const std::pair<PhysicalType, int32_t> widths[] = {
      {PhysicalType::kBoolean, 1}, {PhysicalType::kInt32, 4},  {PhysicalType::kFloat, 4},
      {PhysicalType::kInt64, 8},   {PhysicalType::kDouble, 8}, {PhysicalType::kInt96, 12},
  };
  for (const auto& [type, width] : widths) {
    ASSERT_OK_AND_ASSIGN(ColumnValues values, ColumnValues::Make(type, 0));
    EXPECT_EQ(values.width, width) << PhysicalTypeName(type);
    EXPECT_EQ(values.count, 0);
  }
  ASSERT_OK_AND_ASSIGN(ColumnValues fixed, ColumnValues::Make(PhysicalType::kFixedLenByteArray, 5));
  EXPECT_EQ(fixed.width, 5);
  EXPECT_ERROR(kInvalid, "a FIXED_LEN_BYTE_ARRAY of length 0",
               ColumnValues::Make(PhysicalType::kFixedLenByteArray, 0));
}

TEST(ColumnValuesTest, ByteArraysStartWithOneZeroOffset) {
  ASSERT_OK_AND_ASSIGN(ColumnValues values, ColumnValues::Make(PhysicalType::kByteArray, 0));
  EXPECT_EQ(values.width, 0);
  ASSERT_EQ(values.offsets.size(), 4);
  int32_t first = -1;
  std::memcpy(&first, values.offsets.data(), 4);
  EXPECT_EQ(first, 0);
}

}  // namespace
}  // namespace quiver::parquet
