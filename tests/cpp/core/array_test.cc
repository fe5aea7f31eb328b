// ArrayData and Validate: slots, slices, and validation at each level
// (minimal, default, full) of every layout: fixed-width, nulls, offsets,
// UTF-8, views, dictionaries, nesting and children.
#include "quiver/array.h"

#include <limits>
#include <random>

#include "quiver/internal/layout.h"
#include "quiver/record_batch.h"
#include "quiver/type.h"
#include "sample_arrays.h"
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
  for (auto level :
       {ValidationLevel::kMinimal, ValidationLevel::kDefault, ValidationLevel::kFull}) {
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

  // Valid as a whole, but a character split between rows 0 and 1: each row
  // is checked on its own.
  std::string split = "\xC3\xBC";  // "ü"
  bad->buffers[1] = test::BufferOf(std::vector<int32_t>{0, 1, 2, 2});
  bad->buffers[2] = test::BufferFrom(split.data(), 2);
  EXPECT_ERROR(kInvalid, "row 0 is not valid UTF-8", Validate(*bad));
  // ASCII runs longer than a word around multi-byte characters, and a bad
  // byte after a long ASCII run.
  ASSERT_OK(Validate(*Utf8({"plain ascii text", "größer als 8 bytes ü", "€ and 𝄞"})));
  ArrayDataPtr long_bad = Utf8({"0123456789abcdef", "0123456789abcdef"});
  auto corrupted = std::make_shared<ArrayData>(*long_bad);
  std::string bytes2 =
      "0123456789abcdef0123456789abc\xFF"
      "ef";
  corrupted->buffers[2] = test::BufferFrom(bytes2.data(), 32);
  EXPECT_ERROR(kInvalid, "row 1 is not valid UTF-8", Validate(*corrupted));
  // A slice checks only its rows.
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr first_only, Slice(corrupted, 0, 1));
  ASSERT_OK(Validate(*first_only));
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

using test::DictionaryOf;
using test::Views;
using test::WithView;

namespace {

using test::kMax;

using test::Timestamp;

ArrayDataPtr NullArray(int64_t length) {
  auto data = std::make_shared<ArrayData>();
  data->type = null();
  data->length = length;
  data->null_count = length;
  return data;
}

// Validation status at each level: minimal, default, full.
std::vector<Status> AtEachLevel(const ArrayData& data) {
  return {Validate(data, ValidationLevel::kMinimal), Validate(data, ValidationLevel::kDefault),
          Validate(data, ValidationLevel::kFull)};
}

}  // namespace

// --- validation: null and fixed-width ---------------------------------------

TEST(CoreTypes, NullArrays) {
  ArrayDataPtr nulls = NullArray(5);
  for (const Status& st : AtEachLevel(*nulls)) ASSERT_OK(st);
  EXPECT_FALSE(nulls->IsValid(0));
  EXPECT_EQ(nulls->ComputeNullCount(), 5);
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr sliced, Slice(nulls, 1, 3));
  EXPECT_EQ(sliced->null_count, 3);
  ASSERT_OK(Validate(*sliced));
  // A producer's 0 does not make null slots valid.
  auto zero = std::make_shared<ArrayData>(*nulls);
  zero->null_count = 0;
  ASSERT_OK(Validate(*zero));
  EXPECT_EQ(zero->ComputeNullCount(), 5);
  auto with_buffer = std::make_shared<ArrayData>(*nulls);
  with_buffer->buffers = {nullptr};
  EXPECT_ERROR(kInvalid, "type null needs 0 buffers, got 1",
               Validate(*with_buffer, ValidationLevel::kMinimal));
  EXPECT_TRUE(ArrayEquals(*nulls, *zero));
  EXPECT_FALSE(ArrayEquals(*nulls, *NullArray(4)));
  // A struct with a null-typed field.
  auto st = std::make_shared<ArrayData>();
  st->type = struct_({Field{"n", null()}, Field{"x", int32()}});
  st->length = 2;
  st->buffers = {nullptr};
  st->children = {NullArray(2), Primitive<int32_t>(int32(), {1, 2})};
  ASSERT_OK(Validate(*st));
  EXPECT_TRUE(ArrayEquals(*st, *st));
}

