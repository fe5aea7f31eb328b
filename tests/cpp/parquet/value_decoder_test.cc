// DecodeValues for every encoding and the physical types each takes:
// hand-built pages, round trips through small encoders written here, and
// pages that lie (truncated, out of range, bad widths, false headers).
#include "quiver/parquet/value_decoder.h"

#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "quiver/parquet/rle_hybrid.h"
#include "quiver/parquet/varint.h"
#include "test_util.h"

namespace quiver::parquet {
namespace {

ColumnValues Values(PhysicalType type, int32_t length = 0) {
  Result<ColumnValues> made = ColumnValues::Make(type, length);
  EXPECT_TRUE(made.ok()) << made.status().ToString();
  return std::move(*made);
}

Status Decode(Encoding encoding, const std::string& page, int64_t count, ColumnValues* out,
              const ColumnValues* dictionary = nullptr) {
  return DecodeValues(encoding, reinterpret_cast<const uint8_t*>(page.data()),
                      static_cast<int64_t>(page.size()), count, dictionary, out, "column x");
}

template <typename T>
std::vector<T> Fixed(const ColumnValues& values) {
  std::vector<T> out(static_cast<size_t>(values.fixed.size()) / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), values.fixed.data(), out.size() * sizeof(T));
  return out;
}

std::vector<std::string> Strings(const ColumnValues& values) {
  std::vector<std::string> out;
  const auto* offsets = reinterpret_cast<const int32_t*>(values.offsets.data());
  for (int64_t i = 0; i < values.count; ++i) {
    out.emplace_back(reinterpret_cast<const char*>(values.bytes.data()) + offsets[i],
                     static_cast<size_t>(offsets[i + 1] - offsets[i]));
  }
  EXPECT_EQ(values.offsets.size(), (values.count + 1) * 4);
  return out;
}

std::vector<std::string> Chunks(const ColumnValues& values) {
  std::vector<std::string> out;
  for (int64_t i = 0; i < values.count; ++i) {
    out.emplace_back(reinterpret_cast<const char*>(values.fixed.data()) + i * values.width,
                     static_cast<size_t>(values.width));
  }
  return out;
}

template <typename T>
std::string Bytes(const std::vector<T>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
}

std::string Le32(uint32_t v) {
  std::string out(4, '\0');
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>(v >> (8 * i));
  return out;
}

std::string PlainStrings(const std::vector<std::string>& values) {
  std::string out;
  for (const std::string& v : values) out += Le32(static_cast<uint32_t>(v.size())) + v;
  return out;
}

uint64_t ZigZag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}

// DELTA_BINARY_PACKED with blocks of 128 values in 4 miniblocks of 32; `bits`
// 32 or 64 says the type whose arithmetic wraps.
std::string EncodeDelta(const std::vector<int64_t>& values, int bits) {
  std::string out;
  AppendVarint(out, 128);
  AppendVarint(out, 4);
  AppendVarint(out, values.size());
  if (values.empty()) {
    AppendVarint(out, 0);
    return out;
  }
  AppendVarint(out, ZigZag(values[0]));
  const uint64_t mask = bits == 64 ? ~uint64_t{0} : 0xffffffffu;
  auto as_signed = [&](uint64_t v) -> int64_t {
    return bits == 64 ? static_cast<int64_t>(v) : static_cast<int32_t>(static_cast<uint32_t>(v));
  };
  std::vector<int64_t> deltas;
  for (size_t i = 1; i < values.size(); ++i) {
    deltas.push_back(
        as_signed(static_cast<uint64_t>(values[i]) - static_cast<uint64_t>(values[i - 1])));
  }
  for (size_t block = 0; block < deltas.size(); block += 128) {
    const size_t end = std::min(deltas.size(), block + 128);
    int64_t min = deltas[block];
    for (size_t i = block; i < end; ++i) min = std::min(min, deltas[i]);
    AppendVarint(out, ZigZag(min));
    std::string widths, packed;
    for (size_t m = 0; m < 4; ++m) {
      const size_t start = block + m * 32;
      if (start >= end) {
        widths.push_back(0);
        continue;
      }
      uint64_t max = 0;
      std::vector<uint64_t> adjusted(32, 0);
      for (size_t i = start; i < std::min(end, start + 32); ++i) {
        adjusted[i - start] =
            (static_cast<uint64_t>(deltas[i]) - static_cast<uint64_t>(min)) & mask;
        max = std::max(max, adjusted[i - start]);
      }
      const int width = max == 0 ? 0 : 64 - __builtin_clzll(max);
      widths.push_back(static_cast<char>(width));
      std::string bytes(static_cast<size_t>(32 * width / 8), '\0');
      for (size_t k = 0; k < 32; ++k) {
        for (int b = 0; b < width; ++b) {
          if (adjusted[k] >> b & 1) {
            const size_t bit = k * width + b;
            bytes[bit / 8] = static_cast<char>(bytes[bit / 8] | (1 << (bit % 8)));
          }
        }
      }
      packed += bytes;
    }
    out += widths + packed;
  }
  return out;
}

