// The safetensors header reader: exactly JSON (what a JSON library accepts
// and refuses), and the fields it keeps the way a JSON document would.
#include "quiver/safetensors/header_parser.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace quiver::safetensors_internal {
namespace {

RawHeader Parse(const std::string& text) {
  return ParseHeader(reinterpret_cast<const uint8_t*>(text.data()),
                     static_cast<int64_t>(text.size()));
}

TEST(SafetensorsHeaderParserTest, AcceptsEveryJsonForm) {
  for (const std::string& text : std::vector<std::string>{
           "{}",
           " \t\r\n{ } \n",
           "\xEF\xBB\xBF{}",
           "[]",
           "[1, -2.5e+3, true, false, null, \"s\"]",
           "[1e-400, 1.7976931348623157e308]",
           "-9223372036854775809",
           "[" + std::string(300, '9') + "]",
           "0",
           "-0",
           "\"x\"",
           R"({"a": {"x": [{}, [], {"y": [1E2, 0.5]}], "z": null}})",
           R"({"e": {"dtype": "F32", "shape": [], "data_offsets": [0, 0], "more": {"k": [[]]}}})",
           R"({"\u00e9\ud83d\ude00\"\\\/\b\f\n\r\t": 1})",
       }) {
    RawHeader header = Parse(text);
    EXPECT_FALSE(header.malformed) << text;
    EXPECT_FALSE(header.repeated) << text;
  }
  EXPECT_TRUE(Parse("{}").is_object);
  // A NUL byte ends the text (so padding after the object is allowed).
  EXPECT_FALSE(Parse(std::string("{} \0\0 x", 7)).malformed);
  EXPECT_FALSE(Parse("[{}]").is_object);
}

TEST(SafetensorsHeaderParserTest, RefusesWhatIsNotJson) {
  for (const std::string& text : std::vector<std::string>{
           "",
           " ",
           "\xEF\xBB\xBF",
           " \xEF\xBB\xBF{}",
           "{",
           "}",
           "{\"a\"}",
           "{\"a\":}",
           "{\"a\":1,}",
           "[1,]",
           "[1 2]",
           "{} {}",
           "{}x",
           "01",
           "1.",
           ".5",
           "+1",
           "-",
           "1e",
           "1e+",
           "tru",
           "nul",
           "True",
           "NaN",
           "'a'",
           "\"a",
           "\"\t\"",
           "\"\\x\"",
           "\"\\u12\"",
           "\"\\ud800\"",
           "\"\\udc00\"",
           "\"\\ud800\\u0041\"",
           "{\"a\":[}",
           "{\"a\":{\"b\" 1}}",
           "[[[[1]]]",
           "{\"a\":1 /* no */}",
           "1e309",
           "-1e309",
           "[" + std::string(400, '9') + "]",
           std::string("{\"a\": \"\0\"}", 10),
           std::string("{\"a\": 1\0}", 9),
       }) {
    EXPECT_TRUE(Parse(text).malformed) << text;
  }
}

TEST(SafetensorsHeaderParserTest, KeepsEntriesAsADocumentWould) {
  RawHeader header =
      Parse(R"({"b\u00e9": {"dtype": "I8", "dtype": "U8", "shape": [2, 18446744073709551615],)"
            R"( "data_offsets": [0, 2], "x": [1]}, "a": [1], "c": {"shape": [1, -1], "dtype": 3,)"
            R"( "data_offsets": [0, 1.0]}, "d": {"shape": [-0, 18446744073709551616]}})");
  ASSERT_FALSE(header.malformed);
  ASSERT_EQ(header.entries.size(), 4u);
  const RawEntry& b = header.entries[0];
  EXPECT_EQ(b.name, "b\xC3\xA9");
  EXPECT_TRUE(b.is_object);
  EXPECT_EQ(b.dtype_state, FieldState::kValid);
  EXPECT_EQ(b.dtype, "U8");  // the last of two equal keys
  EXPECT_EQ(b.shape.state, FieldState::kValid);
  EXPECT_EQ(b.shape.values, (std::vector<uint64_t>{2, UINT64_MAX}));
  EXPECT_EQ(b.offsets.values, (std::vector<uint64_t>{0, 2}));
  EXPECT_FALSE(header.entries[1].is_object);
  const RawEntry& c = header.entries[2];
  EXPECT_EQ(c.shape.state, FieldState::kInvalid);  // -1
  EXPECT_EQ(c.dtype_state, FieldState::kInvalid);
  EXPECT_EQ(c.offsets.state, FieldState::kInvalid);  // 1.0 is not an integer
  const RawEntry& d = header.entries[3];
  EXPECT_EQ(d.shape.state, FieldState::kInvalid);  // -0 counts; 2^64 does not
  EXPECT_EQ(d.dtype_state, FieldState::kAbsent);
  EXPECT_EQ(d.offsets.state, FieldState::kAbsent);
  EXPECT_EQ(Parse(R"({"d": {"shape": [-0]}})").entries[0].shape.values, (std::vector<uint64_t>{0}));
}

TEST(SafetensorsHeaderParserTest, ReadsMetadata) {
  RawHeader header = Parse(R"({"__metadata__": {"k": 1, "k": "v", "n": null, "o": {"a": "b"}}})");
  ASSERT_FALSE(header.malformed);
  EXPECT_TRUE(header.entries.empty());
  EXPECT_EQ(header.metadata_state, FieldState::kValid);
  ASSERT_EQ(header.metadata.size(), 3u);
  EXPECT_EQ(header.metadata["k"], "v");
  EXPECT_FALSE(header.metadata["n"]);
  EXPECT_FALSE(header.metadata["o"]);
  EXPECT_EQ(Parse(R"({"__metadata__": null})").metadata_state, FieldState::kAbsent);
  EXPECT_EQ(Parse(R"({"__metadata__": [1]})").metadata_state, FieldState::kInvalid);
}

TEST(SafetensorsHeaderParserTest, StopsAtTheFirstRepeatedTopLevelKey) {
  RawHeader header = Parse(R"({"a": {}, "b": {"x": 1, "x": 2}, "b": 1, "a": 2)");
  EXPECT_EQ(header.repeated, "b");  // found before the missing brace
  EXPECT_FALSE(header.malformed);
  EXPECT_EQ(Parse(R"({"__metadata__": null, "__metadata__": {}})").repeated, "__metadata__");
  EXPECT_TRUE(Parse(R"({"a": 1, "a" 1})").repeated);
  EXPECT_TRUE(Parse(R"({"a": [, "a": 1})").malformed);
}

TEST(SafetensorsHeaderParserTest, DeepNestingIsNotRecursion) {
  const std::string deep =
      "{\"a\": " + std::string(1'000'000, '[') + std::string(1'000'000, ']') + "}";
  EXPECT_FALSE(Parse(deep).malformed);
  EXPECT_TRUE(Parse("{\"a\": " + std::string(1'000'000, '[') + "}").malformed);
}

}  // namespace
}  // namespace quiver::safetensors_internal
