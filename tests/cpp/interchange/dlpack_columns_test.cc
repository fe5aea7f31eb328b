// DLPack for tensor columns: whole arrays and single rows, zero-copy
// bool8 and unpacked bit-packed bools.
#include "quiver/dlpack_columns.h"

#include <numeric>

#include "test_util.h"

namespace quiver {

namespace {

using namespace quiver::dlpack;

}  // namespace

TEST(DLPack, ArraysAndRows) {
  std::vector<float> values(12);
  std::iota(values.begin(), values.end(), 0.0f);
  FixedShapeTensorType type = *FixedShapeTensorType::Make(float32(), {2, 3}, {}, {1, 0});
  auto data = std::make_shared<ArrayData>();
  data->type = type.data_type();
  data->length = 2;
  data->buffers = {test::Bitmap({true, false})};
  data->null_count = 1;
  data->children = {test::Primitive<float>(float32(), values)};
  ASSERT_OK_AND_ASSIGN(auto fixed, FixedShapeTensorArray::Make(data));
  EXPECT_ERROR(kInvalid, "row 1 is null", Export(fixed));
  ASSERT_OK_AND_ASSIGN(DLManagedTensorVersioned * all, Export(fixed, NullPolicy::kAllow));
  EXPECT_EQ(all->dl_tensor.ndim, 3);
  EXPECT_EQ(all->dl_tensor.shape[1], 3);  // logical [3, 2] per row
  EXPECT_EQ(all->dl_tensor.strides[1], 1);
  EXPECT_EQ(all->dl_tensor.strides[2], 3);
  all->deleter(all);

  ASSERT_OK_AND_ASSIGN(auto variable, VariableShapeTensorArray::FromFixed(fixed));
  EXPECT_ERROR(kInvalid, "row 1 is null", ExportRow(variable, 1));
  ASSERT_OK_AND_ASSIGN(DLManagedTensorVersioned * row, ExportRow(variable, 0));
  ASSERT_OK_AND_ASSIGN(Tensor back, Import(row));
  EXPECT_TRUE(back.Equals(*fixed.RowTensor(0)));
}

TEST(DLPack, Bool8IsZeroCopyAndBitPackedBoolsAreUnpacked) {
  // bool8 cells: one byte per value, exported as DLPack bool without a copy.
  std::vector<int8_t> bytes = {1, 0, 7, 0};
  Tensor flags = *Tensor::Make(bool8(), test::BufferOf(bytes), {2, 2});
  ASSERT_OK_AND_ASSIGN(auto bool8_column, FixedShapeTensorArray::FromTensor(flags));
  ASSERT_OK_AND_ASSIGN(DLManagedTensorVersioned * out, Export(bool8_column));
  EXPECT_EQ(out->dl_tensor.dtype.code, kCodeBool);
  EXPECT_EQ(out->dl_tensor.data, flags.raw_data());
  EXPECT_EQ(out->flags, kFlagReadOnly);
  ASSERT_OK_AND_ASSIGN(Tensor back, Import(out));
  EXPECT_TRUE(back.type()->is_bool8());
  EXPECT_TRUE(back.Equals(flags));

  // Bit-packed bools (0b0101: true, false, true, false) need a copy.
  FixedShapeTensorType type = *FixedShapeTensorType::Make(boolean(), {2});
  auto child = std::make_shared<ArrayData>();
  child->type = boolean();
  child->length = 4;
  child->null_count = 0;
  child->buffers = {nullptr, test::BufferOf(std::vector<uint8_t>{0b0101})};
  auto data = std::make_shared<ArrayData>();
  data->type = type.data_type();
  data->length = 2;
  data->null_count = 0;
  data->buffers = {nullptr};
  data->children = {child};
  ASSERT_OK_AND_ASSIGN(auto packed, FixedShapeTensorArray::Make(data));
  EXPECT_ERROR(kInvalid, "bit-packed", Export(packed, NullPolicy::kError, CopyMode::kNever));
  bool copied = false;
  ASSERT_OK_AND_ASSIGN(DLManagedTensorVersioned * unpacked,
                       Export(packed, NullPolicy::kError, CopyMode::kIfNeeded, &copied));
  EXPECT_TRUE(copied);
  EXPECT_EQ(unpacked->flags, kFlagIsCopied);
  const auto* values = static_cast<const uint8_t*>(unpacked->dl_tensor.data);
  EXPECT_EQ((std::vector<uint8_t>(values, values + 4)), (std::vector<uint8_t>{1, 0, 1, 0}));
  unpacked->deleter(unpacked);
}

}  // namespace quiver
