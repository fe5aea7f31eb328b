// The types real files and producers carry: null, dates, times,
// timestamps, durations, decimals, binary views and dictionaries. Their
// factories, layout rows, validation at each level and value equality.
#include "core_types_test.h"

#include <limits>
#include <random>

#include "quiver/extension/canonical_extensions.h"
#include "quiver/internal/layout.h"
#include "quiver/record_batch.h"
#include "quiver/type.h"

namespace quiver {

using internal::BufferRole;
using internal::Layout;
using internal::LayoutOf;
using test::DictionaryOf;
using test::Primitive;
using test::Utf8;
using test::ViewBytes;
using test::Views;
using test::WithView;

namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

TypePtr Timestamp(TimeUnit unit, std::string tz = "") { return *timestamp(unit, std::move(tz)); }

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

// --- types ------------------------------------------------------------------

TEST(CoreTypes, ExistingTypeIdsKeepTheirValues) {
  static_assert(static_cast<int>(TypeId::kInt8) == 0);
  static_assert(static_cast<int>(TypeId::kStruct) == 20);
  static_assert(static_cast<int>(TypeId::kExtension) == 21);
  static_assert(static_cast<int>(TypeId::kNull) == 22);
  static_assert(static_cast<int>(TypeId::kDictionary) == 33);
}

TEST(CoreTypes, ToStringAndAccessors) {
  EXPECT_EQ(null()->ToString(), "null");
  EXPECT_EQ(date32()->ToString(), "date32[day]");
  EXPECT_EQ(date64()->ToString(), "date64[ms]");
  EXPECT_EQ((*time32(TimeUnit::kMilli))->ToString(), "time32[ms]");
  EXPECT_EQ((*time64(TimeUnit::kNano))->ToString(), "time64[ns]");
  EXPECT_EQ((*duration(TimeUnit::kSecond))->ToString(), "duration[s]");
  TypePtr paris = Timestamp(TimeUnit::kMicro, "Europe/Paris");
  EXPECT_EQ(paris->ToString(), "timestamp[us, tz=Europe/Paris]");
  EXPECT_EQ(paris->time_unit(), TimeUnit::kMicro);
  EXPECT_EQ(paris->timezone(), "Europe/Paris");
  EXPECT_EQ(Timestamp(TimeUnit::kNano)->ToString(), "timestamp[ns]");
  ASSERT_OK_AND_ASSIGN(TypePtr dec, decimal128(10, 2));
  EXPECT_EQ(dec->ToString(), "decimal128(10, 2)");
  EXPECT_EQ(dec->precision(), 10);
  EXPECT_EQ(dec->scale(), 2);
  EXPECT_EQ((*decimal256(76, -3))->ToString(), "decimal256(76, -3)");
  EXPECT_EQ(utf8_view()->ToString(), "utf8_view");
  EXPECT_EQ(binary_view()->ToString(), "binary_view");
  ASSERT_OK_AND_ASSIGN(TypePtr dict, dictionary(int32(), utf8()));
  EXPECT_EQ(dict->ToString(), "dictionary<values=utf8, indices=int32, ordered=0>");
  EXPECT_TRUE(dict->index_type()->Equals(*int32()));
  EXPECT_TRUE(dict->value_type()->Equals(*utf8()));
  EXPECT_FALSE(dict->ordered());
  EXPECT_TRUE((*dictionary(uint8(), utf8(), true))->ordered());
  EXPECT_EQ(int32()->index_type(), nullptr);
}

TEST(CoreTypes, WidthsAndCategories) {
  EXPECT_EQ(date32()->bit_width(), 32);
  EXPECT_EQ(date64()->byte_width(), 8);
  EXPECT_EQ((*time32(TimeUnit::kSecond))->bit_width(), 32);
  EXPECT_EQ(Timestamp(TimeUnit::kSecond)->byte_width(), 8);
  EXPECT_EQ((*decimal128(5, 0))->byte_width(), 16);
  EXPECT_EQ((*decimal256(5, 0))->byte_width(), 32);
  EXPECT_EQ(null()->bit_width(), 0);
  EXPECT_EQ(utf8_view()->bit_width(), 0);
  EXPECT_EQ((*dictionary(int16(), utf8()))->bit_width(), 16);
  for (const TypePtr& type :
       {null(), date32(), date64(), *time32(TimeUnit::kSecond), *time64(TimeUnit::kMicro),
        Timestamp(TimeUnit::kMilli), *duration(TimeUnit::kNano), *decimal128(3, 1),
        *decimal256(3, 1), utf8_view(), binary_view(), *dictionary(int8(), float32())}) {
    SCOPED_TRACE(type->ToString());
    EXPECT_FALSE(type->is_integer());
    EXPECT_FALSE(type->is_numeric());
    EXPECT_FALSE(type->is_tensor_value());
    EXPECT_EQ(type->nesting_depth(), type->id() == TypeId::kDictionary ? 1 : 0);
  }
  EXPECT_EQ((*dictionary(int32(), list(ListItem(int8()))))->nesting_depth(), 2);
}

TEST(CoreTypes, EqualityComparesEveryParameter) {
  EXPECT_TRUE(Timestamp(TimeUnit::kMicro, "UTC")->Equals(*Timestamp(TimeUnit::kMicro, "UTC")));
  EXPECT_FALSE(Timestamp(TimeUnit::kMicro, "UTC")->Equals(*Timestamp(TimeUnit::kMicro)));
  EXPECT_FALSE(Timestamp(TimeUnit::kMicro)->Equals(*Timestamp(TimeUnit::kNano)));
  EXPECT_FALSE((*duration(TimeUnit::kMicro))->Equals(*Timestamp(TimeUnit::kMicro)));
  EXPECT_FALSE((*time32(TimeUnit::kSecond))->Equals(**time32(TimeUnit::kMilli)));
  EXPECT_TRUE((*decimal128(10, 2))->Equals(**decimal128(10, 2)));
  EXPECT_FALSE((*decimal128(10, 2))->Equals(**decimal128(10, 3)));
  EXPECT_FALSE((*decimal128(10, 2))->Equals(**decimal256(10, 2)));
  EXPECT_FALSE(utf8_view()->Equals(*binary_view()));
  EXPECT_FALSE(utf8_view()->Equals(*utf8()));
  TypePtr dict = *dictionary(int32(), utf8());
  EXPECT_TRUE(dict->Equals(**dictionary(int32(), utf8())));
  EXPECT_FALSE(dict->Equals(**dictionary(int64(), utf8())));
  EXPECT_FALSE(dict->Equals(**dictionary(int32(), large_utf8())));
  EXPECT_FALSE(dict->Equals(**dictionary(int32(), utf8(), true)));
  EXPECT_FALSE(dict->Equals(*int32()));
}

TEST(CoreTypes, FactoriesValidateTheirParameters) {
  EXPECT_ERROR(kInvalid, "time32 needs unit s or ms, got us", time32(TimeUnit::kMicro));
  EXPECT_ERROR(kInvalid, "time64 needs unit us or ns, got s", time64(TimeUnit::kSecond));
  EXPECT_ERROR(kInvalid, "timestamp unit 9 is not a time unit", timestamp(static_cast<TimeUnit>(9)));
  EXPECT_ERROR(kInvalid, "duration unit 7", duration(static_cast<TimeUnit>(7)));
  EXPECT_ERROR(kInvalid, "NUL byte", timestamp(TimeUnit::kSecond, std::string("UT\0C", 4)));
  EXPECT_ERROR(kInvalid, "decimal128 precision 0 is outside [1, 38]", decimal128(0, 0));
  EXPECT_ERROR(kInvalid, "decimal128 precision 39 is outside [1, 38]", decimal128(39, 0));
  EXPECT_ERROR(kInvalid, "decimal256 precision 77 is outside [1, 76]", decimal256(77, 0));
  EXPECT_ERROR(kInvalid, "precision -1", decimal256(-1, 0));
  EXPECT_TRUE(decimal128(38, 40).ok());  // any scale
  EXPECT_ERROR(kTypeError, "dictionary index type must be a signed or unsigned integer, got float32",
               dictionary(float32(), utf8()));
  EXPECT_ERROR(kTypeError, "got extension<arrow.bool8", dictionary(bool8(), utf8()));
  EXPECT_ERROR(kInvalid, "needs an index type and a value type", dictionary(int8(), nullptr));
  EXPECT_ERROR(kInvalid, "needs an index type and a value type", dictionary(nullptr, utf8()));
}

// --- layout table -----------------------------------------------------------

TEST(CoreTypes, LayoutRows) {
  Layout none = LayoutOf(*null());
  EXPECT_EQ(none.num_buffers, 0);
  EXPECT_EQ(internal::ChildCount(*null()), 0);
  struct Row {
    TypePtr type;
    int64_t bits;
  };
  for (const Row& row : {Row{date32(), 32}, Row{date64(), 64}, Row{*time32(TimeUnit::kMilli), 32},
                         Row{*time64(TimeUnit::kNano), 64}, Row{Timestamp(TimeUnit::kSecond, "UTC"), 64},
                         Row{*duration(TimeUnit::kMicro), 64}, Row{*decimal128(10, 2), 128},
                         Row{*decimal256(40, 2), 256}}) {
    SCOPED_TRACE(row.type->ToString());
    Layout layout = LayoutOf(*row.type);
    ASSERT_EQ(layout.num_buffers, 2);
    EXPECT_EQ(layout.roles[0], BufferRole::kValidity);
    EXPECT_EQ(layout.roles[1], BufferRole::kValues);
    EXPECT_EQ(layout.value_bits, row.bits);
    EXPECT_FALSE(layout.variadic);
    EXPECT_FALSE(layout.dictionary);
    EXPECT_EQ(*internal::RequiredBufferSize(layout, BufferRole::kValues, 3), 3 * row.bits / 8);
  }
  for (const TypePtr& type : {utf8_view(), binary_view()}) {
    Layout views = LayoutOf(*type);
    ASSERT_EQ(views.num_buffers, 2);
    EXPECT_EQ(views.roles[1], BufferRole::kViews);
    EXPECT_TRUE(views.variadic);
    EXPECT_FALSE(views.has_offsets());
    EXPECT_EQ(*internal::RequiredBufferSize(views, BufferRole::kViews, 3), 48);
    EXPECT_ERROR(kInvalid, "views buffer size",
                 internal::RequiredBufferSize(views, BufferRole::kViews, kMax / 8));
  }
  TypePtr dict = *dictionary(int16(), utf8());
  Layout indices = LayoutOf(*dict);
  ASSERT_EQ(indices.num_buffers, 2);
  EXPECT_EQ(indices.roles[1], BufferRole::kValues);
  EXPECT_EQ(indices.value_bits, 16);
  EXPECT_TRUE(indices.dictionary);
  EXPECT_EQ(internal::ChildCount(*dict), 0);
  // An extension type over a dictionary has the dictionary's layout.
  ASSERT_OK_AND_ASSIGN(TypePtr labels, extension("my.labels", "", dict));
  EXPECT_TRUE(LayoutOf(*labels).dictionary);
}

TEST(CoreTypes, ReadHelpers) {
  std::vector<uint8_t> view = ViewBytes("a string longer than twelve", 3, 40);
  internal::BinaryView parsed = internal::ReadView(view.data(), 0);
  EXPECT_EQ(parsed.length, 27);
  EXPECT_FALSE(parsed.is_inline());
  EXPECT_EQ(parsed.buffer_index, 3);
  EXPECT_EQ(parsed.offset, 40);
  EXPECT_EQ(std::memcmp(parsed.inline_bytes, "a st", 4), 0);
  EXPECT_TRUE(internal::ReadView(ViewBytes("short", 0, 0).data(), 0).is_inline());
  const uint64_t big[2] = {5, uint64_t{1} << 63};
  int64_t out = 0;
  EXPECT_TRUE(internal::ReadInteger(reinterpret_cast<const uint8_t*>(big), 0, TypeId::kUInt64, &out));
  EXPECT_EQ(out, 5);
  EXPECT_FALSE(internal::ReadInteger(reinterpret_cast<const uint8_t*>(big), 1, TypeId::kUInt64, &out));
  const int8_t small[2] = {-3, 4};
  EXPECT_TRUE(internal::ReadInteger(reinterpret_cast<const uint8_t*>(small), 0, TypeId::kInt8, &out));
  EXPECT_EQ(out, -3);
  EXPECT_FALSE(internal::ReadInteger(reinterpret_cast<const uint8_t*>(small), 0, TypeId::kFloat32, &out));
}

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
  EXPECT_ERROR(kInvalid, "type null needs 0 buffers, got 1", Validate(*with_buffer, ValidationLevel::kMinimal));
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
  ArrayDataPtr dec = Primitive<int64_t>(*decimal128(10, 2), {1, 0, 2, 0}, {true, false, true, true});
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
  // A null variadic buffer counts as empty.
  auto dropped = std::make_shared<ArrayData>(*views);
  dropped->buffers[2] = nullptr;
  EXPECT_ERROR(kInvalid, "row 1: view [0, 27) is outside variadic buffer 0 of 0 bytes",
               Validate(*dropped));
}

