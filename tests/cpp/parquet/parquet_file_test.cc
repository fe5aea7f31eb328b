// ParquetFile: the schema and metadata of a file, and the footers that
// contradict themselves or the file (wrong column counts, row counts,
// types, paths, chunks outside the data) refused with the row group and
// column named.
#include "quiver/parquet.h"

#include <optional>
#include <string>

#include "counting_source.h"
#include "parquet_test_util.h"
#include "quiver/parquet/metadata.h"
#include "test_util.h"

namespace quiver::parquet {
namespace {

constexpr int64_t kDataBytes = 100;  // the bytes between the magic and the footer

// Two columns (an int32 "a" and a float list "l.list.element") in two row
// groups of 2 and 3 rows.
FileMetaData TwoColumns() {
  FileMetaData m;
  m.version = 2;
  m.num_rows = 5;
  m.created_by = "test writer";
  SchemaElement root;
  root.name = "schema";
  root.num_children = 2;
  SchemaElement a;
  a.name = "a";
  a.type = PhysicalType::kInt32;
  a.repetition = Repetition::kRequired;
  SchemaElement l;
  l.name = "l";
  l.num_children = 1;
  l.repetition = Repetition::kOptional;
  l.logical_type.kind = LogicalType::kList;
  SchemaElement list;
  list.name = "list";
  list.num_children = 1;
  list.repetition = Repetition::kRepeated;
  SchemaElement element;
  element.name = "element";
  element.type = PhysicalType::kFloat;
  element.repetition = Repetition::kOptional;
  m.schema = {root, a, l, list, element};
  for (int64_t rows : {2, 3}) {
    RowGroup g;
    g.num_rows = rows;
    g.total_byte_size = 40;
    for (int c = 0; c < 2; ++c) {
      ColumnChunk chunk;
      ColumnMetaData meta;
      meta.type = c == 0 ? PhysicalType::kInt32 : PhysicalType::kFloat;
      meta.path_in_schema =
          c == 0 ? std::vector<std::string>{"a"} : std::vector<std::string>{"l", "list", "element"};
      meta.encodings = {Encoding::kPlain, Encoding::kRle};
      meta.codec = Codec::kSnappy;
      meta.num_values = rows;
      meta.total_compressed_size = 20;
      meta.total_uncompressed_size = 30;
      meta.data_page_offset = 4 + (rows - 2) * 40 + c * 20;
      Statistics stats;
      stats.min_value = "lo";
      stats.max = "hi-deprecated";
      stats.null_count = 0;
      meta.statistics = stats;
      chunk.meta_data = meta;
      g.columns.push_back(chunk);
    }
    m.row_groups.push_back(g);
  }
  return m;
}

Result<std::unique_ptr<ParquetFile>> Open(const FileMetaData& m) {
  const std::string bytes = test::ParquetFileBytes(m, std::string(kDataBytes, 'd'));
  return ParquetFile::Open(io::BufferSource(quiver::test::BufferFrom(bytes.data(), bytes.size())));
}

TEST(ParquetFileTest, SchemaAndMetadataOfAFile) {
  ASSERT_OK_AND_ASSIGN(auto file, Open(TwoColumns()));
  EXPECT_EQ(file->num_rows(), 5);
  EXPECT_EQ(file->num_row_groups(), 2);
  EXPECT_EQ(file->created_by(), "test writer");
  EXPECT_EQ(file->format_version(), 2);
  EXPECT_EQ(file->column_paths(), (std::vector<std::string>{"a", "l.list.element"}));
  ASSERT_EQ(file->schema()->fields.size(), 2u);
  EXPECT_EQ(file->schema()->fields[0].ToString(), "a: int32 not null");
  EXPECT_TRUE(file->schema()->fields[1].type->Equals(*list(Field{"element", float32(), true})));
  const RowGroupInfo& g = file->row_group(1);
  EXPECT_EQ(g.num_rows, 3);
  ASSERT_EQ(g.columns.size(), 2u);
  const ColumnChunkInfo& c = g.columns[1];
  EXPECT_EQ(c.physical_type, "FLOAT");
  EXPECT_EQ(c.codec, "SNAPPY");
  EXPECT_EQ(c.encodings, (std::vector<std::string>{"PLAIN", "RLE"}));
  EXPECT_EQ(c.compressed_size, 20);
  ASSERT_TRUE(c.statistics.has_value());
  EXPECT_EQ(c.statistics->min, "lo");
  EXPECT_EQ(c.statistics->max, "hi-deprecated");  // only the deprecated field was written
  EXPECT_EQ(c.statistics->null_count, 0);
  EXPECT_FALSE(c.has_page_index);
}

TEST(ParquetFileTest, FootersThatContradictThemselvesAreRefused) {
  FileMetaData m = TwoColumns();
  m.num_rows = 6;
  EXPECT_ERROR(kInvalid, "the footer says 6 rows, its row groups hold 5", Open(m));

  m = TwoColumns();
  m.row_groups[1].columns.pop_back();
  EXPECT_ERROR(kInvalid, "row group 1 has 1 column chunks, the schema 2 columns", Open(m));

  m = TwoColumns();
  m.row_groups[0].columns[1].meta_data->type = PhysicalType::kDouble;
  EXPECT_ERROR(kInvalid,
               "column chunk 1 (l.list.element) of row group 0 is DOUBLE, the schema says FLOAT",
               Open(m));

  m = TwoColumns();
  m.row_groups[0].columns[0].meta_data->path_in_schema = {"b"};
  EXPECT_ERROR(kInvalid, "names the path b", Open(m));

  m = TwoColumns();
  m.row_groups[1].columns[0].meta_data->data_page_offset = kDataBytes - 5;
  EXPECT_ERROR(kInvalid, "lie outside the file's data (bytes 4 to 104)", Open(m));

  m = TwoColumns();
  m.row_groups[1].columns[0].meta_data->data_page_offset = 0;  // on the magic
  EXPECT_ERROR(kInvalid, "lie outside the file's data", Open(m));

  m = TwoColumns();
  m.row_groups[0].columns[0].meta_data.reset();
  EXPECT_ERROR(kInvalid, "has no column metadata", Open(m));

  m = TwoColumns();
  m.row_groups[0].columns[0].file_path = "other.parquet";
  EXPECT_ERROR(kNotImplemented, "lies in another file ('other.parquet')", Open(m));
}

TEST(ParquetFileTest, OpenByPathNamesTheFile) {
  EXPECT_ERROR(kIOError, "no_such_file.parquet",
               ParquetFile::Open("/no/such/no_such_file.parquet"));
}

// TwoColumns with `offsets` and `columns` (if any) as column a's page
// index in row group 0, their bytes after the chunks' (at byte 104).
Result<std::unique_ptr<ParquetFile>> WithPageIndex(FileMetaData m, const OffsetIndex& offsets,
                                                   const std::optional<ColumnIndex>& columns) {
  std::string body(kDataBytes, 'd');
  ColumnChunk& chunk = m.row_groups[0].columns[0];
  const std::string offset_bytes = EncodeOffsetIndex(offsets);
  if (!chunk.offset_index_offset) {
    chunk.offset_index_offset = 4 + static_cast<int64_t>(body.size());
    chunk.offset_index_length = static_cast<int32_t>(offset_bytes.size());
  }
  body += offset_bytes;
  if (columns) {
    const std::string column_bytes = EncodeColumnIndex(*columns);
    chunk.column_index_offset = 4 + static_cast<int64_t>(body.size());
    chunk.column_index_length = static_cast<int32_t>(column_bytes.size());
    body += column_bytes;
  }
  const std::string bytes = test::ParquetFileBytes(m, body);
  return ParquetFile::Open(io::BufferSource(quiver::test::BufferFrom(bytes.data(), bytes.size())));
}

OffsetIndex TwoPages() {
  OffsetIndex index;
  index.page_locations = {{4, 10, 0}, {14, 10, 1}};  // column a of row group 0: bytes 4 to 24
  return index;
}

TEST(ParquetFileTest, PageIndexesReadFromTheirOffsets) {
  ColumnIndex columns;
  columns.null_pages = {false, true};
  columns.min_values = {"lo", ""};
  columns.max_values = {"hi", ""};
  columns.null_counts = std::vector<int64_t>{0, 1};
  ASSERT_OK_AND_ASSIGN(auto file, WithPageIndex(TwoColumns(), TwoPages(), columns));
  EXPECT_TRUE(file->row_group(0).columns[0].has_offset_index);
  EXPECT_TRUE(file->row_group(0).columns[0].has_column_index);
  EXPECT_FALSE(file->row_group(0).columns[1].has_offset_index);
  ASSERT_OK_AND_ASSIGN(std::optional<OffsetIndex> offsets, file->ReadOffsetIndex(0, 0));
  ASSERT_TRUE(offsets.has_value());
  ASSERT_EQ(offsets->page_locations.size(), 2u);
  EXPECT_EQ(offsets->page_locations[1].offset, 14);
  EXPECT_EQ(offsets->page_locations[1].first_row_index, 1);
  ASSERT_OK_AND_ASSIGN(std::optional<ColumnIndex> back, file->ReadColumnIndex(0, 0));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->min_values, columns.min_values);
  EXPECT_EQ(back->null_counts, columns.null_counts);
  // Chunks without indexes.
  ASSERT_OK_AND_ASSIGN(std::optional<OffsetIndex> none, file->ReadOffsetIndex(1, 1));
  EXPECT_FALSE(none.has_value());
  ASSERT_OK_AND_ASSIGN(std::optional<ColumnIndex> no_columns, file->ReadColumnIndex(0, 1));
  EXPECT_FALSE(no_columns.has_value());

