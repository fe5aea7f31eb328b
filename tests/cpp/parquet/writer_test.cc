// Parquet writing: Arrow arrays shredded into definition and repetition
// levels (nulls at every level of lists, structs, maps, fixed-size lists),
// the value encoders (PLAIN, dictionary, BYTE_STREAM_SPLIT, statistics),
// page cutting, files whose footer quiver reads back, and the errors
// (bad options, types Parquet cannot hold).
#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "data_test_util.h"
#include "quiver/io.h"
#include "quiver/parquet.h"
#include "quiver/parquet/column_writer.h"
#include "quiver/parquet/level_shredding.h"
#include "quiver/parquet/page_compress.h"
#include "quiver/parquet/rle_hybrid.h"
#include "quiver/parquet/value_encoders.h"
#include "sample_arrays.h"
#include "test_util.h"

namespace quiver::parquet {
namespace {

using test::Bitmap;
using test::BufferOf;
using test::Primitive;
using test::StatusOf;

std::vector<std::string> ListDirectory(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  return names;
}

ArrayDataPtr ListOf(TypePtr type, std::vector<int32_t> offsets, std::vector<bool> valid,
                    ArrayDataPtr child) {
  auto data = std::make_shared<ArrayData>();
  data->type = std::move(type);
  data->length = static_cast<int64_t>(offsets.size()) - 1;
  data->buffers = {valid.empty() ? nullptr : Bitmap(valid), BufferOf(offsets)};
  data->null_count = valid.empty() ? 0 : kUnknownNullCount;
  data->children = {std::move(child)};
  return data;
}

std::vector<int16_t> Levels(std::initializer_list<int> values) {
  return std::vector<int16_t>(values.begin(), values.end());
}

TEST(ParquetShred, FlatColumnWithNulls) {
  auto a = Primitive<int32_t>(int32(), {1, 2, 3, 4}, {true, false, true, true});
  auto leaves = *ShredArray(a, true);
  ASSERT_EQ(leaves.size(), 1u);
  const ShreddedLeaf& leaf = leaves[0];
  EXPECT_EQ(leaf.max_def, 1);
  EXPECT_EQ(leaf.max_rep, 0);
  EXPECT_EQ(leaf.def, Levels({1, 0, 1, 1}));
  EXPECT_TRUE(leaf.rep.empty());
  ASSERT_EQ(leaf.value_ranges.size(), 2u);
  EXPECT_EQ(leaf.value_ranges[0], (Range{0, 1}));
  EXPECT_EQ(leaf.value_ranges[1], (Range{2, 4}));
  EXPECT_EQ(leaf.num_values, 3);
}

TEST(ParquetShred, FlatColumnWithoutNullsKeepsNoLevels) {
  auto a = Primitive<int64_t>(int64(), {1, 2, 3});
  auto leaf = (*ShredArray(a, true))[0];
  EXPECT_EQ(leaf.max_def, 1);
  EXPECT_TRUE(leaf.def.empty());
  EXPECT_EQ(leaf.num_levels, 3);
  ASSERT_EQ(leaf.value_ranges.size(), 1u);
  EXPECT_EQ(leaf.value_ranges[0], (Range{0, 3}));
}

TEST(ParquetShred, ListWithNullsAtEveryLevel) {
  // [[1, null], null, [], [3]]
  auto child = Primitive<int32_t>(int32(), {1, 0, 3}, {true, false, true});
  auto a = ListOf(list(ListItem(int32())), {0, 2, 2, 2, 3}, {true, false, true, true}, child);
  auto leaf = (*ShredArray(a, true))[0];
  EXPECT_EQ(leaf.max_def, 3);
  EXPECT_EQ(leaf.max_rep, 1);
  EXPECT_EQ(leaf.def, Levels({3, 2, 0, 1, 3}));
  // One list on the path: the repetition levels as levels per row.
  EXPECT_TRUE(leaf.rep.empty());
  EXPECT_EQ(leaf.row_levels, (std::vector<int64_t>{2, 1, 1, 1}));
  PageSpan page{0, 5, 0, 2, 4};
  const std::string rep = EncodeRepetitionLevels(leaf, page);
  RleHybridDecoder decoder(reinterpret_cast<const uint8_t*>(rep.data()),
                           static_cast<int64_t>(rep.size()), 1, "rep");
  std::vector<uint32_t> decoded(5);
  ASSERT_OK(decoder.Decode(decoded.data(), 5));
  EXPECT_EQ(decoded, (std::vector<uint32_t>{0, 1, 0, 0, 0}));
  ASSERT_EQ(leaf.value_ranges.size(), 2u);
  EXPECT_EQ(leaf.value_ranges[0], (Range{0, 1}));
  EXPECT_EQ(leaf.value_ranges[1], (Range{2, 3}));
}

TEST(ParquetShred, CountingWithoutKeepingLevels) {
  // [[1, null], null, [], [3]]: the same counts and slots, no levels kept.
  auto child = Primitive<int32_t>(int32(), {1, 0, 3}, {true, false, true});
  auto a = ListOf(list(ListItem(int32())), {0, 2, 2, 2, 3}, {true, false, true, true}, child);
  auto counted = *ShredLeaf(a, true, 0, false);
  EXPECT_EQ(counted.num_levels, 5);
  EXPECT_EQ(counted.num_values, 2);
  EXPECT_TRUE(counted.def.empty());
  EXPECT_TRUE(counted.rep.empty());
  EXPECT_FALSE(counted.def_all_max);
  EXPECT_FALSE(counted.implicit_levels());
  EXPECT_EQ(counted.value_ranges, (*ShredLeaf(a, true, 0, true)).value_ranges);
  auto flat = *ShredLeaf(Primitive<int32_t>(int32(), {1, 2}), true, 0, false);
  EXPECT_TRUE(flat.implicit_levels());
  EXPECT_EQ(StatusOf(ShredLeaf(a, true, 1, false)).code(), StatusCode::kIndexError);
}

LeafEncoding Int32Encoding();

TEST(ParquetShred, LongRowsRepetitionLevelsAsRuns) {
  // Rows of 40, 1, 1 and 20 values: runs of 0s and 1s, from any row on.
  std::vector<int32_t> v(62, 7);
  auto a = ListOf(list(ListItem(int32())), {0, 40, 41, 42, 62}, {}, Primitive<int32_t>(int32(), v));
  auto leaf = (*ShredArray(a, true))[0];
  ASSERT_EQ(leaf.row_levels, (std::vector<int64_t>{40, 1, 1, 20}));
  for (int64_t first : {0, 1}) {
    int64_t level_begin = 0;
    for (int64_t r = 0; r < first; ++r) level_begin += leaf.row_levels[static_cast<size_t>(r)];
    PageSpan page{level_begin, 62, level_begin, 62, 4 - first, first};
    const std::string rep = EncodeRepetitionLevels(leaf, page);
    std::vector<uint32_t> expected;
    for (int64_t r = first; r < 4; ++r) {
      for (int64_t j = 0; j < leaf.row_levels[static_cast<size_t>(r)]; ++j) {
        expected.push_back(j == 0 ? 0 : 1);
      }
    }
    RleHybridDecoder decoder(reinterpret_cast<const uint8_t*>(rep.data()),
                             static_cast<int64_t>(rep.size()), 1, "rep");
    std::vector<uint32_t> decoded(expected.size());
    ASSERT_OK(decoder.Decode(decoded.data(), static_cast<int64_t>(decoded.size())));
    EXPECT_EQ(decoded, expected);
  }
  // Pages of whole rows, by the rows' level counts.
  auto values = *PhysicalValues::Make(leaf.values, Int32Encoding(), 0, 62);
  auto pages = CutPages(leaf, values, 32, 80);
  ASSERT_EQ(pages.size(), 2u);
  EXPECT_EQ(pages[0].rows, 1);
  EXPECT_EQ(pages[1].row_begin, 1);
  EXPECT_EQ(pages[1].level_begin, 40);
}

TEST(ParquetShred, NestedListsAndSlices) {
  // [[[1, 2], []], [[3]], null] sliced to its last two rows.
  auto values = Primitive<int32_t>(int32(), {1, 2, 3});
  auto inner = ListOf(list(ListItem(int32())), {0, 2, 2, 3}, {}, values);
  auto outer = ListOf(list(ListItem(inner->type)), {0, 2, 3, 3}, {true, true, false}, inner);
  auto leaf = (*ShredArray(outer, true))[0];
  EXPECT_EQ(leaf.max_def, 5);
  EXPECT_EQ(leaf.max_rep, 2);
  EXPECT_EQ(leaf.def, Levels({5, 5, 3, 5, 0}));
  EXPECT_EQ(leaf.rep, Levels({0, 2, 1, 0, 0}));
  auto sliced = *Slice(outer, 1, 2);
  auto tail = (*ShredArray(sliced, true))[0];
  EXPECT_EQ(tail.def, Levels({5, 0}));
  EXPECT_EQ(tail.rep, Levels({0, 0}));
  ASSERT_EQ(tail.value_ranges.size(), 1u);
  EXPECT_EQ(tail.value_ranges[0], (Range{2, 3}));
}

TEST(ParquetShred, StructWithNullsAtBothLevels) {
  auto x = Primitive<int32_t>(int32(), {5, 6, 7}, {true, true, false});
  auto y = test::Utf8({"a", "b", "c"});
  auto s = std::make_shared<ArrayData>();
  s->type = struct_({Field{"x", int32()}, Field{"y", utf8(), false}});
  s->length = 3;
  s->buffers = {Bitmap({true, false, true})};
  s->children = {x, y};
  auto leaves = *ShredArray(s, true);
  ASSERT_EQ(leaves.size(), 2u);
  EXPECT_EQ(leaves[0].max_def, 2);
  EXPECT_EQ(leaves[0].def, Levels({2, 0, 1}));
  EXPECT_EQ(leaves[1].max_def, 1);  // y is required
  EXPECT_EQ(leaves[1].def, Levels({1, 0, 1}));
  EXPECT_EQ(leaves[1].num_values, 2);
}

TEST(ParquetShred, MapEntries) {
  // [{"a": 1, "b": null}, null, {}]
  auto keys = test::Utf8({"a", "b"});
  auto items = Primitive<int32_t>(int32(), {1, 0}, {true, false});
  auto entries = std::make_shared<ArrayData>();
  entries->type = struct_({Field{"key", utf8(), false}, Field{"value", int32()}});
  entries->length = 2;
  entries->buffers = {nullptr};
  entries->null_count = 0;
  entries->children = {keys, items};
  auto type = *map_(utf8(), int32());
  auto m = ListOf(type, {0, 2, 2, 2}, {true, false, true}, entries);
  auto leaves = *ShredArray(m, true);
  ASSERT_EQ(leaves.size(), 2u);
  EXPECT_EQ(leaves[0].max_def, 2);  // map, key_value (the key is required)
  EXPECT_EQ(leaves[0].def, Levels({2, 2, 0, 1}));
  EXPECT_EQ(leaves[0].row_levels, (std::vector<int64_t>{2, 1, 1}));
  EXPECT_EQ(leaves[1].max_def, 3);
  EXPECT_EQ(leaves[1].def, Levels({3, 2, 0, 1}));
}

TEST(ParquetShred, FixedSizeListWithoutNullsIsAPattern) {
  std::vector<float> v(24 * 5);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i);
  auto child = Primitive<float>(float32(), v);
  for (int32_t k : {8, 3, 4, 6, 1}) {
    auto a = std::make_shared<ArrayData>();
    a->type = *fixed_size_list(ListItem(float32()), k);
    a->length = 24 * 5 / k;
    a->buffers = {nullptr};
    a->null_count = 0;
    a->children = {child};
    auto sliced = *Slice(a, 1, a->length - 1);
    auto leaf = (*ShredArray(sliced, true))[0];
    EXPECT_EQ(leaf.rep_period, k);
    EXPECT_TRUE(leaf.def.empty());
    EXPECT_TRUE(leaf.rep.empty());
    ASSERT_EQ(leaf.value_ranges.size(), 1u);
    EXPECT_EQ(leaf.value_ranges[0], (Range{k, 24 * 5}));
    // The pattern decodes as the materialised levels.
    PageSpan page{0, leaf.num_levels, 0, leaf.num_values, sliced->length};
    std::vector<uint32_t> rep;
    for (int64_t r = 0; r < sliced->length; ++r) {
      for (int32_t j = 0; j < k; ++j) rep.push_back(j == 0 ? 0 : 1);
    }
    const std::string encoded = EncodeRepetitionLevels(leaf, page);
    RleHybridDecoder decoder(reinterpret_cast<const uint8_t*>(encoded.data()),
                             static_cast<int64_t>(encoded.size()), 1, "rep");
    std::vector<uint32_t> decoded(rep.size());
    ASSERT_OK(decoder.Decode(decoded.data(), static_cast<int64_t>(decoded.size())));
    EXPECT_EQ(decoded, rep);
    // The definition levels: one repeated run of max_def.
    std::vector<uint32_t> def(rep.size(), static_cast<uint32_t>(leaf.max_def));
    EXPECT_EQ(EncodeDefinitionLevels(leaf, page),
              EncodeRleHybrid(def.data(), static_cast<int64_t>(def.size()), 2));
  }
}

TEST(ParquetShred, DictionaryAndExtensionArraysAsTheirValues) {
  auto dict = test::Utf8({"x", "y"});
  auto a = std::make_shared<ArrayData>();
  a->type = *dictionary(int8(), utf8());
  a->length = 3;
  a->buffers = {Bitmap({true, false, true}), BufferOf(std::vector<int8_t>{1, 0, 0})};
  a->dictionary = dict;
  auto stored = *StoredArray(a);
  EXPECT_EQ(stored->type->id(), TypeId::kUtf8);
  EXPECT_FALSE(stored->IsValid(1));
  auto leaf = (*ShredArray(stored, true))[0];
  EXPECT_EQ(leaf.def, Levels({1, 0, 1}));
  auto ext_type = *extension("my.ext", "", int32());
  EXPECT_EQ(StoredType(list(ListItem(ext_type)))->children()[0].type->id(), TypeId::kInt32);
}

LeafEncoding Int32Encoding() {
  LeafEncoding e;
  e.physical = PhysicalType::kInt32;
  e.arrow_width = 4;
  return e;
}

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

// The indices RLE_DICTIONARY data of `ranges` holds.
std::vector<uint32_t> IndicesOf(const DictionaryEncoding& dict, const PhysicalValues& values,
                                const std::vector<Range>& ranges) {
  std::string data;
  EncodeDictionaryIndices(dict, values, ranges, &data);
  int64_t count = 0;
  for (const Range& r : ranges) count += r.length();
  RleHybridDecoder decoder(reinterpret_cast<const uint8_t*>(data.data()) + 1,
                           static_cast<int64_t>(data.size()) - 1, data[0], "indices");
  std::vector<uint32_t> out(static_cast<size_t>(count));
  EXPECT_TRUE(decoder.Decode(out.data(), count).ok());
  return out;
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

TEST(ParquetPages, CutAtRowBoundaries) {
  // Lists of 3 values: a page of 8 bytes takes one row (12 bytes) at a time.
  auto child = Primitive<int32_t>(int32(), {1, 2, 3, 4, 5, 6, 7, 8, 9},
                                  {true, true, true, true, false, true, true, true, true});
  auto a = ListOf(list(ListItem(int32())), {0, 3, 6, 9}, {}, child);
  auto leaf = (*ShredArray(a, true))[0];
  auto values = *PhysicalValues::Make(leaf.values, Int32Encoding(), 0, 9);
  auto pages = CutPages(leaf, values, 32, 8);
  ASSERT_EQ(pages.size(), 3u);
  EXPECT_EQ(pages[1].level_begin, 3);
  EXPECT_EQ(pages[1].value_begin, 3);
  EXPECT_EQ(pages[1].value_end, 5);
  EXPECT_EQ(pages[2].rows, 1);
  auto all = CutPages(leaf, values, 32, 1 << 20);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].rows, 3);
  EXPECT_EQ(all[0].value_end, 8);
}

