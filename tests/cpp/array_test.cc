#include "quiver/array.h"

#include "test_util.h"

namespace quiver {

using test::Primitive;
using test::Utf8;

TEST(ArrayData, IsValidAndNullCountHonourOffset) {
  ArrayDataPtr a = Primitive<int32_t>(int32(), {1, 2, 3, 4}, {true, false, true, false});
  EXPECT_EQ(a->ComputeNullCount(), 2);
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr s, Slice(a, 1, 2));
  EXPECT_EQ(s->offset, 1);
  EXPECT_FALSE(s->IsValid(0));
  EXPECT_TRUE(s->IsValid(1));
  EXPECT_EQ(s->ComputeNullCount(), 1);
  ASSERT_OK(Validate(*s));
}

TEST(ArrayData, SliceOutOfRange) {
  ArrayDataPtr a = Primitive<int8_t>(int8(), {1, 2, 3});
  EXPECT_ERROR(kIndexError, "outside an array of length 3", Slice(a, 2, 2));
  EXPECT_ERROR(kIndexError, "outside", Slice(a, -1, 1));
}

TEST(Validate, WrongBufferCount) {
  auto a = std::make_shared<ArrayData>(*Primitive<int32_t>(int32(), {1}));
  a->buffers.push_back(nullptr);
  EXPECT_ERROR(kInvalid, "needs 2 buffers, got 3", Validate(*a, ValidationLevel::kMinimal));
}

TEST(Validate, ValuesBufferTooSmall) {
  auto a = std::make_shared<ArrayData>(*Primitive<int32_t>(int32(), {1, 2}));
  a->length = 3;
  ASSERT_OK(Validate(*a, ValidationLevel::kMinimal));
  EXPECT_ERROR(kInvalid, "values buffer has 8 bytes, 12 needed",
               Validate(*a, ValidationLevel::kDefault));
}

TEST(Validate, NullCountMismatchOnlyAtFull) {
  auto a = std::make_shared<ArrayData>(*Primitive<int32_t>(int32(), {1, 2}, {true, false}));
  a->null_count = 0;
  ASSERT_OK(Validate(*a, ValidationLevel::kDefault));
  EXPECT_ERROR(kInvalid, "null_count is 0 but the validity bitmap has 1", Validate(*a));
}

TEST(Validate, Utf8OffsetsAndEncoding) {
  ArrayDataPtr good = Utf8({"ab", std::nullopt, "ü"});
  ASSERT_OK(Validate(*good));

  // Non-monotonic offsets: found only by full validation.
  auto bad = std::make_shared<ArrayData>(*good);
  bad->buffers[1] = test::BufferOf(std::vector<int32_t>{0, 2, 1, 4});
  ASSERT_OK(Validate(*bad, ValidationLevel::kDefault));
  EXPECT_ERROR(kInvalid, "offset 2 (1) < offset 1 (2)", Validate(*bad));

  // Last offset beyond the data buffer.
  bad->buffers[1] = test::BufferOf(std::vector<int32_t>{0, 2, 2, 9});
  EXPECT_ERROR(kInvalid, "outside [0, data size 4]", Validate(*bad, ValidationLevel::kDefault));

  // Invalid UTF-8 bytes.
  std::string bytes = "ab\xC3\x28";
  bad->buffers[1] = test::BufferOf(std::vector<int32_t>{0, 2, 2, 4});
  bad->buffers[2] = test::BufferFrom(bytes.data(), 4);
  EXPECT_ERROR(kInvalid, "row 2 is not valid UTF-8", Validate(*bad));
}

TEST(Validate, ChildErrorsNameThePath) {
  ArrayDataPtr child = Primitive<float>(float32(), {1, 2, 3});
  auto fsl = std::make_shared<ArrayData>();
  fsl->type = *fixed_size_list(ListItem(float32()), 2);
  fsl->length = 2;
  fsl->buffers = {nullptr};
  fsl->children = {child};
  EXPECT_ERROR(kInvalid, "child has length 3, 4 needed", Validate(*fsl));

  auto st = std::make_shared<ArrayData>();
  st->type = struct_({Field{"x", int32()}});
  st->length = 1;
  st->buffers = {nullptr};
  auto broken = std::make_shared<ArrayData>(*Primitive<int32_t>(int32(), {1}));
  broken->buffers = {nullptr, nullptr};
  st->children = {broken};
  EXPECT_ERROR(kInvalid, "child 0 (x): values buffer is missing", Validate(*st));
}

TEST(Validate, ChildTypeMustMatchField) {
  auto lst = std::make_shared<ArrayData>();
  lst->type = list(ListItem(int32()));
  lst->length = 1;
  lst->buffers = {nullptr, test::BufferOf(std::vector<int32_t>{0, 1})};
  lst->children = {Primitive<int64_t>(int64(), {7})};
  EXPECT_ERROR(kTypeError, "child 0 (item) does not have type int32", Validate(*lst));
}

TEST(Validate, ListOffsetsBeyondChild) {
  auto lst = std::make_shared<ArrayData>();
  lst->type = list(ListItem(int32()));
  lst->length = 2;
  lst->buffers = {nullptr, test::BufferOf(std::vector<int32_t>{0, 1, 5})};
  lst->children = {Primitive<int32_t>(int32(), {1, 2})};
  EXPECT_ERROR(kInvalid, "outside [0, child length 2]", Validate(*lst));
}

TEST(Validate, NegativeLengthAndOffset) {
  auto a = std::make_shared<ArrayData>(*Primitive<int8_t>(int8(), {1}));
  a->length = -1;
  EXPECT_ERROR(kInvalid, "negative length", Validate(*a, ValidationLevel::kMinimal));
  a->length = 1;
  a->offset = -3;
  EXPECT_ERROR(kInvalid, "negative offset", Validate(*a, ValidationLevel::kMinimal));
}

}  // namespace quiver
