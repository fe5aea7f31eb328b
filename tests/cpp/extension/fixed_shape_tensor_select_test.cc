// Take, Filter and Concat of fixed-shape columns: cells gathered in runs,
// null rows kept.
#include <numeric>

#include "fixed_shape_test_util.h"
#include "quiver/fixed_shape_tensor.h"

namespace quiver {

namespace {

using test::FixedShapeRows;

float First(const FixedShapeTensorArray& a, int64_t row) {
  return *a.RowTensor(row)->Value<float>(std::vector<int64_t>{0, 0});
}

}  // namespace

TEST(FixedShapeTensorSelect, TakeCopiesCellsAndKeepsNullRows) {
  FixedShapeTensorArray array = FixedShapeRows(4, {2, 2}, {}, {true, false, true, true});
  ASSERT_OK_AND_ASSIGN(auto slice, array.Slice(1, 3));  // offsets are honoured
  const int64_t indices[] = {2, 0, 1, 1};
  ASSERT_OK_AND_ASSIGN(auto taken, slice.Take(indices));
  EXPECT_EQ(taken.length(), 4);
  EXPECT_EQ(taken.null_count(), 1);
  EXPECT_EQ(First(taken, 0), 12.0f);
  EXPECT_FALSE(taken.IsValid(1));
  EXPECT_EQ(First(taken, 2), 8.0f);
  EXPECT_TRUE(taken.type().Equals(array.type()));
  const int64_t bad[] = {3};
  EXPECT_ERROR(kIndexError, "index 3 at position 0 is out of range for 3 rows", slice.Take(bad));
}

TEST(FixedShapeTensorSelect, FilterConcatAndNullRows) {
  FixedShapeTensorArray array = FixedShapeRows(3, {1, 2});
  const uint8_t mask[] = {1, 0, 1};
  ASSERT_OK_AND_ASSIGN(auto filtered, array.Filter(mask));
  EXPECT_EQ(filtered.length(), 2);
  EXPECT_EQ(First(filtered, 1), 4.0f);
  const uint8_t short_mask[] = {1};
  EXPECT_ERROR(kInvalid, "mask has 1 entries for 3 rows", array.Filter(short_mask));

  FixedShapeTensorArray identity = FixedShapeRows(2, {1, 2}, {0, 1});
  std::vector<FixedShapeTensorArray> parts = {array, identity};
  ASSERT_OK_AND_ASSIGN(auto joined, FixedShapeTensorArray::Concat(parts));
  EXPECT_EQ(joined.length(), 5);
  EXPECT_EQ(First(joined, 4), 2.0f);
  parts.push_back(FixedShapeRows(1, {2, 1}));
  EXPECT_ERROR(kTypeError, "cannot concat array 2", FixedShapeTensorArray::Concat(parts));

  ASSERT_OK_AND_ASSIGN(auto tail, array.Slice(1, 2));
  const uint8_t nulls[] = {0, 1};
  ASSERT_OK_AND_ASSIGN(auto masked, tail.WithNullRows(nulls));
  EXPECT_EQ(masked.null_count(), 1);
  EXPECT_EQ(First(masked, 0), 2.0f);
  EXPECT_FALSE(masked.IsValid(1));
}

}  // namespace quiver
