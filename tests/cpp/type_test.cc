#include "quiver/type.h"

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
  EXPECT_EQ(ExpectedBufferCount(*ext), 2);
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

TEST(DataType, BufferCounts) {
  EXPECT_EQ(ExpectedBufferCount(*int32()), 2);
  EXPECT_EQ(ExpectedBufferCount(*boolean()), 2);
  EXPECT_EQ(ExpectedBufferCount(*utf8()), 3);
  EXPECT_EQ(ExpectedBufferCount(*large_binary()), 3);
  EXPECT_EQ(ExpectedBufferCount(*list(ListItem(int8()))), 2);
  EXPECT_EQ(ExpectedBufferCount(*struct_({})), 1);
}

}  // namespace quiver
