// Base64: the RFC 4648 test vectors both ways, and text that is not base64.
#include "quiver/internal/base64.h"

#include <gtest/gtest.h>

#include <string>

namespace quiver::internal {
namespace {

TEST(Base64Test, RfcVectorsRoundTrip) {
  const std::pair<std::string, std::string> vectors[] = {
      {"", ""},
      {"f", "Zg=="},
      {"fo", "Zm8="},
      {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="},
      {"fooba", "Zm9vYmE="},
      {"foobar", "Zm9vYmFy"},
  };
  for (const auto& [plain, encoded] : vectors) {
    EXPECT_EQ(EncodeBase64(plain), encoded);
    EXPECT_EQ(DecodeBase64(encoded), plain);
  }
  std::string every;
  for (int i = 0; i < 256; ++i) every.push_back(static_cast<char>(i));
  EXPECT_EQ(DecodeBase64(EncodeBase64(every)), every);
}

TEST(Base64Test, TextThatIsNotBase64IsRefused) {
  EXPECT_FALSE(DecodeBase64("Zm9").has_value());         // length not a multiple of 4
  EXPECT_FALSE(DecodeBase64("Zm9v!A==").has_value());    // outside the alphabet
  EXPECT_FALSE(DecodeBase64("Zg==Zm9v").has_value());    // padding before the end
  EXPECT_FALSE(DecodeBase64("Zm9v\nZm9v").has_value());  // whitespace
  EXPECT_FALSE(DecodeBase64("====").has_value());
}

}  // namespace
}  // namespace quiver::internal
