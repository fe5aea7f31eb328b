// arrow.fixed_shape_tensor types: parameters, permutation, metadata
// serialization and each metadata or storage error.
#include "quiver/fixed_shape_tensor.h"

#include <numeric>

#include "test_util.h"

namespace quiver {

TEST(FixedShapeTensorType, SpecPermutationExample) {
  ASSERT_OK_AND_ASSIGN(
      auto type, FixedShapeTensorType::Make(int8(), {100, 200, 500}, {"C", "H", "W"}, {2, 0, 1}));
  EXPECT_EQ(type.logical_shape(), (std::vector<int64_t>{500, 100, 200}));
  EXPECT_EQ(type.logical_dim_names(), (std::vector<std::string>{"W", "C", "H"}));
  // Physical row-major strides are [100000, 500, 1]; logical T[i] = R[P[i]].
  EXPECT_EQ(type.logical_strides(), (std::vector<int64_t>{1, 100000, 500}));
  EXPECT_EQ(type.list_size(), 10000000);
}

TEST(FixedShapeTensorType, IdentityPermutationEqualsNone) {
  auto plain = *FixedShapeTensorType::Make(float32(), {2, 3});
  auto identity = *FixedShapeTensorType::Make(float32(), {2, 3}, {}, {0, 1});
  auto swapped = *FixedShapeTensorType::Make(float32(), {2, 3}, {}, {1, 0});
  EXPECT_TRUE(plain.Equals(identity));
  EXPECT_TRUE(identity.Equals(plain));
  EXPECT_FALSE(plain.Equals(swapped));
  EXPECT_EQ(identity.Serialize(), "{\"permutation\":[0,1],\"shape\":[2,3]}");  // kept as read
}

TEST(FixedShapeTensorType, SerializeRoundTrip) {
  ASSERT_OK_AND_ASSIGN(auto type,
                       FixedShapeTensorType::Make(float64(), {2, 3}, {"H", "W"}, {1, 0}));
  EXPECT_EQ(type.Serialize(), R"({"dim_names":["H","W"],"permutation":[1,0],"shape":[2,3]})");
  ASSERT_OK_AND_ASSIGN(auto back, FixedShapeTensorType::FromDataType(type.data_type()));
  EXPECT_TRUE(back.Equals(type));
  EXPECT_EQ(back.ToString(),
            "fixed_shape_tensor<float64>[2, 3] dim_names=[H, W] permutation=[1, 0]");
}

TEST(FixedShapeTensorType, UnknownKeysAreIgnored) {
  TypePtr storage = *fixed_size_list(ListItem(int32()), 6);
  ASSERT_OK_AND_ASSIGN(
      auto type, FixedShapeTensorType::Deserialize(storage, R"({"shape":[2,3],"extra":true})"));
  EXPECT_EQ(type.shape(), (std::vector<int64_t>{2, 3}));
}

TEST(FixedShapeTensorType, ReadsArrowRsFormWritesSpecForm) {
  // arrow-rs writes every parameter, null when absent, and names the
  // permutation "permutations".
  TypePtr storage = *fixed_size_list(ListItem(float32()), 6);
  auto parse = [&](const char* json) { return FixedShapeTensorType::Deserialize(storage, json); };
  ASSERT_OK_AND_ASSIGN(auto plain,
                       parse(R"({"shape":[2,3],"dim_names":null,"permutations":null})"));
  EXPECT_EQ(plain.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_TRUE(plain.dim_names().empty());
  EXPECT_TRUE(plain.permutation().empty());
  EXPECT_EQ(plain.Serialize(), R"({"shape":[2,3]})");
  ASSERT_OK_AND_ASSIGN(auto full,
                       parse(R"({"shape":[2,3],"dim_names":["H","W"],"permutations":[1,0]})"));
  EXPECT_EQ(full.dim_names(), (std::vector<std::string>{"H", "W"}));
  EXPECT_EQ(full.permutation(), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(full.logical_shape(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(full.Serialize(), R"({"dim_names":["H","W"],"permutation":[1,0],"shape":[2,3]})");
  // What the spec form refuses, the arrow-rs form refuses with the same words.
  EXPECT_ERROR(kInvalid, "has no 'shape'", parse(R"({"shape":null,"dim_names":null})"));
  EXPECT_ERROR(kInvalid, "permutation has 3 entries for 2 dimensions",
               parse(R"({"shape":[2,3],"permutations":[0,1,2]})"));
  EXPECT_ERROR(kInvalid, "'permutation' [1, 0] and 'permutations' [0, 1], which differ",
               parse(R"({"shape":[2,3],"permutation":[1,0],"permutations":[0,1]})"));
  EXPECT_ERROR(kInvalid, "'dim_names' must be an array",
               parse(R"({"shape":[2,3],"dim_names":"HW","permutations":null})"));
}

TEST(FixedShapeTensorType, ImportedArrowRsFormCarriesTheSpecForm) {
  // The producer's storage (field name included) is kept; only metadata in
  // another writer's form is replaced, so quiver never writes it on.
  TypePtr storage = *fixed_size_list(Field{"v", float32(), false}, 6);
  ASSERT_OK_AND_ASSIGN(
      TypePtr arrow_rs,
      extension(FixedShapeTensorType::kExtensionName,
                R"({"shape":[2,3],"dim_names":null,"permutations":[1,0]})", storage));
  for (int twice = 0; twice < 2; ++twice) {  // the second from the parse cache
    ASSERT_OK_AND_ASSIGN(auto type, FixedShapeTensorType::FromDataType(arrow_rs));
    EXPECT_EQ(type.data_type()->extension_metadata(), R"({"permutation":[1,0],"shape":[2,3]})");
    EXPECT_TRUE(type.data_type()->storage_type()->Equals(*storage));
    EXPECT_EQ(type.data_type()->storage_type()->children()[0].name, "v");
  }
  const char* spec = R"({"shape": [2, 3], "permutation": [1, 0]})";
  ASSERT_OK_AND_ASSIGN(TypePtr spec_type,
                       extension(FixedShapeTensorType::kExtensionName, spec, storage));
  ASSERT_OK_AND_ASSIGN(auto kept, FixedShapeTensorType::FromDataType(spec_type));
  EXPECT_EQ(kept.data_type(), spec_type);  // the spec form is kept as written
}

TEST(FixedShapeTensorType, EveryInvalidMetadataHasItsOwnError) {
  TypePtr storage = *fixed_size_list(ListItem(int32()), 6);
  auto parse = [&](const char* json) { return FixedShapeTensorType::Deserialize(storage, json); };
  EXPECT_ERROR(kInvalid, "not valid JSON", parse("{\"shape\": [2, 3"));
  EXPECT_ERROR(kInvalid, "must be a JSON object", parse("[2, 3]"));
  EXPECT_ERROR(kInvalid, "has no 'shape'", parse("{}"));
  EXPECT_ERROR(kInvalid, "'shape' must be an array", parse(R"({"shape": 6})"));
  EXPECT_ERROR(kInvalid, "'shape'[1] must be an int64 integer, got 3.5",
               parse(R"({"shape":[2,3.5]})"));
  EXPECT_ERROR(kInvalid, "'shape'[0] must be an int64",
               parse(R"({"shape":[18446744073709551615]})"));
  EXPECT_ERROR(kInvalid, "dimension 0 has negative size -2", parse(R"({"shape":[-2,-3]})"));
  EXPECT_ERROR(kInvalid, "shape [2, 2] has 4 elements but the storage list size is 6",
               parse(R"({"shape":[2,2]})"));
  EXPECT_ERROR(kInvalid, "1 dim_names for 2 dimensions",
               parse(R"({"shape":[2,3],"dim_names":["a"]})"));
  EXPECT_ERROR(kInvalid, "'dim_names'[1] must be a string",
               parse(R"({"shape":[2,3],"dim_names":["a",1]})"));
  EXPECT_ERROR(kInvalid, "permutation [0, 0] is not a permutation of 0..1: entry 1 repeats 0",
               parse(R"({"shape":[2,3],"permutation":[0,0]})"));
  EXPECT_ERROR(kInvalid,
               "permutation [0, 2] is not a permutation of 0..1: entry 1 (2) is outside 0..1",
               parse(R"({"shape":[2,3],"permutation":[0,2]})"));
  EXPECT_ERROR(kInvalid, "permutation has 3 entries for 2 dimensions",
               parse(R"({"shape":[2,3],"permutation":[0,1,2]})"));
  EXPECT_ERROR(kInvalid, "overflows int64",
               parse(R"({"shape":[4294967296,4294967296,4294967296]})"));
  EXPECT_ERROR(kInvalid, "more than a fixed_size_list holds", parse(R"({"shape":[65536,65536]})"));
}

TEST(FixedShapeTensorType, WrongStorageOrValueType) {
  EXPECT_ERROR(kTypeError, "storage must be a fixed_size_list",
               FixedShapeTensorType::Deserialize(list(ListItem(int32())), R"({"shape":[1]})"));
  EXPECT_ERROR(
      kTypeError, "value type must be numeric, bool or bool8",
      FixedShapeTensorType::Deserialize(*fixed_size_list(ListItem(utf8()), 1), R"({"shape":[1]})"));
  EXPECT_ERROR(kTypeError, "expected an arrow.fixed_shape_tensor type",
               FixedShapeTensorType::FromDataType(int32()));
}

}  // namespace quiver
