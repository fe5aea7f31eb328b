// PLAIN pages of every physical type: copied, bit-packed booleans, length-
// prefixed byte arrays, and truncated pages that leave the values alone.
#include "parquet_decoder_test_util.h"

namespace quiver::parquet {
namespace {

TEST(PlainDecodeTest, FixedWidthTypesAreCopiedAndPagesAppend) {
  ColumnValues ints = Values(PhysicalType::kInt32);
  ASSERT_OK(Decode(Encoding::kPlain, Bytes(std::vector<int32_t>{1, -2, 3}), 3, &ints));
  ASSERT_OK(Decode(Encoding::kPlain, Bytes(std::vector<int32_t>{4}), 1, &ints));
  EXPECT_EQ(ints.count, 4);
  EXPECT_EQ(Fixed<int32_t>(ints), (std::vector<int32_t>{1, -2, 3, 4}));

  ColumnValues longs = Values(PhysicalType::kInt64);
  ASSERT_OK(Decode(Encoding::kPlain, Bytes(std::vector<int64_t>{int64_t{1} << 40, -1}), 2, &longs));
  EXPECT_EQ(Fixed<int64_t>(longs), (std::vector<int64_t>{int64_t{1} << 40, -1}));

  ColumnValues floats = Values(PhysicalType::kFloat);
  ASSERT_OK(Decode(Encoding::kPlain, Bytes(std::vector<float>{1.5f, -0.25f}), 2, &floats));
  EXPECT_EQ(Fixed<float>(floats), (std::vector<float>{1.5f, -0.25f}));

  ColumnValues doubles = Values(PhysicalType::kDouble);
  ASSERT_OK(Decode(Encoding::kPlain, Bytes(std::vector<double>{3.25}), 1, &doubles));
  EXPECT_EQ(Fixed<double>(doubles), (std::vector<double>{3.25}));

  ColumnValues int96 = Values(PhysicalType::kInt96);
  const std::string twelve = "abcdefghijklABCDEFGHIJKL";
  ASSERT_OK(Decode(Encoding::kPlain, twelve, 2, &int96));
  EXPECT_EQ(Chunks(int96), (std::vector<std::string>{"abcdefghijkl", "ABCDEFGHIJKL"}));

  ColumnValues fixed = Values(PhysicalType::kFixedLenByteArray, 3);
  ASSERT_OK(Decode(Encoding::kPlain, "abcdefXYZ", 3, &fixed));
  EXPECT_EQ(Chunks(fixed), (std::vector<std::string>{"abc", "def", "XYZ"}));

  // Fewer values than the page holds read only those (the rest is padding).
  ColumnValues some = Values(PhysicalType::kInt32);
  ASSERT_OK(Decode(Encoding::kPlain, Bytes(std::vector<int32_t>{7, 8}), 1, &some));
  EXPECT_EQ(Fixed<int32_t>(some), (std::vector<int32_t>{7}));

  ColumnValues none = Values(PhysicalType::kInt64);
  ASSERT_OK(Decode(Encoding::kPlain, "", 0, &none));
  EXPECT_EQ(none.count, 0);
}

TEST(PlainDecodeTest, BooleansAreBitPackedLsbFirst) {
  ColumnValues bools = Values(PhysicalType::kBoolean);
  // 0b10110101, then 0b00000001: 1 0 1 0 1 1 0 1, 1.
  ASSERT_OK(Decode(Encoding::kPlain, std::string("\xb5\x01", 2), 9, &bools));
  EXPECT_EQ(Fixed<uint8_t>(bools), (std::vector<uint8_t>{1, 0, 1, 0, 1, 1, 0, 1, 1}));
  ASSERT_OK(Decode(Encoding::kPlain, std::string("\x02", 1), 3, &bools));
  EXPECT_EQ(bools.count, 12);
  EXPECT_EQ(Fixed<uint8_t>(bools).back(), 0);
  EXPECT_EQ(Fixed<uint8_t>(bools)[10], 1);
}

TEST(PlainDecodeTest, ByteArraysBecomeOffsetsAndBytes) {
  ColumnValues strings = Values(PhysicalType::kByteArray);
  ASSERT_OK(Decode(Encoding::kPlain, PlainStrings({"a", "", "hello"}), 3, &strings));
  ASSERT_OK(Decode(Encoding::kPlain, PlainStrings({"world"}), 1, &strings));
  EXPECT_EQ(Strings(strings), (std::vector<std::string>{"a", "", "hello", "world"}));
  EXPECT_EQ(strings.bytes.size(), 11);

  // A ColumnValues not from Make gets its first offset.
  ColumnValues bare;
  bare.type = PhysicalType::kByteArray;
  bare.width = 0;
  ASSERT_OK(Decode(Encoding::kPlain, PlainStrings({"xy"}), 1, &bare));
  EXPECT_EQ(Strings(bare), (std::vector<std::string>{"xy"}));
}

TEST(PlainDecodeTest, TruncatedPagesAreErrorsThatLeaveTheValuesAlone) {
  ColumnValues longs = Values(PhysicalType::kInt64);
  ASSERT_OK(Decode(Encoding::kPlain, Bytes(std::vector<int64_t>{5}), 1, &longs));
  EXPECT_ERROR(kInvalid,
               "column x: PLAIN values run past the page's end: 100 INT64 values need 800 bytes, "
               "the page holds 640",
               Decode(Encoding::kPlain, std::string(640, '\0'), 100, &longs));
  EXPECT_EQ(longs.count, 1);
  EXPECT_EQ(longs.fixed.size(), 8);

  ColumnValues bools = Values(PhysicalType::kBoolean);
  EXPECT_ERROR(kInvalid, "17 BOOLEAN values need 3 bytes, the page holds 2",
               Decode(Encoding::kPlain, "ab", 17, &bools));

  ColumnValues strings = Values(PhysicalType::kByteArray);
  EXPECT_ERROR(kInvalid, "its 4-byte length starts at byte 6 of 8",
               Decode(Encoding::kPlain, PlainStrings({"ab"}) + "xy", 2, &strings));
  EXPECT_ERROR(kInvalid, "PLAIN value 0 of 1 runs past the page's end: 5 bytes at byte 4 of 8",
               Decode(Encoding::kPlain, Le32(5) + "abcd", 1, &strings));
  EXPECT_ERROR(kInvalid, "4294967295 bytes",
               Decode(Encoding::kPlain, Le32(0xffffffffu) + "abcd", 1, &strings));
  EXPECT_EQ(strings.count, 0);
  EXPECT_EQ(strings.offsets.size(), 4);
  EXPECT_EQ(strings.bytes.size(), 0);

  ColumnValues fixed = Values(PhysicalType::kFixedLenByteArray, 1 << 30);
  EXPECT_ERROR(kInvalid, "values need", Decode(Encoding::kPlain, "abc", int64_t{1} << 31, &fixed));
}

// --- dictionaries ---------------------------------------------------------

}  // namespace
}  // namespace quiver::parquet
