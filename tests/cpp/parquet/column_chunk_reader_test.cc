// The column chunk reader on pages built here: dictionary and data pages v1
// and v2, levels kept or checked, the fixed-size list pattern check, and
// each way a chunk's pages can contradict its metadata.
#include "quiver/parquet/column_chunk_reader.h"

#include <cstring>
#include <string>
#include <vector>

#include "parquet_test_util.h"
#include "quiver/parquet/rle_hybrid.h"
#include "quiver/parquet/snappy_codec.h"
#include "test_util.h"

namespace quiver::parquet {
namespace {

// The levels of a v1 page: RLE hybrid runs after a 4-byte length.
std::string V1Levels(const std::vector<uint32_t>& levels, int max_level) {
  const std::string runs = EncodeRleHybrid(levels.data(), static_cast<int64_t>(levels.size()),
                                           BitWidthOf(static_cast<uint32_t>(max_level)));
  return test::LengthWord(static_cast<uint32_t>(runs.size())) + runs;
}

std::string PlainInt32(const std::vector<int32_t>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * 4);
}

std::string DataPageV1(int32_t num_values, const std::string& body,
                       Encoding encoding = Encoding::kPlain) {
  PageHeader header;
  header.type = PageType::kDataPage;
  header.uncompressed_page_size = static_cast<int32_t>(body.size());
  header.compressed_page_size = static_cast<int32_t>(body.size());
  DataPageHeader data;
  data.num_values = num_values;
  data.encoding = encoding;
  header.data_page = data;
  return EncodePageHeader(header) + body;
}

std::string DataPageV2(int32_t num_values, const std::string& rep, const std::string& def,
                       const std::string& values) {
  PageHeader header;
  header.type = PageType::kDataPageV2;
  const std::string body = rep + def + values;
  header.uncompressed_page_size = static_cast<int32_t>(body.size());
  header.compressed_page_size = static_cast<int32_t>(body.size());
  DataPageHeaderV2 v2;
  v2.num_values = num_values;
  v2.num_rows = num_values;
  v2.repetition_levels_byte_length = static_cast<int32_t>(rep.size());
  v2.definition_levels_byte_length = static_cast<int32_t>(def.size());
  v2.is_compressed = false;
  header.data_page_v2 = v2;
  return EncodePageHeader(header) + body;
}

std::string DictionaryPage(int32_t num_values, const std::string& body) {
  PageHeader header;
  header.type = PageType::kDictionaryPage;
  header.uncompressed_page_size = static_cast<int32_t>(body.size());
  header.compressed_page_size = static_cast<int32_t>(body.size());
  DictionaryPageHeader dictionary;
  dictionary.num_values = num_values;
  header.dictionary_page = dictionary;
  return EncodePageHeader(header) + body;
}

// A leaf INT32 column under `levels` of nesting: 0 a required column, 1 an
// optional one, 3 an optional list of optional values (the three-level
// LIST form: definition 3, repetition 1).
struct Column {
  FileMetaData metadata;
  SchemaNode root;
  const SchemaNode* leaf = nullptr;
};

Column MakeColumn(int nesting) {
  Column c;
  SchemaElement root;
  root.name = "schema";
  root.num_children = 1;
  c.metadata.schema.push_back(root);
  SchemaElement leaf;
  leaf.name = "x";
  leaf.type = PhysicalType::kInt32;
  if (nesting == 3) {
    SchemaElement list;
    list.name = "x";
    list.num_children = 1;
    list.repetition = Repetition::kOptional;
    list.converted_type = 3;  // LIST
    SchemaElement repeated;
    repeated.name = "list";
    repeated.num_children = 1;
    repeated.repetition = Repetition::kRepeated;
    leaf.name = "element";
    leaf.repetition = Repetition::kOptional;
    c.metadata.schema.push_back(list);
    c.metadata.schema.push_back(repeated);
  } else {
    leaf.repetition = nesting == 0 ? Repetition::kRequired : Repetition::kOptional;
  }
  c.metadata.schema.push_back(leaf);
  c.root = *BuildSchemaTree(c.metadata, "test");
  c.leaf = &c.root.children[0];
  while (!c.leaf->is_leaf()) c.leaf = &c.leaf->children[0];
  return c;
}

// A v1 page whose body is Snappy-compressed.
std::string SnappyPageV1(int32_t num_values, const std::string& body) {
  const std::string packed = SnappyEncode(reinterpret_cast<const uint8_t*>(body.data()),
                                          static_cast<int64_t>(body.size()));
  PageHeader header;
  header.type = PageType::kDataPage;
  header.uncompressed_page_size = static_cast<int32_t>(body.size());
  header.compressed_page_size = static_cast<int32_t>(packed.size());
  DataPageHeader data;
  data.num_values = num_values;
  header.data_page = data;
  return EncodePageHeader(header) + packed;
}

Result<ColumnChunkData> Read(const Column& column, const std::string& pages, int64_t num_values,
                             ColumnChunkOptions options = {}, Codec codec = Codec::kUncompressed) {
  const std::string file = "PAR1" + pages;
  ColumnChunk chunk;
  ColumnMetaData meta;
  meta.type = PhysicalType::kInt32;
  meta.codec = codec;
  meta.num_values = num_values;
  meta.data_page_offset = 4;
  meta.total_compressed_size = static_cast<int64_t>(pages.size());
  meta.total_uncompressed_size = static_cast<int64_t>(pages.size());
  chunk.meta_data = meta;
  QUIVER_ASSIGN_OR_RETURN(BufferPtr bytes, Buffer::Allocate(static_cast<int64_t>(file.size())));
  std::memcpy(bytes->mutable_data(), file.data(), file.size());
  auto source = io::BufferSource(bytes);
  return ReadColumnChunk(*source, chunk, *column.leaf, options, "column x");
}

std::vector<int32_t> Values(const ColumnChunkData& data) {
  std::vector<int32_t> out(static_cast<size_t>(data.values.count));
  std::memcpy(out.data(), data.values.fixed.data(), out.size() * 4);
  return out;
}

TEST(ColumnChunkReaderTest, RequiredValuesOverSeveralPages) {
  const Column column = MakeColumn(0);
  const std::string pages =
      DataPageV1(3, PlainInt32({1, 2, 3})) + DataPageV1(2, PlainInt32({4, 5}));
  ASSERT_OK_AND_ASSIGN(ColumnChunkData data, Read(column, pages, 5));
  EXPECT_EQ(data.num_levels, 5);
  EXPECT_EQ(Values(data), (std::vector<int32_t>{1, 2, 3, 4, 5}));
  EXPECT_TRUE(data.def_levels.empty());
  EXPECT_TRUE(data.rep_levels.empty());
}

TEST(ColumnChunkReaderTest, DefinitionLevelsKeptFromTheFirstNull) {
  const Column column = MakeColumn(1);
  // The first page has no nulls (nothing kept), the second has one: the
  // first page's levels are filled in as present.
  const std::string pages = DataPageV1(2, V1Levels({1, 1}, 1) + PlainInt32({7, 8})) +
                            DataPageV1(3, V1Levels({1, 0, 1}, 1) + PlainInt32({9, 10}));
  ASSERT_OK_AND_ASSIGN(ColumnChunkData data, Read(column, pages, 5));
  EXPECT_FALSE(data.all_defined);
  EXPECT_EQ(data.def_levels, (std::vector<int16_t>{1, 1, 1, 0, 1}));
  EXPECT_EQ(Values(data), (std::vector<int32_t>{7, 8, 9, 10}));
}

TEST(ColumnChunkReaderTest, AllPresentOptionalColumnKeepsNoLevels) {
  const Column column = MakeColumn(1);
  std::vector<uint32_t> ones(100, 1);
  std::vector<int32_t> values(100, 3);
  ASSERT_OK_AND_ASSIGN(ColumnChunkData data,
                       Read(column, DataPageV1(100, V1Levels(ones, 1) + PlainInt32(values)), 100));
  EXPECT_TRUE(data.all_defined);
  EXPECT_TRUE(data.def_levels.empty());
  EXPECT_EQ(data.values.count, 100);
}

TEST(ColumnChunkReaderTest, DictionaryPageThenIndices) {
  const Column column = MakeColumn(0);
  const std::vector<uint32_t> indices = {2, 0, 1, 2};
  const std::string runs = EncodeRleHybrid(indices.data(), 4, 2);
  const std::string pages = DictionaryPage(3, PlainInt32({10, 20, 30})) +
                            DataPageV1(4, std::string(1, '\2') + runs, Encoding::kRleDictionary);
  ASSERT_OK_AND_ASSIGN(ColumnChunkData data, Read(column, pages, 4));
  EXPECT_EQ(Values(data), (std::vector<int32_t>{30, 10, 20, 30}));
}

TEST(ColumnChunkReaderTest, DataPageV2LevelsOutsideTheValues) {
  const Column column = MakeColumn(1);
  const std::vector<uint32_t> def = {1, 0, 1};
  const std::string levels = EncodeRleHybrid(def.data(), 3, 1);
  ASSERT_OK_AND_ASSIGN(ColumnChunkData data,
                       Read(column, DataPageV2(3, "", levels, PlainInt32({4, 6})), 3));
  EXPECT_EQ(data.def_levels, (std::vector<int16_t>{1, 0, 1}));
  EXPECT_EQ(Values(data), (std::vector<int32_t>{4, 6}));
}

TEST(ColumnChunkReaderTest, CompressedV2PageOfNullsWithNoValueBytesIsNotDecompressed) {
  // A page of nulls whose (empty) values section is marked compressed but
  // holds no bytes: zero bytes are no Snappy stream, and nothing needs
  // decompressing.
  const Column column = MakeColumn(1);
  const std::vector<uint32_t> def = {0};
  const std::string levels = EncodeRleHybrid(def.data(), 1, 1);
  PageHeader header;
  header.type = PageType::kDataPageV2;
  header.uncompressed_page_size = static_cast<int32_t>(levels.size());
  header.compressed_page_size = static_cast<int32_t>(levels.size());
  DataPageHeaderV2 v2;
  v2.num_values = 1;
  v2.num_nulls = 1;
  v2.num_rows = 1;
  v2.definition_levels_byte_length = static_cast<int32_t>(levels.size());
  v2.is_compressed = true;
  header.data_page_v2 = v2;
  const std::string page = EncodePageHeader(header) + levels;
  for (int threads : {1, 2}) {
    ColumnChunkOptions options;
    options.threads = threads;
    ASSERT_OK_AND_ASSIGN(ColumnChunkData data, Read(column, page, 1, options, Codec::kSnappy));
    EXPECT_EQ(data.values.count, 0);
    EXPECT_EQ(data.def_levels, (std::vector<int16_t>{0}));
  }
}

std::string ListPage(const std::vector<uint32_t>& rep, const std::vector<uint32_t>& def,
                     const std::vector<int32_t>& values) {
  return DataPageV1(static_cast<int32_t>(rep.size()),
                    V1Levels(rep, 1) + V1Levels(def, 3) + PlainInt32(values));
}

TEST(ColumnChunkReaderTest, FixedSizeListPatternCheckedNotKept) {
  const Column column = MakeColumn(3);
  std::vector<uint32_t> rep, def;
  std::vector<int32_t> values;
  for (int row = 0; row < 50; ++row) {
    for (int i = 0; i < 4; ++i) {
      rep.push_back(i == 0 ? 0 : 1);
      def.push_back(3);
      values.push_back(row * 4 + i);
    }
  }
  ColumnChunkOptions options;
  options.fixed_list_size = 4;
  ASSERT_OK_AND_ASSIGN(ColumnChunkData data,
                       Read(column, ListPage(rep, def, values), 200, options));
  EXPECT_TRUE(data.rep_levels.empty());
  EXPECT_TRUE(data.def_levels.empty());
  EXPECT_EQ(Values(data), values);
  // Without the option the levels are kept.
  ASSERT_OK_AND_ASSIGN(data, Read(column, ListPage(rep, def, values), 200));
  EXPECT_EQ(data.rep_levels.size(), 200u);
  // A row of 5 values breaks the pattern.
  rep[4] = 1;
  EXPECT_ERROR(kInvalid, "row 0 holds more than the 4 values of its fixed-size list type",
               Read(column, ListPage(rep, def, values), 200, options));
  // And a row that ends early.
  rep[4] = 0;
  rep[6] = 0;
  EXPECT_ERROR(kInvalid, "row 1 holds 2 values, not the 4 of its fixed-size list type",
               Read(column, ListPage(rep, def, values), 200, options));
  rep[6] = 1;
  // So does a chunk that ends inside a row.
  rep.resize(198), def.resize(198), values.resize(198);
  EXPECT_ERROR(kInvalid, "row 49 holds 2 values, not the 4 of its fixed-size list type",
               Read(column, ListPage(rep, def, values), 198, options));
}

TEST(ColumnChunkReaderTest, FixedSizeListWithANullRowKeepsTheLevels) {
  const Column column = MakeColumn(3);
  // Two rows of 2, then a null row (one level, definition 0) on a second
  // page: the first page's repetition levels are restored from the pattern.
  const std::string pages =
      ListPage({0, 1, 0, 1}, {3, 3, 3, 3}, {1, 2, 3, 4}) + ListPage({0}, {0}, {});
  ColumnChunkOptions options;
  options.fixed_list_size = 2;
  ASSERT_OK_AND_ASSIGN(ColumnChunkData data, Read(column, pages, 5, options));
  EXPECT_EQ(data.rep_levels, (std::vector<int16_t>{0, 1, 0, 1, 0}));
  EXPECT_EQ(data.def_levels, (std::vector<int16_t>{3, 3, 3, 3, 0}));
}

TEST(ColumnChunkReaderTest, CompressedPagesDecompressedAheadOnThreadsReadInOrder) {
  const Column column = MakeColumn(1);
  std::string pages;
  std::vector<int32_t> expected;
  for (int page = 0; page < 21; ++page) {
    std::vector<int32_t> values(100);
    for (int i = 0; i < 100; ++i) values[static_cast<size_t>(i)] = page * 1000 + i;
    expected.insert(expected.end(), values.begin(), values.end());
    pages += SnappyPageV1(100, V1Levels(std::vector<uint32_t>(100, 1), 1) + PlainInt32(values));
  }
  for (int threads : {1, 2, 3}) {
    ColumnChunkOptions options;
    options.threads = threads;
    ASSERT_OK_AND_ASSIGN(ColumnChunkData data, Read(column, pages, 2100, options, Codec::kSnappy));
    EXPECT_EQ(Values(data), expected) << threads;
  }
  // A corrupt page among them (the last: a copy that runs before the
  // output's start) is named, whichever thread met it.
  std::string broken;
  for (int page = 0; page < 20; ++page) {
    broken += SnappyPageV1(100, V1Levels(std::vector<uint32_t>(100, 1), 1) +
                                    PlainInt32(std::vector<int32_t>(100, page)));
  }
  PageHeader header;
  header.type = PageType::kDataPage;
  header.uncompressed_page_size = 404;
  const std::string garbage = "\x94\x03\x0a\xff\x7f";  // length 404, then a far copy
  header.compressed_page_size = static_cast<int32_t>(garbage.size());
  DataPageHeader data;
  data.num_values = 100;
  header.data_page = data;
  broken += EncodePageHeader(header) + garbage;
  ColumnChunkOptions options;
  options.threads = 2;
  EXPECT_ERROR(kInvalid, "column x, page 20", Read(column, broken, 2100, options, Codec::kSnappy));
}

TEST(ColumnChunkReaderTest, PagesThatContradictTheChunkAreErrors) {
  const Column optional = MakeColumn(1);
  const Column required = MakeColumn(0);
  // Fewer values than the metadata says.
  EXPECT_ERROR(kInvalid, "its pages hold 3 values, its metadata says 4",
               Read(required, DataPageV1(3, PlainInt32({1, 2, 3})), 4));
  // A page past the chunk's count.
  EXPECT_ERROR(kInvalid, "its 3 values run past the chunk's 2",
               Read(required, DataPageV1(3, PlainInt32({1, 2, 3})), 2));
  // A page whose size runs past the chunk.
  std::string cut = DataPageV1(3, PlainInt32({1, 2, 3}));
  cut.resize(cut.size() - 2);
  EXPECT_ERROR(kInvalid, "run past the column chunk's end", Read(required, cut, 3));
  // Level lengths past the page.
  EXPECT_ERROR(kInvalid, "bytes of definition levels run past the page",
               Read(optional, DataPageV1(1, test::LengthWord(99) + PlainInt32({1})), 1));
  // A second dictionary page; a dictionary after data.
  const std::string dictionary = DictionaryPage(1, PlainInt32({5}));
  EXPECT_ERROR(kInvalid, "a second dictionary page",
               Read(required, dictionary + dictionary + DataPageV1(1, PlainInt32({1})), 1));
  EXPECT_ERROR(kInvalid, "a dictionary page after data pages",
               Read(required, DataPageV1(1, PlainInt32({1})) + dictionary, 2));
  // A dictionary page with bytes over its values (values of another type).
  EXPECT_ERROR(kInvalid, "a dictionary page of 16 bytes whose 3 PLAIN INT32 values take 12",
               Read(required,
                    DictionaryPage(3, PlainInt32({10, 20, 30, 40})) +
                        DataPageV1(1, std::string("\1\2\1", 3), Encoding::kRleDictionary),
                    1));
  // Dictionary indices without a dictionary page.
  EXPECT_ERROR(
      kInvalid, "",
      Read(required, DataPageV1(1, std::string("\1\2\1", 3), Encoding::kRleDictionary), 1));
  // A v2 page of a REQUIRED column that says it holds nulls.
  std::string nulls;
  {
    PageHeader header;
    header.type = PageType::kDataPageV2;
    header.uncompressed_page_size = 4;
    header.compressed_page_size = 4;
    DataPageHeaderV2 v2;
    v2.num_values = 2;
    v2.num_nulls = 1;
    v2.num_rows = 2;
    v2.is_compressed = false;
    header.data_page_v2 = v2;
    nulls = EncodePageHeader(header) + PlainInt32({1});
  }
  EXPECT_ERROR(kInvalid, "a page of a column that cannot be null (REQUIRED) says it holds 1 nulls",
               Read(required, nulls, 2));
  // Levels that end before the page's count say which levels.
  const Column list = MakeColumn(3);
  const std::string two_reps = test::LengthWord(2) + std::string("\x04\x00", 2);
  const std::string three_defs = test::LengthWord(2) + std::string("\x06\x03", 2);
  EXPECT_ERROR(kInvalid, "page 0: repetition levels: the values end before the page's count",
               Read(list, DataPageV1(3, two_reps + three_defs + PlainInt32({1, 2, 3})), 3));
  const std::string two_defs = test::LengthWord(2) + std::string("\x04\x01", 2);
  EXPECT_ERROR(kInvalid, "page 0: definition levels: the values end before the page's count",
               Read(optional, DataPageV1(3, two_defs + PlainInt32({1, 2})), 3));
  // Bytes that are no page header.
  EXPECT_ERROR(kInvalid, "column x, page 0", Read(required, std::string(12, '\xff'), 1));
}

}  // namespace
}  // namespace quiver::parquet