std::string EncodeDeltaLength(const std::vector<std::string>& values) {
  std::vector<int64_t> lengths;
  std::string bytes;
  for (const std::string& v : values) {
    lengths.push_back(static_cast<int64_t>(v.size()));
    bytes += v;
  }
  return EncodeDelta(lengths, 32) + bytes;
}

std::string EncodeDeltaByteArray(const std::vector<std::string>& values) {
  std::vector<int64_t> prefixes;
  std::vector<std::string> suffixes;
  std::string previous;
  for (const std::string& v : values) {
    size_t p = 0;
    while (p < v.size() && p < previous.size() && v[p] == previous[p]) ++p;
    prefixes.push_back(static_cast<int64_t>(p));
    suffixes.push_back(v.substr(p));
    previous = v;
  }
  return EncodeDelta(prefixes, 32) + EncodeDeltaLength(suffixes);
}

std::string EncodeByteStreamSplit(const std::string& values, int width) {
  const size_t count = values.size() / static_cast<size_t>(width);
  std::string out(values.size(), '\0');
  for (size_t i = 0; i < count; ++i) {
    for (int k = 0; k < width; ++k) out[k * count + i] = values[i * width + k];
  }
  return out;
}

// --- PLAIN --------------------------------------------------------------

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

std::string DictionaryPage(const std::vector<uint32_t>& indices, int width) {
  return std::string(1, static_cast<char>(width)) +
         EncodeRleHybrid(indices.data(), static_cast<int64_t>(indices.size()), width);
}

