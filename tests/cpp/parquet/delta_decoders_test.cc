// DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY pages:
// hand-built and round-tripped, and headers, blocks, lengths and prefixes
// that lie.
#include "parquet_decoder_test_util.h"

namespace quiver::parquet {
namespace {

TEST(DeltaBinaryPackedDecodeTest, HandBuiltPages) {
  // 1 2 3 4 5: block of 128 in 4 miniblocks, 5 values, first 1 (zigzag 2);
  // min delta 1 (zigzag 2), every width 0, no miniblock bytes.
  const std::string consecutive("\x80\x01\x04\x05\x02\x02\x00\x00\x00\x00", 10);
  ColumnValues ints = Values(PhysicalType::kInt32);
  ASSERT_OK(Decode(Encoding::kDeltaBinaryPacked, consecutive, 5, &ints));
  EXPECT_EQ(Fixed<int32_t>(ints), (std::vector<int32_t>{1, 2, 3, 4, 5}));

  // 7 5 3 1 2 3 4 5: first 7 (zigzag 14); deltas -2 -2 -2 1 1 1 1, min -2
  // (zigzag 3), adjusted 0 0 0 3 3 3 3 in 2 bits: 0b11000000 0b00111111, then
  // 6 zero bytes of the 32-value miniblock.
  const std::string page =
      std::string("\x80\x01\x04\x08\x0e\x03\x02\x00\x00\x00\xc0\x3f", 12) + std::string(6, '\0');
  ColumnValues longs = Values(PhysicalType::kInt64);
  ASSERT_OK(Decode(Encoding::kDeltaBinaryPacked, page, 8, &longs));
  EXPECT_EQ(Fixed<int64_t>(longs), (std::vector<int64_t>{7, 5, 3, 1, 2, 3, 4, 5}));

  // One value is the header alone; none is a header saying 0.
  ColumnValues one = Values(PhysicalType::kInt64);
  ASSERT_OK(Decode(Encoding::kDeltaBinaryPacked, std::string("\x80\x01\x04\x01\x03", 5), 1, &one));
  EXPECT_EQ(Fixed<int64_t>(one), (std::vector<int64_t>{-2}));
  ColumnValues none = Values(PhysicalType::kInt32);
  ASSERT_OK(Decode(Encoding::kDeltaBinaryPacked, std::string("\x80\x01\x04\x00\x00", 5), 0, &none));
  EXPECT_EQ(none.count, 0);
}

TEST(DeltaBinaryPackedDecodeTest, RoundTripsWrapModuloTheTypesWidth) {
  std::mt19937_64 random(11);
  std::vector<int64_t> longs{std::numeric_limits<int64_t>::max(),
                             std::numeric_limits<int64_t>::min(),
                             std::numeric_limits<int64_t>::max(), 0, -1};
  for (int i = 0; i < 1000; ++i) {
    longs.push_back(i % 300 < 100 ? i * 3 : static_cast<int64_t>(random()) >> (random() % 64));
  }
  ColumnValues out64 = Values(PhysicalType::kInt64);
  ASSERT_OK(Decode(Encoding::kDeltaBinaryPacked, EncodeDelta(longs, 64),
                   static_cast<int64_t>(longs.size()), &out64));
  EXPECT_EQ(Fixed<int64_t>(out64), longs);

  std::vector<int32_t> ints{std::numeric_limits<int32_t>::max(),
                            std::numeric_limits<int32_t>::min(), 0,
                            std::numeric_limits<int32_t>::max()};
  for (int i = 0; i < 700; ++i) ints.push_back(static_cast<int32_t>(random()) >> (random() % 32));
  const std::vector<int64_t> wide(ints.begin(), ints.end());
  ColumnValues out32 = Values(PhysicalType::kInt32);
  ASSERT_OK(Decode(Encoding::kDeltaBinaryPacked, EncodeDelta(wide, 32),
                   static_cast<int64_t>(ints.size()), &out32));
  EXPECT_EQ(Fixed<int32_t>(out32), ints);
  // Every count over a block's edges.
  for (int n : {2, 31, 32, 33, 127, 128, 129, 257}) {
    std::vector<int64_t> values;
    for (int i = 0; i < n; ++i) values.push_back(static_cast<int64_t>(random() % 1000) - 500);
    ColumnValues out = Values(PhysicalType::kInt64);
    ASSERT_OK(Decode(Encoding::kDeltaBinaryPacked, EncodeDelta(values, 64), n, &out));
    EXPECT_EQ(Fixed<int64_t>(out), values) << n;
  }
}

TEST(DeltaBinaryPackedDecodeTest, HeadersAndBlocksThatLieAreErrors) {
  ColumnValues out = Values(PhysicalType::kInt32);
  const std::string consecutive("\x80\x01\x04\x05\x02\x02\x00\x00\x00\x00", 10);
  EXPECT_ERROR(kInvalid, "column x: the DELTA_BINARY_PACKED header says 5 values, the page holds 6",
               Decode(Encoding::kDeltaBinaryPacked, consecutive, 6, &out));
  EXPECT_ERROR(kInvalid, "a DELTA_BINARY_PACKED block of 100 values",
               Decode(Encoding::kDeltaBinaryPacked, std::string("\x64\x04\x01\x02", 4), 1, &out));
  EXPECT_ERROR(
      kInvalid, "blocks of 128 values in 3 miniblocks",
      Decode(Encoding::kDeltaBinaryPacked, std::string("\x80\x01\x03\x01\x02", 5), 1, &out));
  EXPECT_ERROR(
      kInvalid, "blocks of 128 values in 8 miniblocks",
      Decode(Encoding::kDeltaBinaryPacked, std::string("\x80\x01\x08\x01\x02", 5), 1, &out));
  EXPECT_ERROR(kInvalid, "the first value runs past the page's end",
               Decode(Encoding::kDeltaBinaryPacked, std::string("\x80\x01\x04\x01", 4), 1, &out));
  EXPECT_ERROR(kInvalid, "the block size is a varint longer than 64 bits",
               Decode(Encoding::kDeltaBinaryPacked, std::string(12, '\xff'), 1, &out));
  // Bit width 33 for INT32, 65 for INT64.
  const std::string wide33 =
      std::string("\x80\x01\x04\x02\x02\x00\x21\x00\x00\x00", 10) + std::string(32 * 33 / 8, '\0');
  EXPECT_ERROR(kInvalid, "a DELTA_BINARY_PACKED miniblock of bit width 33 (0 to 32)",
               Decode(Encoding::kDeltaBinaryPacked, wide33, 2, &out));
  ColumnValues longs = Values(PhysicalType::kInt64);
  std::string wide64 = wide33;
  wide64[6] = 64;
  ASSERT_OK(
      Decode(Encoding::kDeltaBinaryPacked, wide64 + std::string(32 * 31 / 8, '\0'), 2, &longs));
  wide64[6] = 65;
  EXPECT_ERROR(kInvalid, "bit width 65 (0 to 64)",
               Decode(Encoding::kDeltaBinaryPacked, wide64 + std::string(256, '\0'), 2, &longs));
  // A miniblock cut short, bit widths cut short, a missing block.
  EXPECT_ERROR(kInvalid, "a DELTA_BINARY_PACKED miniblock of 32 values of 3 bits runs past",
               Decode(Encoding::kDeltaBinaryPacked,
                      std::string("\x80\x01\x04\x02\x02\x00\x03\x00\x00\x00\x01", 11), 2, &out));
  EXPECT_ERROR(kInvalid,
               "DELTA_BINARY_PACKED values run past the page's end: 2 values need 1 blocks of at "
               "least 5 bytes, 2 bytes are left",
               Decode(Encoding::kDeltaBinaryPacked, std::string("\x80\x01\x04\x02\x02\x00\x00", 7),
                      2, &out));
  // 130 values: a first block of 128 deltas (widths 1 0 0 0, one 4-byte
  // miniblock), then a second block cut short in its widths or its minimum.
  const std::string header("\x80\x01\x04\x82\x01\x02", 6);
  const std::string block = std::string("\x02\x01\x00\x00\x00", 5) + std::string(4, '\0');
  EXPECT_ERROR(
      kInvalid, "bit widths of 4 miniblocks run past the page's end at byte 16 of 17",
      Decode(Encoding::kDeltaBinaryPacked, header + block + std::string("\x02\x00", 2), 130, &out));
  EXPECT_ERROR(
      kInvalid, "a block's minimum delta runs past the page's end",
      Decode(Encoding::kDeltaBinaryPacked, header + block + std::string(5, '\x80'), 130, &out));
  ASSERT_OK(Decode(Encoding::kDeltaBinaryPacked,
                   header + block + std::string("\x02\x00\x00\x00\x00", 5), 130, &out));
  EXPECT_EQ(Fixed<int32_t>(out)[129], 1 + 129);
  out = Values(PhysicalType::kInt32);
  // A count far beyond what the bytes can hold is refused before decoding.
  std::string huge("\x80\x01\x04", 3);
  AppendVarint(huge, uint64_t{1} << 31);
  huge += std::string("\x00\x02\x00\x00\x00\x00", 6);
  EXPECT_ERROR(kInvalid, "2147483648 values need 16777216 blocks",
               Decode(Encoding::kDeltaBinaryPacked, huge, int64_t{1} << 31, &out));
  EXPECT_EQ(out.count, 0);
  EXPECT_EQ(out.fixed.size(), 0);
  ColumnValues doubles = Values(PhysicalType::kDouble);
  EXPECT_ERROR(kInvalid, "DOUBLE values in DELTA_BINARY_PACKED",
               Decode(Encoding::kDeltaBinaryPacked, consecutive, 5, &doubles));
}

// --- DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY ---------------------------------

TEST(DeltaByteArrayDecodeTest, LengthsThenBytes) {
  const std::vector<std::string> words{"Hello", "World", "Foobar", "ABCDEF", ""};
  ColumnValues out = Values(PhysicalType::kByteArray);
  ASSERT_OK(Decode(Encoding::kDeltaLengthByteArray, EncodeDeltaLength(words), 5, &out));
  ASSERT_OK(Decode(Encoding::kDeltaLengthByteArray, EncodeDeltaLength({"x"}), 1, &out));
  std::vector<std::string> expected = words;
  expected.push_back("x");
  EXPECT_EQ(Strings(out), expected);

  std::vector<std::string> many;
  for (int i = 0; i < 600; ++i)
    many.push_back(std::string(static_cast<size_t>(i % 17), static_cast<char>('a' + i % 26)));
  ColumnValues more = Values(PhysicalType::kByteArray);
  ASSERT_OK(Decode(Encoding::kDeltaLengthByteArray, EncodeDeltaLength(many), 600, &more));
  EXPECT_EQ(Strings(more), many);
}

TEST(DeltaByteArrayDecodeTest, PrefixesOfThePreviousValueThenSuffixes) {
  std::vector<std::string> words{"axis", "axle", "babble", "babies", "", "b", "bab", "babblings"};
  for (int i = 0; i < 500; ++i) words.push_back("key" + std::to_string(i * 7));
  ColumnValues out = Values(PhysicalType::kByteArray);
  ASSERT_OK(Decode(Encoding::kDeltaByteArray, EncodeDeltaByteArray(words),
                   static_cast<int64_t>(words.size()), &out));
  EXPECT_EQ(Strings(out), words);

  ColumnValues fixed = Values(PhysicalType::kFixedLenByteArray, 4);
  const std::vector<std::string> chunks{"abcd", "abce", "abce", "zzzz", "zzab"};
  ASSERT_OK(Decode(Encoding::kDeltaByteArray, EncodeDeltaByteArray(chunks), 5, &fixed));
  EXPECT_EQ(Chunks(fixed), chunks);

  // A page whose first prefix reaches into the last value of the previous
  // page (as parquet-mr before 1.8 wrote).
  std::string next = EncodeDelta({3, 2}, 32) + EncodeDeltaLength({"xy", "q"});
  ColumnValues carried = Values(PhysicalType::kByteArray);
  ASSERT_OK(Decode(Encoding::kPlain, PlainStrings({"abcdef"}), 1, &carried));
  ASSERT_OK(Decode(Encoding::kDeltaByteArray, next, 2, &carried));
  EXPECT_EQ(Strings(carried), (std::vector<std::string>{"abcdef", "abcxy", "abq"}));
}

TEST(DeltaByteArrayDecodeTest, LengthsAndPrefixesThatLieAreErrors) {
  ColumnValues out = Values(PhysicalType::kByteArray);
  EXPECT_ERROR(
      kInvalid,
      "column x: DELTA_LENGTH_BYTE_ARRAY values of 10 bytes in all run past the page's "
      "end: 9 bytes follow the lengths",
      Decode(Encoding::kDeltaLengthByteArray, EncodeDelta({4, 6}, 32) + "abcdefghi", 2, &out));
  EXPECT_ERROR(kInvalid, "DELTA_LENGTH_BYTE_ARRAY lengths: length 1 is negative (-3)",
               Decode(Encoding::kDeltaLengthByteArray, EncodeDelta({4, -3}, 32) + "abcd", 2, &out));
  EXPECT_ERROR(kInvalid, "DELTA_LENGTH_BYTE_ARRAY lengths: the DELTA_BINARY_PACKED header says 2",
               Decode(Encoding::kDeltaLengthByteArray, EncodeDelta({4, 6}, 32), 3, &out));
  EXPECT_ERROR(
      kInvalid, "DELTA_BYTE_ARRAY value 0 has a prefix of 1 bytes, the previous value only 0",
      Decode(Encoding::kDeltaByteArray, EncodeDelta({1}, 32) + EncodeDeltaLength({"a"}), 1, &out));
  EXPECT_ERROR(kInvalid,
               "DELTA_BYTE_ARRAY value 1 has a prefix of 3 bytes, the previous value only 2",
               Decode(Encoding::kDeltaByteArray,
                      EncodeDelta({0, 3}, 32) + EncodeDeltaLength({"ab", "c"}), 2, &out));
  EXPECT_ERROR(kInvalid, "DELTA_BYTE_ARRAY suffixes of 5 bytes in all run past the page's end",
               Decode(Encoding::kDeltaByteArray,
                      EncodeDelta({0}, 32) + EncodeDelta({5}, 32) + "abc", 1, &out));
  EXPECT_ERROR(
      kInvalid, "DELTA_BYTE_ARRAY suffix lengths: length 0 is negative",
      Decode(Encoding::kDeltaByteArray, EncodeDelta({0}, 32) + EncodeDelta({-1}, 32), 1, &out));
  EXPECT_EQ(out.count, 0);
  EXPECT_EQ(out.offsets.size(), 4);
  EXPECT_EQ(out.bytes.size(), 0);
  ColumnValues fixed = Values(PhysicalType::kFixedLenByteArray, 4);
  EXPECT_ERROR(kInvalid,
               "DELTA_BYTE_ARRAY value 1 has a prefix of 2 bytes (the previous value has 4) and a "
               "suffix of 1 bytes, not 4 bytes in all",
               Decode(Encoding::kDeltaByteArray, EncodeDeltaByteArray({"abcd", "abz"}), 2, &fixed));
  EXPECT_EQ(fixed.fixed.size(), 0);
  ColumnValues ints = Values(PhysicalType::kInt32);
  EXPECT_ERROR(kInvalid, "INT32 values in DELTA_LENGTH_BYTE_ARRAY",
               Decode(Encoding::kDeltaLengthByteArray, EncodeDeltaLength({"a"}), 1, &ints));
  EXPECT_ERROR(kInvalid, "INT32 values in DELTA_BYTE_ARRAY",
               Decode(Encoding::kDeltaByteArray, EncodeDeltaByteArray({"a"}), 1, &ints));
}

// --- pages Arrow C++ wrote -------------------------------------------------------

}  // namespace
}  // namespace quiver::parquet
