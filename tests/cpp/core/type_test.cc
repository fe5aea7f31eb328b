#include "quiver/type.h"

#include <limits>
#include <type_traits>

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

}  // namespace quiver
