// Shape patterns: parsing ("b 3 _ ... *rest"), building from entries,
// ToString, and the errors that name the token and its position.
#include "quiver/shape_pattern.h"

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "shape_test_util.h"

namespace quiver {

using test::Check;
using test::P;
using test::Shape;

// --- Parsing -------------------------------------------------------------

TEST(ShapePattern, ParsesEveryEntryKind) {
  ASSERT_OK_AND_ASSIGN(auto pattern, ShapePattern::Parse("  b 3 _ ... "));
  EXPECT_EQ(pattern.ToString(), "[b, 3, _, ...]");
  EXPECT_EQ(pattern.ellipsis_index(), 3);
  EXPECT_EQ(pattern.min_ndim(), 3);
  ASSERT_OK_AND_ASSIGN(auto named, ShapePattern::Parse("batch *rest 3"));
  EXPECT_EQ(named.entries()[1].kind, ShapeEntry::Kind::kNamedEllipsis);
  EXPECT_EQ(named.entries()[1].name, "rest");
  ASSERT_OK_AND_ASSIGN(auto empty, ShapePattern::Parse(""));
  EXPECT_EQ(empty.size(), 0);
  EXPECT_EQ(empty.ToString(), "[]");
  ASSERT_OK_AND_ASSIGN(auto names, ShapePattern::Parse("hoehe breite_2 _x"));
  EXPECT_EQ(names.entries()[0].name, "hoehe");
  EXPECT_EQ(names.entries()[2].kind, ShapeEntry::Kind::kSymbol);
  ASSERT_OK_AND_ASSIGN(auto list, ShapePattern::Make({ShapeEntry::Any(), ShapeEntry::Size(4)}));
  EXPECT_EQ(list.ToString(), "[None, 4]");
  EXPECT_TRUE(list.Equals(*ShapePattern::Make({ShapeEntry::Any(), ShapeEntry::Size(4)})));
}

TEST(ShapePattern, NamesAndTheEllipsisAreAscii) {
  EXPECT_ERROR(kInvalid,
               "pattern entry 1 '\u2026' at character 2: '\u2026' (U+2026, one ellipsis character) "
               "is not '...'",
               ShapePattern::Parse("b \u2026 c"));
  EXPECT_ERROR(kInvalid, "names are ASCII letters, digits and '_'; '\u00f6' (U+00F6) is not one",
               ShapePattern::Parse("h\u00f6he"));
  // A full-width digit would otherwise start a name.
  EXPECT_ERROR(kInvalid, "'\uff11' (U+FF11) is not one", ShapePattern::Parse("\uff11x"));
  EXPECT_ERROR(kInvalid, "'\U0001F600' (U+1F600) is not one", ShapePattern::Parse("*r\U0001F600"));
  EXPECT_ERROR(kInvalid, "not valid UTF-8", ShapePattern::Parse("b \xff"));
}

TEST(ShapePattern, ParseErrorsNameTheTokenAndPosition) {
  EXPECT_ERROR(kInvalid,
               "pattern entry 2 '...' at character 6: a pattern has at most one ellipsis (entry 1 "
               "is one already)",
               ShapePattern::Parse("b ... ... c"));
  EXPECT_ERROR(kInvalid, "pattern entry 2 '*r' at character 6: a pattern has at most one ellipsis",
               ShapePattern::Parse("b ... *r"));
  EXPECT_ERROR(kInvalid,
               "pattern entry 1 'h!' at character 2: not a size, a name, '_', '...' or '*name'",
               ShapePattern::Parse("b h! w"));
  EXPECT_ERROR(kInvalid, "pattern entry 0 '-3' at character 0: sizes must be >= 0",
               ShapePattern::Parse("-3"));
  EXPECT_ERROR(kInvalid, "pattern entry 0 '3x' at character 0: not a size or a name",
               ShapePattern::Parse("3x"));
  EXPECT_ERROR(kInvalid, "'*' needs a name", ShapePattern::Parse("b *"));
  EXPECT_ERROR(kInvalid, "size does not fit int64", ShapePattern::Parse("99999999999999999999"));
  EXPECT_ERROR(kInvalid, "'n' is used both as a symbol and as a named ellipsis",
               ShapePattern::Parse("n *n"));
  EXPECT_ERROR(kInvalid, "pattern entry 0 '\\xff\\xfe' at character 0: not valid UTF-8",
               ShapePattern::Parse("\xff\xfe"));
  EXPECT_ERROR(kInvalid, "sizes must be >= 0", ShapePattern::Make({ShapeEntry::Size(-1)}));
  EXPECT_ERROR(kInvalid, "not a valid name", ShapePattern::Make({ShapeEntry::Symbol("a b")}));
  // A very long token is cut in the message.
  std::string long_token(1000, '!');
  auto status = ShapePattern::Parse(long_token).status();
  EXPECT_LT(status.message().size(), 200u) << status.message();
  // ... before a character, never inside one: "é" spans bytes 39 and 40.
  const std::string accented = std::string(39, 'a') + "\xC3\xA9" + std::string(20, 'b');
  EXPECT_ERROR(kInvalid, "pattern entry 0 '" + std::string(39, 'a') + "...' at character 0",
               ShapePattern::Parse(accented));
}

TEST(ShapePattern, LongPatternsParseAndMatch) {
  std::string text;
  Shape shape;
  for (int i = 0; i < 500; ++i) {
    text += "d" + std::to_string(i) + " ";
    shape.push_back(1);
  }
  ASSERT_OK_AND_ASSIGN(auto match, Check(shape, text));
  EXPECT_EQ(match.dims.size(), 500u);
}

}  // namespace quiver
