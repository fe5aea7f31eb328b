#include "quiver/array.h"

#include <limits>

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

TEST(Validate, ValuesBufferTooSmallAtEveryLevel) {
  auto a = std::make_shared<ArrayData>(*Primitive<int32_t>(int32(), {1, 2}));
  a->length = 3;
  ASSERT_OK(Validate(*a, ValidationLevel::kNone));
  // Buffer sizes follow from the lengths: kMinimal checks them, so an O(1)
  // accessor on anything that passes stays in bounds.
  for (auto level : {ValidationLevel::kMinimal, ValidationLevel::kDefault, ValidationLevel::kFull}) {
    EXPECT_ERROR(kInvalid, "values buffer has 8 bytes, 12 needed", Validate(*a, level));
  }
}

TEST(Validate, MinimalChecksOffsetsBufferSize) {
  // A foreign offsets buffer shorter than length + 1 entries.
  ArrayDataPtr good = Utf8({"ab", "c", "d"});
  auto bad = std::make_shared<ArrayData>(*good);
  bad->buffers[1] = test::BufferOf(std::vector<int32_t>{0, 2});
  EXPECT_ERROR(kInvalid, "offsets buffer has 8 bytes, 16 needed",
               Validate(*bad, ValidationLevel::kMinimal));
  // Offsets that point past the data are a kDefault matter.
  bad->buffers[1] = test::BufferOf(std::vector<int32_t>{0, 2, 3, 99});
  ASSERT_OK(Validate(*bad, ValidationLevel::kMinimal));
  EXPECT_ERROR(kInvalid, "outside [0, data size 4]", Validate(*bad, ValidationLevel::kDefault));
}

TEST(Validate, WideFixedSizeBinaryNeedsItsBytes) {
  // 2^28-byte values: 2^31 bits, which an int width would have wrapped.
  ASSERT_OK_AND_ASSIGN(TypePtr wide, fixed_size_binary(268435456));
  auto a = std::make_shared<ArrayData>();
  a->type = wide;
  a->length = 1;
  a->null_count = 0;
  a->buffers = {nullptr, test::BufferOf(std::vector<int64_t>{1, 2})};
  EXPECT_ERROR(kInvalid, "values buffer has 16 bytes, 268435456 needed",
               Validate(*a, ValidationLevel::kMinimal));
  ASSERT_OK_AND_ASSIGN(a->type, fixed_size_binary(std::numeric_limits<int32_t>::max()));
  EXPECT_ERROR(kInvalid, "2147483647 needed", Validate(*a));
}

TEST(Validate, HugeLengthsAreErrorsNotOverflow) {
  const int64_t max = std::numeric_limits<int64_t>::max();
  auto a = std::make_shared<ArrayData>(*Primitive<int8_t>(int8(), {1, 2}, {true, false}));
  a->length = max;
  a->null_count = kUnknownNullCount;
  EXPECT_ERROR(kInvalid, "validity buffer has", Validate(*a, ValidationLevel::kMinimal));
  a->buffers[0] = nullptr;
  EXPECT_ERROR(kInvalid, "values buffer has", Validate(*a, ValidationLevel::kMinimal));
  auto wide = std::make_shared<ArrayData>(*Primitive<int64_t>(int64(), {1}));
  wide->length = max / 4;
  EXPECT_ERROR(kInvalid, "overflows int64", Validate(*wide, ValidationLevel::kMinimal));
  ArrayDataPtr text = Utf8({"a"});
  auto long_text = std::make_shared<ArrayData>(*text);
  long_text->length = max;
  EXPECT_ERROR(kInvalid, "overflows int64", Validate(*long_text, ValidationLevel::kMinimal));
  long_text->length = 1;
  long_text->offset = max;
  EXPECT_ERROR(kInvalid, "offset + length", Validate(*long_text, ValidationLevel::kMinimal));
}

TEST(Validate, NestingDepthIsCapped) {
  // 10,000 nested lists would overflow the stack of a naive recursion.
  ArrayDataPtr node = Primitive<int8_t>(int8(), {});
  for (int depth = 0; depth < 10000; ++depth) {
    auto list_data = std::make_shared<ArrayData>();
    list_data->type = list(ListItem(node->type));
    list_data->buffers = {nullptr, nullptr};
    list_data->children = {node};
    node = list_data;
  }
  EXPECT_ERROR(kInvalid, "type nests 10000 levels deep, more than the limit of 64",
               Validate(*node, ValidationLevel::kMinimal));
  // 64 levels are fine.
  node = Primitive<int8_t>(int8(), {});
  for (int depth = 0; depth < kMaxNestingDepth; ++depth) {
    auto list_data = std::make_shared<ArrayData>();
    list_data->type = list(ListItem(node->type));
    list_data->buffers = {nullptr, nullptr};
    list_data->children = {node};
    node = list_data;
  }
  ASSERT_OK(Validate(*node));
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
  EXPECT_ERROR(kInvalid, "child has length 3, 4 needed", Validate(*fsl, ValidationLevel::kMinimal));

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

TEST(Validate, CanonicalExtensionsAtEveryDepth) {
  // A struct field typed arrow.fixed_shape_tensor whose shape [5, 5] does
  // not match its fixed_size_list[6] storage.
  ASSERT_OK_AND_ASSIGN(TypePtr storage, fixed_size_list(ListItem(float32()), 6));
  ASSERT_OK_AND_ASSIGN(TypePtr bad_tensor,
                       extension("arrow.fixed_shape_tensor", "{\"shape\":[5,5]}", storage));
  auto cells = std::make_shared<ArrayData>();
  cells->type = bad_tensor;
  cells->length = 0;
  cells->buffers = {nullptr};
  cells->children = {Primitive<float>(float32(), {})};
  auto outer = std::make_shared<ArrayData>();
  outer->type = struct_({Field{"images", bad_tensor}});
  outer->buffers = {nullptr};
  outer->children = {cells};
  ASSERT_OK(Validate(*outer, ValidationLevel::kDefault));
  EXPECT_ERROR(kInvalid, "child 0 (images): ", Validate(*outer));
  EXPECT_ERROR(kInvalid, "has 25 elements but the storage list size is 6", Validate(*outer));
}

}  // namespace quiver