TablePtr OneColumn(const std::string& name, ArrayDataPtr array) {
  auto schema = std::make_shared<Schema>();
  schema->fields.push_back(Field{name, array->type});
  auto column = *ChunkedArray::Make(array->type, {array});
  return *Table::Make(schema, {column});
}

TEST(ParquetWriter, FooterReadsBack) {
  auto child = Primitive<float>(float32(), {1, 2, 3, 4, 5, 6});
  auto fsl = std::make_shared<ArrayData>();
  fsl->type = *fixed_size_list(ListItem(float32()), 2);
  fsl->length = 3;
  fsl->buffers = {nullptr};
  fsl->null_count = 0;
  fsl->children = {child};
  auto table = OneColumn("t", fsl);
  for (const char* codec : {"uncompressed", "SNAPPY"}) {
    for (int version : {1, 2}) {
      ParquetWriteOptions options;
      options.compression = codec;
      options.data_page_version = version;
      options.row_group_rows = 2;
      auto buffer = *WriteParquetBuffer(*table, options);
      auto file = *ParquetFile::Open(io::BufferSource(buffer));
      EXPECT_EQ(file->num_rows(), 3);
      EXPECT_EQ(file->num_row_groups(), 2);
      // The ARROW:schema key restores the fixed-size list.
      EXPECT_TRUE(file->schema()->fields[0].type->Equals(*fsl->type))
          << file->schema()->fields[0].type->ToString();
      const ColumnChunkInfo& c = file->row_group(0).columns[0];
      EXPECT_EQ(c.path, (std::vector<std::string>{"t", "list", "element"}));
      EXPECT_EQ(c.num_values, 4);
      ASSERT_TRUE(c.statistics.has_value());
      float lo;
      std::memcpy(&lo, c.statistics->min->data(), 4);
      EXPECT_EQ(lo, 1.0f);
      EXPECT_EQ(*c.statistics->null_count, 0);
      EXPECT_EQ(file->created_by().rfind("quiver", 0), 0u);
    }
  }
}

