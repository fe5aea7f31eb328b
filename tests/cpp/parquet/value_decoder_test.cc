// DecodeValues: RLE booleans, pages Arrow C++ wrote, encodings a type does
// not take, and truncated and random pages that must never overread.
#include "parquet_decoder_test_util.h"

namespace quiver::parquet {
namespace {

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
