// arrow.variable_shape_tensor types: metadata in its final and draft
// forms, and each metadata error.
#include "quiver/variable_shape_tensor.h"

#include <cstring>
#include <limits>
#include <numeric>

#include "variable_shape_test_util.h"

namespace quiver {

using test::Float32Type;

TEST(VariableShapeTensorType, SerializeFinalForm) {
  ASSERT_OK_AND_ASSIGN(auto type,
                       VariableShapeTensorType::Make(float32(), 3, {"H", "W", "C"}, {2, 0, 1},
                                                     {std::nullopt, std::nullopt, 3}));
  EXPECT_EQ(type.Serialize(),
            R"({"dim_names":["H","W","C"],"permutation":[2,0,1],"uniform_shape":[null,null,3]})");
  EXPECT_EQ(type.logical_dim_names(), (std::vector<std::string>{"C", "H", "W"}));
  EXPECT_EQ(type.logical_uniform_shape(), (UniformShape{3, std::nullopt, std::nullopt}));
  ASSERT_OK_AND_ASSIGN(auto plain, VariableShapeTensorType::Make(int64(), 2));
  EXPECT_EQ(plain.Serialize(), "{}");
  ASSERT_OK_AND_ASSIGN(auto back, VariableShapeTensorType::FromDataType(type.data_type()));
  EXPECT_TRUE(back.Equals(type));
}

TEST(VariableShapeTensorType, EmptyMetadataMeansNoParameters) {
  TypePtr storage = Float32Type(2).data_type()->storage_type();
  for (const char* metadata : {"", "{}"}) {
    ASSERT_OK_AND_ASSIGN(auto type, VariableShapeTensorType::Deserialize(storage, metadata));
    EXPECT_EQ(type.ndim(), 2);
    EXPECT_TRUE(type.uniform_shape().empty());
    EXPECT_TRUE(type.permutation().empty());
  }
}

TEST(VariableShapeTensorType, ReadsArrowRsFormWritesSpecForm) {
  // arrow-rs writes all three parameters, null when absent, and names the
  // permutation "permutations".
  TypePtr storage = Float32Type(3).data_type()->storage_type();
  auto read = [&](const char* metadata) {
    return VariableShapeTensorType::Deserialize(storage, metadata);
  };
  ASSERT_OK_AND_ASSIGN(auto plain,
                       read(R"({"dim_names":null,"permutations":null,"uniform_shape":null})"));
  EXPECT_TRUE(plain.dim_names().empty());
  EXPECT_TRUE(plain.permutation().empty());
  EXPECT_TRUE(plain.uniform_shape().empty());
  EXPECT_EQ(plain.Serialize(), "{}");
  ASSERT_OK_AND_ASSIGN(
      auto full,
      read(R"({"dim_names":["C","H","W"],"permutations":[2,0,1],"uniform_shape":[400,null,3]})"));
  EXPECT_EQ(full.permutation(), (std::vector<int64_t>{2, 0, 1}));
  EXPECT_EQ(full.uniform_shape(), (UniformShape{400, std::nullopt, 3}));
  EXPECT_EQ(full.Serialize(),
            R"({"dim_names":["C","H","W"],"permutation":[2,0,1],"uniform_shape":[400,null,3]})");
  EXPECT_ERROR(kInvalid, "'permutation' [2, 0, 1] and 'permutations' [0, 1, 2], which differ",
               read(R"({"permutation":[2,0,1],"permutations":[0,1,2]})"));
  EXPECT_ERROR(kInvalid, "permutation has 2 entries for 3 dimensions",
               read(R"({"dim_names":null,"permutations":[1,0],"uniform_shape":null})"));
}

TEST(VariableShapeTensorType, ReadsDraftForms) {
  TypePtr storage = Float32Type(3).data_type()->storage_type();
  auto read = [&](const char* metadata) {
    return VariableShapeTensorType::Deserialize(storage, metadata);
  };
  UniformShape expected = {400, std::nullopt, 3};
  ASSERT_OK_AND_ASSIGN(auto uniform_dims,
                       read(R"({"uniform_dimensions":[0,2],"uniform_shape":[400,0,3]})"));
  EXPECT_EQ(uniform_dims.uniform_shape(), expected);
  ASSERT_OK_AND_ASSIGN(auto compact,
                       read(R"({"uniform_dimensions":[0,2],"uniform_shape":[400,3]})"));
  EXPECT_EQ(compact.uniform_shape(), expected);
  ASSERT_OK_AND_ASSIGN(auto ragged,
                       read(R"({"ragged_dimensions":[1],"uniform_shape":[400,0,3],"ndim":3})"));
  EXPECT_EQ(ragged.uniform_shape(), expected);
  ASSERT_OK_AND_ASSIGN(auto ragged_only, read(R"({"ragged_dimensions":[1]})"));
  EXPECT_TRUE(ragged_only.uniform_shape().empty());
  // Written back in the final form only.
  EXPECT_EQ(uniform_dims.Serialize(), R"({"uniform_shape":[400,null,3]})");

  TypePtr draft_storage = struct_({Field{"data", list(ListItem(float32()))},
                                   Field{"shape", *fixed_size_list(ListItem(uint32()), 3)}});
  ASSERT_OK_AND_ASSIGN(TypePtr draft,
                       extension(VariableShapeTensorType::kExtensionName, "", draft_storage));
  ASSERT_OK_AND_ASSIGN(auto from_draft, VariableShapeTensorType::FromDataType(draft));
  EXPECT_EQ(from_draft.data_type()->storage_type()->children()[1].type->children()[0].type->id(),
            TypeId::kInt32);
}

TEST(VariableShapeTensorType, RejectsBadMetadata) {
  TypePtr storage = Float32Type(2).data_type()->storage_type();
  auto read = [&](const char* metadata) {
    return VariableShapeTensorType::Deserialize(storage, metadata);
  };
  EXPECT_ERROR(kInvalid, "not valid JSON", read("{"));
  EXPECT_ERROR(kInvalid, "must be a JSON object", read("[]"));
  EXPECT_ERROR(kInvalid, "uniform_shape has 3 entries for 2", read(R"({"uniform_shape":[1,2,3]})"));
  EXPECT_ERROR(kInvalid, "uniform_shape[0] (-1)", read(R"({"uniform_shape":[-1,null]})"));
  EXPECT_ERROR(kInvalid, "'uniform_shape'[1] must be an int64 integer or null",
               read(R"({"uniform_shape":[1,"x"]})"));
  EXPECT_ERROR(kInvalid, "permutation [0, 0] is not a permutation of 0..1: entry 1 repeats 0",
               read(R"({"permutation":[0,0]})"));
  EXPECT_ERROR(kInvalid, "3 dim_names for 2", read(R"({"dim_names":["a","b","c"]})"));
  EXPECT_ERROR(kInvalid, "'ndim' is 3", read(R"({"ndim":3})"));
  EXPECT_ERROR(kInvalid, "'ragged_dimensions' entry 2", read(R"({"ragged_dimensions":[2]})"));
  EXPECT_ERROR(kTypeError, "field 0 is not a list",
               VariableShapeTensorType::Deserialize(
                   struct_({Field{"a", int32()}, Field{"b", int32()}}), ""));
  EXPECT_ERROR(kTypeError, "not a struct", VariableShapeTensorType::Deserialize(int32(), ""));
  EXPECT_ERROR(kTypeError, "numeric, bool or bool8", VariableShapeTensorType::Make(utf8(), 2));
  EXPECT_ERROR(kInvalid, "ndim must be >= 0", VariableShapeTensorType::Make(int8(), -1));
}

}  // namespace quiver