TEST(CoreTypes, FixedWidthBuffersAreSizedAtMinimal) {
  ArrayDataPtr dec =
      Primitive<int64_t>(*decimal128(10, 2), {1, 0, 2, 0}, {true, false, true, true});
  auto claimed = std::make_shared<ArrayData>(*dec);
  claimed->length = 2;
  ASSERT_OK(Validate(*claimed));
  claimed->length = 3;
  EXPECT_ERROR(kInvalid, "values buffer has 32 bytes, 48 needed for offset 0 + length 3",
               Validate(*claimed, ValidationLevel::kMinimal));
  ArrayDataPtr ts = Primitive<int64_t>(Timestamp(TimeUnit::kMicro, "UTC"), {1, 2, 3});
  ASSERT_OK(Validate(*ts));
  auto huge = std::make_shared<ArrayData>(*ts);
  huge->length = kMax / 4;
  EXPECT_ERROR(kInvalid, "overflows int64", Validate(*huge, ValidationLevel::kMinimal));
  ArrayDataPtr days = Primitive<int32_t>(date32(), {19000, 19001});
  ASSERT_OK(Validate(*days));
  EXPECT_TRUE(ArrayEquals(*days, *Primitive<int32_t>(date32(), {19000, 19001})));
  EXPECT_FALSE(ArrayEquals(*days, *Primitive<int32_t>(int32(), {19000, 19001})));
}

// --- validation: views ------------------------------------------------------

TEST(CoreTypes, ViewsValidateAtEveryLevel) {
  ArrayDataPtr views = Views({"a", std::nullopt, "a string longer than twelve", "", "twelve bytes",
                              "thirteen bytes", "and another long one"});
  ASSERT_EQ(views->buffers.size(), 4u);  // validity, views, two data buffers
  for (const Status& st : AtEachLevel(*views)) ASSERT_OK(st);
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr sliced, Slice(views, 2, 4));
  ASSERT_OK(Validate(*sliced));
  // No variadic buffers at all: only inline values.
  auto inline_only = std::make_shared<ArrayData>(*Views({"x", "yz"}));
  inline_only->buffers.resize(2);
  ASSERT_OK(Validate(*inline_only));
  // binary_view holds any bytes; utf8_view only UTF-8.
  ArrayDataPtr bytes = Views({std::string("\xff\xfe", 2), std::string(20, '\xff')}, binary_view());
  ASSERT_OK(Validate(*bytes));
  ArrayDataPtr bad_short = Views({"ok", std::string("\xff\xfe", 2)});
  EXPECT_ERROR(kInvalid, "row 1 is not valid UTF-8", Validate(*bad_short));
  ASSERT_OK(Validate(*bad_short, ValidationLevel::kDefault));
  ArrayDataPtr bad_long = Views({std::string("abcd") + std::string(20, '\xc0')});
  EXPECT_ERROR(kInvalid, "row 0 is not valid UTF-8", Validate(*bad_long));
}

TEST(CoreTypes, ViewBufferCountsAndSizesAtMinimal) {
  ArrayDataPtr views = Views({"a", "a string longer than twelve"});
  auto one_buffer = std::make_shared<ArrayData>(*views);
  one_buffer->buffers.resize(1);
  EXPECT_ERROR(kInvalid, "type utf8_view needs at least 2 buffers, got 1",
               Validate(*one_buffer, ValidationLevel::kMinimal));
  auto short_views = std::make_shared<ArrayData>(*views);
  short_views->buffers[1] = test::BufferFrom(views->buffers[1]->data(), 16);
  EXPECT_ERROR(kInvalid, "views buffer has 16 bytes, 32 needed for offset 0 + length 2",
               Validate(*short_views, ValidationLevel::kMinimal));
  auto missing = std::make_shared<ArrayData>(*views);
  missing->buffers[1] = nullptr;
  EXPECT_ERROR(kInvalid, "views buffer is missing (32 bytes needed)",
               Validate(*missing, ValidationLevel::kMinimal));
  auto huge = std::make_shared<ArrayData>(*views);
  huge->length = kMax / 2;
  EXPECT_ERROR(kInvalid, "views buffer size", Validate(*huge, ValidationLevel::kMinimal));
}

