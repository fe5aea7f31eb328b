// The checks of the canonical extension types (arrow.fixed_shape_tensor,
// arrow.variable_shape_tensor, arrow.bool8) wherever they sit in a type
// tree: alone, in struct fields, inside dictionaries and under validation.
#include "quiver/extension/canonical_extensions.h"

#include "quiver/fixed_shape_tensor.h"
#include "quiver/variable_shape_tensor.h"
#include "test_util.h"
#include "variable_shape_test_util.h"

namespace quiver {

using test::Primitive;

TEST(CanonicalExtensions, OtherTypesAndOtherExtensionNamesPass) {
  ASSERT_OK(internal::CheckCanonicalExtension(*int32()));
  ASSERT_OK(internal::CheckCanonicalExtension(*struct_({Field{"x", float32()}})));
  ASSERT_OK_AND_ASSIGN(TypePtr other, extension("my.unknown", "not json at all", int16()));
  ASSERT_OK(internal::CheckCanonicalExtension(*other));
  ASSERT_OK(internal::CheckCanonicalExtension(*bool8()));
  ASSERT_OK_AND_ASSIGN(auto fixed, FixedShapeTensorType::Make(float32(), {2, 3}));
  ASSERT_OK(internal::CheckCanonicalExtension(*fixed.data_type()));
  ASSERT_OK_AND_ASSIGN(auto ragged, VariableShapeTensorType::Make(float32(), 2));
  ASSERT_OK(internal::CheckCanonicalExtension(*ragged.data_type()));
}

TEST(CanonicalExtensions, EachCanonicalTypeIsParsed) {
  ASSERT_OK_AND_ASSIGN(TypePtr lying_bool, extension("arrow.bool8", "", int16()));
  EXPECT_ERROR(kInvalid, "arrow.bool8 needs int8 storage, got int16",
               internal::CheckCanonicalExtension(*lying_bool));
  ASSERT_OK_AND_ASSIGN(TypePtr storage, fixed_size_list(ListItem(float32()), 6));
  ASSERT_OK_AND_ASSIGN(TypePtr bad_fixed,
                       extension("arrow.fixed_shape_tensor", "{\"shape\":[5,5]}", storage));
  EXPECT_ERROR(kInvalid, "has 25 elements but the storage list size is 6",
               internal::CheckCanonicalExtension(*bad_fixed));
  ASSERT_OK_AND_ASSIGN(TypePtr bad_ragged,
                       extension("arrow.variable_shape_tensor", "{}", float32()));
  Status ragged = internal::CheckCanonicalExtension(*bad_ragged);
  EXPECT_EQ(ragged.code(), StatusCode::kTypeError);
  EXPECT_EQ(ragged.message(),
            "variable_shape_tensor storage must be struct<data: list<value>, shape: "
            "fixed_size_list<int32>[ndim]>, got float32 (not a struct)");
}

TEST(CanonicalExtensions, ErrorsNameThePathThroughFieldsAndDictionaries) {
  ASSERT_OK_AND_ASSIGN(TypePtr lying, extension("arrow.bool8", "", int16()));
  TypePtr nested = struct_({Field{"a", int32()}, Field{"flags", list(ListItem(lying))}});
  EXPECT_EQ(internal::CheckCanonicalExtensions(*nested).message(),
            "field 1 (flags): field 0 (item): arrow.bool8 needs int8 storage, got int16");
  // The single-type check does not walk the tree.
  ASSERT_OK(internal::CheckCanonicalExtension(*nested));
}

TEST(CoreTypes, CanonicalExtensionsInsideDictionariesAreChecked) {
  ASSERT_OK_AND_ASSIGN(TypePtr lying, extension("arrow.bool8", "", int16()));
  ASSERT_OK_AND_ASSIGN(TypePtr dict, dictionary(int8(), lying));
  EXPECT_ERROR(kInvalid, "dictionary: arrow.bool8 needs int8 storage, got int16",
               internal::CheckCanonicalExtensions(*dict));
  ASSERT_OK(internal::CheckCanonicalExtensions(**dictionary(int8(), bool8())));
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

// The data check array.cc's Validate calls through the one door: a ragged
// row whose data length is not its shape's product fails at kFull only.
TEST(CanonicalExtensions, DataChecksTheRowsOfRaggedArraysAtFullOnly) {
  ArrayDataPtr good = test::RawStorage({0, 2, 4}, {1, 2, 3, 4}, {1, 2, 2, 1}, 2);
  ArrayDataPtr lying = test::RawStorage({0, 2, 4}, {1, 2, 3, 4}, {1, 2, 1, 3}, 2);
  EXPECT_TRUE(internal::CheckCanonicalExtensionData(*good, ValidationLevel::kFull).ok());
  EXPECT_ERROR(kInvalid, "row 1: data length 2 != product of shape",
               internal::CheckCanonicalExtensionData(*lying, ValidationLevel::kFull));
  EXPECT_TRUE(internal::CheckCanonicalExtensionData(*lying, ValidationLevel::kDefault).ok());
  EXPECT_ERROR(kInvalid, "row 1", Validate(*lying, ValidationLevel::kFull));
  // Other types pass.
  EXPECT_TRUE(
      internal::CheckCanonicalExtensionData(*lying->children[0], ValidationLevel::kFull).ok());
}

TEST(CanonicalExtensions, TypeStringsSpellOutTensorTypesAtAnyDepth) {
  ASSERT_OK_AND_ASSIGN(auto fixed,
                       FixedShapeTensorType::Make(float32(), {3, 4}, {"H", "W"}, {1, 0}));
  EXPECT_EQ(fixed.data_type()->ToString(),
            "fixed_shape_tensor<float32>[3, 4] dim_names=[H, W] permutation=[1, 0]");
  ASSERT_OK_AND_ASSIGN(auto ragged, VariableShapeTensorType::Make(uint8(), 3, {}, {},
                                                                  {std::nullopt, std::nullopt, 3}));
  EXPECT_EQ(ragged.data_type()->ToString(),
            "variable_shape_tensor<uint8, ndim=3> uniform_shape=[null, null, 3]");
  TypePtr nested = struct_({Field{"img", fixed.data_type()},
                            Field{"clips", list(Field{"item", ragged.data_type(), true, {}})}});
  EXPECT_EQ(nested->ToString(),
            "struct<img: fixed_shape_tensor<float32>[3, 4] dim_names=[H, W] permutation=[1, 0], "
            "clips: list<item: variable_shape_tensor<uint8, ndim=3> uniform_shape=[null, null, "
            "3]>>");
  EXPECT_EQ((Field{"img", fixed.data_type(), false, {}}).ToString(),
            "img: fixed_shape_tensor<float32>[3, 4] dim_names=[H, W] permutation=[1, 0] not null");
  // Metadata that does not parse: the storage, as for any extension type.
  ASSERT_OK_AND_ASSIGN(TypePtr storage, fixed_size_list(ListItem(float32()), 6));
  ASSERT_OK_AND_ASSIGN(TypePtr bad,
                       extension("arrow.fixed_shape_tensor", "{\"shape\":[5]}", storage));
  EXPECT_EQ(bad->ToString(),
            "extension<arrow.fixed_shape_tensor, storage=fixed_size_list<item: float32>[6]>");
  EXPECT_EQ(internal::CanonicalExtensionToString(*int32()), std::nullopt);
  EXPECT_EQ(bool8()->ToString(), "extension<arrow.bool8, storage=int8>");
}

}  // namespace quiver

namespace quiver {

TEST(CanonicalExtensions, WritersPutOutTheSpecForm) {
  TypePtr fixed_storage = *fixed_size_list(ListItem(float32()), 6);
  auto written = [](const char* name, const char* metadata, TypePtr storage) {
    return internal::ExtensionMetadataToWrite(**extension(name, metadata, std::move(storage)));
  };
  // arrow-rs's form: nulls for absent parameters, "permutations".
  EXPECT_EQ(written("arrow.fixed_shape_tensor",
                    R"({"shape":[2,3],"dim_names":null,"permutations":[1,0]})", fixed_storage),
            R"({"permutation":[1,0],"shape":[2,3]})");
  TypePtr ragged_storage = test::Float32Type(2).data_type()->storage_type();
  EXPECT_EQ(
      written("arrow.variable_shape_tensor",
              R"({"dim_names":null,"permutations":null,"uniform_shape":[2,null]})", ragged_storage),
      R"({"uniform_shape":[2,null]})");
  // An earlier draft of the ragged type.
  EXPECT_EQ(written("arrow.variable_shape_tensor",
                    R"({"uniform_dimensions":[0],"uniform_shape":[2]})", ragged_storage),
            R"({"uniform_shape":[2,null]})");
  // The spec form stays exactly as its producer spelled it.
  const char* spelled = R"({"shape": [2, 3], "dim_names": ["H", "W"]})";
  EXPECT_EQ(written("arrow.fixed_shape_tensor", spelled, fixed_storage), spelled);
  EXPECT_EQ(written("my.type", R"({"permutations":null})", int32()), R"({"permutations":null})");
}

}  // namespace quiver
