// Building variable-shape columns: FromTensors, FromJagged / ToJagged and
// the conversions from and to fixed-shape columns.
#include "quiver/variable_shape_tensor.h"

#include <numeric>

#include "variable_shape_test_util.h"

namespace quiver {

namespace {

using test::BufferOf;
using test::Float32Type;
using test::Iota;
using test::Primitive;
using test::ThreeRows;
using test::ValuesOf;

}  // namespace

TEST(VariableShapeTensorArray, JaggedRoundTrip) {
  VariableShapeTensorArray array = ThreeRows();
  ASSERT_OK_AND_ASSIGN(auto sliced, array.Slice(1, 2));
  ASSERT_OK_AND_ASSIGN(auto jagged, sliced.ToJagged());
  EXPECT_EQ(jagged.values.shape(), (std::vector<int64_t>{4}));
  EXPECT_EQ(jagged.values.buffer(), ValuesOf(array).buffers[1]);
  EXPECT_EQ(*jagged.offsets.Value<int64_t>(std::vector<int64_t>{2}), 4);
  ASSERT_OK_AND_ASSIGN(auto back, VariableShapeTensorArray::FromJagged(
                                      sliced.type(), jagged.values, jagged.shapes, jagged.offsets));
  EXPECT_TRUE(back.RowTensor(0)->Equals(Iota({1, 4}, 100)));
  EXPECT_EQ(ValuesOf(back).buffers[1]->data(), jagged.values.raw_data());  // values zero-copy
  ASSERT_OK_AND_ASSIGN(auto derived, VariableShapeTensorArray::FromJagged(
                                         sliced.type(), jagged.values, jagged.shapes));
  EXPECT_EQ(derived.length(), 2);
}

TEST(VariableShapeTensorArray, JaggedErrors) {
  auto type = Float32Type(1);
  Tensor values = Iota({5});
  std::vector<int32_t> shapes = {2, 2};
  Tensor shape_tensor = *Tensor::Make(int32(), BufferOf(shapes), {2, 1});
  EXPECT_ERROR(kInvalid, "values has 5 elements but the shapes account for 4",
               VariableShapeTensorArray::FromJagged(type, values, shape_tensor));
  std::vector<int64_t> offsets = {0, 3, 5};
  Tensor offset_tensor = *Tensor::Make(int64(), BufferOf(offsets), {3});
  EXPECT_ERROR(kInvalid, "row 0: data length 3 != product of shape [2] (2)",
               VariableShapeTensorArray::FromJagged(type, values, shape_tensor, offset_tensor));
  EXPECT_ERROR(kInvalid, "shapes must have shape (N, 1)",
               VariableShapeTensorArray::FromJagged(type, values, values));
  EXPECT_ERROR(kTypeError, "values hold int32",
               VariableShapeTensorArray::FromJagged(type, shape_tensor, shape_tensor));
}

TEST(VariableShapeTensorArray, FromTensorsErrors) {
  auto type = Float32Type(2, {}, {2, std::nullopt});
  std::vector<std::optional<Tensor>> wrong_ndim = {Iota({2, 3}), Iota({4})};
  EXPECT_ERROR(kInvalid, "row 1: tensor has 1 dimensions, the array has 2",
               VariableShapeTensorArray::FromTensors(type, wrong_ndim));
  std::vector<std::optional<Tensor>> not_uniform = {Iota({2, 3}), Iota({3, 3})};
  EXPECT_ERROR(kInvalid, "row 1: shape [3, 3] has size 3 on axis 0 but uniform_shape says 2",
               VariableShapeTensorArray::FromTensors(type, not_uniform));
  std::vector<std::optional<Tensor>> wrong_type = {
      *Tensor::Make(int32(), BufferOf(std::vector<int32_t>{1, 2}), {1, 2})};
  EXPECT_ERROR(kTypeError, "row 0: tensor holds int32",
               VariableShapeTensorArray::FromTensors(type, wrong_type));
}

TEST(VariableShapeTensorArray, StridedInputsAreCopiedInOrder) {
  // A transposed view as input: the copy follows logical order.
  Tensor base = Iota({3, 2});
  Tensor transposed = *Tensor::Make(float32(), base.buffer(), {2, 3}, {4, 8});
  std::vector<std::optional<Tensor>> rows = {transposed};
  ASSERT_OK_AND_ASSIGN(auto array, VariableShapeTensorArray::FromTensors(Float32Type(2), rows));
  EXPECT_TRUE(array.RowTensor(0)->Equals(transposed));
  EXPECT_TRUE(array.RowTensor(0)->IsContiguous());
}

TEST(VariableShapeTensorArray, FixedConversions) {
  FixedShapeTensorType fixed_type =
      *FixedShapeTensorType::Make(float32(), {2, 3}, {"H", "W"}, {1, 0});
  std::vector<float> values(12);
  std::iota(values.begin(), values.end(), 0.0f);
  auto data = std::make_shared<ArrayData>();
  data->type = fixed_type.data_type();
  data->length = 2;
  data->buffers = {nullptr};
  data->children = {Primitive<float>(float32(), values)};
  ASSERT_OK_AND_ASSIGN(auto fixed, FixedShapeTensorArray::Make(data));
  ASSERT_OK_AND_ASSIGN(auto variable, VariableShapeTensorArray::FromFixed(fixed));
  EXPECT_EQ(variable.type().uniform_shape(), (UniformShape{2, 3}));
  EXPECT_EQ(variable.type().permutation(), (std::vector<int64_t>{1, 0}));
  EXPECT_TRUE(variable.RowTensor(1)->Equals(*fixed.RowTensor(1)));
  EXPECT_EQ(ValuesOf(variable).buffers[1], fixed.data()->children[0]->buffers[1]);

  bool copied = true;
  ASSERT_OK_AND_ASSIGN(auto back, variable.ToFixed(CopyMode::kNever, &copied));
  EXPECT_FALSE(copied);
  EXPECT_TRUE(back.type().Equals(fixed_type));
  EXPECT_TRUE(back.ToTensor()->Equals(*fixed.ToTensor()));

  EXPECT_ERROR(kInvalid, "row 1 has shape [1, 4] but row 0 has [2, 3]", ThreeRows().ToFixed());
  // A null row without data breaks even spacing: copy or refuse.
  std::vector<std::optional<Tensor>> rows = {Iota({2}), std::nullopt, Iota({2}, 2)};
  ASSERT_OK_AND_ASSIGN(auto with_null, VariableShapeTensorArray::FromTensors(Float32Type(1), rows));
  EXPECT_ERROR(kInvalid, "needs a copy", with_null.ToFixed(CopyMode::kNever));
  ASSERT_OK_AND_ASSIGN(auto copied_fixed, with_null.ToFixed(CopyMode::kIfNeeded, &copied));
  EXPECT_TRUE(copied);
  EXPECT_FALSE(copied_fixed.IsValid(1));
  EXPECT_TRUE(copied_fixed.RowTensor(2)->Equals(Iota({2}, 2)));
  ASSERT_OK_AND_ASSIGN(auto none, VariableShapeTensorArray::FromTensors(
                                      Float32Type(1), std::vector<std::optional<Tensor>>{}));
  EXPECT_ERROR(kInvalid, "complete uniform_shape", none.ToFixed());
}

}  // namespace quiver
