// BYTE_STREAM_SPLIT pages: streams transposed back for every type, and
// pages of the wrong size.
#include "parquet_decoder_test_util.h"

namespace quiver::parquet {
namespace {

TEST(ByteStreamSplitDecodeTest, StreamsAreTransposedForEveryType) {
  // Two floats by hand: 1.0f (00 00 80 3f) and 2.0f (00 00 00 40).
  ColumnValues floats = Values(PhysicalType::kFloat);
  ASSERT_OK(Decode(Encoding::kByteStreamSplit, std::string("\x00\x00\x00\x00\x80\x00\x3f\x40", 8),
                   2, &floats));
  EXPECT_EQ(Fixed<float>(floats), (std::vector<float>{1.0f, 2.0f}));

  std::mt19937_64 random(9);
  std::vector<double> doubles;
  std::vector<int32_t> ints;
  std::vector<int64_t> longs;
  for (int i = 0; i < 1001; ++i) {
    doubles.push_back(static_cast<double>(random()) / 3.0);
    ints.push_back(static_cast<int32_t>(random()));
    longs.push_back(static_cast<int64_t>(random()));
  }
  ColumnValues d = Values(PhysicalType::kDouble);
  ASSERT_OK(Decode(Encoding::kByteStreamSplit, EncodeByteStreamSplit(Bytes(doubles), 8), 1001, &d));
  EXPECT_EQ(Fixed<double>(d), doubles);
  ColumnValues i32 = Values(PhysicalType::kInt32);
  ASSERT_OK(Decode(Encoding::kByteStreamSplit, EncodeByteStreamSplit(Bytes(ints), 4), 1001, &i32));
  EXPECT_EQ(Fixed<int32_t>(i32), ints);
  ColumnValues i64 = Values(PhysicalType::kInt64);
  ASSERT_OK(Decode(Encoding::kByteStreamSplit, EncodeByteStreamSplit(Bytes(longs), 8), 1001, &i64));
  EXPECT_EQ(Fixed<int64_t>(i64), longs);
  // Every width, at counts around the 16 values a vector step takes.
  for (int width : {1, 2, 3, 4, 8, 12, 16, 17}) {
    for (int count : {0, 1, 15, 16, 17, 37, 100}) {
      std::string values;
      for (int i = 0; i < count * width; ++i) values.push_back(static_cast<char>(random()));
      ColumnValues fixed = Values(PhysicalType::kFixedLenByteArray, width);
      ASSERT_OK(
          Decode(Encoding::kByteStreamSplit, EncodeByteStreamSplit(values, width), count, &fixed));
      EXPECT_EQ(std::string(reinterpret_cast<const char*>(fixed.fixed.data()),
                            static_cast<size_t>(fixed.fixed.size())),
                values)
          << width << " " << count;
    }
  }
}

TEST(ByteStreamSplitDecodeTest, ThePageMustHoldExactlyCountTimesWidth) {
  ColumnValues doubles = Values(PhysicalType::kDouble);
  EXPECT_ERROR(kInvalid,
               "column x: BYTE_STREAM_SPLIT values take exactly count * width bytes: 3 DOUBLE "
               "values of 8 bytes need 24, the page holds 23",
               Decode(Encoding::kByteStreamSplit, std::string(23, 'a'), 3, &doubles));
  EXPECT_ERROR(kInvalid, "need 24, the page holds 25",
               Decode(Encoding::kByteStreamSplit, std::string(25, 'a'), 3, &doubles));
  EXPECT_EQ(doubles.count, 0);
  ColumnValues bools = Values(PhysicalType::kBoolean);
  EXPECT_ERROR(kInvalid, "BOOLEAN values in BYTE_STREAM_SPLIT, which that type does not take",
               Decode(Encoding::kByteStreamSplit, "a", 1, &bools));
  ColumnValues strings = Values(PhysicalType::kByteArray);
  EXPECT_ERROR(kInvalid, "BYTE_ARRAY values in BYTE_STREAM_SPLIT",
               Decode(Encoding::kByteStreamSplit, "a", 1, &strings));
}

// --- DELTA_BINARY_PACKED ------------------------------------------------------

}  // namespace
}  // namespace quiver::parquet
