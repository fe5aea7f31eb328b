// The Parquet value encoders: PLAIN, conversions to the physical types,
// dictionaries and their fallback, BYTE_STREAM_SPLIT, statistics orders.
#include "parquet_writer_test_util.h"

namespace quiver::parquet {
namespace {

TEST(ParquetEncoders, PlainIsTheValuesOfEachRange) {
  auto a = Primitive<int32_t>(int32(), {1, 2, 3, 4, 5});
  auto values = *PhysicalValues::Make(a, Int32Encoding(), 1, 5);
  std::vector<Range> ranges{{1, 2}, {3, 5}};
  std::string out;
  EncodePlain(values, ranges, &out);
  std::vector<int32_t> expected{2, 4, 5};
  ASSERT_EQ(out.size(), 12u);
  EXPECT_EQ(std::memcmp(out.data(), expected.data(), 12), 0);
}

TEST(ParquetEncoders, ConversionsToThePhysicalType) {
  auto a = Primitive<int8_t>(int8(), {-1, 2});
  LeafEncoding e = Int32Encoding();
  e.conversion = Conversion::kSignExtend;
  e.arrow_width = 1;
  auto values = *PhysicalValues::Make(a, e, 0, 2);
  std::vector<Range> all{{0, 2}};
  std::string out;
  EncodePlain(values, all, &out);
  int32_t first;
  std::memcpy(&first, out.data(), 4);
  EXPECT_EQ(first, -1);
  // A decimal128 as 9 big-endian bytes (precision 20).
  std::vector<uint8_t> d(16, 0);
  d[0] = 0x01;
  d[1] = 0x02;
  auto dec = std::make_shared<ArrayData>();
  dec->type = *decimal128(20, 2);
  dec->length = 1;
  dec->buffers = {nullptr, test::BufferFrom(d.data(), 16)};
  LeafEncoding be;
  be.physical = PhysicalType::kFixedLenByteArray;
  be.type_length = 9;
  be.arrow_width = 16;
  be.conversion = Conversion::kBigEndian;
  auto bytes = *PhysicalValues::Make(dec, be, 0, 1);
  std::vector<Range> one{{0, 1}};
  std::string flba;
  EncodePlain(bytes, one, &flba);
  EXPECT_EQ(flba, std::string("\0\0\0\0\0\0\0\x02\x01", 9));
}

TEST(ParquetEncoders, BooleansAndByteArrays) {
  auto b = Primitive<uint8_t>(boolean(), {0b1101});
  const_cast<ArrayData&>(*b).length = 4;
  LeafEncoding be;
  be.physical = PhysicalType::kBoolean;
  auto bits = *PhysicalValues::Make(b, be, 0, 4);
  std::vector<Range> all{{0, 4}};
  std::string out;
  EncodePlain(bits, all, &out);
  EXPECT_EQ(out, std::string(1, '\x0d'));
  auto s = test::Utf8({"ab", "", "c"});
  LeafEncoding se;
  se.physical = PhysicalType::kByteArray;
  auto strings = *PhysicalValues::Make(s, se, 0, 3);
  std::vector<Range> three{{0, 3}};
  std::string plain;
  EncodePlain(strings, three, &plain);
  EXPECT_EQ(plain, std::string("\x02\0\0\0ab\0\0\0\0\x01\0\0\0c", 15));
  std::optional<std::string> min, max;
  ComputeMinMax(strings, three, SortOrder::kBytes, &min, &max);
  EXPECT_EQ(*min, "");
  EXPECT_EQ(*max, "c");
}

TEST(ParquetEncoders, DictionaryAndItsFallback) {
  auto s = test::Utf8({"a", "b", "a", "a"});
  LeafEncoding se;
  se.physical = PhysicalType::kByteArray;
  auto strings = *PhysicalValues::Make(s, se, 0, 4);
  std::vector<Range> all{{0, 4}};
  DictionaryEncoding dict;
  ASSERT_TRUE(BuildDictionary(strings, all, 1 << 20, &dict));
  EXPECT_EQ(dict.entries, 2);
  EXPECT_EQ(IndicesOf(dict, strings, all), (std::vector<uint32_t>{0, 1, 0, 0}));
  std::vector<Range> tail{{1, 3}};
  EXPECT_EQ(IndicesOf(dict, strings, tail), (std::vector<uint32_t>{1, 0}));
  EXPECT_EQ(dict.page, std::string("\x01\0\0\0a\x01\0\0\0b", 10));
  std::string indices;
  EncodeDictionaryIndices(dict, strings, all, &indices);
  EXPECT_EQ(indices[0], 1);  // bit width
  std::vector<uint32_t> expected{0, 1, 0, 0};
  EXPECT_EQ(indices.substr(1), EncodeRleHybrid(expected.data(), 4, 1));
  EXPECT_FALSE(BuildDictionary(strings, all, 9, &dict));  // 10 bytes pass 9
}

TEST(ParquetEncoders, FixedWidthDictionaryGrowsAndFallsBack) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < 5000; ++i) v.push_back((i * 7919) % 3000 - 1500);
  auto a = Primitive<int64_t>(int64(), v);
  LeafEncoding e;
  e.physical = PhysicalType::kInt64;
  e.arrow_width = 8;
  auto values = *PhysicalValues::Make(a, e, 0, 5000);
  std::vector<Range> all{{0, 5000}};
  DictionaryEncoding dict;
  ASSERT_TRUE(BuildDictionary(values, all, 1 << 20, &dict));
  EXPECT_EQ(dict.entries, 3000);
  ASSERT_EQ(dict.page.size(), 3000u * 8);
  const std::vector<uint32_t> indices = IndicesOf(dict, values, all);
  for (size_t i = 0; i < v.size(); ++i) {
    int64_t entry;
    std::memcpy(&entry, dict.page.data() + indices[i] * 8, 8);
    ASSERT_EQ(entry, v[i]) << i;
  }
  EXPECT_FALSE(BuildDictionary(values, all, 3000 * 8 - 1, &dict));
}