TEST(CoreTypes, HostileViewsFailAtFull) {
  ArrayDataPtr views = Views({"a", "a string longer than twelve", std::nullopt});
  struct Case {
    std::vector<uint8_t> view;
    const char* error;
  };
  auto raw = [](int32_t length, int32_t index, int32_t offset, const char* prefix = "a st") {
    std::vector<uint8_t> view(16, 0);
    std::memcpy(view.data(), &length, 4);
    std::memcpy(view.data() + 4, prefix, 4);
    std::memcpy(view.data() + 8, &index, 4);
    std::memcpy(view.data() + 12, &offset, 4);
    return view;
  };
  const int32_t max32 = std::numeric_limits<int32_t>::max();
  const std::vector<Case> cases = {
      {raw(27, 1, 0), "row 1: view points into variadic buffer 1, but the array has 1"},
      {raw(27, -1, 0), "row 1: view points into variadic buffer -1, but the array has 1"},
      {raw(27, 0, 1), "row 1: view [1, 28) is outside variadic buffer 0 of 27 bytes"},
      {raw(20, 0, max32), "row 1: view [2147483647, 2147483667) is outside variadic buffer 0"},
      {raw(max32, 0, max32), "is outside variadic buffer 0 of 27 bytes"},
      {raw(27, 0, -4), "row 1: view [-4, 23) is outside variadic buffer 0"},
      {raw(-1, 0, 0), "row 1: view length -1 is negative"},
      {raw(27, 0, 0, "zzzz"), "row 1: view prefix differs from the first 4 bytes of its value"},
      // Inline values are followed by zeros (the format's padding).
      {raw(3, 0, 0, "abcd"), "row 1: view is inline with 3 bytes, but the padding after them"},
      {raw(2, 7, 0, "ab\0\0"), "row 1: view is inline with 2 bytes, but the padding after them"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.error);
    ArrayDataPtr hostile = WithView(views, 1, c.view);
    ASSERT_OK(Validate(*hostile, ValidationLevel::kMinimal));
    ASSERT_OK(Validate(*hostile, ValidationLevel::kDefault));
    EXPECT_ERROR(kInvalid, c.error, Validate(*hostile, ValidationLevel::kFull));
  }
  // A null slot's view is never read, whatever it holds.
  ASSERT_OK(Validate(*WithView(views, 2, raw(-5, 99, -99))));
  // Twelve inline bytes leave no padding; zeros after a shorter value pass.
  ASSERT_OK(Validate(*WithView(views, 1, raw(12, 0x7a7a7a7a, 0x7a7a7a7a, "zzzz"))));
  ASSERT_OK(Validate(*WithView(views, 1, raw(4, 0, 0, "abcd"))));
  // A null variadic buffer counts as empty.
  auto dropped = std::make_shared<ArrayData>(*views);
  dropped->buffers[2] = nullptr;
  EXPECT_ERROR(kInvalid, "row 1: view [0, 27) is outside variadic buffer 0 of 0 bytes",
               Validate(*dropped));
}

// --- validation: dictionaries -----------------------------------------------

TEST(CoreTypes, DictionariesValidateAtEveryLevel) {
  ArrayDataPtr dict = DictionaryOf({0, 1, std::nullopt, 0}, Utf8({"a", "b"}));
  for (const Status& st : AtEachLevel(*dict)) ASSERT_OK(st);
  EXPECT_FALSE(dict->IsValid(2));
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr sliced, Slice(dict, 1, 3));
  EXPECT_EQ(sliced->dictionary, dict->dictionary);  // not sliced with the indices
  ASSERT_OK(Validate(*sliced));
  // A dictionary with nulls of its own, sliced.
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr values, Slice(Utf8({"x", std::nullopt, "y", "z"}), 1, 3));
  ASSERT_OK(Validate(*DictionaryOf({0, 2, 1}, values)));
  EXPECT_ERROR(kInvalid, "row 0: dictionary index 3 is outside a dictionary of 3 values",
               Validate(*DictionaryOf({3}, values)));
  // Unsigned indices.
  ASSERT_OK(Validate(*DictionaryOf({1, 0}, Utf8({"a", "b"}), uint32())));
}

