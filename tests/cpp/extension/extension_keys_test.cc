// Extension types carried as their storage type plus the two field
// metadata keys ARROW:extension:name and ARROW:extension:metadata.
#include "quiver/extension/extension_keys.h"

#include "quiver/fixed_shape_tensor.h"
#include "test_util.h"

namespace quiver::internal {

TEST(ExtensionKeys, LiftMovesTheKeysIntoTheType) {
  Field field{"cells", int8()};
  ASSERT_OK(LiftExtensionKeys({{"before", "1"},
                               {kExtensionNameKey, "arrow.bool8"},
                               {kExtensionMetadataKey, ""},
                               {"after", "2"}},
                              &field));
  ASSERT_EQ(field.type->id(), TypeId::kExtension);
  EXPECT_EQ(field.type->extension_name(), "arrow.bool8");
  EXPECT_EQ(field.type->storage().id(), TypeId::kInt8);
  EXPECT_EQ(field.metadata, (KeyValueMetadata{{"before", "1"}, {"after", "2"}}));
  // Written back, the keys follow the field's own pairs.
  EXPECT_EQ(MetadataWithExtensionKeys(field), (KeyValueMetadata{{"before", "1"},
                                                                {"after", "2"},
                                                                {kExtensionNameKey, "arrow.bool8"},
                                                                {kExtensionMetadataKey, ""}}));
}

TEST(ExtensionKeys, WithoutTheNameKeyTheTypeStaysStorage) {
  Field field{"x", int32()};
  // The metadata key alone does not make an extension type; it is dropped.
  ASSERT_OK(LiftExtensionKeys({{kExtensionMetadataKey, "{}"}, {"k", "v"}}, &field));
  EXPECT_EQ(field.type->id(), TypeId::kInt32);
  EXPECT_EQ(field.metadata, (KeyValueMetadata{{"k", "v"}}));
  EXPECT_EQ(MetadataWithExtensionKeys(field), (KeyValueMetadata{{"k", "v"}}));
  EXPECT_TRUE(MetadataWithExtensionKeys(Field{"none", nullptr}).empty());
}

TEST(ExtensionKeys, UnknownExtensionsPassAndCanonicalOnesAreChecked) {
  Field unknown{"x", utf8()};
  ASSERT_OK(LiftExtensionKeys({{kExtensionNameKey, "my.uuid"}, {kExtensionMetadataKey, "anything"}},
                              &unknown));
  EXPECT_EQ(unknown.type->extension_name(), "my.uuid");
  EXPECT_EQ(unknown.type->extension_metadata(), "anything");
  Field lying{"flags", int16()};
  EXPECT_EQ(LiftExtensionKeys({{kExtensionNameKey, "arrow.bool8"}}, &lying).message(),
            "arrow.bool8 needs int8 storage, got int16");
  ASSERT_OK_AND_ASSIGN(TypePtr storage, fixed_size_list(ListItem(float32()), 6));
  Field tensor{"t", storage};
  ASSERT_OK(LiftExtensionKeys({{kExtensionNameKey, "arrow.fixed_shape_tensor"},
                               {kExtensionMetadataKey, "{\"shape\":[2,3]}"}},
                              &tensor));
  ASSERT_OK_AND_ASSIGN(auto type, FixedShapeTensorType::FromDataType(tensor.type));
  EXPECT_EQ(type.shape(), (std::vector<int64_t>{2, 3}));
  Field bad{"t", storage};
  EXPECT_ERROR(kInvalid, "has 25 elements but the storage list size is 6",
               LiftExtensionKeys({{kExtensionNameKey, "arrow.fixed_shape_tensor"},
                                  {kExtensionMetadataKey, "{\"shape\":[5,5]}"}},
                                 &bad));
}

TEST(ExtensionKeys, TensorMetadataInAnotherFormIsHeldInTheSpecForm) {
  // arrow-rs's form (nulls, "permutations") arrives; the spec form is kept
  // and written, the storage untouched.
  TypePtr storage = *fixed_size_list(Field{"v", float32(), false}, 6);
  Field field{"x", storage};
  ASSERT_OK(LiftExtensionKeys(
      {{kExtensionNameKey, "arrow.fixed_shape_tensor"},
       {kExtensionMetadataKey, R"({"shape":[2,3],"dim_names":null,"permutations":[1,0]})"}},
      &field));
  EXPECT_EQ(field.type->extension_metadata(), R"({"permutation":[1,0],"shape":[2,3]})");
  EXPECT_EQ(field.type->storage_type(), storage);
  EXPECT_EQ(MetadataWithExtensionKeys(field).back().second,
            R"({"permutation":[1,0],"shape":[2,3]})");
  // The spec form stays as its producer spelled it.
  Field spelled{"y", storage};
  ASSERT_OK(LiftExtensionKeys({{kExtensionNameKey, "arrow.fixed_shape_tensor"},
                               {kExtensionMetadataKey, R"({"shape": [2, 3]})"}},
                              &spelled));
  EXPECT_EQ(spelled.type->extension_metadata(), R"({"shape": [2, 3]})");
  // Both permutation keys, differing: refused with both named.
  Field both{"z", storage};
  EXPECT_ERROR(kInvalid, "'permutation' [1, 0] and 'permutations' [0, 1], which differ",
               LiftExtensionKeys({{kExtensionNameKey, "arrow.fixed_shape_tensor"},
                                  {kExtensionMetadataKey,
                                   R"({"shape":[2,3],"permutation":[1,0],"permutations":[0,1]})"}},
                                 &both));
}

}  // namespace quiver::internal
