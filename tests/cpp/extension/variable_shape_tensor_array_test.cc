// VariableShapeTensorArray: zero-copy row views, permutation, row
// validation, draft shapes, null rows and the uniform shape.
#include "quiver/variable_shape_tensor.h"

#include <cstring>

#include "variable_shape_test_util.h"

namespace quiver {

namespace {

using test::Float32Type;
using test::Iota;
using test::RawStorage;
using test::ThreeRows;
using test::ValuesOf;

}  // namespace

TEST(VariableShapeTensorArray, RowViewsAreZeroCopy) {
  VariableShapeTensorArray array = ThreeRows();
  ASSERT_OK_AND_ASSIGN(Tensor row1, array.RowTensor(1));
  EXPECT_EQ(row1.shape(), (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(row1.buffer(), ValuesOf(array).buffers[1]);
  EXPECT_TRUE(row1.Equals(Iota({1, 4}, 100)));
  ASSERT_OK_AND_ASSIGN(Tensor empty, array.RowTensor(2));
  EXPECT_EQ(empty.shape(), (std::vector<int64_t>{0, 2}));
  EXPECT_ERROR(kIndexError, "row 3 is out of range for 3 rows", array.RowTensor(3));
  ASSERT_OK_AND_ASSIGN(Tensor shapes, array.Shapes());
  EXPECT_EQ(*shapes.Value<int32_t>(std::vector<int64_t>{1, 1}), 4);
}

TEST(VariableShapeTensorArray, PermutationFollowsTheSpec) {
  // Logical rows go in; storage holds them physically, views give them back.
  VariableShapeTensorArray array = ThreeRows({1, 0});
  EXPECT_EQ(internal::VariableShapeStorage(array).PhysicalShape(0)[0],
            3);  // logical [2, 3] is physical [3, 2]
  ASSERT_OK_AND_ASSIGN(Tensor row0, array.RowTensor(0));
  EXPECT_EQ(row0.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(row0.strides(), (std::vector<int64_t>{4, 8}));
  EXPECT_TRUE(row0.Equals(Iota({2, 3})));
  ASSERT_OK_AND_ASSIGN(Tensor shapes, array.Shapes());
  EXPECT_EQ(*shapes.Value<int32_t>(std::vector<int64_t>{0, 0}), 2);
  EXPECT_EQ(*shapes.Value<int32_t>(std::vector<int64_t>{0, 1}), 3);
}

TEST(VariableShapeTensorArray, ValidationNamesTheRow) {
  // Row 1 claims [2, 2] but holds 3 elements.
  EXPECT_ERROR(
      kInvalid, "row 1: data length 3 != product of shape [2, 2] (4)",
      VariableShapeTensorArray::Make(RawStorage({0, 2, 5}, {0, 1, 2, 3, 4}, {1, 2, 2, 2}, 2)));
  EXPECT_ERROR(kInvalid, "row 0: shape [-1, 2] has a negative size",
               VariableShapeTensorArray::Make(RawStorage({0, 0}, {}, {-1, 2}, 2)));
  EXPECT_ERROR(kInvalid, "row 1: shape [2, 1] has size 2 on axis 0 but uniform_shape says 1",
               VariableShapeTensorArray::Make(RawStorage({0, 2, 4}, {0, 1, 2, 3}, {1, 2, 2, 1}, 2,
                                                         {}, R"({"uniform_shape":[1,null]})")));
  // A null row is not checked against its shape.
  ASSERT_OK(VariableShapeTensorArray::Make(
                RawStorage({0, 2, 5}, {0, 1, 2, 3, 4}, {1, 2, 2, 2}, 2, {true, false}))
                .status());
  // Lower levels skip the row checks, but views still refuse a bad row.
  ASSERT_OK_AND_ASSIGN(auto trusted, VariableShapeTensorArray::Make(
                                         RawStorage({0, 2, 5}, {0, 1, 2, 3, 4}, {1, 2, 2, 2}, 2),
                                         ValidationLevel::kDefault));
  EXPECT_ERROR(kInvalid, "row 1: data length 3", trusted.RowTensor(1));
  EXPECT_ERROR(kInvalid, "row 1: data length 3", trusted.ToPadded());
  // Take, Filter and Concat copy rows as stored: they check them first.
  EXPECT_ERROR(kInvalid, "row 1: data length 3", trusted.Take(std::vector<int64_t>{0, 1}));
  EXPECT_ERROR(kInvalid, "row 1: data length 3", trusted.Filter(std::vector<uint8_t>{0, 1}));
  ASSERT_OK_AND_ASSIGN(auto first, trusted.Take(std::vector<int64_t>{0, 0}));
  ASSERT_OK(Validate(*first.data()));
}

// Validate(kFull) checks a variable_shape_tensor's rows wherever the array
// sits (top level, inside a struct), as Make(kFull) does: every import and
// IPC read sees them.
TEST(VariableShapeTensorArray, FullValidationChecksTheRowsAtAnyDepth) {
  ArrayDataPtr lying = RawStorage({0, 2, 5}, {0, 1, 2, 3, 4}, {1, 2, 2, 2}, 2);
  EXPECT_ERROR(kInvalid, "row 1: data length 3 != product of shape [2, 2] (4)", Validate(*lying));
  ASSERT_OK(Validate(*lying, ValidationLevel::kDefault));
  auto wrapper = std::make_shared<ArrayData>();
  wrapper->type = struct_({Field{"t", lying->type, true, {}}});
  wrapper->length = lying->length;
  wrapper->buffers = {nullptr};
  wrapper->children = {lying};
  EXPECT_ERROR(kInvalid, "child 0 (t): row 1: data length 3", Validate(*wrapper));
  ASSERT_OK(Validate(*RawStorage({0, 2, 4}, {0, 1, 2, 3}, {1, 2, 2, 1}, 2)));
}

TEST(VariableShapeTensorArray, DraftUint32ShapesBecomeInt32) {
  ASSERT_OK_AND_ASSIGN(auto array, VariableShapeTensorArray::Make(
                                       RawStorage({0, 6}, {0, 1, 2, 3, 4, 5}, {2, 3}, 2, {},
                                                  R"({"ragged_dimensions":[0]})", uint32())));
  EXPECT_EQ(array.data()->children[1]->children[0]->type->id(), TypeId::kInt32);
  EXPECT_EQ(array.type().data_type()->extension_metadata(), "{}");
  ASSERT_OK_AND_ASSIGN(Tensor row, array.RowTensor(0));
  EXPECT_TRUE(row.Equals(Iota({2, 3})));
}

TEST(VariableShapeTensorArray, NullRows) {
  std::vector<std::optional<Tensor>> rows = {Iota({2}), std::nullopt, Iota({3}, 5)};
  ASSERT_OK_AND_ASSIGN(auto array, VariableShapeTensorArray::FromTensors(Float32Type(1), rows));
  EXPECT_EQ(array.null_count(), 1);
  EXPECT_ERROR(kInvalid, "row 1 is null", array.RowTensor(1));
  ASSERT_OK_AND_ASSIGN(auto views, array.RowTensors());
  EXPECT_FALSE(views[1].has_value());
  EXPECT_TRUE(views[2]->Equals(Iota({3}, 5)));
  EXPECT_ERROR(kInvalid, "row 1 is null", array.ToPadded());
  ASSERT_OK_AND_ASSIGN(auto padded, array.ToPadded(-1, NullPolicy::kAllow));
  EXPECT_EQ(*padded.values.Value<float>(std::vector<int64_t>{1, 0}), -1.0f);
  EXPECT_EQ(*padded.shapes.Value<int32_t>(std::vector<int64_t>{1, 0}), 0);
  // Null rows survive take and concat.
  ASSERT_OK_AND_ASSIGN(auto taken, array.Take(std::vector<int64_t>{1, 2}));
  EXPECT_FALSE(taken.IsValid(0));
  EXPECT_TRUE(taken.RowTensor(1)->Equals(Iota({3}, 5)));
}

TEST(VariableShapeTensorArray, RowViewsPastTheStreamingSizeCopyExactly) {
  // 70 MiB of uint8 rows at every byte offset, with gaps between them in
  // the source: the copy streams past the caches (StreamCopy) on two
  // threads, and every byte lands in order.
  const int64_t total = int64_t{70} << 20;
  std::vector<uint8_t> source(total + total / 64);
  for (size_t i = 0; i < source.size(); ++i) source[i] = static_cast<uint8_t>(i * 131 + (i >> 12));
  std::vector<int64_t> dims;  // sizes, then strides (1 byte), per row
  std::vector<VariableShapeTensorArray::RowView> rows;
  std::vector<uint8_t> expected;
  expected.reserve(total);
  size_t at = 0;
  for (int64_t i = 0; static_cast<int64_t>(expected.size()) < total; ++i) {
    const int64_t size = std::min<int64_t>(1 + (i * 977) % 9000, total - expected.size());
    rows.push_back({false, source.data() + at, {}, {}});
    dims.push_back(size);
    expected.insert(expected.end(), source.begin() + at, source.begin() + at + size);
    at += size + static_cast<size_t>(i % 61);
  }
  const int64_t one = 1;
  for (size_t i = 0; i < rows.size(); ++i) {
    rows[i].shape = {&dims[i], 1};
    rows[i].strides = {&one, 1};
  }
  ASSERT_OK_AND_ASSIGN(auto type, VariableShapeTensorType::Make(uint8(), 1));
  ASSERT_OK_AND_ASSIGN(auto array, VariableShapeTensorArray::FromRowViews(type, rows));
  const BufferPtr& values = array.data()->children[0]->children[0]->buffers[1];
  ASSERT_EQ(values->size(), total);
  EXPECT_EQ(std::memcmp(values->data(), expected.data(), expected.size()), 0);
}

TEST(VariableShapeTensorArray, IdentityPermutationEqualsNone) {
  EXPECT_TRUE(Float32Type(2, {0, 1}).Equals(Float32Type(2)));
  EXPECT_FALSE(Float32Type(2, {1, 0}).Equals(Float32Type(2)));
  EXPECT_NE(Float32Type(2, {0, 1}).Serialize().find("permutation"),
            std::string::npos);  // kept as read
  ASSERT_OK_AND_ASSIGN(auto explicit_identity, ThreeRows({0, 1}).Slice(0, 2));
  std::vector<VariableShapeTensorArray> parts = {ThreeRows(), explicit_identity};
  ASSERT_OK_AND_ASSIGN(auto joined, VariableShapeTensorArray::Concat(parts));
  EXPECT_EQ(joined.length(), 5);
}

TEST(VariableShapeTensorArray, InferAndCheckUniformShape) {
  std::vector<std::optional<Tensor>> rows = {Iota({2, 3}), Iota({4, 3}), std::nullopt};
  ASSERT_OK_AND_ASSIGN(auto array, VariableShapeTensorArray::FromTensors(Float32Type(2), rows));
  EXPECT_EQ(array.InferUniformShape(), (UniformShape{std::nullopt, 3}));
  ASSERT_OK_AND_ASSIGN(auto recorded, array.WithUniformShape(array.InferUniformShape()));
  EXPECT_EQ(recorded.type().Serialize(), R"({"uniform_shape":[null,3]})");
  EXPECT_ERROR(kInvalid, "row 1: shape [4, 3] has size 4 on axis 0 but uniform_shape says 2",
               array.WithUniformShape({2, 3}));
}

TEST(VariableShapeTensorArray, ZeroDimensionalRows) {
  std::vector<std::optional<Tensor>> rows = {Iota({}, 4), Iota({}, 5)};
  ASSERT_OK_AND_ASSIGN(auto array, VariableShapeTensorArray::FromTensors(Float32Type(0), rows));
  EXPECT_EQ(*array.RowTensor(1)->Value<float>(std::vector<int64_t>{}), 5.0f);
  ASSERT_OK_AND_ASSIGN(auto padded, array.ToPadded());
  EXPECT_EQ(padded.values.shape(), (std::vector<int64_t>{2}));
  ASSERT_OK_AND_ASSIGN(auto fixed, array.ToFixed());
  EXPECT_EQ(fixed.length(), 2);
}

}  // namespace quiver
