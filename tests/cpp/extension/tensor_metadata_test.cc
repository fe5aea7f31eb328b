// Strict JSON parsing and the checks both tensor extension types share for
// their metadata: objects, int64 arrays (nullable or not), string arrays,
// dim_names, value types, ToString parameters and inverse permutations.
#include "quiver/extension/tensor_metadata.h"

#include <optional>
#include <string>
#include <vector>

#include "quiver/fixed_shape_tensor.h"
#include "test_util.h"

namespace quiver::internal {
namespace {

const std::string kName = "arrow.fixed_shape_tensor";

nlohmann::json Object(std::string_view text) {
  auto parsed = ParseMetadataObject(text, kName);
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  return parsed.ok() ? *parsed : nlohmann::json::object();
}

}  // namespace

TEST(TensorMetadata, OnlyJsonObjectsParse) {
  EXPECT_TRUE(Object("{\"shape\": [1]}").contains("shape"));
  EXPECT_EQ(test::StatusOf(ParseMetadataObject("{\"shape\": ", kName)).message(),
            "arrow.fixed_shape_tensor metadata is not valid JSON: '{\"shape\": '");
  EXPECT_EQ(test::StatusOf(ParseMetadataObject("[1, 2]", kName)).message(),
            "arrow.fixed_shape_tensor metadata must be a JSON object, got '[1, 2]'");
  EXPECT_ERROR(kInvalid, "is not valid JSON: ''", ParseMetadataObject("", kName));
}

TEST(TensorMetadata, IntArrays) {
  nlohmann::json object = Object(R"({"a": [1, -2, 9223372036854775807], "b": [1, 2.5], "c": 3,
                                     "d": [9223372036854775808], "n": [null, 4]})");
  ASSERT_OK_AND_ASSIGN(auto a, ReadIntArray(object, "a", kName));
  EXPECT_EQ(a, (std::vector<int64_t>{1, -2, 9223372036854775807}));
  ASSERT_OK_AND_ASSIGN(auto absent, ReadIntArray(object, "missing", kName));
  EXPECT_FALSE(absent.has_value());
  EXPECT_EQ(test::StatusOf(ReadIntArray(object, "b", kName)).message(),
            "arrow.fixed_shape_tensor metadata 'b'[1] must be an int64 integer, got 2.5");
  EXPECT_EQ(test::StatusOf(ReadIntArray(object, "c", kName)).message(),
            "arrow.fixed_shape_tensor metadata 'c' must be an array, each entry an int64 integer");
  EXPECT_EQ(
      test::StatusOf(ReadIntArray(object, "d", kName)).message(),
      "arrow.fixed_shape_tensor metadata 'd'[0] must be an int64 integer, got 9223372036854775808");
  EXPECT_EQ(test::StatusOf(ReadIntArray(object, "n", kName)).message(),
            "arrow.fixed_shape_tensor metadata 'n'[0] must be an int64 integer, got null");
  ASSERT_OK_AND_ASSIGN(auto nullable, ReadNullableIntArray(object, "n", kName));
  EXPECT_EQ(nullable, (std::vector<std::optional<int64_t>>{std::nullopt, 4}));
  EXPECT_EQ(test::StatusOf(ReadNullableIntArray(object, "b", kName)).message(),
            "arrow.fixed_shape_tensor metadata 'b'[1] must be an int64 integer or null, got 2.5");
}

TEST(TensorMetadata, NullReadsAsAbsent) {
  // arrow-rs writes absent optional parameters as null.
  nlohmann::json object = Object(R"({"i": null, "n": null, "s": null})");
  ASSERT_OK_AND_ASSIGN(auto ints, ReadIntArray(object, "i", kName));
  EXPECT_FALSE(ints.has_value());
  ASSERT_OK_AND_ASSIGN(auto nullable, ReadNullableIntArray(object, "n", kName));
  EXPECT_FALSE(nullable.has_value());
  ASSERT_OK_AND_ASSIGN(auto strings, ReadStringArray(object, "s", kName));
  EXPECT_FALSE(strings.has_value());
}

TEST(TensorMetadata, PermutationUnderEitherKey) {
  auto read = [](std::string_view text) { return ReadPermutation(Object(text), kName); };
  ASSERT_OK_AND_ASSIGN(auto spec, read(R"({"permutation": [1, 0]})"));
  EXPECT_EQ(spec, (std::vector<int64_t>{1, 0}));
  ASSERT_OK_AND_ASSIGN(auto plural, read(R"({"permutations": [1, 0]})"));
  EXPECT_EQ(plural, (std::vector<int64_t>{1, 0}));
  ASSERT_OK_AND_ASSIGN(auto both, read(R"({"permutation": [1, 0], "permutations": [1, 0]})"));
  EXPECT_EQ(both, (std::vector<int64_t>{1, 0}));
  ASSERT_OK_AND_ASSIGN(auto one_null, read(R"({"permutation": null, "permutations": [1, 0]})"));
  EXPECT_EQ(one_null, (std::vector<int64_t>{1, 0}));
  ASSERT_OK_AND_ASSIGN(auto none, read(R"({"permutations": null})"));
  EXPECT_FALSE(none.has_value());
  EXPECT_EQ(test::StatusOf(read(R"({"permutation": [1, 0], "permutations": [0, 1]})")).message(),
            "arrow.fixed_shape_tensor metadata has both 'permutation' [1, 0] and "
            "'permutations' [0, 1], which differ");
  EXPECT_EQ(test::StatusOf(read(R"({"permutations": [1, "0"]})")).message(),
            "arrow.fixed_shape_tensor metadata 'permutations'[1] must be an int64 integer, "
            "got \"0\"");
  EXPECT_EQ(test::StatusOf(read(R"({"permutations": {}})")).message(),
            "arrow.fixed_shape_tensor metadata 'permutations' must be an array, each entry an "
            "int64 integer");
}

