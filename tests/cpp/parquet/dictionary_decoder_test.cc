// Dictionary-encoded pages: indices gathered from the dictionary page, and
// indices or pages that lie.
#include "parquet_decoder_test_util.h"

namespace quiver::parquet {
namespace {

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

}  // namespace
}  // namespace quiver::parquet
