// Arrays and helpers shared by the Parquet writer tests
// (tests/cpp/parquet/level_shredding_test.cc, value_encoders_test.cc,
// column_writer_test.cc, parquet_writer_test.cc).
#pragma once

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

inline std::vector<std::string> ListDirectory(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  return names;
}

inline ArrayDataPtr ListOf(TypePtr type, std::vector<int32_t> offsets, std::vector<bool> valid,
                           ArrayDataPtr child) {
  auto data = std::make_shared<ArrayData>();
  data->type = std::move(type);
  data->length = static_cast<int64_t>(offsets.size()) - 1;
  data->buffers = {valid.empty() ? nullptr : Bitmap(valid), BufferOf(offsets)};
  data->null_count = valid.empty() ? 0 : kUnknownNullCount;
  data->children = {std::move(child)};
  return data;
}

inline std::vector<int16_t> Levels(std::initializer_list<int> values) {
  return std::vector<int16_t>(values.begin(), values.end());
}

inline LeafEncoding Int32Encoding() {
  LeafEncoding e;
  e.physical = PhysicalType::kInt32;
  e.arrow_width = 4;
  return e;
}

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

// The indices RLE_DICTIONARY data of `ranges` holds.
inline std::vector<uint32_t> IndicesOf(const DictionaryEncoding& dict, const PhysicalValues& values,
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

inline TablePtr OneColumn(const std::string& name, ArrayDataPtr array) {
  auto schema = std::make_shared<Schema>();
  schema->fields.push_back(Field{name, array->type});
  auto column = *ChunkedArray::Make(array->type, {array});
  return *Table::Make(schema, {column});
}

}  // namespace
}  // namespace quiver::parquet
