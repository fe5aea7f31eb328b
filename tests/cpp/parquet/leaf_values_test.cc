// LeafArray and CheckValues: a leaf's values as Arrow arrays (booleans
// packed, INT32 narrowed, null slots spread in), and values whose buffers
// disagree with their count.
#include "quiver/parquet/leaf_values.h"

#include <cstring>
#include <vector>

#include "quiver/internal/bitmap.h"
#include "test_util.h"

namespace quiver::parquet {
namespace {

ColumnValues Int32Values(const std::vector<int32_t>& values) {
  ColumnValues out = *ColumnValues::Make(PhysicalType::kInt32, 0);
  EXPECT_TRUE(out.fixed.Append(values.data(), static_cast<int64_t>(values.size() * 4)).ok());
  out.count = static_cast<int64_t>(values.size());
  return out;
}

SchemaElement Int32Leaf() {
  SchemaElement e;
  e.name = "x";
  e.type = PhysicalType::kInt32;
  e.repetition = Repetition::kOptional;
  return e;
}

TEST(LeafValuesTest, Int32NarrowedWithNullSlotsSpreadIn) {
  ColumnValues values = Int32Values({7, -3});
  ASSERT_OK(CheckValues(values, "x"));
  // Three slots; the middle one is null.
  uint8_t present = 0b101;
  Placement placement;
  placement.slots = 3;
  placement.present = &present;
  ASSERT_OK_AND_ASSIGN(placement.validity, Buffer::Allocate(1));
  placement.validity->mutable_data()[0] = 0b101;
  placement.null_count = 1;
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr array,
                       LeafArray(&values, Int32Leaf(), int8(), placement, "column x"));
  ASSERT_EQ(array->length, 3);
  EXPECT_EQ(array->null_count, 1);
  const auto* data = reinterpret_cast<const int8_t*>(array->buffers[1]->data());
  EXPECT_EQ(data[0], 7);
  EXPECT_EQ(data[2], -3);
  EXPECT_FALSE(array->IsValid(1));
}

TEST(LeafValuesTest, ValuesThatDisagreeWithTheirCountAreErrors) {
  ColumnValues values = Int32Values({1, 2, 3});
  values.count = 4;
  EXPECT_ERROR(kInvalid, "x", CheckValues(values, "x"));
  ColumnValues strings = *ColumnValues::Make(PhysicalType::kByteArray, 0);
  const int32_t decreasing[] = {5, 2};
  ASSERT_OK(strings.offsets.Append(decreasing, sizeof(decreasing)));
  ASSERT_OK(strings.bytes.Append("hello", 5));
  strings.count = 2;
  EXPECT_ERROR(kInvalid, "", CheckValues(strings, "strings"));
}

}  // namespace
}  // namespace quiver::parquet