TEST(CoreTypes, ViewEqualityComparesValuesNotPlacement) {
  ArrayDataPtr one = Views({"a", "a string longer than twelve", "another long value here", std::nullopt},
                           utf8_view(), 1);
  ArrayDataPtr two = Views({"a", "a string longer than twelve", "another long value here", std::nullopt},
                           utf8_view(), 5);
  ASSERT_NE(one->buffers.size(), two->buffers.size());
  EXPECT_TRUE(ArrayEquals(*one, *two));
  EXPECT_FALSE(ArrayEquals(*one, *Views({"a", "a string longer than twelve", "another long value HERE",
                                         std::nullopt})));
  EXPECT_FALSE(ArrayEquals(*one, *Views({"b", "a string longer than twelve", "another long value here",
                                         std::nullopt})));
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
  EXPECT_ERROR(kInvalid, "row 0: dictionary index -1 is outside", Validate(*DictionaryOf({-1}, values)));
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
  EXPECT_ERROR(kInvalid, "dictionary: row 1: dictionary index 5", Validate(*DictionaryOf({0}, bad_inner)));
  EXPECT_TRUE(ArrayEquals(*outer, *DictionaryOf({0, 0, 1}, DictionaryOf({0, 1}, Utf8({"p", "q"})))));
}

TEST(CoreTypes, DictionaryEqualityComparesDecodedValues) {
  ArrayDataPtr a = DictionaryOf({0, 1, std::nullopt, 0}, Utf8({"a", "b"}));
  ArrayDataPtr b = DictionaryOf({1, 0, 1, 1}, Utf8({"b", "a"}));
  auto b_with_null = std::make_shared<ArrayData>(*b);
  b_with_null->buffers[0] = test::Bitmap({true, true, false, true});
  EXPECT_TRUE(ArrayEquals(*a, *b_with_null));
  EXPECT_FALSE(ArrayEquals(*a, *b));  // slot 2 is null in one only
  EXPECT_FALSE(ArrayEquals(*a, *DictionaryOf({0, 0, std::nullopt, 0}, Utf8({"a", "b"}))));
}

