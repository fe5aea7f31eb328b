// Status: codes, context, and messages that stay text whatever bytes the
// input quoted into them.
#include "quiver/status.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace quiver {

TEST(Status, ContextIsPrependedAndOkStaysOk) {
  EXPECT_EQ(Status::Invalid("bad").WithContext("column 0").ToString(), "Invalid: column 0: bad");
  EXPECT_TRUE(Status::OK().WithContext("column 0").ok());
}

TEST(Status, InvalidUtf8InAMessageIsEscaped) {
  // A field name with bytes that are no UTF-8, quoted into a message.
  EXPECT_EQ(Status::Invalid("column 0 (a\xff\xfe"
                            "b): bad")
                .message(),
            "column 0 (a\\xff\\xfeb): bad");
  // Truncated and overlong sequences and surrogates are escaped byte by byte.
  EXPECT_EQ(Status::Invalid("\xe2\x80").message(), "\\xe2\\x80");
  EXPECT_EQ(Status::Invalid("\xc0\xaf").message(), "\\xc0\\xaf");
  EXPECT_EQ(Status::Invalid("\xed\xa0\x80").message(), "\\xed\\xa0\\x80");
  // Valid text, ASCII or not, is kept as it is.
  EXPECT_EQ(Status::TypeError("h\xc3\xb6he \xe2\x80\xa6 \xf0\x9f\x98\x80").message(),
            "h\xc3\xb6he \xe2\x80\xa6 \xf0\x9f\x98\x80");
  EXPECT_EQ(Status::Invalid("ok").WithContext("x\xff").message(), "x\\xff: ok");
}

TEST(Status, MessageFromPiecesOfMixedTypes) {
  const std::string name = "shape";
  const std::string_view view = "view";
  const char* c_text = "c-text";
  EXPECT_EQ(Status::Invalid("row ", 3, ": ", name, " ", view, ' ', c_text, '!').message(),
            "row 3: shape view c-text!");
  EXPECT_EQ(Status::Invalid("a ", 1, " b").code(), StatusCode::kInvalid);
  EXPECT_EQ(Status::TypeError("t", 1).ToString(), "TypeError: t1");
  EXPECT_EQ(Status::IndexError("i", 2).ToString(), "IndexError: i2");
  EXPECT_EQ(Status::NotImplemented("n", 3).ToString(), "NotImplemented: n3");
  EXPECT_EQ(Status::IOError("o", 4).ToString(), "IOError: o4");
  EXPECT_EQ(Status::OutOfMemory("m", 5).ToString(), "OutOfMemory: m5");
  // One piece that is not text is written too.
  EXPECT_EQ(Status::Invalid(view).message(), "view");
  EXPECT_EQ(Status::Invalid(42).message(), "42");
  EXPECT_EQ(Status::Invalid('x').message(), "x");
}

TEST(Status, MessagePiecesWriteIntegersAsToStringDoes) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr uint64_t kUMax = std::numeric_limits<uint64_t>::max();
  EXPECT_EQ(Status::Invalid(kMin, " ", kMax).message(),
            std::to_string(kMin) + " " + std::to_string(kMax));
  EXPECT_EQ(Status::Invalid(kMin).message(), "-9223372036854775808");
  EXPECT_EQ(Status::Invalid(kUMax).message(), "18446744073709551615");
  const size_t size = 17;
  EXPECT_EQ(Status::Invalid("size ", size).message(), "size 17");
  EXPECT_EQ(Status::Invalid("", std::numeric_limits<size_t>::max()).message(),
            std::to_string(std::numeric_limits<size_t>::max()));
  EXPECT_EQ(Status::Invalid(0, -1, ' ', int32_t{-2147483647 - 1}).message(), "0-1 -2147483648");
  // Bytes are numbers, as std::to_string writes them; only char is a character.
  EXPECT_EQ(Status::Invalid(uint8_t{255}, " ", int8_t{-128}, " ", 'a').message(), "255 -128 a");
}

TEST(Status, MessagePiecesWriteFloatingPointAsAStreamDoes) {
  EXPECT_EQ(Status::Invalid("x = ", 1.5).message(), "x = 1.5");
  EXPECT_EQ(Status::Invalid(1.0, " ", 1.0 / 3, " ", 1e20, " ", 2.5f).message(),
            "1 0.333333 1e+20 2.5");
}

TEST(Status, MessageFromNoPiecesOrEmptyPieces) {
  EXPECT_EQ(Status::Invalid().message(), "");
  EXPECT_EQ(Status::Invalid().code(), StatusCode::kInvalid);
  EXPECT_FALSE(Status::IOError().ok());
  EXPECT_EQ(Status::Invalid("", std::string(), std::string_view()).message(), "");
  EXPECT_EQ(Status::Invalid("", 0, "").message(), "0");
}

TEST(Status, MessageFromPiecesIsEscapedLikeAnyMessage) {
  const std::string hostile =
      "a\xff"
      "b";
  EXPECT_EQ(Status::Invalid("column ", 0, " (", hostile, ")").message(), "column 0 (a\\xffb)");
}

}  // namespace quiver