TEST(ParquetWriter, LongListsInBatchesOfLevels) {
  // 5000 rows of 1000 values, one row null: more levels than one batch
  // holds, so the chunk's pages come from two batches of rows.
  const int64_t rows = 5000, per_row = 1000;
  std::vector<int16_t> values(static_cast<size_t>(rows * per_row));
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int16_t>(i % 7);
  std::vector<int32_t> offsets;
  std::vector<bool> valid;
  for (int64_t r = 0; r <= rows; ++r) offsets.push_back(static_cast<int32_t>(r * per_row));
  for (int64_t r = 0; r < rows; ++r) valid.push_back(r != 17);
  auto a = ListOf(list(ListItem(int16())), offsets, valid, Primitive<int16_t>(int16(), values));
  auto table = OneColumn("l", a);
  for (bool dictionary : {true, false}) {
    ParquetWriteOptions options;
    options.use_dictionary = dictionary;
    auto buffer = *WriteParquetBuffer(*table, options);
    auto file = *ParquetFile::Open(io::BufferSource(buffer));
    const ColumnChunkInfo& c = file->row_group(0).columns[0];
    EXPECT_EQ(c.num_values, (rows - 1) * per_row + 1);
    EXPECT_EQ(*c.statistics->null_count, 1);
    EXPECT_EQ(c.encodings.size(), dictionary ? 3u : 2u);
  }
}

