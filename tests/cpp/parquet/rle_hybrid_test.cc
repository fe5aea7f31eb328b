// The RLE / bit-packed hybrid: the format's own example, round trips at
// every bit width, the all-equal fast path, and runs that lie about their
// lengths or values.
#include "quiver/parquet/rle_hybrid.h"

#include <random>
#include <string>
#include <vector>

#include "test_util.h"

namespace quiver::parquet {
namespace {

std::vector<uint32_t> DecodeAll(const std::string& bytes, int width, int64_t count) {
  RleHybridDecoder decoder(reinterpret_cast<const uint8_t*>(bytes.data()),
                           static_cast<int64_t>(bytes.size()), width, "levels");
  std::vector<uint32_t> out(static_cast<size_t>(count));
  Status status = decoder.Decode(out.data(), count);
  EXPECT_TRUE(status.ok()) << status.ToString();
  return out;
}

TEST(RleHybridTest, TheFormatsBitPackingExample) {
  // 0..7 in 3 bits: one group, bytes 10001000 11000110 11111010.
  const std::string bytes("\x03\x88\xc6\xfa", 4);
  EXPECT_EQ(DecodeAll(bytes, 3, 8), (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  std::vector<uint32_t> values{0, 1, 2, 3, 4, 5, 6, 7};
  EXPECT_EQ(EncodeRleHybrid(values.data(), 8, 3), bytes);
}

TEST(RleHybridTest, RepeatedRunsAndRoundTripsAtEveryWidth) {
  // 100 fives in 3 bits: header 200, value 5.
  const std::string repeated("\xc8\x01\x05", 3);
  EXPECT_EQ(DecodeAll(repeated, 3, 100), std::vector<uint32_t>(100, 5));
  std::mt19937 random(7);
  for (int width = 0; width <= 32; ++width) {
    const uint64_t limit = width == 32 ? UINT32_MAX : (uint64_t{1} << width) - 1;
    std::vector<uint32_t> values;
    for (int block = 0; block < 40; ++block) {
      const uint32_t v = static_cast<uint32_t>(random() % (limit + 1));
      const int length = static_cast<int>(random() % 20) + 1;  // short and long runs
      for (int k = 0; k < length; ++k) {
        values.push_back(block % 3 == 0 ? static_cast<uint32_t>(random() % (limit + 1)) : v);
      }
    }
    const std::string bytes =
        EncodeRleHybrid(values.data(), static_cast<int64_t>(values.size()), width);
    EXPECT_EQ(DecodeAll(bytes, width, static_cast<int64_t>(values.size())), values)
        << "width " << width;
  }
}

TEST(RleHybridTest, DecodingInPiecesContinuesTheRun) {
  std::vector<uint32_t> values;
  for (int i = 0; i < 50; ++i) values.push_back(static_cast<uint32_t>(i % 5));
  for (int i = 0; i < 30; ++i) values.push_back(4);
  const std::string bytes = EncodeRleHybrid(values.data(), 80, 3);
  RleHybridDecoder decoder(reinterpret_cast<const uint8_t*>(bytes.data()),
                           static_cast<int64_t>(bytes.size()), 3, "levels");
  std::vector<uint32_t> out(80);
  for (int64_t at = 0; at < 80; at += 7) {
    ASSERT_OK(decoder.Decode(out.data() + at, std::min<int64_t>(7, 80 - at)));
  }
  EXPECT_EQ(out, values);
}

TEST(RleHybridTest, AllEqualAnswersFromARunAndFromPackedValues) {
  std::vector<uint32_t> ones(1000, 1);
  std::string bytes = EncodeRleHybrid(ones.data(), 1000, 1);
  EXPECT_LE(bytes.size(), 3u);  // one repeated run
  RleHybridDecoder all(reinterpret_cast<const uint8_t*>(bytes.data()),
                       static_cast<int64_t>(bytes.size()), 1, "levels");
  ASSERT_OK_AND_ASSIGN(bool equal, all.NextAllEqual(1000, 1));
  EXPECT_TRUE(equal);

  ones[500] = 0;  // one null among them
  bytes = EncodeRleHybrid(ones.data(), 1000, 1);
  RleHybridDecoder one_null(reinterpret_cast<const uint8_t*>(bytes.data()),
                            static_cast<int64_t>(bytes.size()), 1, "levels");
  ASSERT_OK_AND_ASSIGN(equal, one_null.NextAllEqual(400, 1));
  EXPECT_TRUE(equal);
  ASSERT_OK_AND_ASSIGN(equal, one_null.NextAllEqual(600, 1));
  EXPECT_FALSE(equal);
}

TEST(RleHybridTest, RunsThatLieAreErrorsNamingTheByte) {
  auto decode = [](const std::string& bytes, int width, int64_t count) {
    RleHybridDecoder decoder(reinterpret_cast<const uint8_t*>(bytes.data()),
                             static_cast<int64_t>(bytes.size()), width, "page 3 levels");
    std::vector<uint32_t> out(static_cast<size_t>(count));
    return decoder.Decode(out.data(), count);
  };
  EXPECT_ERROR(kInvalid, "page 3 levels: the values end before the page's count at byte 2",
               decode(std::string("\x06\x01", 2), 8, 4));  // 3 values, 4 asked
  EXPECT_ERROR(kInvalid, "bit-packed run of 5 groups of 3 bytes runs past the 2 bytes left",
               decode(std::string("\x0b\x00\x00", 3), 3, 8));
  EXPECT_ERROR(kInvalid, "a repeated value 9 wider than 3 bits",
               decode(std::string("\x10\x09", 2), 3, 8));
  EXPECT_ERROR(kInvalid, "a repeated run's value runs past the bytes left",
               decode(std::string("\x10\x09", 2), 16, 8));
  EXPECT_ERROR(kInvalid, "an empty repeated run", decode(std::string("\x00", 1), 1, 1));
  EXPECT_ERROR(kInvalid, "an empty bit-packed run", decode(std::string("\x01", 1), 1, 1));
  EXPECT_ERROR(kInvalid, "a bit width of 33", decode(std::string("\x02\x01", 2), 33, 1));
  EXPECT_ERROR(kInvalid, "varint runs past 64 bits", decode(std::string(12, '\xff'), 1, 1));
}

TEST(RleHybridTest, BitWidthOfMaxValues) {
  EXPECT_EQ(BitWidthOf(0), 0);
  EXPECT_EQ(BitWidthOf(1), 1);
  EXPECT_EQ(BitWidthOf(2), 2);
  EXPECT_EQ(BitWidthOf(255), 8);
  EXPECT_EQ(BitWidthOf(UINT32_MAX), 32);
}

}  // namespace
}  // namespace quiver::parquet