TEST(DictionaryDecodeTest, FixedWidthIndicesGatherFromTheDictionary) {
  ColumnValues dictionary = Values(PhysicalType::kInt32);
  ASSERT_OK(Decode(Encoding::kPlain, Bytes(std::vector<int32_t>{10, 20, 30}), 3, &dictionary));
  std::mt19937 random(3);
  std::vector<uint32_t> indices;
  for (int i = 0; i < 3000; ++i)
    indices.push_back(i % 500 < 100 ? 2 : static_cast<uint32_t>(random() % 3));
  std::vector<int32_t> expected;
  for (uint32_t i : indices) expected.push_back((static_cast<int32_t>(i) + 1) * 10);
  for (Encoding encoding : {Encoding::kRleDictionary, Encoding::kPlainDictionary}) {
    ColumnValues out = Values(PhysicalType::kInt32);
    ASSERT_OK(Decode(encoding, DictionaryPage(indices, 2), 3000, &out, &dictionary));
    EXPECT_EQ(Fixed<int32_t>(out), expected);
    EXPECT_EQ(out.count, 3000);
  }

  // Every fixed width: doubles, INT96, FIXED_LEN_BYTE_ARRAY of 5, booleans.
  ColumnValues doubles = Values(PhysicalType::kDouble);
  ASSERT_OK(Decode(Encoding::kPlain, Bytes(std::vector<double>{0.5, 1.5}), 2, &doubles));
  ColumnValues out = Values(PhysicalType::kDouble);
  ASSERT_OK(Decode(Encoding::kRleDictionary, DictionaryPage({1, 0, 1}, 1), 3, &out, &doubles));
  EXPECT_EQ(Fixed<double>(out), (std::vector<double>{1.5, 0.5, 1.5}));

  ColumnValues int96 = Values(PhysicalType::kInt96);
  ASSERT_OK(Decode(Encoding::kPlain, "abcdefghijklABCDEFGHIJKL", 2, &int96));
  ColumnValues int96_out = Values(PhysicalType::kInt96);
  ASSERT_OK(Decode(Encoding::kRleDictionary, DictionaryPage({1, 1, 0}, 1), 3, &int96_out, &int96));
  EXPECT_EQ(Chunks(int96_out),
            (std::vector<std::string>{"ABCDEFGHIJKL", "ABCDEFGHIJKL", "abcdefghijkl"}));

  ColumnValues five = Values(PhysicalType::kFixedLenByteArray, 5);
  ASSERT_OK(Decode(Encoding::kPlain, "aaaaabbbbbccccc", 3, &five));
  ColumnValues five_out = Values(PhysicalType::kFixedLenByteArray, 5);
  ASSERT_OK(Decode(Encoding::kRleDictionary, DictionaryPage({2, 0}, 2), 2, &five_out, &five));
  EXPECT_EQ(Chunks(five_out), (std::vector<std::string>{"ccccc", "aaaaa"}));

  // Bit width 0: every index is 0.
  ColumnValues zero = Values(PhysicalType::kDouble);
  ASSERT_OK(Decode(Encoding::kRleDictionary, std::string("\x00\x14", 2), 10, &zero, &doubles));
  EXPECT_EQ(Fixed<double>(zero), std::vector<double>(10, 0.5));
}

TEST(DictionaryDecodeTest, ByteArrayIndicesGatherOffsetsAndBytes) {
  ColumnValues dictionary = Values(PhysicalType::kByteArray);
  const std::vector<std::string> words{"apple", "", "kiwi", "banana"};
  ASSERT_OK(Decode(Encoding::kPlain, PlainStrings(words), 4, &dictionary));
  std::mt19937 random(5);
  std::vector<uint32_t> indices;
  std::vector<std::string> expected;
  for (int i = 0; i < 2500; ++i) {
    indices.push_back(static_cast<uint32_t>(random() % 4));
    expected.push_back(words[indices.back()]);
  }
  ColumnValues out = Values(PhysicalType::kByteArray);
  ASSERT_OK(Decode(Encoding::kPlain, PlainStrings({"first"}), 1, &out));
  ASSERT_OK(Decode(Encoding::kRleDictionary, DictionaryPage(indices, 2), 2500, &out, &dictionary));
  expected.insert(expected.begin(), "first");
  EXPECT_EQ(Strings(out), expected);
}