TEST(ParquetEncoders, DictionaryOpensWithItsFirstEntries) {
  // An Arrow dictionary's entries come first, in order, used or not; the
  // values add the ones it lacks; a repeated entry is kept once.
  LeafEncoding se;
  se.physical = PhysicalType::kByteArray;
  auto first_array = test::Utf8({"z", "unused", "a", "z"});
  auto first = *PhysicalValues::Make(first_array, se, 0, 4);
  std::vector<Range> first_ranges{{0, 4}};
  auto s = test::Utf8({"a", "new", "z"});
  auto strings = *PhysicalValues::Make(s, se, 0, 3);
  std::vector<Range> all{{0, 3}};
  DictionaryEncoding dict;
  ASSERT_TRUE(BuildDictionary(strings, all, 1 << 20, &dict, {&first, first_ranges}));
  EXPECT_EQ(dict.entries, 4);
  EXPECT_EQ(dict.page, std::string("\x01\0\0\0z\x06\0\0\0unused\x01\0\0\0a\x03\0\0\0new", 27));
  EXPECT_EQ(IndicesOf(dict, strings, all), (std::vector<uint32_t>{2, 3, 0}));
  // The first entries count against the page's limit too.
  EXPECT_FALSE(BuildDictionary(strings, all, 15, &dict, {&first, first_ranges}));

  std::vector<int32_t> ints{30, 10, 20};
  auto first_ints_array = Primitive<int32_t>(int32(), {99, 20, 30});
  LeafEncoding e;
  e.physical = PhysicalType::kInt32;
  e.arrow_width = 4;
  auto first_ints = *PhysicalValues::Make(first_ints_array, e, 0, 3);
  auto values = *PhysicalValues::Make(Primitive<int32_t>(int32(), ints), e, 0, 3);
  ASSERT_TRUE(BuildDictionary(values, all, 1 << 20, &dict, {&first_ints, all}));
  EXPECT_EQ(dict.entries, 4);
  EXPECT_EQ(IndicesOf(dict, values, all), (std::vector<uint32_t>{2, 3, 1}));
  EXPECT_FALSE(BuildDictionary(values, all, 3 * 4, &dict, {&first_ints, all}));
}