TEST(CoreTypes, HostileDictionaries) {
  ArrayDataPtr values = Utf8({"a", "b", "c"});
  ArrayDataPtr out_of_range = DictionaryOf({0, 1, 7}, values);
  ASSERT_OK(Validate(*out_of_range, ValidationLevel::kMinimal));
  ASSERT_OK(Validate(*out_of_range, ValidationLevel::kDefault));
  EXPECT_ERROR(kInvalid, "row 2: dictionary index 7 is outside a dictionary of 3 values",
               Validate(*out_of_range));
  EXPECT_ERROR(kInvalid, "row 0: dictionary index -1 is outside",
               Validate(*DictionaryOf({-1}, values)));
  // A null index may hold anything.
  ASSERT_OK(Validate(*DictionaryOf({std::nullopt, 2}, values)));
  // uint64 indices past INT64_MAX.
  auto huge_index = std::make_shared<ArrayData>();
  huge_index->type = *dictionary(uint64(), utf8());
  huge_index->length = 1;
  huge_index->buffers = {nullptr, test::BufferOf(std::vector<uint64_t>{~uint64_t{0}})};
  huge_index->dictionary = values;
  EXPECT_ERROR(kInvalid, "row 0: dictionary index above 2^63 - 1", Validate(*huge_index));

  auto missing = std::make_shared<ArrayData>(*DictionaryOf({0}, values));
  missing->dictionary = nullptr;
  EXPECT_ERROR(kInvalid, "has no dictionary", Validate(*missing, ValidationLevel::kMinimal));
  auto wrong_type = std::make_shared<ArrayData>(*DictionaryOf({0}, values));
  wrong_type->dictionary = Primitive<int32_t>(int32(), {1});
  EXPECT_ERROR(kTypeError, "dictionary does not have type utf8 (it has int32)",
               Validate(*wrong_type, ValidationLevel::kMinimal));
  auto stray = std::make_shared<ArrayData>(*Primitive<int32_t>(int32(), {0}));
  stray->dictionary = values;
  EXPECT_ERROR(kInvalid, "array of type int32 carries a dictionary", Validate(*stray));
  // The dictionary itself is validated, with its path.
  auto bad_values = std::make_shared<ArrayData>(*values);
  bad_values->buffers[1] = test::BufferOf(std::vector<int32_t>{0, 2, 1, 3});
  EXPECT_ERROR(kInvalid, "dictionary: offset 2 (1) < offset 1 (2)",
               Validate(*DictionaryOf({0}, bad_values)));
  auto short_values = std::make_shared<ArrayData>(*values);
  short_values->length = 9;
  EXPECT_ERROR(kInvalid, "dictionary: offsets buffer has 16 bytes, 40 needed",
               Validate(*DictionaryOf({0}, short_values), ValidationLevel::kMinimal));
  // Indices sized like any values buffer.
  auto short_indices = std::make_shared<ArrayData>(*DictionaryOf({0, 1}, values));
  short_indices->length = 3;
  EXPECT_ERROR(kInvalid, "values buffer has 8 bytes, 12 needed",
               Validate(*short_indices, ValidationLevel::kMinimal));
  // Inside a struct, errors carry the whole path.
  auto st = std::make_shared<ArrayData>();
  st->type = struct_({Field{"labels", out_of_range->type}});
  st->length = 3;
  st->buffers = {nullptr};
  st->children = {out_of_range};
  EXPECT_ERROR(kInvalid, "child 0 (labels): row 2: dictionary index 7", Validate(*st));
}

TEST(CoreTypes, DeeplyNestedDictionariesAreRefused) {
  TypePtr type = int8();
  for (int i = 0; i < 70; ++i) type = *dictionary(int8(), type);
  EXPECT_EQ(type->nesting_depth(), 70);
  auto data = std::make_shared<ArrayData>();
  data->type = type;
  EXPECT_ERROR(kInvalid, "type nests 70 levels deep, more than the limit of 64", Validate(*data));
  // A valid two-level chain validates (and compares) all the way down.
  ArrayDataPtr inner = DictionaryOf({1, 0}, Utf8({"p", "q"}));
  ArrayDataPtr outer = DictionaryOf({1, 1, 0}, inner);
  ASSERT_OK(Validate(*outer));
  ArrayDataPtr bad_inner = DictionaryOf({1, 5}, Utf8({"p", "q"}));
  EXPECT_ERROR(kInvalid, "dictionary: row 1: dictionary index 5",
               Validate(*DictionaryOf({0}, bad_inner)));
  EXPECT_TRUE(
      ArrayEquals(*outer, *DictionaryOf({0, 0, 1}, DictionaryOf({0, 1}, Utf8({"p", "q"})))));
}