TEST(DictionaryDecodeTest, BadIndicesAndPagesAreErrors) {
  ColumnValues dictionary = Values(PhysicalType::kInt64);
  ASSERT_OK(Decode(Encoding::kPlain, std::string(96, '\1'), 12, &dictionary));
  ColumnValues out = Values(PhysicalType::kInt64);
  std::vector<uint32_t> indices(2000, 3);
  indices[1500] = 70;
  EXPECT_ERROR(
      kInvalid, "column x: dictionary index 70 is out of range (the dictionary holds 12 values)",
      Decode(Encoding::kRleDictionary, DictionaryPage(indices, 7), 2000, &out, &dictionary));
  EXPECT_EQ(out.count, 0);
  EXPECT_EQ(out.fixed.size(), 0);
  EXPECT_ERROR(
      kInvalid, "bit width 33 (0 to 32)",
      Decode(Encoding::kRleDictionary, std::string("\x21\x02\x00", 3), 1, &out, &dictionary));
  EXPECT_ERROR(kInvalid, "without its bit width byte",
               Decode(Encoding::kRleDictionary, "", 1, &out, &dictionary));
  // Runs for 8 values, a page of 20.
  EXPECT_ERROR(kInvalid, "column x: dictionary indices: the values end before the page's count",
               Decode(Encoding::kRleDictionary, DictionaryPage(std::vector<uint32_t>(8, 1), 4), 20,
                      &out, &dictionary));
  EXPECT_ERROR(kInvalid, "without a dictionary page",
               Decode(Encoding::kRleDictionary, DictionaryPage({0}, 1), 1, &out));
  ColumnValues ints = Values(PhysicalType::kInt32);
  EXPECT_ERROR(kInvalid, "a dictionary of INT64 (8 bytes) for a column of INT32",
               Decode(Encoding::kRleDictionary, DictionaryPage({0}, 1), 1, &ints, &dictionary));

  ColumnValues strings = Values(PhysicalType::kByteArray);
  ASSERT_OK(Decode(Encoding::kPlain, PlainStrings({"a"}), 1, &strings));
  ColumnValues string_out = Values(PhysicalType::kByteArray);
  EXPECT_ERROR(
      kInvalid, "dictionary index 1 is out of range (the dictionary holds 1 values)",
      Decode(Encoding::kRleDictionary, DictionaryPage({0, 1}, 1), 2, &string_out, &strings));
  EXPECT_EQ(string_out.offsets.size(), 4);

  // An empty dictionary takes no index.
  ColumnValues empty = Values(PhysicalType::kInt64);
  EXPECT_ERROR(kInvalid, "dictionary index 0 is out of range (the dictionary holds 0 values)",
               Decode(Encoding::kRleDictionary, std::string("\x00\x02", 2), 1, &out, &empty));
}

// --- RLE booleans ---------------------------------------------------------

TEST(RleBooleanDecodeTest, ALengthThenRunsOfWidthOne) {
  std::vector<uint32_t> bits;
  for (int i = 0; i < 1500; ++i) bits.push_back(i < 300 ? 1 : (i * 7) % 3 == 0);
  const std::string runs = EncodeRleHybrid(bits.data(), 1500, 1);
  ColumnValues out = Values(PhysicalType::kBoolean);
  ASSERT_OK(Decode(Encoding::kRle, Le32(static_cast<uint32_t>(runs.size())) + runs, 1500, &out));
  EXPECT_EQ(Fixed<uint8_t>(out), std::vector<uint8_t>(bits.begin(), bits.end()));

  // Hand-built: 10 trues (header 20, value 1), then one group 0b00000101.
  ColumnValues hand = Values(PhysicalType::kBoolean);
  ASSERT_OK(Decode(Encoding::kRle, Le32(4) + std::string("\x14\x01\x03\x05", 4), 13, &hand));
  EXPECT_EQ(Fixed<uint8_t>(hand), (std::vector<uint8_t>{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1}));
}

TEST(RleBooleanDecodeTest, LengthsAndRunsThatLieAreErrors) {
  ColumnValues out = Values(PhysicalType::kBoolean);
  EXPECT_ERROR(kInvalid, "RLE booleans need a 4-byte length, the page holds 3 bytes",
               Decode(Encoding::kRle, "abc", 1, &out));
  EXPECT_ERROR(kInvalid, "RLE booleans say 9 bytes of runs, the page holds 2 after the length",
               Decode(Encoding::kRle, Le32(9) + "ab", 1, &out));
  // The length cuts the runs short: the value byte lies past it.
  EXPECT_ERROR(kInvalid, "column x: RLE booleans",
               Decode(Encoding::kRle, Le32(1) + std::string("\x14\x01", 2), 10, &out));
  // A repeated value of 2 in a 1-bit run.
  EXPECT_ERROR(kInvalid, "wider than 1 bits",
               Decode(Encoding::kRle, Le32(2) + std::string("\x14\x02", 2), 10, &out));
  EXPECT_EQ(out.count, 0);
  EXPECT_EQ(out.fixed.size(), 0);
}

