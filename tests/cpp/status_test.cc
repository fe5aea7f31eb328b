// Status: codes, context, and messages that stay text whatever bytes the
// input quoted into them.
#include "quiver/status.h"

#include <gtest/gtest.h>

#include <string>

namespace quiver {

TEST(Status, ContextIsPrependedAndOkStaysOk) {
  EXPECT_EQ(Status::Invalid("bad").WithContext("column 0").ToString(), "Invalid: column 0: bad");
  EXPECT_TRUE(Status::OK().WithContext("column 0").ok());
}

TEST(Status, InvalidUtf8InAMessageIsEscaped) {
  // A field name with bytes that are no UTF-8, quoted into a message.
  EXPECT_EQ(Status::Invalid("column 0 (a\xff\xfe" "b): bad").message(), "column 0 (a\\xff\\xfeb): bad");
  // Truncated and overlong sequences and surrogates are escaped byte by byte.
  EXPECT_EQ(Status::Invalid("\xe2\x80").message(), "\\xe2\\x80");
  EXPECT_EQ(Status::Invalid("\xc0\xaf").message(), "\\xc0\\xaf");
  EXPECT_EQ(Status::Invalid("\xed\xa0\x80").message(), "\\xed\\xa0\\x80");
  // Valid text, ASCII or not, is kept as it is.
  EXPECT_EQ(Status::TypeError("h\xc3\xb6he \xe2\x80\xa6 \xf0\x9f\x98\x80").message(),
            "h\xc3\xb6he \xe2\x80\xa6 \xf0\x9f\x98\x80");
  EXPECT_EQ(Status::Invalid("ok").WithContext("x\xff").message(), "x\\xff: ok");
}

}  // namespace quiver
