// The UTF-8 well-formedness check (RFC 3629) and the escaping of invalid
// bytes in text that is not UTF-8.
#include "quiver/internal/utf8.h"

#include <string>

#include "test_util.h"

namespace quiver::internal {
namespace {

bool Valid(const std::string& s) {
  return IsValidUtf8(reinterpret_cast<const uint8_t*>(s.data()), static_cast<int64_t>(s.size()));
}

}  // namespace

TEST(Utf8, WellFormedSequencesOfEveryLength) {
  EXPECT_TRUE(Valid(""));
  EXPECT_TRUE(Valid("plain ascii"));
  EXPECT_TRUE(Valid("\xC3\xA9"));          // U+00E9
  EXPECT_TRUE(Valid("\xE2\x82\xAC"));      // U+20AC
  EXPECT_TRUE(Valid("\xF0\x9F\x98\x80"));  // U+1F600
  EXPECT_TRUE(Valid("\xF4\x8F\xBF\xBF"));  // U+10FFFF, the last code point
  EXPECT_TRUE(Valid(std::string("a\0b", 3)));
}

TEST(Utf8, IllFormedSequencesAreRefused) {
  EXPECT_FALSE(Valid("\x80"));              // stray continuation byte
  EXPECT_FALSE(Valid("\xFF"));              // never a lead byte
  EXPECT_FALSE(Valid("\xC3"));              // truncated at the end
  EXPECT_FALSE(Valid("\xE2\x82"));          // truncated at the end
  EXPECT_FALSE(Valid("\xC3\x41"));          // continuation expected
  EXPECT_FALSE(Valid("\xC0\xAF"));          // overlong '/'
  EXPECT_FALSE(Valid("\xE0\x80\xAF"));      // overlong '/'
  EXPECT_FALSE(Valid("\xF0\x80\x80\xAF"));  // overlong '/'
  EXPECT_FALSE(Valid("\xED\xA0\x80"));      // U+D800, a surrogate
  EXPECT_FALSE(Valid("\xF4\x90\x80\x80"));  // U+110000
}

TEST(Utf8, EscapeKeepsValidTextAndEscapesEachBadByte) {
  EXPECT_EQ(EscapeInvalidUtf8("caf\xC3\xA9"), "caf\xC3\xA9");
  EXPECT_EQ(EscapeInvalidUtf8("a\xFF"
                              "b"),
            "a\\xffb");
  // Valid sequences around the bad bytes stay as they are.
  EXPECT_EQ(EscapeInvalidUtf8("\xC3\xA9\x80\xE2\x82\xAC"), "\xC3\xA9\\x80\xE2\x82\xAC");
  // A truncated sequence: each of its bytes is escaped.
  EXPECT_EQ(EscapeInvalidUtf8("x\xE2\x82"), "x\\xe2\\x82");
  EXPECT_EQ(EscapeInvalidUtf8("\xED\xA0\x80"), "\\xed\\xa0\\x80");
}

}  // namespace quiver::internal