// --- BYTE_STREAM_SPLIT ------------------------------------------------------

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

std::string Hex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

TEST(DecodeValuesTest, PagesArrowCppWrote) {
  // The values sections of uncompressed v1 data pages (and a dictionary
  // page) that pyarrow 26 wrote for required columns.
  const std::string delta_binary_packed =
      Hex("8002040900b7feffffffffffffff0140000000a1ffffffffffff7f94ffffffffffff7f9fffffffff"
          "0000809cfffffffffeff3f9bffffffffffff3f9dffffffffffff7f00000000000000009fffffffff"
          "ffff7f00000000000000000000000000000000000000000000000000000000000000000000000000"
          "00000000000000000000000000000000000000000000000000000000000000000000000000000000"
          "00000000000000000000000000000000000000000000000000000000000000000000000000000000"
          "00000000000000000000000000000000000000000000000000000000000000000000000000000000"
          "00000000000000000000000000000000000000000000000000000000000000000000000000000000"
          "00000000000000000000000000000000000000000000000000000000000000000000000000000000"
          "00000000000000000000000000000000000000000000000000000000000000000000000000000000"
          "00000000000000000000000000000000000000000000000000000000000000000000000000000000"
          "00000000000000000000000000000000000000000000000000000000000000000000000000000000"
          "00000000000000000000000000000000000000000000000000000000000000000000000000000000"
          "00000000000000000000000000000000000000000000000000000000000000000000000000000000"
          "0000000000000000000000");
  const std::string delta_length =
      Hex("800104080a0b040000001b079a040000000000000000000000006170706c656170706c6573617563"
          "656170706c7962616e616e6162616e6462616e64616e617a65627261");
  const std::string delta_byte_array =
      Hex("8001040800070400000039408400000000000000000000000000800104080a0b04000000260b5a08"
          "0000000000000000000000006170706c6573617563657962616e616e6162616e64616e617a656272"
          "61");
  const std::string byte_stream_split = Hex("00000000f90000000002c0104000153fc0400050");
  const std::string rle_booleans = Hex("0400000028010302");
  const std::string dictionary_page = Hex("0300000072656405000000677265656e04000000626c7565");
  const std::string dictionary_indices = Hex("0207644116640100");

  ColumnValues longs = Values(PhysicalType::kInt64);
  ASSERT_OK(Decode(Encoding::kDeltaBinaryPacked, delta_binary_packed, 9, &longs));
  EXPECT_EQ(Fixed<int64_t>(longs),
            (std::vector<int64_t>{0, 5, -3, int64_t{1} << 40, -(int64_t{1} << 62),
                                  std::numeric_limits<int64_t>::max(),
                                  std::numeric_limits<int64_t>::min(), 100, 103}));
  const std::vector<std::string> words{"apple", "applesauce", "apply",   "banana",
                                       "",      "band",       "bandana", "zebra"};
  ColumnValues lengths = Values(PhysicalType::kByteArray);
  ASSERT_OK(Decode(Encoding::kDeltaLengthByteArray, delta_length, 8, &lengths));
  EXPECT_EQ(Strings(lengths), words);
  ColumnValues prefixes = Values(PhysicalType::kByteArray);
  ASSERT_OK(Decode(Encoding::kDeltaByteArray, delta_byte_array, 8, &prefixes));
  EXPECT_EQ(Strings(prefixes), words);
  ColumnValues floats = Values(PhysicalType::kFloat);
  ASSERT_OK(Decode(Encoding::kByteStreamSplit, byte_stream_split, 5, &floats));
  EXPECT_EQ(Fixed<float>(floats), (std::vector<float>{1.5f, -2.25f, 3.0f, 0.0f, 1e10f}));
  ColumnValues bools = Values(PhysicalType::kBoolean);
  ASSERT_OK(Decode(Encoding::kRle, rle_booleans, 23, &bools));
  std::vector<uint8_t> expected_bools(20, 1);
  expected_bools.insert(expected_bools.end(), {0, 1, 0});
  EXPECT_EQ(Fixed<uint8_t>(bools), expected_bools);
  ColumnValues dictionary = Values(PhysicalType::kByteArray);
  ASSERT_OK(Decode(Encoding::kPlain, dictionary_page, 3, &dictionary));
  ColumnValues colours = Values(PhysicalType::kByteArray);
  ASSERT_OK(Decode(Encoding::kRleDictionary, dictionary_indices, 18, &colours, &dictionary));
  std::vector<std::string> expected_colours;
  for (int i = 0; i < 3; ++i) {
    for (const char* c : {"red", "green", "blue", "green", "green", "red"}) {
      expected_colours.push_back(c);
    }
  }
  EXPECT_EQ(Strings(colours), expected_colours);
}