TEST(CoreTypes, CanonicalExtensionsInsideDictionariesAreChecked) {
  ASSERT_OK_AND_ASSIGN(TypePtr lying, extension("arrow.bool8", "", int16()));
  ASSERT_OK_AND_ASSIGN(TypePtr dict, dictionary(int8(), lying));
  EXPECT_ERROR(kInvalid, "dictionary: arrow.bool8 needs int8 storage, got int16",
               internal::CheckCanonicalExtensions(*dict));
  ASSERT_OK(internal::CheckCanonicalExtensions(**dictionary(int8(), bool8())));
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
      std::memset(view.data() + 4, pick(0, 1) ? 'x' : 'y', 4);
      std::memcpy(view.data() + 8, &index, 4);
      std::memcpy(view.data() + 12, &offset, 4);
      views.insert(views.end(), view.begin(), view.end());
    }
    auto data = std::make_shared<ArrayData>();
    data->type = binary_view();
    data->length = length;
    data->buffers = {nullptr, Buffer::Wrap(views.data(), static_cast<int64_t>(views.size()), [] {})};
    for (const auto& bytes : storage) {
      data->buffers.push_back(Buffer::Wrap(bytes.data(), static_cast<int64_t>(bytes.size()), [] {}));
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
      const uint8_t* bytes = view.is_inline()
                                 ? data->buffers[1]->data() + index * 16 + 4
                                 : data->buffers[static_cast<size_t>(view.buffer_index) + 2]->data() +
                                       view.offset;
      for (int32_t k = 0; k < view.length; ++k) sum += bytes[k];
    }
    EXPECT_TRUE(ArrayEquals(*dict, *dict));
    EXPECT_GE(sum, 0u);
  }
  EXPECT_GT(accepted, 50);  // the walk above really ran
}

}  // namespace quiver