TEST(ParquetWriter, QuiverReadsItsFilesBack) {
  // [[1, null], null, [], [3]], a struct with nulls at both levels, strings.
  auto child = Primitive<int32_t>(int32(), {1, 0, 3}, {true, false, true});
  auto lists = ListOf(list(ListItem(int32())), {0, 2, 2, 2, 3}, {true, false, true, true}, child);
  auto x = Primitive<int64_t>(int64(), {5, 6, 7, 8}, {true, true, false, true});
  auto st = std::make_shared<ArrayData>();
  st->type = struct_({Field{"x", int64()}});
  st->length = 4;
  st->buffers = {Bitmap({true, false, true, true})};
  st->children = {x};
  auto strings = test::Utf8({"a", std::nullopt, "", "dd"});
  auto schema = std::make_shared<Schema>();
  schema->fields = {Field{"l", lists->type}, Field{"s", st->type}, Field{"u", utf8()}};
  std::vector<ChunkedArrayPtr> columns;
  for (const ArrayDataPtr& a : {ArrayDataPtr(lists), ArrayDataPtr(st), strings}) {
    columns.push_back(*ChunkedArray::Make(a->type, {a}));
  }
  auto table = *Table::Make(schema, columns);
  for (int version : {1, 2}) {
    for (bool dictionary : {true, false}) {
      ParquetWriteOptions options;
      options.data_page_version = version;
      options.use_dictionary = dictionary;
      options.row_group_rows = 3;
      auto buffer = *WriteParquetBuffer(*table, options);
      auto file = *ParquetFile::Open(io::BufferSource(buffer));
      auto read = file->ReadTable();
      ASSERT_OK(StatusOf(read));
      EXPECT_TRUE((*read)->Equals(*table)) << version << " " << dictionary;
    }
  }
}