TEST(TensorMetadata, OtherWritersKeys) {
  EXPECT_TRUE(HasOtherWritersKeys(Object(R"({"shape": [2], "dim_names": null})")));
  EXPECT_TRUE(HasOtherWritersKeys(Object(R"({"shape": [2], "permutations": [0]})")));
  EXPECT_FALSE(HasOtherWritersKeys(Object(R"({"shape": [2], "permutation": [0]})")));
  EXPECT_FALSE(HasOtherWritersKeys(Object(R"({"uniform_shape": [null, 3]})")));
}

TEST(TensorMetadata, StringArraysAndDimNames) {
  nlohmann::json object = Object(R"({"names": ["H", "W"], "mixed": ["H", 1]})");
  ASSERT_OK_AND_ASSIGN(auto names, ReadStringArray(object, "names", kName));
  EXPECT_EQ(names, (std::vector<std::string>{"H", "W"}));
  EXPECT_EQ(test::StatusOf(ReadStringArray(object, "mixed", kName)).message(),
            "arrow.fixed_shape_tensor metadata 'mixed'[1] must be a string, got 1");
  ASSERT_OK(CheckDimNames({}, 3, kName));
  ASSERT_OK(CheckDimNames({"H", "W"}, 2, kName));
  EXPECT_EQ(CheckDimNames({"H", "W"}, 3, kName).message(),
            "arrow.fixed_shape_tensor has 2 dim_names for 3 dimensions");
}

TEST(TensorMetadata, TypeChecks) {
  ASSERT_OK_AND_ASSIGN(auto fixed, FixedShapeTensorType::Make(float32(), {2}));
  ASSERT_OK(CheckExtensionType(fixed.data_type(), FixedShapeTensorType::kExtensionName));
  Status other = CheckExtensionType(int32(), FixedShapeTensorType::kExtensionName);
  EXPECT_EQ(other.code(), StatusCode::kTypeError);
  EXPECT_EQ(other.message(), "expected an arrow.fixed_shape_tensor type, got int32");
  EXPECT_EQ(CheckExtensionType(nullptr, "arrow.variable_shape_tensor").message(),
            "expected an arrow.variable_shape_tensor type, got none");
  ASSERT_OK(CheckTensorValueType(float64(), kName));
  ASSERT_OK(CheckTensorValueType(boolean(), kName));
  ASSERT_OK(CheckTensorValueType(bool8(), kName));
  ASSERT_OK(CheckTensorValueType(bfloat16(), kName));
  ASSERT_OK(CheckTensorValueType(float8_e4m3fn(), kName));
  ASSERT_OK(CheckTensorValueType(float8_e5m2(), kName));
  EXPECT_EQ(CheckTensorValueType(utf8(), kName).message(),
            "arrow.fixed_shape_tensor value type must be numeric, bool or bool8 (or bfloat16, "
            "float8_e4m3fn, float8_e5m2), got utf8");
  EXPECT_EQ(CheckTensorValueType(nullptr, kName).code(), StatusCode::kTypeError);
  EXPECT_EQ(CheckTensorValueType(nullptr, kName).message(),
            "arrow.fixed_shape_tensor needs a value type");
}

TEST(TensorMetadata, ParametersAndInversePermutation) {
  EXPECT_EQ(FormatTensorParameters({}, {}), "");
  EXPECT_EQ(FormatTensorParameters({"H", "W"}, {}), " dim_names=[H, W]");
  EXPECT_EQ(FormatTensorParameters({"H", "W"}, {1, 0}), " dim_names=[H, W] permutation=[1, 0]");
  EXPECT_EQ(FormatTensorParameters({}, {2, 0, 1}), " permutation=[2, 0, 1]");
  EXPECT_EQ(InvertPermutation({2, 0, 1}), (std::vector<int64_t>{1, 2, 0}));
  EXPECT_EQ(InvertPermutation({}), (std::vector<int64_t>{}));
  EXPECT_EQ(InvertPermutation(InvertPermutation({3, 1, 0, 2})), (std::vector<int64_t>{3, 1, 0, 2}));
}

}  // namespace quiver::internal