// Whatever kFull accepts is safe to read completely: random views over
// buffers of exactly their size (so ASan sees any byte read past them).
TEST(CoreTypes, ValidatedViewsAndIndicesAreSafeToWalk) {
  std::mt19937 random(7);
  auto pick = [&random](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(random);
  };
  std::vector<std::vector<uint8_t>> storage = {std::vector<uint8_t>(20, 'x'),
                                               std::vector<uint8_t>(33, 'y')};
  int accepted = 0;
  for (int round = 0; round < 3000; ++round) {
    const int length = pick(1, 4);
    std::vector<uint8_t> views;
    for (int i = 0; i < length; ++i) {
      std::vector<uint8_t> view(16, 0);
      const int32_t value_length = pick(-2, 40), index = pick(-1, 2), offset = pick(-3, 30);
      std::memcpy(view.data(), &value_length, 4);
      if (value_length <= 12) {  // inline: the value, then zeros
        std::memset(view.data() + 4, 'x', static_cast<size_t>(std::max(value_length, 0)));
      } else {
        std::memset(view.data() + 4, pick(0, 1) ? 'x' : 'y', 4);
        std::memcpy(view.data() + 8, &index, 4);
        std::memcpy(view.data() + 12, &offset, 4);
      }
      views.insert(views.end(), view.begin(), view.end());
    }
    auto data = std::make_shared<ArrayData>();
    data->type = binary_view();
    data->length = length;
    data->buffers = {nullptr,
                     Buffer::Wrap(views.data(), static_cast<int64_t>(views.size()), [] {})};
    for (const auto& bytes : storage) {
      data->buffers.push_back(
          Buffer::Wrap(bytes.data(), static_cast<int64_t>(bytes.size()), [] {}));
    }
    // A dictionary over the views with random indices, some out of range.
    std::vector<int16_t> indices = {static_cast<int16_t>(pick(-1, length)),
                                    static_cast<int16_t>(pick(-1, length))};
    auto dict = std::make_shared<ArrayData>();
    dict->type = *dictionary(int16(), binary_view());
    dict->length = 2;
    dict->buffers = {nullptr, Buffer::Wrap(indices.data(), 4, [] {})};
    dict->dictionary = data;
    if (!Validate(*dict).ok()) continue;
    ++accepted;
    uint64_t sum = 0;
    for (int16_t index : indices) {
      const internal::BinaryView view = internal::ReadView(data->buffers[1]->data(), index);
      const uint8_t* bytes =
          view.is_inline()
              ? data->buffers[1]->data() + index * 16 + 4
              : data->buffers[static_cast<size_t>(view.buffer_index) + 2]->data() + view.offset;
      for (int32_t k = 0; k < view.length; ++k) sum += bytes[k];
    }
    EXPECT_TRUE(ArrayEquals(*dict, *dict));
    EXPECT_GE(sum, 0u);
  }
  EXPECT_GT(accepted, 50);  // the walk above really ran
}

TEST(NewTypesValidate, SamplesAreValidAtEveryLevel) {
  for (const auto& [name, data] : test::AllNewTypeSamples()) {
    for (ValidationLevel level :
         {ValidationLevel::kMinimal, ValidationLevel::kDefault, ValidationLevel::kFull}) {
      Status st = Validate(*data, level);
      EXPECT_TRUE(st.ok()) << name << ": " << st.ToString();
    }
    ASSERT_OK_AND_ASSIGN(ArrayDataPtr part, Slice(data, 1, data->length - 2));
    EXPECT_TRUE(Validate(*part).ok()) << name;
  }
}

TEST(NewTypesValidate, UnionsHaveNoValidityAndCheckTypeIdsAndOffsets) {
  ArrayDataPtr sparse = test::SparseUnionSample();
  EXPECT_TRUE(sparse->IsValid(0));
  EXPECT_EQ(sparse->ComputeNullCount(), 0);
  auto counted = std::make_shared<ArrayData>(*sparse);
  counted->null_count = 1;
  EXPECT_ERROR(kInvalid, "has no nulls of its own", Validate(*counted, ValidationLevel::kMinimal));
  auto bad_id = std::make_shared<ArrayData>(*sparse);
  bad_id->buffers[0] = test::BufferOf<int8_t>({0, 1, 2, 1});
  EXPECT_TRUE(Validate(*bad_id, ValidationLevel::kDefault).ok());
  EXPECT_ERROR(kInvalid, "row 2: union type id 2 names no child", Validate(*bad_id));
  auto short_child = std::make_shared<ArrayData>(*sparse);
  short_child->children[1] = test::Utf8({"a"});
  EXPECT_ERROR(kInvalid, "child 1 (s) has length 1 < 4",
               Validate(*short_child, ValidationLevel::kMinimal));
  auto short_ids = std::make_shared<ArrayData>(*sparse);
  short_ids->buffers[0] = test::BufferOf<int8_t>({0});
  EXPECT_ERROR(kInvalid, "type ids buffer has 1 bytes, 4 needed",
               Validate(*short_ids, ValidationLevel::kMinimal));

  ArrayDataPtr dense = test::DenseUnionSample();
  auto bad_offset = std::make_shared<ArrayData>(*dense);
  bad_offset->buffers[1] = test::BufferOf<int32_t>({0, 0, 1, 3, 1});
  EXPECT_ERROR(kInvalid, "row 3: union offset 3 is outside child 0 (f) of 3 values",
               Validate(*bad_offset));
  bad_offset->buffers[1] = test::BufferOf<int32_t>({0, -1, 1, 2, 1});
  EXPECT_ERROR(kInvalid, "row 1: union offset -1 is outside child 1 (s)", Validate(*bad_offset));
}

