// Data types: widths, names, nesting, extension types, the factories and
// their parameter checks, equality of every parameter.
#include "quiver/type.h"

#include <limits>
#include <random>
#include <tuple>
#include <type_traits>

#include "sample_arrays.h"
#include "test_util.h"

namespace quiver {

TEST(DataType, PrimitiveWidthsAndNames) {
  EXPECT_EQ(int8()->bit_width(), 8);
  EXPECT_EQ(uint64()->byte_width(), 8);
  EXPECT_EQ(float16()->byte_width(), 2);
  EXPECT_EQ(boolean()->bit_width(), 1);
  EXPECT_EQ(boolean()->byte_width(), 0);
  EXPECT_EQ(utf8()->byte_width(), 0);
  EXPECT_EQ(float32()->ToString(), "float32");
  EXPECT_TRUE(int16()->is_signed_integer());
  EXPECT_FALSE(uint16()->is_signed_integer());
  EXPECT_TRUE(float64()->is_numeric());
  EXPECT_FALSE(boolean()->is_numeric());
}

TEST(DataType, NestedToStringAndEquality) {
  ASSERT_OK_AND_ASSIGN(TypePtr fsl, fixed_size_list(ListItem(float32()), 4));
  EXPECT_EQ(fsl->ToString(), "fixed_size_list<item: float32>[4]");
  ASSERT_OK_AND_ASSIGN(TypePtr fsl2, fixed_size_list(ListItem(float32()), 4));
  ASSERT_OK_AND_ASSIGN(TypePtr fsl3, fixed_size_list(ListItem(float32()), 5));
  EXPECT_TRUE(fsl->Equals(*fsl2));
  EXPECT_FALSE(fsl->Equals(*fsl3));
  TypePtr s = struct_({Field{"a", int32()}, Field{"b", utf8(), false}});
  EXPECT_EQ(s->ToString(), "struct<a: int32, b: utf8 not null>");
  EXPECT_FALSE(s->Equals(*struct_({Field{"a", int32()}, Field{"b", utf8()}})));
  EXPECT_FALSE(list(ListItem(int32()))->Equals(*large_list(ListItem(int32()))));
}

TEST(DataType, ExtensionCarriesNameMetadataAndStorage) {
  ASSERT_OK_AND_ASSIGN(TypePtr ext, extension("my.ext", "{}", int8()));
  EXPECT_EQ(ext->id(), TypeId::kExtension);
  EXPECT_EQ(ext->storage().id(), TypeId::kInt8);
  EXPECT_EQ(ext->bit_width(), 8);
  ASSERT_OK_AND_ASSIGN(TypePtr other, extension("my.ext", "{\"x\":1}", int8()));
  EXPECT_FALSE(ext->Equals(*other));
  EXPECT_ERROR(kInvalid, "name is empty", extension("", "", int8()));
  EXPECT_ERROR(kInvalid, "cannot have extension storage", extension("a", "", ext));
}

// The low-precision floats are extension types over unsigned integers
// (what any Arrow reader sees), tensor values, and print by name.
TEST(DataType, LowPrecisionFloatsAreExtensionsOverUnsignedIntegers) {
  const std::tuple<TypePtr, const char*, TypeId> cases[] = {
      {bfloat16(), "quiver.bfloat16", TypeId::kUInt16},
      {float8_e4m3fn(), "quiver.float8_e4m3fn", TypeId::kUInt8},
      {float8_e5m2(), "quiver.float8_e5m2", TypeId::kUInt8},
  };
  for (const auto& [type, name, storage] : cases) {
    EXPECT_EQ(type->id(), TypeId::kExtension);
    EXPECT_EQ(type->extension_name(), name);
    EXPECT_EQ(type->extension_metadata(), "");
    EXPECT_EQ(type->storage().id(), storage);
    EXPECT_TRUE(type->is_low_precision_float());
    EXPECT_TRUE(type->is_tensor_value());
    EXPECT_FALSE(type->is_numeric());
    EXPECT_EQ(type->ToString(), std::string(name).substr(7));
    // A reader rebuilding the type from name, metadata and storage gets it back.
    ASSERT_OK_AND_ASSIGN(TypePtr rebuilt, extension(name, "", type->storage_type()));
    EXPECT_TRUE(rebuilt->Equals(*type));
    EXPECT_TRUE(rebuilt->is_low_precision_float());
  }
  EXPECT_EQ(bfloat16()->byte_width(), 2);
  EXPECT_EQ(float8_e5m2()->byte_width(), 1);
  EXPECT_FALSE(bfloat16()->Equals(*float16()));
  EXPECT_FALSE(float8_e4m3fn()->Equals(*float8_e5m2()));
  // The name over the wrong storage is some other extension type.
  ASSERT_OK_AND_ASSIGN(TypePtr wrong, extension("quiver.bfloat16", "", int16()));
  EXPECT_FALSE(wrong->is_bfloat16());
  EXPECT_FALSE(wrong->is_tensor_value());
}

TEST(DataType, FactoriesRejectNegativeSizes) {
  EXPECT_ERROR(kInvalid, "negative", fixed_size_binary(-1));
  EXPECT_ERROR(kInvalid, "negative", fixed_size_list(ListItem(int8()), -2));
}

TEST(DataType, TypeFromName) {
  ASSERT_OK_AND_ASSIGN(TypePtr t, TypeFromName("uint16"));
  EXPECT_TRUE(t->Equals(*uint16()));
  ASSERT_OK_AND_ASSIGN(t, TypeFromName("double"));
  EXPECT_TRUE(t->Equals(*float64()));
  EXPECT_ERROR(kTypeError, "unknown value type 'complex64'", TypeFromName("complex64"));
}

TEST(DataType, WidthsAreComputedIn64Bits) {
  // 2^28 bytes is 2^31 bits: an int would overflow and make validation
  // accept a tiny buffer for huge values.
  ASSERT_OK_AND_ASSIGN(TypePtr wide, fixed_size_binary(268435456));
  EXPECT_EQ(wide->bit_width(), int64_t{1} << 31);
  EXPECT_EQ(wide->byte_width(), int64_t{1} << 28);
  ASSERT_OK_AND_ASSIGN(TypePtr widest, fixed_size_binary(std::numeric_limits<int32_t>::max()));
  EXPECT_EQ(widest->byte_width(), std::numeric_limits<int32_t>::max());
}

TEST(DataType, OnlyFactoriesBuildTypes) {
  // DataType(TypeId) is gone: a list without its child cannot be made.
  static_assert(!std::is_constructible_v<DataType, TypeId>);
  static_assert(!std::is_default_constructible_v<DataType::Key>);
  EXPECT_EQ(list(ListItem(int32()))->children().size(), 1u);
}

TEST(DataType, NestingDepthIsRecorded) {
  EXPECT_EQ(int32()->nesting_depth(), 0);
  EXPECT_EQ(struct_({})->nesting_depth(), 1);
  TypePtr type = int8();
  for (int i = 0; i < 70; ++i) type = list(ListItem(type));
  EXPECT_EQ(type->nesting_depth(), 70);
  ASSERT_OK_AND_ASSIGN(TypePtr ext, extension("x.deep", "", type));
  EXPECT_EQ(ext->nesting_depth(), 70);
}

namespace {

using test::Timestamp;

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
  EXPECT_ERROR(kInvalid, "timestamp unit 9 is not a time unit",
               timestamp(static_cast<TimeUnit>(9)));
  EXPECT_ERROR(kInvalid, "duration unit 7", duration(static_cast<TimeUnit>(7)));
  EXPECT_ERROR(kInvalid, "NUL byte", timestamp(TimeUnit::kSecond, std::string("UT\0C", 4)));
  EXPECT_ERROR(kInvalid, "decimal128 precision 0 is outside [1, 38]", decimal128(0, 0));
  EXPECT_ERROR(kInvalid, "decimal128 precision 39 is outside [1, 38]", decimal128(39, 0));
  EXPECT_ERROR(kInvalid, "decimal256 precision 77 is outside [1, 76]", decimal256(77, 0));
  EXPECT_ERROR(kInvalid, "precision -1", decimal256(-1, 0));
  EXPECT_TRUE(decimal128(38, 40).ok());  // any scale
  EXPECT_ERROR(kTypeError,
               "dictionary index type must be a signed or unsigned integer, got float32",
               dictionary(float32(), utf8()));
  EXPECT_ERROR(kTypeError, "got extension<arrow.bool8", dictionary(bool8(), utf8()));
  EXPECT_ERROR(kInvalid, "needs an index type and a value type", dictionary(int8(), nullptr));
  EXPECT_ERROR(kInvalid, "needs an index type and a value type", dictionary(nullptr, utf8()));
}

TEST(NewTypes, FactoriesToStringAndEquals) {
  EXPECT_EQ((*decimal32(9, 2))->ToString(), "decimal32(9, 2)");
  EXPECT_EQ((*decimal64(18, -1))->ToString(), "decimal64(18, -1)");
  EXPECT_EQ((*decimal32(9, 2))->bit_width(), 32);
  EXPECT_EQ((*decimal64(9, 2))->byte_width(), 8);
  EXPECT_FALSE((*decimal32(9, 2))->Equals(**decimal64(9, 2)));
  EXPECT_EQ((*interval(IntervalUnit::kYearMonth))->ToString(), "interval[year_month]");
  EXPECT_EQ((*interval(IntervalUnit::kDayTime))->bit_width(), 64);
  EXPECT_EQ((*interval(IntervalUnit::kMonthDayNano))->byte_width(), 16);
  TypePtr map = *map_(utf8(), int32(), true);
  EXPECT_EQ(map->ToString(), "map<utf8, int32, keys_sorted>");
  EXPECT_TRUE(map->keys_sorted());
  EXPECT_FALSE(map->Equals(**map_(utf8(), int32())));
  EXPECT_EQ(map->children()[0].name, "entries");
  EXPECT_FALSE(map->children()[0].type->children()[0].nullable);
  EXPECT_EQ(map->nesting_depth(), 2);
  TypePtr sparse = *sparse_union({Field{"a", int8()}, Field{"b", utf8()}});
  EXPECT_EQ(sparse->ToString(), "sparse_union<a: int8=0, b: utf8=1>");
  EXPECT_EQ(sparse->type_codes(), (std::vector<int8_t>{0, 1}));
  TypePtr dense = *dense_union({Field{"a", int8()}}, {5});
  EXPECT_EQ(dense->ToString(), "dense_union<a: int8=5>");
  EXPECT_FALSE(dense->Equals(**dense_union({Field{"a", int8()}}, {6})));
  EXPECT_FALSE(dense->Equals(**sparse_union({Field{"a", int8()}}, {5})));
  EXPECT_EQ(list_view(ListItem(int32()))->ToString(), "list_view<item: int32>");
  EXPECT_EQ(large_list_view(ListItem(int32()))->ToString(), "large_list_view<item: int32>");
  EXPECT_FALSE(list_view(ListItem(int32()))->Equals(*list(ListItem(int32()))));
  TypePtr ree = *run_end_encoded(int16(), utf8());
  EXPECT_EQ(ree->ToString(), "run_end_encoded<run_ends=int16, values=utf8>");
  EXPECT_EQ(ree->children()[0].name, "run_ends");
  EXPECT_FALSE(ree->children()[0].nullable);
}

TEST(NewTypes, FactoriesRefuseMalformedParameters) {
  EXPECT_ERROR(kInvalid, "decimal32 precision 10 is outside [1, 9]", decimal32(10, 0));
  EXPECT_ERROR(kInvalid, "decimal64 precision 0 is outside [1, 18]", decimal64(0, 0));
  EXPECT_ERROR(kInvalid, "interval unit 7", interval(static_cast<IntervalUnit>(7)));
  EXPECT_ERROR(kInvalid, "map key field 'k' must not be nullable",
               map_(Field{"e", struct_({Field{"k", utf8()}, Field{"v", utf8()}}), false}));
  EXPECT_ERROR(kTypeError, "map entries must be a struct of a key and a value field",
               map_(Field{"e", struct_({Field{"k", utf8(), false}}), false}));
  EXPECT_ERROR(kTypeError, "map entries must be a struct", map_(Field{"e", int32(), false}));
  EXPECT_ERROR(kInvalid, "uses type code 1 twice",
               sparse_union({Field{"a", int8()}, Field{"b", int8()}}, {1, 1}));
  EXPECT_ERROR(kInvalid, "type code -3 is negative", dense_union({Field{"a", int8()}}, {-3}));
  EXPECT_ERROR(kInvalid, "has 2 children but 1 type codes",
               dense_union({Field{"a", int8()}, Field{"b", int8()}}, {0}));
  EXPECT_ERROR(kInvalid, "child 0 has no type", sparse_union({Field{"a", nullptr}}));
  EXPECT_ERROR(kTypeError, "run ends must be int16, int32 or int64, got int8",
               run_end_encoded(int8(), int8()));
  EXPECT_ERROR(kInvalid, "needs a run end type and a value type",
               run_end_encoded(int32(), nullptr));
}

// Every type without parameters is one shared instance, made one way.
TEST(CoreTypes, ParameterlessTypesAreSharedInstances) {
  for (const auto& make : {int8, uint64, float16, boolean, utf8, large_binary, null, date32, date64,
                           utf8_view, binary_view}) {
    EXPECT_EQ(make().get(), make().get()) << make()->ToString();
  }
  EXPECT_EQ(interval(IntervalUnit::kDayTime)->get(), interval(IntervalUnit::kDayTime)->get());
  EXPECT_EQ((*interval(IntervalUnit::kMonthDayNano))->ToString(), "interval[month_day_nano]");
  EXPECT_NE(date32().get(), date64().get());
}

}  // namespace quiver
