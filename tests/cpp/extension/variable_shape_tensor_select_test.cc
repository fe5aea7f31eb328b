// Take, Filter, Slice and Concat of variable-shape columns.
#include "quiver/variable_shape_tensor.h"

#include "variable_shape_test_util.h"

namespace quiver {

using test::Float32Type;
using test::Iota;
using test::ThreeRows;

TEST(VariableShapeTensorArray, TakeFilterSlice) {
  VariableShapeTensorArray array = ThreeRows();
  ASSERT_OK_AND_ASSIGN(auto taken, array.Take(std::vector<int64_t>{2, 0, 0, 1}));
  EXPECT_EQ(taken.length(), 4);
  EXPECT_TRUE(taken.RowTensor(1)->Equals(Iota({2, 3})));
  EXPECT_TRUE(taken.RowTensor(2)->Equals(Iota({2, 3})));
  EXPECT_TRUE(taken.RowTensor(3)->Equals(Iota({1, 4}, 100)));
  ASSERT_OK(Validate(*taken.data()));
  EXPECT_ERROR(kIndexError, "index 3 at position 0", array.Take(std::vector<int64_t>{3}));
  EXPECT_ERROR(kIndexError, "index -1", array.Take(std::vector<int64_t>{-1}));

  ASSERT_OK_AND_ASSIGN(auto filtered, array.Filter(std::vector<uint8_t>{0, 1, 1}));
  EXPECT_EQ(filtered.length(), 2);
  EXPECT_TRUE(filtered.RowTensor(0)->Equals(Iota({1, 4}, 100)));
  EXPECT_ERROR(kInvalid, "mask has 2 entries for 3 rows", array.Filter(std::vector<uint8_t>{1, 1}));

  ASSERT_OK_AND_ASSIGN(auto sliced, array.Slice(1, 1));
  ASSERT_OK_AND_ASSIGN(auto from_slice, sliced.Take(std::vector<int64_t>{0, 0}));
  EXPECT_TRUE(from_slice.RowTensor(1)->Equals(Iota({1, 4}, 100)));
}

TEST(VariableShapeTensorArray, ConcatMergesUniformShape) {
  std::vector<std::optional<Tensor>> a_rows = {Iota({2, 3}), Iota({4, 3})};
  std::vector<std::optional<Tensor>> b_rows = {Iota({1, 5})};
  ASSERT_OK_AND_ASSIGN(
      auto a, VariableShapeTensorArray::FromTensors(Float32Type(2, {}, {std::nullopt, 3}), a_rows));
  ASSERT_OK_AND_ASSIGN(auto b,
                       VariableShapeTensorArray::FromTensors(Float32Type(2, {}, {1, 5}), b_rows));
  std::vector<VariableShapeTensorArray> parts = {a, b};
  ASSERT_OK_AND_ASSIGN(auto joined, VariableShapeTensorArray::Concat(parts));
  EXPECT_EQ(joined.length(), 3);
  EXPECT_EQ(joined.type().uniform_shape(), (UniformShape{std::nullopt, std::nullopt}));
  EXPECT_TRUE(joined.RowTensor(2)->Equals(Iota({1, 5})));
  std::vector<VariableShapeTensorArray> same = {a, a};
  EXPECT_EQ((*VariableShapeTensorArray::Concat(same)).type().uniform_shape(),
            (UniformShape{std::nullopt, 3}));
  std::vector<VariableShapeTensorArray> mismatched = {a, ThreeRows({1, 0})};
  EXPECT_ERROR(kTypeError, "cannot concat array 1", VariableShapeTensorArray::Concat(mismatched));
  EXPECT_ERROR(kInvalid, "at least one", VariableShapeTensorArray::Concat({}));
}

}  // namespace quiver