TEST(NewTypesValidate, ListViewsStayInsideTheirChild) {
  ArrayDataPtr views = test::ListViewSample();
  auto bad = std::make_shared<ArrayData>(*views);
  bad->buffers[2] = test::BufferOf<int32_t>({3, 0, 1, 3});  // 3 + 3 > 5
  EXPECT_TRUE(Validate(*bad, ValidationLevel::kDefault).ok());
  EXPECT_ERROR(kInvalid, "row 0: list view offset 3 and size 3 are outside a child of 5",
               Validate(*bad));
  bad->buffers[2] = test::BufferOf<int32_t>({2, 0, -1, 3});
  EXPECT_ERROR(kInvalid, "row 2: list view offset 0 and size -1", Validate(*bad));
  // A null slot (row 1) must stay inside the child too.
  bad->buffers[2] = test::BufferOf<int32_t>({2, 77, 1, 3});
  EXPECT_ERROR(kInvalid, "row 1 (null): list view offset 5 and size 77 are outside a child of 5",
               Validate(*bad));
  bad->buffers[2] = test::BufferOf<int32_t>({2});
  EXPECT_ERROR(kInvalid, "sizes buffer has 4 bytes, 16 needed",
               Validate(*bad, ValidationLevel::kMinimal));
}

TEST(NewTypesValidate, MapKeysAreNeverNull) {
  ArrayDataPtr map = test::MapSample();
  auto entries = std::make_shared<ArrayData>(*map->children[0]);
  entries->children[0] = test::Utf8({"a", std::nullopt, "c"});
  auto bad = std::make_shared<ArrayData>(*map);
  bad->children[0] = entries;
  EXPECT_ERROR(kInvalid, "map entry 1 has a null key", Validate(*bad));
  // Rows that do not reach the null key are fine.
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr tail, Slice(bad, 1, 3));
  EXPECT_TRUE(Validate(*tail).ok());
  auto past = std::make_shared<ArrayData>(*map);
  past->buffers[1] = test::BufferOf<int32_t>({0, 2, 2, 2, 4});
  EXPECT_ERROR(kInvalid, "offsets [0, 4] are outside [0, child length 3]",
               Validate(*past, ValidationLevel::kDefault));
}

TEST(NewTypesValidate, RunEndsIncreaseAndCoverTheArray) {
  ArrayDataPtr ree = test::RunEndSample();
  EXPECT_EQ(RunEndEncodedIndex(*ree, 0), 0);
  EXPECT_EQ(RunEndEncodedIndex(*ree, 1), 0);
  EXPECT_EQ(RunEndEncodedIndex(*ree, 2), 1);
  EXPECT_EQ(RunEndEncodedIndex(*ree, 5), 2);
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr tail, Slice(ree, 3, 3));
  EXPECT_EQ(RunEndEncodedIndex(*tail, 0), 2);
  auto bad = std::make_shared<ArrayData>(*ree);
  bad->children[0] = Primitive<int32_t>(int32(), {2, 2, 6});
  EXPECT_TRUE(Validate(*bad, ValidationLevel::kDefault).ok());
  EXPECT_ERROR(kInvalid, "run end 1 (2) is not greater than run end 2", Validate(*bad));
  bad->children[0] = Primitive<int32_t>(int32(), {0, 3, 6});
  EXPECT_ERROR(kInvalid, "run end 0 (0) is not greater than 0", Validate(*bad));
  bad->children[0] = Primitive<int32_t>(int32(), {2, 3, 5});
  EXPECT_ERROR(kInvalid, "run ends cover 5 rows, 6 needed",
               Validate(*bad, ValidationLevel::kDefault));
  bad->children[0] = Primitive<int32_t>(int32(), {2, 3});
  EXPECT_ERROR(kInvalid, "run_ends has length 2 but values 3",
               Validate(*bad, ValidationLevel::kMinimal));
  bad->children[0] = Primitive<int32_t>(int32(), {2, 3, 6}, {true, false, true});
  EXPECT_ERROR(kInvalid, "run_ends has nulls", Validate(*bad));
  bad->children[0] = Primitive<int32_t>(int32(), {2, 3, 6});
  bad->buffers = {nullptr};
  EXPECT_ERROR(kInvalid, "needs 0 buffers, got 1", Validate(*bad, ValidationLevel::kMinimal));
}

