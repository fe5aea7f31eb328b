// ScanRaggedAxes: the one pass over a ragged column's shape buffer, across
// block boundaries, with null rows, offsets, zero sizes, every row width
// and a negative size written into the storage after validation.
#include "quiver/shape/ragged_scan.h"

#include <optional>
#include <vector>

#include "variable_shape_test_util.h"

namespace quiver::shape {

namespace {

using Rows = std::vector<std::vector<int32_t>>;

// A float32 column of `shapes` (physical order); `valid` empty: no null
// rows. Every row's data is zeros.
VariableShapeTensorArray Column(const Rows& shapes, const std::vector<bool>& valid = {}) {
  const int ndim = static_cast<int>(shapes.front().size());
  std::vector<int32_t> offsets = {0}, flat;
  for (const auto& shape : shapes) {
    int32_t product = 1;
    for (int32_t size : shape) product *= size;
    offsets.push_back(offsets.back() + product);
    flat.insert(flat.end(), shape.begin(), shape.end());
  }
  std::vector<float> values(static_cast<size_t>(offsets.back()));
  auto array = VariableShapeTensorArray::Make(test::RawStorage(offsets, values, flat, ndim, valid));
  EXPECT_TRUE(array.ok()) << array.status().ToString();
  return *array;
}

// Every physical axis of `array`, scanned.
Result<std::vector<RaggedAxis>> Scan(const VariableShapeTensorArray& array) {
  std::vector<RaggedAxis> axes;
  for (int p = 0; p < array.type().ndim(); ++p) axes.push_back({static_cast<size_t>(p)});
  QUIVER_RETURN_NOT_OK(ScanRaggedAxes(array, axes));
  return axes;
}

std::vector<int32_t> Sizes(const RaggedAxis& axis) {
  return {axis.sizes().begin(), axis.sizes().end()};
}

// `rows` rows of (3, 1 + r % 4) but for `odd_row`, whose first size is 5.
Rows ChannelsAndWidths(int64_t rows, int64_t odd_row = -1) {
  Rows out;
  for (int64_t r = 0; r < rows; ++r) out.push_back({r == odd_row ? 5 : 3, int32_t(1 + r % 4)});
  return out;
}

}  // namespace

TEST(RaggedScan, ConstantAndVaryingAxes) {
  ASSERT_OK_AND_ASSIGN(auto axes, Scan(Column(ChannelsAndWidths(5))));
  EXPECT_FALSE(axes[0].varies);
  EXPECT_EQ(axes[0].size, 3);
  ASSERT_TRUE(axes[1].varies);
  EXPECT_EQ(Sizes(axes[1]), (std::vector<int32_t>{1, 2, 3, 4, 1}));
}

TEST(RaggedScan, AnAxisThatVariesLateKeepsTheRowsBefore) {
  // Rows 0 to 2999 have 3 channels but row 2500 (the third block): the
  // rows before it read 3 from the constant, the rest as stored.
  const Rows shapes = ChannelsAndWidths(3000, 2500);
  ASSERT_OK_AND_ASSIGN(auto axes, Scan(Column(shapes)));
  ASSERT_TRUE(axes[0].varies);
  ASSERT_EQ(axes[0].filled, 3000u);
  for (size_t r = 0; r < shapes.size(); ++r) EXPECT_EQ(axes[0].per_row[r], shapes[r][0]) << r;
}

TEST(RaggedScan, NullRowsAreSkippedAndReadMinusOne) {
  // The null rows hold other sizes: they neither vary an axis nor count.
  Rows shapes = ChannelsAndWidths(2100);
  std::vector<bool> valid(shapes.size(), true);
  for (size_t r : {0u, 7u, 1500u, 2099u}) {
    valid[r] = false;
    shapes[r] = {0, 0};
  }
  ASSERT_OK_AND_ASSIGN(auto axes, Scan(Column(shapes, valid)));
  EXPECT_FALSE(axes[0].varies);
  EXPECT_EQ(axes[0].size, 3);
  ASSERT_TRUE(axes[1].varies);
  for (size_t r = 0; r < shapes.size(); ++r) {
    EXPECT_EQ(axes[1].per_row[r], valid[r] ? shapes[r][1] : -1) << r;
  }
  // Late variation with null rows before it: those stay -1.
  shapes[1800] = {4, 1};
  ASSERT_OK_AND_ASSIGN(auto late, Scan(Column(shapes, valid)));
  ASSERT_TRUE(late[0].varies);
  EXPECT_EQ(late[0].per_row[0], -1);
  EXPECT_EQ(late[0].per_row[1], 3);
  EXPECT_EQ(late[0].per_row[7], -1);
  EXPECT_EQ(late[0].per_row[1800], 4);
}

TEST(RaggedScan, SlicesReadFromTheirOffset) {
  const Rows shapes = ChannelsAndWidths(3000, 10);
  std::vector<bool> valid(shapes.size(), true);
  valid[2000] = false;
  ASSERT_OK_AND_ASSIGN(auto slice, Column(shapes, valid).Slice(11, 2500));
  ASSERT_OK_AND_ASSIGN(auto axes, Scan(slice));
  EXPECT_FALSE(axes[0].varies);  // row 10 (5 channels) is outside the slice
  EXPECT_EQ(axes[0].size, 3);
  ASSERT_TRUE(axes[1].varies);
  EXPECT_EQ(axes[1].per_row[0], shapes[11][1]);
  EXPECT_EQ(axes[1].per_row[2000 - 11], -1);
  EXPECT_EQ(axes[1].per_row[2499], shapes[2510][1]);
}

TEST(RaggedScan, ZeroSizesEmptyAndAllNullColumns) {
  ASSERT_OK_AND_ASSIGN(auto zeros, Scan(Column({{0, 4}, {0, 0}, {0, 2}})));
  EXPECT_FALSE(zeros[0].varies);
  EXPECT_EQ(zeros[0].size, 0);
  EXPECT_EQ(Sizes(zeros[1]), (std::vector<int32_t>{4, 0, 2}));
  ASSERT_OK_AND_ASSIGN(auto empty, Column({{1, 2}}).Slice(1, 0));
  ASSERT_OK_AND_ASSIGN(auto none, Scan(empty));
  EXPECT_TRUE(none[0].varies);
  EXPECT_EQ(none[0].filled, 0u);
  ASSERT_OK_AND_ASSIGN(auto nulls, Scan(Column({{1, 2}, {3, 4}}, {false, false})));
  EXPECT_EQ(Sizes(nulls[1]), (std::vector<int32_t>{-1, -1}));
}

TEST(RaggedScan, EveryRowWidth) {
  // 1 to 4 entries per row take the vectorised check; 6 the general one.
  for (int ndim : {1, 2, 3, 4, 6}) {
    Rows shapes(1500, std::vector<int32_t>(static_cast<size_t>(ndim), 2));
    for (size_t r = 0; r < shapes.size(); ++r) shapes[r].back() = int32_t(1 + r % 3);
    ASSERT_OK_AND_ASSIGN(auto axes, Scan(Column(shapes)));
    for (int p = 0; p + 1 < ndim; ++p) EXPECT_EQ(axes[p].size, 2) << ndim;
    ASSERT_TRUE(axes.back().varies) << ndim;
    EXPECT_EQ(axes.back().per_row[1499], 1 + 1499 % 3) << ndim;
  }
}

TEST(RaggedScan, NegativeSizesNameTheFirstRow) {
  // Storage shared with a caller, written after validation.
  const VariableShapeTensorArray column = Column(ChannelsAndWidths(3000));
  auto* shapes =
      const_cast<int32_t*>(internal::VariableShapeStorage(column).PhysicalShape(0).data());
  shapes[2 * 2700 + 0] = -1;
  shapes[2 * 2600 + 1] = -2;
  EXPECT_ERROR(kInvalid, "row 2600: shape has a negative size on axis 1", Scan(column));
  shapes[2 * 2600 + 1] = 1;
  EXPECT_ERROR(kInvalid, "row 2700: shape has a negative size on axis 0", Scan(column));
  // A null row's entries are never read as sizes.
  std::vector<bool> valid(3000, true);
  valid[5] = false;
  const VariableShapeTensorArray with_null = Column(ChannelsAndWidths(3000), valid);
  shapes = const_cast<int32_t*>(internal::VariableShapeStorage(with_null).PhysicalShape(0).data());
  shapes[2 * 5] = -7;
  ASSERT_OK(Scan(with_null).status());
  shapes[2 * 6 + 1] = -7;
  EXPECT_ERROR(kInvalid, "row 6: shape has a negative size on axis 1", Scan(with_null));
}

}  // namespace quiver::shape