  EXPECT_ERROR(kIndexError, "row group 2 of the input, which has 2", file->ReadOffsetIndex(2, 0));
  EXPECT_ERROR(kIndexError, "column 2 of the input, which has 2", file->ReadColumnIndex(0, 2));
  EXPECT_ERROR(kIndexError, "column -1", file->ReadColumnIndex(0, -1));
}

TEST(ParquetFileTest, PageIndexesOutsideTheFileOrMalformedAreRefused) {
  const std::string where = "the input: column a of row group 0";
  FileMetaData m = TwoColumns();
  m.row_groups[0].columns[0].offset_index_offset = 100000;
  m.row_groups[0].columns[0].offset_index_length = 20;
  ASSERT_OK_AND_ASSIGN(auto past, WithPageIndex(m, TwoPages(), std::nullopt));
  EXPECT_ERROR(kInvalid,
               where + ": its offset index's 20 bytes at offset 100000 lie outside the file's data",
               past->ReadOffsetIndex(0, 0));

  // A length that runs into the footer; one that cuts the structure short.
  m = TwoColumns();
  m.row_groups[0].columns[0].offset_index_offset = 104;
  m.row_groups[0].columns[0].offset_index_length = 1000;
  ASSERT_OK_AND_ASSIGN(auto long_index, WithPageIndex(m, TwoPages(), std::nullopt));
  EXPECT_ERROR(kInvalid, "outside the file's data (bytes 4 to", long_index->ReadOffsetIndex(0, 0));
  m.row_groups[0].columns[0].offset_index_length = 5;
  ASSERT_OK_AND_ASSIGN(auto short_index, WithPageIndex(m, TwoPages(), std::nullopt));
  EXPECT_ERROR(kInvalid, where + ": the offset index: ", short_index->ReadOffsetIndex(0, 0));
  EXPECT_ERROR(kInvalid, "at byte", short_index->ReadOffsetIndex(0, 0));
  m.row_groups[0].columns[0].offset_index_length = 0;
  ASSERT_OK_AND_ASSIGN(auto empty_index, WithPageIndex(m, TwoPages(), std::nullopt));
  EXPECT_ERROR(kInvalid, "its offset index's 0 bytes", empty_index->ReadOffsetIndex(0, 0));

  // Pages outside the column chunk, or starting past its rows.
  OffsetIndex outside = TwoPages();
  outside.page_locations[1].offset = 20;  // 10 bytes from 20 pass the chunk's end at 24
  ASSERT_OK_AND_ASSIGN(auto outside_file, WithPageIndex(TwoColumns(), outside, std::nullopt));
  EXPECT_ERROR(kInvalid,
               where +
                   ": the offset index puts page 1 (10 bytes at offset 20) outside the column "
                   "chunk (bytes 4 to 24)",
               outside_file->ReadOffsetIndex(0, 0));
  OffsetIndex late = TwoPages();
  late.page_locations[1].first_row_index = 2;
  ASSERT_OK_AND_ASSIGN(auto late_file, WithPageIndex(TwoColumns(), late, std::nullopt));
  EXPECT_ERROR(kInvalid, "says page 1 starts at row 2 of the row group's 2 rows",
               late_file->ReadOffsetIndex(0, 0));
  OffsetIndex first = TwoPages();
  first.page_locations[0].first_row_index = 1;
  ASSERT_OK_AND_ASSIGN(auto first_file, WithPageIndex(TwoColumns(), first, std::nullopt));
  EXPECT_ERROR(kInvalid, "says page 0 starts at row 1", first_file->ReadOffsetIndex(0, 0));

  // A column index whose lists disagree.
  ColumnIndex uneven;
  uneven.null_pages = {false, false};
  uneven.min_values = {"a", "b"};
  uneven.max_values = {"c"};
  ASSERT_OK_AND_ASSIGN(auto uneven_file, WithPageIndex(TwoColumns(), TwoPages(), uneven));
  EXPECT_ERROR(kInvalid,
               where +
                   ": the column index: ColumnIndex's max_values holds 1 entries for its 2 "
                   "null_pages",
               uneven_file->ReadColumnIndex(0, 0));
}

using ::quiver::test::CountingSource;

// 3000 rows: "a" int32 with nulls, "s" strings (flat), "l" lists of int16
// (repeated: read whole).
TablePtr RowRangeTable() {
  const int64_t rows = 3000;
  std::vector<int32_t> a;
  std::vector<bool> valid;
  std::vector<std::optional<std::string>> s;
  std::vector<int32_t> offsets{0};
  std::vector<int16_t> values;
  for (int64_t i = 0; i < rows; ++i) {
    a.push_back(static_cast<int32_t>(i * 7));
    valid.push_back(i % 3 != 0 && (i < 400 || i > 900));
    s.push_back(i % 5 == 0 ? std::nullopt : std::optional<std::string>("v" + std::to_string(i)));
    for (int k = 0; k < i % 4; ++k) values.push_back(static_cast<int16_t>(i));
    offsets.push_back(static_cast<int32_t>(values.size()));
  }
  auto l = std::make_shared<ArrayData>();
  l->type = list(Field{"element", int16(), true});
  l->length = rows;
  l->buffers = {nullptr, quiver::test::BufferOf(offsets)};
  l->null_count = 0;
  l->children = {quiver::test::Primitive<int16_t>(int16(), values)};
  auto schema = std::make_shared<const Schema>(
      Schema{{Field{"a", int32(), true}, Field{"s", utf8(), true}, Field{"l", l->type, false}}});
  const std::vector<RecordBatchPtr> batches{*RecordBatch::Make(
      schema, rows,
      {quiver::test::Primitive<int32_t>(int32(), a, valid), quiver::test::Utf8(s), l})};
  return *Table::FromRecordBatches(schema, batches);
}

TEST(ParquetFileTest, RowRangesReadThePagesThatHoldThem) {
  for (int version : {1, 2}) {
    for (bool page_index : {true, false}) {
      SCOPED_TRACE("version " + std::to_string(version) + (page_index ? " indexed" : ""));
      ParquetWriteOptions options;
      options.write_page_index = page_index;
      options.data_page_version = version;
      options.data_page_bytes = 256;
      options.row_group_rows = 2000;
      options.compression = "uncompressed";
      ASSERT_OK_AND_ASSIGN(BufferPtr bytes, WriteParquetBuffer(*RowRangeTable(), options));
      ASSERT_OK_AND_ASSIGN(auto file, ParquetFile::Open(io::BufferSource(bytes)));
      for (int g = 0; g < 2; ++g) {
        ASSERT_OK_AND_ASSIGN(RecordBatchPtr whole, file->ReadRowGroup(g));
        const int64_t rows = whole->num_rows();
        const std::vector<std::pair<int64_t, int64_t>> ranges = {
            {0, rows}, {0, 1}, {rows - 1, 1}, {17, 300}, {500, 0}, {rows, 0}, {123, 1}, {64, 64}};
        for (const auto& [first, count] : ranges) {
          SCOPED_TRACE("rows " + std::to_string(first) + " + " + std::to_string(count));
          ASSERT_OK_AND_ASSIGN(RecordBatchPtr part, file->ReadRowRange(g, first, count));
          ASSERT_OK_AND_ASSIGN(RecordBatchPtr expected, whole->Slice(first, count));
          EXPECT_EQ(part->num_rows(), count);
          EXPECT_TRUE(part->Equals(*expected));
        }
      }
      // The flat columns read a fraction of their chunks' bytes (PLAIN:
      // no dictionary page to read whole); without an index the whole chunks.
      ParquetReadOptions flat;
      flat.columns = {"a", "s"};
      options.use_dictionary = false;
      ASSERT_OK_AND_ASSIGN(BufferPtr plain, WriteParquetBuffer(*RowRangeTable(), options));
      auto counting = std::make_shared<CountingSource>(plain);
      ASSERT_OK_AND_ASSIGN(auto counted, ParquetFile::Open(counting));
      const int64_t opened = counting->read();
      ASSERT_OK_AND_ASSIGN(RecordBatchPtr few, counted->ReadRowRange(0, 1000, 10, flat));
      EXPECT_EQ(few->num_rows(), 10);
      const int64_t chunks = counted->row_group(0).columns[0].compressed_size +
                             counted->row_group(0).columns[1].compressed_size;
      const int64_t read = counting->read() - opened;
      if (page_index) {
        EXPECT_LT(read, chunks / 4) << read << " of " << chunks;
      } else {
        EXPECT_EQ(read, chunks);
      }
    }
  }
}

// Several ranges at once equal each read alone; the list column reads its
// pages only (its index's pages start on rows), each read once, with the
// dictionary page read once for all the ranges.
TEST(ParquetFileTest, SeveralRowRangesReadTheirPagesOnce) {
  ParquetWriteOptions options;
  options.write_page_index = true;
  options.data_page_bytes = 256;
  options.row_group_rows = 3000;
  ASSERT_OK_AND_ASSIGN(BufferPtr bytes, WriteParquetBuffer(*RowRangeTable(), options));
  auto counting = std::make_shared<CountingSource>(bytes);
  ASSERT_OK_AND_ASSIGN(auto file, ParquetFile::Open(counting));
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr whole, file->ReadRowGroup(0));
  const std::vector<std::pair<int64_t, int64_t>> ranges = {
      {2999, 1}, {0, 3}, {1500, 0}, {700, 40}, {0, 3}};
  ASSERT_OK_AND_ASSIGN(std::vector<RecordBatchPtr> parts, file->ReadRowRanges(0, ranges));
  ASSERT_EQ(parts.size(), ranges.size());
  for (size_t r = 0; r < ranges.size(); ++r) {
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr expected, whole->Slice(ranges[r].first, ranges[r].second));
    EXPECT_TRUE(parts[r]->Equals(*expected)) << "range " << r;
  }
  ASSERT_OK_AND_ASSIGN(auto starts, file->PageRowStarts(0));
  ASSERT_TRUE(starts.has_value());
  EXPECT_EQ(starts->front(), 0);
  EXPECT_TRUE(std::is_sorted(starts->begin(), starts->end()));
  ParquetReadOptions lists;
  lists.columns = {"l"};
  const int64_t before = counting->read();
  ASSERT_OK_AND_ASSIGN(parts, file->ReadRowRanges(0, {{10, 2}, {2000, 2}}, lists));
  EXPECT_EQ(parts[1]->num_rows(), 2);
  const int64_t chunk = file->row_group(0).columns[2].compressed_size;
  EXPECT_LT(counting->read() - before, chunk / 2) << "of " << chunk;
  ASSERT_OK_AND_ASSIGN(parts, file->ReadRowRanges(0, {}));
  EXPECT_TRUE(parts.empty());
  EXPECT_ERROR(kIndexError, "rows 3000 to 3000 + 1", file->ReadRowRanges(0, {{0, 1}, {3000, 1}}));
}

TEST(ParquetFileTest, RowRangesOutOfTheRowGroupAreRefused) {
  ParquetWriteOptions options;
  options.write_page_index = true;
  ASSERT_OK_AND_ASSIGN(BufferPtr bytes, WriteParquetBuffer(*RowRangeTable(), options));
  ASSERT_OK_AND_ASSIGN(auto file, ParquetFile::Open(io::BufferSource(bytes)));
  EXPECT_ERROR(kIndexError,
               "rows 2990 to 2990 + 11 of row group 0 of the input, which has 3000 rows",
               file->ReadRowRange(0, 2990, 11));
  EXPECT_ERROR(kIndexError, "rows -1 to", file->ReadRowRange(0, -1, 1));
  EXPECT_ERROR(kIndexError, "rows 0 to 0 + -1", file->ReadRowRange(0, 0, -1));
  EXPECT_ERROR(kIndexError, "row group 1 of the input, which has 1", file->ReadRowRange(1, 0, 1));
  ParquetReadOptions unknown;
  unknown.columns = {"nope"};
  EXPECT_ERROR(kInvalid, "has no column named 'nope'", file->ReadRowRange(0, 0, 1, unknown));
}

}  // namespace
}  // namespace quiver::parquet