// --- slot readers: ValueRange, GetBool, DictionaryIndex ----------------------

namespace {

// Offsets {0, 2, 2, 5} of the given width: values of 2, 0 and 3 entries.
BufferPtr Offsets(int64_t width) {
  return width == 8 ? test::BufferOf<int64_t>({0, 2, 2, 5}) : test::BufferOf<int32_t>({0, 2, 2, 5});
}

}  // namespace

TEST(SlotReaders, ValueRangeReadsOffsetsOfEitherWidth) {
  const auto bytes = test::BufferOf<uint8_t>({'a', 'b', 'c', 'd', 'e'});
  auto item = Primitive<int8_t>(int8(), {1, 2, 3, 4, 5});
  auto map_entries = test::MapSample()->children[0];  // 3 entries
  auto long_entries = std::make_shared<ArrayData>(*map_entries);
  long_entries->children = {Utf8({"a", "b", "c", "d", "e"}),
                            Primitive<int32_t>(int32(), {1, 2, 3, 4, 5})};
  long_entries->length = 5;
  const std::vector<std::pair<ArrayDataPtr, int64_t>> cases = {
      {test::Node(utf8(), 3, {nullptr, Offsets(4), bytes}), 4},
      {test::Node(binary(), 3, {nullptr, Offsets(4), bytes}), 4},
      {test::Node(large_utf8(), 3, {nullptr, Offsets(8), bytes}), 8},
      {test::Node(large_binary(), 3, {nullptr, Offsets(8), bytes}), 8},
      {test::Node(list(ListItem(int8())), 3, {nullptr, Offsets(4)}, {item}), 4},
      {test::Node(large_list(ListItem(int8())), 3, {nullptr, Offsets(8)}, {item}), 8},
      {test::Node(*map_(utf8(), int32()), 3, {nullptr, Offsets(4)}, {long_entries}), 4},
  };
  for (const auto& [array, width] : cases) {
    SCOPED_TRACE(array->type->ToString());
    ASSERT_OK(Validate(*array));
    EXPECT_EQ(ValueRange(*array, 0), (Range{0, 2}));
    EXPECT_EQ(ValueRange(*array, 1), (Range{2, 2}));
    EXPECT_EQ(ValueRange(*array, 2), (Range{2, 5}));
    EXPECT_EQ(ValueRange(*array, 2).length(), 3);
    // A slice reads from its offset: its slot 0 is the parent's slot 1.
    ASSERT_OK_AND_ASSIGN(ArrayDataPtr tail, Slice(array, 1, 2));
    EXPECT_EQ(ValueRange(*tail, 0), (Range{2, 2}));
    EXPECT_EQ(ValueRange(*tail, 1), (Range{2, 5}));
  }
}

TEST(SlotReaders, ValueRangeOfListViewsAndFixedSizeLists) {
  for (bool large : {false, true}) {
    ArrayDataPtr views = test::ListViewSample(large);  // [[4, 5], null, [1], [2, 3, 4]]
    SCOPED_TRACE(views->type->ToString());
    EXPECT_EQ(ValueRange(*views, 0), (Range{3, 5}));
    EXPECT_EQ(ValueRange(*views, 1), (Range{5, 5}));  // null: as stored
    EXPECT_EQ(ValueRange(*views, 2), (Range{0, 1}));
    EXPECT_EQ(ValueRange(*views, 3), (Range{1, 4}));
    ASSERT_OK_AND_ASSIGN(ArrayDataPtr tail, Slice(views, 2, 2));
    EXPECT_EQ(ValueRange(*tail, 1), (Range{1, 4}));
  }
  ASSERT_OK_AND_ASSIGN(TypePtr triples, fixed_size_list(ListItem(int8()), 3));
  auto child = Primitive<int8_t>(int8(), {0, 1, 2, 3, 4, 5, 6, 7, 8});
  ArrayDataPtr lists = test::Node(triples, 3, {nullptr}, {child});
  ASSERT_OK(Validate(*lists));
  EXPECT_EQ(ValueRange(*lists, 0), (Range{0, 3}));
  EXPECT_EQ(ValueRange(*lists, 2), (Range{6, 9}));
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr tail, Slice(lists, 1, 2));
  EXPECT_EQ(ValueRange(*tail, 0), (Range{3, 6}));
  // Types without value ranges give an empty one.
  EXPECT_EQ(ValueRange(*Primitive<int32_t>(int32(), {7}), 0), (Range{}));
}

