// variable_shape_tensor kernels fed storage that validation below kFull
// lets through, or that its owner changes after the array was built: every
// kernel must check the rows it reads instead of trusting the offsets.
#include <vector>

#include "quiver/shape_pattern.h"
#include "variable_shape_test_util.h"

namespace quiver {

using test::BufferOf;
using test::RawStorage;

namespace {

// Offsets [0, 1000, 8] over 8 honest values: row 0 (valid, shape [1000])
// claims far more data than there is; row 1 is null.
VariableShapeTensorArray LyingRows(ValidationLevel level) {
  std::vector<float> values(8, 1.0f);
  ArrayDataPtr data = RawStorage({0, 1000, 8}, values, {1000, 2}, 1, {true, false});
  auto made = VariableShapeTensorArray::Make(data, level);
  EXPECT_TRUE(made.ok()) << made.status().ToString();
  return *made;
}

}  // namespace

TEST(VariableShapeHostile, KernelsCheckRowsAgainstTheValues) {
  // kDefault checks only the first and last offsets; row 0 ends at 1000.
  VariableShapeTensorArray array = LyingRows(ValidationLevel::kDefault);
  const char* message = "row 0: data [0, 1000) is not a range inside the 8 values";
  EXPECT_ERROR(kInvalid, message, array.RowTensor(0));
  EXPECT_ERROR(kInvalid, message, array.ToPadded(0, NullPolicy::kAllow));
  EXPECT_ERROR(kInvalid, message, array.Take(std::vector<int64_t>{0}));
  EXPECT_ERROR(kInvalid, message, array.Filter(std::vector<uint8_t>{1, 0}));
  EXPECT_ERROR(kInvalid, message, VariableShapeTensorArray::Concat(std::vector{array, array}));
  EXPECT_ERROR(kInvalid, message, array.ToJagged(NullPolicy::kAllow));
  EXPECT_ERROR(kInvalid, message, array.ToFixed(CopyMode::kAlways));
  // Full validation refuses the array outright.
  std::vector<float> values(8, 1.0f);
  EXPECT_ERROR(kInvalid, "child 0 (data): offset 2 (8) < offset 1 (1000)",
               VariableShapeTensorArray::Make(
                   RawStorage({0, 1000, 8}, values, {1000, 2}, 1, {true, false})));
}

TEST(VariableShapeHostile, DecreasingOffsetsAreCaught) {
  std::vector<float> values(6, 1.0f);
  ASSERT_OK_AND_ASSIGN(
      auto array, VariableShapeTensorArray::Make(RawStorage({0, 5, 2, 6}, values, {5, 0, 4}, 1),
                                                 ValidationLevel::kDefault));
  EXPECT_ERROR(kInvalid, "row 1: data [5, 2) is not a range", array.ToPadded());
  EXPECT_ERROR(kInvalid, "row 1: data [5, 2) is not a range",
               array.Take(std::vector<int64_t>{0, 1, 2}));
  EXPECT_ERROR(kInvalid, "row 1: data [5, 2)", array.ToJagged());
  EXPECT_ERROR(kInvalid, "row 1: data [5, 2)", array.RowTensor(1));
  ASSERT_OK(array.RowTensor(0).status());  // row 0 is honest
}

TEST(VariableShapeHostile, MinimalValidationSizesTheOffsets) {
  // A foreign offsets buffer holding 2 of the 4 entries 3 rows need.
  std::vector<float> values(3, 1.0f);
  ArrayDataPtr data = RawStorage({0, 1, 2, 3}, values, {1, 1, 1}, 1);
  auto short_list = std::make_shared<ArrayData>(*data->children[0]);
  short_list->buffers[1] = BufferOf(std::vector<int32_t>{0, 1});
  auto broken = std::make_shared<ArrayData>(*data);
  broken->children[0] = short_list;
  EXPECT_ERROR(kInvalid, "child 0 (data): offsets buffer has 8 bytes, 16 needed",
               VariableShapeTensorArray::Make(broken, ValidationLevel::kMinimal));
  // Even kNone is raised to kMinimal by Make: the views read these buffers.
  EXPECT_ERROR(kInvalid, "offsets buffer has 8 bytes",
               VariableShapeTensorArray::Make(broken, ValidationLevel::kNone));
}

TEST(VariableShapeHostile, SharedStorageChangedAfterTheFact) {
  // FromJagged shares int32 offsets and shapes with the caller; changing
  // them afterwards gives errors, never reads past the values.
  ASSERT_OK_AND_ASSIGN(BufferPtr values, Buffer::Allocate(10 * 4));
  ASSERT_OK_AND_ASSIGN(BufferPtr offsets_buffer, Buffer::Allocate(3 * 4));
  ASSERT_OK_AND_ASSIGN(BufferPtr shapes_buffer, Buffer::Allocate(2 * 4));
  int32_t* offsets = internal::MutableAs<int32_t>(offsets_buffer);
  int32_t* shapes = internal::MutableAs<int32_t>(shapes_buffer);
  offsets[0] = 0, offsets[1] = 4, offsets[2] = 10;
  shapes[0] = 4, shapes[1] = 6;
  ASSERT_OK_AND_ASSIGN(auto type, VariableShapeTensorType::Make(float32(), 1));
  ASSERT_OK_AND_ASSIGN(Tensor flat, Tensor::Make(float32(), values, {10}));
  ASSERT_OK_AND_ASSIGN(Tensor shape_tensor, Tensor::Make(int32(), shapes_buffer, {2, 1}));
  ASSERT_OK_AND_ASSIGN(Tensor offset_tensor, Tensor::Make(int32(), offsets_buffer, {3}));
  ASSERT_OK_AND_ASSIGN(
      auto array, VariableShapeTensorArray::FromJagged(type, flat, shape_tensor, offset_tensor));
  ASSERT_OK(array.ToPadded().status());
  offsets[2] = 50'000'000;
  shapes[1] = 50'000'000 - 4;
  EXPECT_ERROR(kInvalid, "row 1: data [4, 50000000) is not a range inside the 10 values",
               array.ToPadded());
  EXPECT_ERROR(kInvalid, "row 1:", array.Take(std::vector<int64_t>{1}));
  EXPECT_ERROR(kInvalid, "row 1:", array.RowTensor(1));
  EXPECT_ERROR(kInvalid, "row 1:", array.ToJagged());
  // Shape checks read the shapes and refuse a negative size.
  shapes[1] = -3;
  ASSERT_OK_AND_ASSIGN(ShapePattern pattern, ShapePattern::Parse("n w"));
  EXPECT_ERROR(kInvalid, "row 1: shape has a negative size on axis 0",
               EnforceShape(array, pattern));
  shapes[1] = 50'000'000 - 4;
  // Offsets back in range but the shape still lying: the product check.
  offsets[2] = 10;
  EXPECT_ERROR(kInvalid, "row 1: data length 6 != product of shape [49999996]", array.ToPadded());
}

TEST(VariableShapeHostile, DraftShapesOutsideTheArrayAreNotConverted) {
  // Row 0 holds 2^32 - 1 as a draft uint32 size; the slice starting at row 1
  // and the array with row 0 null both import.
  std::vector<float> values(3, 1.0f);
  std::vector<int32_t> shapes = {-1, 0, 3, 1};  // -1 is 4294967295 as uint32
  ArrayDataPtr data =
      RawStorage({0, 0, 3}, values, shapes, 2, {}, R"({"ragged_dimensions":[0]})", uint32());
  EXPECT_ERROR(kInvalid, "row 0: shape entry 0 (4294967295) does not fit int32",
               VariableShapeTensorArray::Make(data));
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr sliced, Slice(data, 1, 1));
  ASSERT_OK_AND_ASSIGN(auto array, VariableShapeTensorArray::Make(sliced));
  ASSERT_OK_AND_ASSIGN(Tensor row, array.RowTensor(0));
  EXPECT_EQ(row.shape(), (std::vector<int64_t>{3, 1}));
  ArrayDataPtr with_null = RawStorage({0, 0, 3}, values, shapes, 2, {false, true},
                                      R"({"ragged_dimensions":[0]})", uint32());
  ASSERT_OK_AND_ASSIGN(auto nulled, VariableShapeTensorArray::Make(with_null));
  EXPECT_EQ(nulled.RowTensor(1)->shape(), (std::vector<int64_t>{3, 1}));
}

}  // namespace quiver