// --- dispatch -------------------------------------------------------------------

TEST(DecodeValuesTest, EncodingsTheTypeDoesNotTakeOrQuiverDoesNotKnow) {
  ColumnValues ints = Values(PhysicalType::kInt32);
  EXPECT_ERROR(kNotImplemented, "column x: values in encoding 42, which quiver does not read",
               Decode(static_cast<Encoding>(42), "abcd", 1, &ints));
  EXPECT_ERROR(kInvalid, "INT32 values in BIT_PACKED",
               Decode(Encoding::kBitPacked, "abcd", 1, &ints));
  EXPECT_ERROR(kInvalid, "INT32 values in RLE", Decode(Encoding::kRle, "abcd", 1, &ints));
  EXPECT_ERROR(kInvalid, "a page of -1 values", Decode(Encoding::kPlain, "abcd", -1, &ints));
  // No values: an empty page in any encoding the type takes.
  for (Encoding encoding : {Encoding::kPlain, Encoding::kRleDictionary, Encoding::kByteStreamSplit,
                            Encoding::kDeltaBinaryPacked}) {
    ASSERT_OK(Decode(encoding, "", 0, &ints));
  }
  EXPECT_EQ(ints.count, 0);
  EXPECT_EQ(ints.fixed.size(), 0);
  EXPECT_ERROR(kInvalid, "a page of 2147483649 values",
               Decode(Encoding::kPlain, "abcd", (int64_t{1} << 31) + 1, &ints));
}

// Decodes `page` from a heap copy of exactly its size, so that a sanitizer
// build catches any read past its end.
Status DecodeExact(Encoding encoding, const std::string& page, int64_t count, ColumnValues* out,
                   const ColumnValues* dictionary) {
  std::unique_ptr<uint8_t[]> copy(new uint8_t[page.size() + 1]);
  if (!page.empty()) std::memcpy(copy.get(), page.data(), page.size());
  const uint8_t* data = page.empty() ? nullptr : copy.get();
  return DecodeValues(encoding, data, static_cast<int64_t>(page.size()), count, dictionary, out,
                      "column x");
}