TEST(ParquetWriter, Errors) {
  auto table = OneColumn("a", Primitive<int32_t>(int32(), {1}));
  ParquetWriteOptions bad;
  bad.compression = "brotli";
  auto st = StatusOf(WriteParquetBuffer(*table, bad));
  EXPECT_TRUE(st.code() == StatusCode::kInvalid) << st.ToString();
  EXPECT_NE(st.ToString().find("brotli"), std::string::npos);
  ParquetWriteOptions rows;
  rows.row_group_rows = 0;
  EXPECT_TRUE(StatusOf(WriteParquetBuffer(*table, rows)).code() == StatusCode::kInvalid);
  ParquetWriteOptions version;
  version.data_page_version = 3;
  EXPECT_TRUE(StatusOf(WriteParquetBuffer(*table, version)).code() == StatusCode::kInvalid);
  auto u = test::SparseUnionSample();
  auto unions = OneColumn("u", u);
  auto ust = StatusOf(WriteParquetBuffer(*unions));
  EXPECT_TRUE(ust.code() == StatusCode::kTypeError) << ust.ToString();
  EXPECT_NE(ust.ToString().find("'u'"), std::string::npos) << ust.ToString();
}

TEST(ParquetWriter, FailedFileWriteLeavesNothing) {
  test::TempDir dir;
  const std::string path = dir.path() + "/out.parquet";
  auto unions = OneColumn("u", test::SparseUnionSample());
  EXPECT_FALSE(WriteParquetFile(*unions, path).ok());
  EXPECT_TRUE(ListDirectory(dir.path()).empty());
  auto table = OneColumn("a", Primitive<int32_t>(int32(), {1, 2}));
  ASSERT_OK(WriteParquetFile(*table, path));
  EXPECT_EQ(ListDirectory(dir.path()), (std::vector<std::string>{"out.parquet"}));
}

}  // namespace
}  // namespace quiver::parquet