TEST(SlotReaders, GetBoolReadsBitsAndBool8) {
  // Bits 0..9: 1 0 1 1 0 0 0 0 | 1 0 (LSB first), the slice crossing a byte.
  auto bits = test::Node(boolean(), 10, {nullptr, test::BufferOf<uint8_t>({0b00001101, 0b01})});
  ASSERT_OK(Validate(*bits));
  const std::vector<bool> expected = {true,  false, true,  true, false,
                                      false, false, false, true, false};
  for (int64_t i = 0; i < 10; ++i) EXPECT_EQ(GetBool(*bits, i), expected[i]) << i;
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr tail, Slice(bits, 7, 3));
  EXPECT_FALSE(GetBool(*tail, 0));
  EXPECT_TRUE(GetBool(*tail, 1));
  EXPECT_FALSE(GetBool(*tail, 2));
  // bool8: one int8 per slot, any nonzero byte is true.
  auto bytes = Primitive<int8_t>(bool8(), {0, 1, -1, 2});
  EXPECT_FALSE(GetBool(*bytes, 0));
  EXPECT_TRUE(GetBool(*bytes, 1));
  EXPECT_TRUE(GetBool(*bytes, 2));
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr bytes_tail, Slice(bytes, 3, 1));
  EXPECT_TRUE(GetBool(*bytes_tail, 0));
  EXPECT_FALSE(GetBool(*Primitive<int32_t>(int32(), {1}), 0));
}

TEST(SlotReaders, DictionaryIndexWidensEveryIntegerType) {
  ArrayDataPtr values = Utf8({"a", "b", "c"});
  auto with = [&](TypePtr index_type, BufferPtr indices) {
    return test::Node(*dictionary(std::move(index_type), utf8()), 3, {nullptr, indices});
  };
  const std::vector<std::pair<ArrayDataPtr, std::vector<int64_t>>> cases = {
      {with(int8(), test::BufferOf<int8_t>({2, -1, -128})), {2, -1, -128}},
      {with(int16(), test::BufferOf<int16_t>({2, -1, -32768})), {2, -1, -32768}},
      {with(int32(), test::BufferOf<int32_t>({2, -1, INT32_MIN})), {2, -1, INT32_MIN}},
      {with(int64(), test::BufferOf<int64_t>({2, -1, INT64_MIN})), {2, -1, INT64_MIN}},
      {with(uint8(), test::BufferOf<uint8_t>({2, 255, 128})), {2, 255, 128}},
      {with(uint16(), test::BufferOf<uint16_t>({2, 65535, 32768})), {2, 65535, 32768}},
      {with(uint32(), test::BufferOf<uint32_t>({2, UINT32_MAX, 1u << 31})),
       {2, UINT32_MAX, int64_t{1} << 31}},
      // A uint64 index above INT64_MAX reads as -1: outside any dictionary.
      {with(uint64(), test::BufferOf<uint64_t>({2, uint64_t{INT64_MAX}, uint64_t{1} << 63})),
       {2, INT64_MAX, -1}},
  };
  for (const auto& [array, expected] : cases) {
    SCOPED_TRACE(array->type->ToString());
    for (int64_t i = 0; i < 3; ++i) EXPECT_EQ(DictionaryIndex(*array, i), expected[i]) << i;
    ASSERT_OK_AND_ASSIGN(ArrayDataPtr tail, Slice(array, 1, 2));
    EXPECT_EQ(DictionaryIndex(*tail, 0), expected[1]);
    EXPECT_EQ(DictionaryIndex(*tail, 1), expected[2]);
  }
  ArrayDataPtr dict = DictionaryOf({1, std::nullopt, 0}, values);
  ASSERT_OK(Validate(*dict));
  EXPECT_EQ(DictionaryIndex(*dict, 0), 1);
  EXPECT_EQ(DictionaryIndex(*dict, 2), 0);
}

}  // namespace quiver