TEST(DecodeValuesTest, TruncatedAndRandomPagesAreErrorsNeverOverreads) {
  struct Case {
    Encoding encoding;
    PhysicalType type;
    int32_t length;
    std::string page;
    int64_t count;
  };
  std::vector<std::string> words;
  std::vector<int64_t> numbers;
  for (int i = 0; i < 300; ++i) {
    words.push_back("w" + std::to_string(i * 13 % 97));
    numbers.push_back(int64_t{i} * i * (i % 2 ? -1 : 1));
  }
  std::vector<uint32_t> indices;
  for (int i = 0; i < 300; ++i) indices.push_back(static_cast<uint32_t>(i % 7 < 4 ? 1 : i % 3));
  std::vector<uint32_t> bits(indices.begin(), indices.end());
  for (uint32_t& b : bits) b &= 1;
  const std::string rle_bits = EncodeRleHybrid(bits.data(), 300, 1);
  std::string fixed_values;
  for (int i = 0; i < 300 * 3; ++i) fixed_values.push_back(static_cast<char>(i * 7));
  const std::vector<Case> cases{
      {Encoding::kPlain, PhysicalType::kInt64, 0, Bytes(numbers), 300},
      {Encoding::kPlain, PhysicalType::kBoolean, 0, std::string(38, '\x5a'), 300},
      {Encoding::kPlain, PhysicalType::kByteArray, 0, PlainStrings(words), 300},
      {Encoding::kRleDictionary, PhysicalType::kInt32, 0, DictionaryPage(indices, 2), 300},
      {Encoding::kRleDictionary, PhysicalType::kByteArray, 0, DictionaryPage(indices, 2), 300},
      {Encoding::kRle, PhysicalType::kBoolean, 0,
       Le32(static_cast<uint32_t>(rle_bits.size())) + rle_bits, 300},
      {Encoding::kByteStreamSplit, PhysicalType::kFixedLenByteArray, 3,
       EncodeByteStreamSplit(fixed_values, 3), 300},
      {Encoding::kDeltaBinaryPacked, PhysicalType::kInt64, 0, EncodeDelta(numbers, 64), 300},
      {Encoding::kDeltaBinaryPacked, PhysicalType::kInt32, 0, EncodeDelta(numbers, 32), 300},
      {Encoding::kDeltaLengthByteArray, PhysicalType::kByteArray, 0, EncodeDeltaLength(words), 300},
      {Encoding::kDeltaByteArray, PhysicalType::kByteArray, 0, EncodeDeltaByteArray(words), 300},
  };
  auto dictionary_of = [](PhysicalType type, int32_t length) {
    ColumnValues dictionary = Values(type, length);
    if (type == PhysicalType::kByteArray) {
      EXPECT_TRUE(Decode(Encoding::kPlain, PlainStrings({"a", "bb", "ccc"}), 3, &dictionary).ok());
    } else {
      EXPECT_TRUE(Decode(Encoding::kPlain, std::string(3 * 12, '\x01'), 3, &dictionary).ok());
    }
    return dictionary;
  };
  for (const Case& c : cases) {
    const ColumnValues dictionary = dictionary_of(c.type, c.length);
    ColumnValues whole = Values(c.type, c.length);
    ASSERT_OK(DecodeExact(c.encoding, c.page, c.count, &whole, &dictionary));
    for (size_t cut = 0; cut < c.page.size(); ++cut) {
      ColumnValues out = Values(c.type, c.length);
      Status status = DecodeExact(c.encoding, c.page.substr(0, cut), c.count, &out, &dictionary);
      if (!status.ok()) {
        EXPECT_EQ(status.code(), StatusCode::kInvalid) << status.ToString();
        EXPECT_EQ(out.count, 0);
      }
    }
  }
  // Random pages in every encoding for every type.
  std::mt19937 random(17);
  const Encoding encodings[] = {Encoding::kPlain,
                                Encoding::kPlainDictionary,
                                Encoding::kRle,
                                Encoding::kDeltaBinaryPacked,
                                Encoding::kDeltaLengthByteArray,
                                Encoding::kDeltaByteArray,
                                Encoding::kRleDictionary,
                                Encoding::kByteStreamSplit};
  for (int round = 0; round < 300; ++round) {
    std::string page(random() % 80, '\0');
    for (char& b : page) b = static_cast<char>(random());
    // Small headers now and then, so that the delta decoders get past them.
    if (round % 3 == 0 && page.size() > 3) page.replace(0, 3, std::string("\x80\x01\x04", 3));
    const int64_t count = random() % 200;
    for (int t = 0; t <= 7; ++t) {
      const auto type = static_cast<PhysicalType>(t);
      const ColumnValues dictionary = dictionary_of(type, 2);
      for (Encoding encoding : encodings) {
        ColumnValues out = Values(type, 2);
        Status status = DecodeExact(encoding, page, count, &out, &dictionary);
        if (status.ok()) {
          EXPECT_EQ(out.count, count);
        } else {
          EXPECT_EQ(out.count, 0);
        }
      }
    }
  }
}

}  // namespace
}  // namespace quiver::parquet
