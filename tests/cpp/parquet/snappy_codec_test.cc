// Snappy: blocks another writer made (bytes from pyarrow's Snappy, the
// reference library) decode to their text, quiver's blocks round trip, and
// hostile blocks (lengths, offsets, truncation) are errors.
#include "quiver/parquet/snappy_codec.h"

#include <random>
#include <string>
#include <vector>

#include "test_util.h"

namespace quiver::parquet {
namespace {

std::string FromHex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

Result<std::string> Decode(const std::string& block) {
  const auto* data = reinterpret_cast<const uint8_t*>(block.data());
  const int64_t size = static_cast<int64_t>(block.size());
  QUIVER_ASSIGN_OR_RETURN(int64_t length, SnappyDecodedLength(data, size));
  std::string out(static_cast<size_t>(length), '\0');
  QUIVER_RETURN_NOT_OK(
      SnappyDecode(data, size, reinterpret_cast<uint8_t*>(out.data()), length, "page 0"));
  return out;
}

TEST(SnappyCodecTest, BlocksTheReferenceLibraryWroteDecode) {
  EXPECT_EQ(*Decode(FromHex("00")), "");
  EXPECT_EQ(*Decode(FromHex("010061")), "a");
  EXPECT_EQ(*Decode(FromHex("1e1468656c6c6f205a06000021")), "hello hello hello hello hello!");
  std::string abc;
  for (int i = 0; i < 10; ++i) abc += std::string(66, ' ');
  abc.clear();
  for (int i = 0; i < 220; ++i) abc += "abc";
  EXPECT_EQ(*Decode(FromHex("940508616263fe0300fe0300fe0300fe0300fe0300fe0300fe0300fe0300fe0300"
                            "fe0300420300")),
            abc);
}

TEST(SnappyCodecTest, QuiversBlocksRoundTripAndCompress) {
  std::mt19937 random(3);
  std::vector<std::string> inputs = {"", "x", std::string(100000, 'z')};
  std::string text;
  for (int i = 0; i < 5000; ++i) text += "row " + std::to_string(i % 97) + ", ";
  inputs.push_back(text);
  std::string noise(70000, '\0');
  for (char& c : noise) c = static_cast<char>(random());
  inputs.push_back(noise);
  for (const std::string& input : inputs) {
    const std::string block = SnappyEncode(reinterpret_cast<const uint8_t*>(input.data()),
                                           static_cast<int64_t>(input.size()));
    ASSERT_OK_AND_ASSIGN(std::string back, Decode(block));
    EXPECT_EQ(back, input);
  }
  const std::string block = SnappyEncode(reinterpret_cast<const uint8_t*>(text.data()),
                                         static_cast<int64_t>(text.size()));
  EXPECT_LT(block.size(), text.size() / 4);
}

TEST(SnappyCodecTest, HostileBlocksAreErrors) {
  EXPECT_ERROR(kInvalid, "page 0: the Snappy block holds 5 bytes, the page says 4", [] {
    std::string out(4, '\0');
    const std::string block = FromHex("05100102030405");
    return SnappyDecode(reinterpret_cast<const uint8_t*>(block.data()), 7,
                        reinterpret_cast<uint8_t*>(out.data()), 4, "page 0");
  }());
  EXPECT_ERROR(kInvalid, "literal runs past the input", Decode(FromHex("0a2461")));
  EXPECT_ERROR(kInvalid, "copy reaches before the block's start", Decode(FromHex("0a0100")));
  EXPECT_ERROR(kInvalid, "copy reaches before the block's start",
               Decode(FromHex("0a0061"
                              "0105")));  // offset 5 with 1 byte decoded
  EXPECT_ERROR(kInvalid, "literal runs past the declared length", Decode(FromHex("01046162")));
  EXPECT_ERROR(kInvalid, "ends after 1 of its 3 bytes", Decode(FromHex("030061")));
  EXPECT_ERROR(kInvalid, "not a 32-bit varint", Decode(FromHex("ffffffffff7f")));
  EXPECT_ERROR(kInvalid, "copy runs past the input",
               Decode(FromHex("050061"
                              "02")));
}

}  // namespace
}  // namespace quiver::parquet
