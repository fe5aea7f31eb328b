// The storage of arrow.variable_shape_tensor arrays as the kernels read it
// (checked offsets, ranges and layouts, each error naming the row), the
// assembly of storage from its parts, and the small checks the kernels
// share: dense values, list capacity, integer tensors and null elements.
#include <limits>
#include <vector>

#include "variable_shape_test_util.h"

namespace quiver::internal {

using test::RawStorage;

namespace {

VariableShapeTensorArray Make(const ArrayDataPtr& data) {
  auto made = VariableShapeTensorArray::Make(data, ValidationLevel::kNone);
  EXPECT_TRUE(made.ok()) << made.status().ToString();
  return *made;
}

}  // namespace

TEST(VariableShapeParts, CheckedRangesAndLayoutsOfHonestRows) {
  // Rows of shapes [2, 3] and [1, 2] over 8 values.
  VariableShapeTensorArray array =
      Make(RawStorage({0, 6, 8}, std::vector<float>(8, 1.0f), {2, 3, 1, 2}, 2));
  VariableShapeStorage storage(array);
  EXPECT_EQ(storage.Offset(1), 6);
  EXPECT_EQ(std::vector<int32_t>(storage.PhysicalShape(1).begin(), storage.PhysicalShape(1).end()),
            (std::vector<int32_t>{1, 2}));
  ASSERT_OK_AND_ASSIGN(RowRange range, storage.CheckedRange(1));
  EXPECT_EQ(range.begin, 6);
  EXPECT_EQ(range.end, 8);
  EXPECT_EQ(range.size(), 2);
  int64_t physical[2] = {0, 0};
  ASSERT_OK_AND_ASSIGN(RowRange layout, storage.CheckedLayout(0, physical));
  EXPECT_EQ(layout.size(), 6);
  EXPECT_EQ(physical[0], 2);
  EXPECT_EQ(physical[1], 3);
  EXPECT_EQ(storage.ValueBytes(layout), storage.values().buffers[1]->data());
  EXPECT_EQ(storage.ValueBytes(RowRange{3, 3}), nullptr);  // an empty row points nowhere
  std::vector<int64_t> offsets(3);
  ASSERT_OK(storage.CheckedOffsets(0, 2, offsets));
  EXPECT_EQ(offsets, (std::vector<int64_t>{0, 6, 8}));
}

TEST(VariableShapeParts, CheckedReadsNameTheRow) {
  VariableShapeTensorArray array =
      Make(RawStorage({0, 6, 4, 20}, std::vector<float>(8, 1.0f), {6, -2, 5}, 1));
  VariableShapeStorage storage(array);
  EXPECT_EQ(test::StatusOf(storage.CheckedRange(1)).message(),
            "row 1: data [6, 4) is not a range inside the 8 values of the data list");
  EXPECT_EQ(test::StatusOf(storage.CheckedRange(2)).message(),
            "row 2: data [4, 20) is not a range inside the 8 values of the data list");
  int64_t physical[1] = {0};
  ASSERT_OK(storage.CheckedLayout(0, physical).status());
  VariableShapeTensorArray negative =
      Make(RawStorage({0, 0, 3}, std::vector<float>(3, 1.0f), {-1, 2}, 1));
  EXPECT_EQ(test::StatusOf(VariableShapeStorage(negative).CheckedLayout(0, physical)).message(),
            "row 0: shape [-1] has a negative size");
  EXPECT_EQ(test::StatusOf(VariableShapeStorage(negative).CheckedLayout(1, physical)).message(),
            "row 1: data length 3 != product of shape [2] (2)");
  VariableShapeTensorArray late = Make(RawStorage({9, 9}, std::vector<float>(3, 1.0f), {0}, 1));
  std::vector<int64_t> out(2);
  EXPECT_EQ(VariableShapeStorage(late).CheckedOffsets(0, 1, out).message(),
            "row 0: data starts at element 9, outside the 3 values of the data list");
  // Sizes whose product passes 2^40 are reported without overflowing.
  VariableShapeTensorArray huge =
      Make(RawStorage({0, 1}, std::vector<float>(1, 1.0f), {1 << 30, 1 << 30, 1 << 30}, 3));
  int64_t three[3];
  EXPECT_EQ(test::StatusOf(VariableShapeStorage(huge).CheckedLayout(0, three)).message(),
            "row 0: data length 1 != product of shape [1073741824, 1073741824, 1073741824] (more "
            "than 2^40)");
}

TEST(VariableShapeParts, AssembleBuildsValidatedStorage) {
  ASSERT_OK_AND_ASSIGN(auto type, VariableShapeTensorType::Make(float32(), 1));
  VariableShapeParts parts;
  parts.length = 2;
  parts.offsets = test::BufferOf(std::vector<int32_t>{0, 2, 5});
  parts.values = test::Primitive<float>(float32(), {1, 2, 3, 4, 5});
  parts.shapes = test::BufferOf(std::vector<int32_t>{2, 3});
  ASSERT_OK_AND_ASSIGN(auto array, Assemble(type, parts, ValidationLevel::kFull));
  EXPECT_EQ(array.length(), 2);
  ASSERT_OK_AND_ASSIGN(Tensor row, array.RowTensor(1));
  EXPECT_EQ(row.shape(), (std::vector<int64_t>{3}));
  EXPECT_EQ(*row.Value<float>(std::vector<int64_t>{0}), 3.0f);
  parts.shapes = test::BufferOf(std::vector<int32_t>{2, 4});
  EXPECT_ERROR(kInvalid, "row 1: ", Assemble(type, parts, ValidationLevel::kFull));
}

TEST(VariableShapeParts, SharedChecks) {
  EXPECT_EQ(RowError(4, "bad").message(), "row 4: bad");
  ASSERT_OK_AND_ASSIGN(auto floats, VariableShapeTensorType::Make(float32(), 1));
  ASSERT_OK(CheckDenseValues(floats, "pad"));
  ASSERT_OK_AND_ASSIGN(auto bools, VariableShapeTensorType::Make(boolean(), 1));
  Status st = CheckDenseValues(bools, "pad");
  EXPECT_EQ(st.code(), StatusCode::kNotImplemented);
  EXPECT_EQ(st.message(), "cannot pad bool tensors: Arrow bools are bit-packed");
  ASSERT_OK(CheckListCapacity(kMaxListElements));
  EXPECT_EQ(
      CheckListCapacity(kMaxListElements + 1).message(),
      "the rows hold 2147483648 elements in total, more than the int32 offsets of a "
      "variable_shape_tensor's data list address (2^31 - 1); split the rows over several arrays");
  // Null elements: the bitmap is read only when there may be nulls.
  ArrayDataPtr values = test::Primitive<float>(float32(), {1, 2, 3, 4}, {true, true, false, true});
  ASSERT_OK(CheckNoNullElements(*values, 0, 2));
  EXPECT_EQ(CheckNoNullElements(*values, 1, 4).message(),
            "element 2 of the data is null; tensors cannot hold null elements");
  ASSERT_OK(CheckNoNullElements(*test::Primitive<float>(float32(), {1, 2}), 0, 2));
}

TEST(VariableShapeParts, ReadIntegersOfEveryWidth) {
  const std::vector<int64_t> shape = {2, 2};
  Tensor int8s = *Tensor::Make(int8(), test::BufferOf(std::vector<int8_t>{1, -2, 3, -4}), {2, 2});
  EXPECT_EQ(*ReadIntegers(int8s, shape, "shapes"), (std::vector<int64_t>{1, -2, 3, -4}));
  Tensor uint16s =
      *Tensor::Make(uint16(), test::BufferOf(std::vector<uint16_t>{65535, 0, 1, 2}), {2, 2});
  EXPECT_EQ(*ReadIntegers(uint16s, shape, "shapes"), (std::vector<int64_t>{65535, 0, 1, 2}));
  Tensor int32s = *Tensor::Make(int32(), test::BufferOf(std::vector<int32_t>{-7, 8, 9}), {3});
  EXPECT_EQ(*ReadIntegers(int32s, std::vector<int64_t>{3}, "offsets"),
            (std::vector<int64_t>{-7, 8, 9}));
  Tensor too_big =
      *Tensor::Make(uint64(), test::BufferOf(std::vector<uint64_t>{1, uint64_t{1} << 63}), {2});
  EXPECT_EQ(test::StatusOf(ReadIntegers(too_big, std::vector<int64_t>{2}, "offsets")).message(),
            "offsets entry 9223372036854775808 does not fit int64");
  Tensor floats = *Tensor::Make(float32(), test::BufferOf(std::vector<float>{1}), {1});
  auto not_integers = ReadIntegers(floats, std::vector<int64_t>{1}, "offsets");
  EXPECT_EQ(test::StatusOf(not_integers).code(), StatusCode::kTypeError);
  EXPECT_EQ(test::StatusOf(not_integers).message(), "offsets must hold integers, got float32");
  EXPECT_EQ(test::StatusOf(ReadIntegers(int8s, std::vector<int64_t>{4}, "shapes")).message(),
            "shapes has shape [2, 2], expected [4]");
}

}  // namespace quiver::internal
