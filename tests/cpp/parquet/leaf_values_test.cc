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

TEST(LeafValuesTest, DictionariesTakeTheDictionaryPageInOrder) {
  // The page holds 30, 99 (used by no value), 10; the values add 5.
  ColumnValues page = Int32Values({30, 99, 10});
  ColumnValues values = Int32Values({10, 30, 5, 10});
  Placement placement;
  placement.slots = 4;
  const TypePtr type = *dictionary(int16(), int32(), /*ordered=*/true);
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr array,
                       LeafArray(&values, Int32Leaf(), type, placement, "column x", &page));
  ASSERT_NE(array->dictionary, nullptr);
  ASSERT_EQ(array->dictionary->length, 4);
  const auto* entries = reinterpret_cast<const int32_t*>(array->dictionary->buffers[1]->data());
  EXPECT_EQ(std::vector<int32_t>(entries, entries + 4), (std::vector<int32_t>{30, 99, 10, 5}));
  const auto* indices = reinterpret_cast<const int16_t*>(array->buffers[1]->data());
  EXPECT_EQ(std::vector<int16_t>(indices, indices + 4), (std::vector<int16_t>{2, 0, 3, 2}));
  // Without a page: the values in the order they first appear.
  ColumnValues again = Int32Values({10, 30, 5, 10});
  ASSERT_OK_AND_ASSIGN(array, LeafArray(&again, Int32Leaf(), type, placement, "column x"));
  ASSERT_EQ(array->dictionary->length, 3);
  entries = reinterpret_cast<const int32_t*>(array->dictionary->buffers[1]->data());
  EXPECT_EQ(std::vector<int32_t>(entries, entries + 3), (std::vector<int32_t>{10, 30, 5}));
  // A page with more entries than the index type counts: the entries the
  // values use, in the page's order.
  std::vector<int32_t> many(200);
  for (int32_t i = 0; i < 200; ++i) many[static_cast<size_t>(i)] = 199 - i;
  ColumnValues big_page = Int32Values(many);
  ColumnValues few = Int32Values({3, 150, 3});
  Placement three;
  three.slots = 3;
  const TypePtr narrow = *dictionary(int8(), int32());
  ASSERT_OK_AND_ASSIGN(array, LeafArray(&few, Int32Leaf(), narrow, three, "column x", &big_page));
  ASSERT_EQ(array->dictionary->length, 2);
  entries = reinterpret_cast<const int32_t*>(array->dictionary->buffers[1]->data());
  EXPECT_EQ(std::vector<int32_t>(entries, entries + 2), (std::vector<int32_t>{150, 3}));
  const auto* narrow_indices = reinterpret_cast<const int8_t*>(array->buffers[1]->data());
  EXPECT_EQ(std::vector<int8_t>(narrow_indices, narrow_indices + 3),
            (std::vector<int8_t>{1, 0, 1}));
  // More distinct values than that still are an error.
  ColumnValues all = Int32Values(many);
  ColumnValues page_again = Int32Values(many);
  Placement every;
  every.slots = 200;
  EXPECT_ERROR(kInvalid, "200 distinct values do not fit",
               LeafArray(&all, Int32Leaf(), narrow, every, "column x", &page_again).status());
}

}  // namespace
}  // namespace quiver::parquet
