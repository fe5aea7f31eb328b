// FixedShapeTensorArray: tensors of the rows and of the whole column
// (offset, permutation, null rows) and columns made from tensors.
#include "quiver/fixed_shape_tensor.h"

#include <numeric>

#include "fixed_shape_test_util.h"

namespace quiver {

using test::FixedShapeRows;

TEST(FixedShapeTensorArray, ToTensorHonoursOffsetAndPermutation) {
  FixedShapeTensorArray array = FixedShapeRows(4, {2, 3}, {1, 0});
  ASSERT_OK_AND_ASSIGN(FixedShapeTensorArray sliced, array.Slice(1, 2));
  ASSERT_OK_AND_ASSIGN(Tensor t, sliced.ToTensor());
  EXPECT_EQ(t.shape(), (std::vector<int64_t>{2, 3, 2}));
  EXPECT_EQ(t.strides(), (std::vector<int64_t>{24, 4, 12}));
  // Logical [r, i, j] is physical cell r+1, [j, i] -> value 6(r+1) + 3j + i.
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 0; j < 2; ++j) {
        std::vector<int64_t> index = {r, i, j};
        EXPECT_EQ(*t.Value<float>(index), 6 * (r + 1) + 3 * j + i);
      }
  // Zero-copy: the tensor points into the array's values buffer.
  EXPECT_EQ(t.buffer(), array.data()->children[0]->buffers[1]);
  ASSERT_OK_AND_ASSIGN(Tensor row, sliced.RowTensor(1));
  EXPECT_EQ(row.shape(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(*row.Value<float>(std::vector<int64_t>{2, 1}), 12 + 3 + 2);
}

TEST(FixedShapeTensorArray, ThreeAxisPermutationMatchesTransposeRule) {
  std::vector<int64_t> shape = {2, 3, 4};
  std::vector<int64_t> perm = {2, 0, 1};
  FixedShapeTensorArray array = FixedShapeRows(1, shape, perm);
  ASSERT_OK_AND_ASSIGN(Tensor row, array.RowTensor(0));
  EXPECT_EQ(row.shape(), (std::vector<int64_t>{4, 2, 3}));
  // physical index p with p[P[i]] = logical l[i]; value = row-major offset of p.
  for (int64_t a = 0; a < 4; ++a)
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t c = 0; c < 3; ++c) {
        std::vector<int64_t> logical = {a, b, c};
        int64_t p[3];
        for (int i = 0; i < 3; ++i) p[perm[i]] = logical[i];
        EXPECT_EQ(*row.Value<float>(logical), p[0] * 12 + p[1] * 4 + p[2]);
      }
}

TEST(FixedShapeTensorArray, NullRowsAreAnErrorUnlessAllowed) {
  FixedShapeTensorArray array = FixedShapeRows(3, {2}, {}, {true, false, true});
  EXPECT_EQ(array.null_count(), 1);
  EXPECT_ERROR(kInvalid, "row 1 is null", array.ToTensor());
  EXPECT_ERROR(kInvalid, "row 1 is null", array.RowTensor(1));
  ASSERT_OK(array.RowTensor(2).status());
  ASSERT_OK_AND_ASSIGN(Tensor t, array.ToTensor(NullPolicy::kAllow));
  EXPECT_EQ(t.shape(), (std::vector<int64_t>{3, 2}));
  EXPECT_ERROR(kIndexError, "row 3 is out of range for 3 rows", array.RowTensor(3));
}

TEST(FixedShapeTensorArray, FromContiguousTensorIsZeroCopy) {
  std::vector<int16_t> values(2 * 3 * 4);
  std::iota(values.begin(), values.end(), 0);
  ASSERT_OK_AND_ASSIGN(
      Tensor t, Tensor::Make(int16(), test::BufferOf(values), {2, 3, 4}, {}, {"N", "H", "W"}));
  bool copied = true;
  ASSERT_OK_AND_ASSIGN(auto array, FixedShapeTensorArray::FromTensor(t, CopyMode::kNever, &copied));
  EXPECT_FALSE(copied);
  EXPECT_EQ(array.type().shape(), (std::vector<int64_t>{3, 4}));
  EXPECT_TRUE(array.type().permutation().empty());
  EXPECT_EQ(array.type().dim_names(), (std::vector<std::string>{"H", "W"}));
  ASSERT_OK_AND_ASSIGN(Tensor back, array.ToTensor());
  EXPECT_EQ(back.raw_data(), t.raw_data());
  EXPECT_TRUE(back.Equals(t));
}

TEST(FixedShapeTensorArray, FromPermutedTensorRecordsInversePermutation) {
  // Physical cells [2, 3, 4] (C, H, W) viewed as (W, C, H): Q = [1, 2, 0].
  std::vector<float> values(5 * 24);
  std::iota(values.begin(), values.end(), 0.0f);
  BufferPtr buffer = test::BufferOf(values);
  ASSERT_OK_AND_ASSIGN(Tensor logical, Tensor::Make(float32(), buffer, {5, 4, 2, 3},
                                                    {96, 4, 48, 16}, {"N", "W", "C", "H"}));
  ASSERT_OK_AND_ASSIGN(auto array, FixedShapeTensorArray::FromTensor(logical));
  EXPECT_EQ(array.type().shape(), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(array.type().dim_names(), (std::vector<std::string>{"C", "H", "W"}));
  EXPECT_EQ(array.type().permutation(), (std::vector<int64_t>{2, 0, 1}));
  ASSERT_OK_AND_ASSIGN(Tensor back, array.ToTensor());
  EXPECT_EQ(back.strides(), logical.strides());
  EXPECT_EQ(back.raw_data(), logical.raw_data());
  EXPECT_TRUE(back.Equals(logical));
}

TEST(FixedShapeTensorArray, NonContiguousNeedsPermissionToCopy) {
  std::vector<int32_t> values(4 * 6);
  std::iota(values.begin(), values.end(), 0);
  BufferPtr buffer = test::BufferOf(values);
  // Every other column of a [4, 6] block: cells are strided, not contiguous.
  ASSERT_OK_AND_ASSIGN(Tensor strided, Tensor::Make(int32(), buffer, {4, 3}, {24, 8}));
  EXPECT_ERROR(kInvalid, "a copy is needed", FixedShapeTensorArray::FromTensor(strided));
  bool copied = false;
  ASSERT_OK_AND_ASSIGN(auto array,
                       FixedShapeTensorArray::FromTensor(strided, CopyMode::kIfNeeded, &copied));
  EXPECT_TRUE(copied);
  ASSERT_OK_AND_ASSIGN(Tensor back, array.ToTensor());
  EXPECT_TRUE(back.Equals(strided));
  EXPECT_NE(back.raw_data(), strided.raw_data());
  // Rows that are not adjacent also need a copy.
  ASSERT_OK_AND_ASSIGN(Tensor gapped, Tensor::Make(int32(), buffer, {2, 6}, {48, 4}));
  EXPECT_ERROR(kInvalid, "a copy is needed", FixedShapeTensorArray::FromTensor(gapped));
  // kAlways copies even a contiguous tensor.
  ASSERT_OK_AND_ASSIGN(Tensor dense, Tensor::Make(int32(), buffer, {4, 6}));
  ASSERT_OK_AND_ASSIGN(auto fresh,
                       FixedShapeTensorArray::FromTensor(dense, CopyMode::kAlways, &copied));
  EXPECT_TRUE(copied);
  EXPECT_NE(fresh.ToTensor()->raw_data(), dense.raw_data());
}

TEST(FixedShapeTensorArray, ZeroSizeCellsAndZeroRows) {
  std::vector<int8_t> none;
  ASSERT_OK_AND_ASSIGN(Tensor empty, Tensor::Make(int8(), test::BufferOf(none), {3, 0, 2}));
  ASSERT_OK_AND_ASSIGN(auto array, FixedShapeTensorArray::FromTensor(empty));
  EXPECT_EQ(array.length(), 3);
  EXPECT_EQ(array.type().list_size(), 0);
  ASSERT_OK_AND_ASSIGN(Tensor back, array.ToTensor());
  EXPECT_EQ(back.shape(), (std::vector<int64_t>{3, 0, 2}));
  ASSERT_OK_AND_ASSIGN(Tensor no_rows, Tensor::Make(int8(), test::BufferOf(none), {0, 2}));
  ASSERT_OK_AND_ASSIGN(auto empty_array, FixedShapeTensorArray::FromTensor(no_rows));
  EXPECT_EQ(empty_array.length(), 0);
}

TEST(FixedShapeTensorArray, RejectsWrongStorage) {
  FixedShapeTensorArray array = FixedShapeRows(2, {3});
  auto data = std::make_shared<ArrayData>(*array.data());
  data->type = *extension(FixedShapeTensorType::kExtensionName, R"({"shape":[4]})",
                          *fixed_size_list(ListItem(float32()), 3));
  EXPECT_ERROR(kInvalid, "storage list size is 3", FixedShapeTensorArray::Make(data));
  data->type = float32();
  EXPECT_ERROR(kTypeError, "expected an arrow.fixed_shape_tensor type",
               FixedShapeTensorArray::Make(data));
  // Storage too short for its rows is caught by validation.
  auto short_data = std::make_shared<ArrayData>(*array.data());
  short_data->length = 3;
  EXPECT_ERROR(kInvalid, "child has length 6, 9 needed", FixedShapeTensorArray::Make(short_data));
}

TEST(FixedShapeTensorArray, BoolCellsCannotBeViewed) {
  ASSERT_OK_AND_ASSIGN(auto type, FixedShapeTensorType::Make(boolean(), {8}));
  auto data = std::make_shared<ArrayData>();
  data->type = type.data_type();
  data->length = 1;
  data->buffers = {nullptr};
  auto bits = std::make_shared<ArrayData>();
  bits->type = boolean();
  bits->length = 8;
  bits->buffers = {nullptr, test::BufferOf(std::vector<uint8_t>{0xFF})};
  data->children = {bits};
  ASSERT_OK_AND_ASSIGN(auto array, FixedShapeTensorArray::Make(data));
  EXPECT_ERROR(kNotImplemented, "bit-packed", array.ToTensor());
}

}  // namespace quiver