TEST(ParquetEncoders, ByteStreamSplit) {
  auto a = Primitive<float>(float32(), {1.0f, 2.0f});
  LeafEncoding e;
  e.physical = PhysicalType::kFloat;
  e.arrow_width = 4;
  auto values = *PhysicalValues::Make(a, e, 0, 2);
  std::vector<Range> all{{0, 2}};
  std::string out;
  EncodeByteStreamSplit(values, all, &out);
  ASSERT_EQ(out.size(), 8u);
  float one = 1.0f, two = 2.0f;
  const auto* p1 = reinterpret_cast<const char*>(&one);
  const auto* p2 = reinterpret_cast<const char*>(&two);
  for (int b = 0; b < 4; ++b) {
    EXPECT_EQ(out[static_cast<size_t>(2 * b)], p1[b]);
    EXPECT_EQ(out[static_cast<size_t>(2 * b + 1)], p2[b]);
  }
}

TEST(ParquetEncoders, StatisticsOrders) {
  auto u = Primitive<uint32_t>(uint32(), {1, 0xffffffffu, 7});
  LeafEncoding e = Int32Encoding();
  auto values = *PhysicalValues::Make(u, e, 0, 3);
  std::vector<Range> all{{0, 3}};
  std::optional<std::string> min, max;
  ComputeMinMax(values, all, SortOrder::kUnsigned, &min, &max);
  uint32_t lo, hi;
  std::memcpy(&lo, min->data(), 4);
  std::memcpy(&hi, max->data(), 4);
  EXPECT_EQ(lo, 1u);
  EXPECT_EQ(hi, 0xffffffffu);
  ComputeMinMax(values, all, SortOrder::kSigned, &min, &max);
  int32_t slo;
  std::memcpy(&slo, min->data(), 4);
  EXPECT_EQ(slo, -1);
  auto f = Primitive<double>(float64(), {0.0, std::nan(""), -2.5});
  LeafEncoding fe;
  fe.physical = PhysicalType::kDouble;
  fe.arrow_width = 8;
  auto doubles = *PhysicalValues::Make(f, fe, 0, 3);
  ComputeMinMax(doubles, all, SortOrder::kFloat, &min, &max);
  double dlo, dhi;
  std::memcpy(&dlo, min->data(), 8);
  std::memcpy(&dhi, max->data(), 8);
  EXPECT_EQ(dlo, -2.5);
  EXPECT_EQ(dhi, 0.0);
  EXPECT_FALSE(std::signbit(dhi));
  auto infinite = Primitive<double>(float64(), {INFINITY, std::nan(""), INFINITY});
  auto inf_values = *PhysicalValues::Make(infinite, fe, 0, 3);
  ComputeMinMax(inf_values, all, SortOrder::kFloat, &min, &max);
  std::memcpy(&dlo, min->data(), 8);
  std::memcpy(&dhi, max->data(), 8);
  EXPECT_EQ(dlo, INFINITY);
  EXPECT_EQ(dhi, INFINITY);
  auto nans = Primitive<double>(float64(), {std::nan("")});
  auto only_nan = *PhysicalValues::Make(nans, fe, 0, 1);
  std::vector<Range> one{{0, 1}};
  std::optional<std::string> none_min, none_max;
  ComputeMinMax(only_nan, one, SortOrder::kFloat, &none_min, &none_max);
  EXPECT_FALSE(none_min.has_value());
}

}  // namespace
}  // namespace quiver::parquet
