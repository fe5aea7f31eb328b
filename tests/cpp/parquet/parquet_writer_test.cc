// Parquet files written whole: the footer read back, long lists in
// batches of levels, quiver reading its own files, page statistics and
// page indexes checked against a walk of the pages, errors, and a failed
// write that leaves nothing behind.
#include <algorithm>
#include <optional>

#include "parquet_writer_test_util.h"
#include "quiver/parquet/file_footer.h"

namespace quiver::parquet {
namespace {

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

// A sink that takes `room` bytes, then fails every write (a full disk).
class FullSink : public io::OutputSink {
 public:
  explicit FullSink(int64_t room) : room_(room) {}
  Status Write(const void* data, int64_t size) override {
    if (position_ + size > room_) return Status::IOError("no space left after ", position_);
    bytes_.append(static_cast<const char*>(data), static_cast<size_t>(size));
    position_ += size;
    return Status::OK();
  }
  int64_t position() const override { return position_; }
  Status Close() override { return Status::OK(); }
  const std::string& bytes() const { return bytes_; }

 private:
  int64_t room_;
  int64_t position_ = 0;
  std::string bytes_;
};

TEST(ParquetWriter, StreamsTablesAndBatchesIntoRowGroups) {
  auto first = OneColumn("a", Primitive<int32_t>(int32(), {1, 2, 3, 4, 5}));
  auto second = OneColumn("a", Primitive<int32_t>(int32(), {6, 7}));
  ParquetWriteOptions options;
  options.row_group_rows = 2;
  auto sink = std::make_shared<io::BufferSink>();
  ASSERT_OK_AND_ASSIGN(auto writer, ParquetWriter::Open(sink, first->schema(), options));
  ASSERT_OK(writer->WriteTable(*first));  // 2 + 2 + 1 rows: rows are not held back
  ASSERT_OK(writer->WriteTable(*second));
  auto batch = *RecordBatch::Make(first->schema(), 1, {Primitive<int32_t>(int32(), {8})});
  ASSERT_OK(writer->Write(*batch));
  EXPECT_EQ(writer->num_rows(), 8);
  EXPECT_EQ(writer->num_row_groups(), 5);
  ASSERT_OK(writer->Close());
  ASSERT_OK(writer->Close());  // says what the first did
  EXPECT_ERROR(kInvalid, "closed Parquet writer", writer->WriteTable(*first));
  auto file = *ParquetFile::Open(io::BufferSource(*sink->Finish()));
  EXPECT_EQ(file->num_row_groups(), 5);
  auto read = *file->ReadTable();
  auto expected = OneColumn("a", Primitive<int32_t>(int32(), {1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_TRUE(read->Equals(*expected));
}

TEST(ParquetWriter, AnotherSchemaIsRefusedAndTheWriterGoesOn) {
  auto ints = OneColumn("a", Primitive<int32_t>(int32(), {1}));
  auto floats = OneColumn("a", Primitive<float>(float32(), {1.5f}));
  auto sink = std::make_shared<io::BufferSink>();
  ASSERT_OK_AND_ASSIGN(auto writer, ParquetWriter::Open(sink, ints->schema()));
  EXPECT_ERROR(kTypeError, "column 0 (a) is float32, the Parquet writer's schema says int32",
               writer->WriteTable(*floats));
  ASSERT_OK(writer->WriteTable(*ints));
  ASSERT_OK(writer->Close());
  auto file = *ParquetFile::Open(io::BufferSource(*sink->Finish()));
  EXPECT_TRUE((*file->ReadTable())->Equals(*ints));
  EXPECT_ERROR(kInvalid, "no sink", ParquetWriter::Open(nullptr, ints->schema()).status());
}

TEST(ParquetWriter, AFailedWriteBreaksTheFileForGood) {
  std::vector<int32_t> distinct(1000);
  for (int32_t i = 0; i < 1000; ++i) distinct[static_cast<size_t>(i)] = i * 7919;
  auto table = OneColumn("a", Primitive<int32_t>(int32(), distinct));
  auto sink = std::make_shared<FullSink>(100);
  ASSERT_OK_AND_ASSIGN(auto writer, ParquetWriter::Open(sink, table->schema()));
  EXPECT_ERROR(kIOError, "no space left", writer->WriteTable(*table));
  const std::string written = sink->bytes();
  // Every later call says the same, and no footer follows the broken bytes.
  EXPECT_ERROR(kIOError, "no space left", writer->WriteTable(*table));
  EXPECT_ERROR(kIOError, "no space left", writer->Close());
  EXPECT_EQ(sink->bytes(), written);
}

// A column chunk's pages, walked from its first page header to its end.
struct WalkedPage {
  int64_t offset = 0, size = 0;  // the header's offset; header and data bytes
  PageHeader header;
};

std::vector<WalkedPage> WalkPages(const Buffer& file, const ColumnChunkInfo& c) {
  int64_t at = c.dictionary_page_offset.value_or(c.data_page_offset);
  const int64_t end = at + c.compressed_size;
  std::vector<WalkedPage> pages;
  while (at < end) {
    int64_t header_size = 0;
    auto header = DecodePageHeader(file.data() + at, end - at, "page", &header_size);
    EXPECT_TRUE(header.ok()) << header.status().ToString();
    if (!header.ok()) break;
    pages.push_back(WalkedPage{at, header_size + header->compressed_page_size, *header});
    at += pages.back().size;
  }
  EXPECT_EQ(at, end);
  return pages;
}

template <typename T>
T Load(const std::string& bytes) {
  T v{};
  EXPECT_EQ(bytes.size(), sizeof(T));
  std::memcpy(&v, bytes.data(), std::min(bytes.size(), sizeof(T)));
  return v;
}

TEST(ParquetWriter, PageIndexesLocateEveryDataPageWithItsStatistics) {
  // 2000 rows in row groups of 1500 and 500: "a" ascending with rows 100
  // to 999 null (pages of nulls only), "d" descending, "s" in no order.
  const int64_t rows = 2000;
  std::vector<int32_t> a(rows);
  std::vector<bool> a_valid(rows);
  std::vector<int64_t> d(rows);
  std::vector<std::optional<std::string>> s;
  for (int64_t i = 0; i < rows; ++i) {
    a[static_cast<size_t>(i)] = static_cast<int32_t>(i);
    a_valid[static_cast<size_t>(i)] = i < 100 || i >= 1000;
    d[static_cast<size_t>(i)] = rows - i;
    s.push_back("k" + std::to_string(i * 7919 % rows));
  }
  auto schema = std::make_shared<const Schema>(
      Schema{{Field{"a", int32(), true}, Field{"d", int64(), false}, Field{"s", utf8(), true}}});
  auto batch = *RecordBatch::Make(
      schema, rows,
      {Primitive<int32_t>(int32(), a, a_valid), Primitive<int64_t>(int64(), d), test::Utf8(s)});
  const std::vector<RecordBatchPtr> batches{batch};
  auto table = *Table::FromRecordBatches(schema, batches);
  for (int version : {1, 2}) {
    for (bool dictionary : {true, false}) {
      SCOPED_TRACE("version " + std::to_string(version) + (dictionary ? " dictionary" : ""));
      ParquetWriteOptions options;
      options.data_page_version = version;
      options.use_dictionary = dictionary;
      options.data_page_bytes = 64;
      options.row_group_rows = 1500;
      options.write_page_index = true;
      auto buffer = *WriteParquetBuffer(*table, options);
      auto file = *ParquetFile::Open(io::BufferSource(buffer));
      int64_t last_page_end = 0, last_column_index = 0;
      int64_t first_index = static_cast<int64_t>(buffer->size());
      std::vector<int64_t> offset_index_starts;
      for (int g = 0; g < file->num_row_groups(); ++g) {
        const int64_t group_first_row = g * 1500;
        for (int c = 0; c < 3; ++c) {
          SCOPED_TRACE("row group " + std::to_string(g) + ", column " + std::to_string(c));
          const ColumnChunkInfo& info = file->row_group(g).columns[static_cast<size_t>(c)];
          EXPECT_TRUE(info.has_offset_index);
          EXPECT_TRUE(info.has_column_index);
          ASSERT_OK_AND_ASSIGN(std::optional<OffsetIndex> offsets, file->ReadOffsetIndex(g, c));
          ASSERT_OK_AND_ASSIGN(std::optional<ColumnIndex> index, file->ReadColumnIndex(g, c));
          ASSERT_TRUE(offsets.has_value());
          ASSERT_TRUE(index.has_value());
          std::vector<WalkedPage> pages = WalkPages(*buffer, info);
          if (!pages.empty() && pages[0].header.type == PageType::kDictionaryPage) {
            pages.erase(pages.begin());
          }
          ASSERT_EQ(offsets->page_locations.size(), pages.size());
          ASSERT_GT(pages.size(), 3u);
          ASSERT_EQ(index->null_pages.size(), pages.size());
          ASSERT_TRUE(index->null_counts.has_value());
          int64_t row = 0;
          for (size_t p = 0; p < pages.size(); ++p) {
            const PageLocation& location = offsets->page_locations[p];
            EXPECT_EQ(location.offset, pages[p].offset);
            EXPECT_EQ(location.compressed_page_size, pages[p].size);
            EXPECT_EQ(location.first_row_index, row);
            const PageHeader& h = pages[p].header;
            const std::optional<Statistics>& stats =
                version == 1 ? h.data_page->statistics : h.data_page_v2->statistics;
            const int64_t page_rows =
                version == 1 ? h.data_page->num_values : h.data_page_v2->num_values;
            ASSERT_TRUE(stats.has_value());
            EXPECT_EQ(stats->null_count, (*index->null_counts)[p]);
            const bool null_page = *stats->null_count == page_rows;
            EXPECT_EQ(index->null_pages[p], null_page);
            if (null_page) {
              EXPECT_EQ(index->min_values[p], "");
              EXPECT_EQ(index->max_values[p], "");
            } else {
              EXPECT_EQ(stats->min_value, index->min_values[p]);
              EXPECT_EQ(stats->max_value, index->max_values[p]);
            }
            // The page's own values give its min and max.
            const int64_t first = group_first_row + row, last = first + page_rows - 1;
            if (c == 0 && !null_page) {
              int64_t lo = first, hi = last;
              while (!a_valid[static_cast<size_t>(lo)]) ++lo;
              while (!a_valid[static_cast<size_t>(hi)]) --hi;
              EXPECT_EQ(Load<int32_t>(index->min_values[p]), lo);
              EXPECT_EQ(Load<int32_t>(index->max_values[p]), hi);
            } else if (c == 1) {
              EXPECT_EQ(Load<int64_t>(index->min_values[p]), rows - last);
              EXPECT_EQ(Load<int64_t>(index->max_values[p]), rows - first);
            }
            row += page_rows;
            last_page_end = std::max(last_page_end, pages[p].offset + pages[p].size);
          }
          EXPECT_EQ(row, file->row_group(g).num_rows);
          const BoundaryOrder expected = c == 0   ? BoundaryOrder::kAscending
                                         : c == 1 ? BoundaryOrder::kDescending
                                                  : BoundaryOrder::kUnordered;
          EXPECT_EQ(index->boundary_order, expected);
          if (c == 0 && g == 0) {
            EXPECT_TRUE(std::count(index->null_pages.begin(), index->null_pages.end(), true) > 0);
          }
        }
      }
      // Every column index, then every offset index, after the pages.
      const std::string bytes(reinterpret_cast<const char*>(buffer->data()), buffer->size());
      auto footer = *ReadFileFooter(*io::BufferSource(buffer));
      for (const RowGroup& group : footer.metadata.row_groups) {
        for (const ColumnChunk& chunk : group.columns) {
          first_index = std::min(first_index, *chunk.column_index_offset);
          last_column_index =
              std::max(last_column_index, *chunk.column_index_offset + chunk.column_index_length);
          offset_index_starts.push_back(*chunk.offset_index_offset);
        }
      }
      EXPECT_EQ(first_index, last_page_end);
      for (int64_t start : offset_index_starts) EXPECT_GE(start, last_column_index);
    }
  }
}

TEST(ParquetWriter, PageStatisticsFollowWriteStatisticsAndIndexesWritePageIndex) {
  std::vector<double> values;
  for (int i = 0; i < 300; ++i) values.push_back(i == 7 ? std::nan("") : i * 0.5);
  auto table = OneColumn("x", Primitive<double>(float64(), values));
  for (bool statistics : {true, false}) {
    for (bool page_index : {true, false}) {
      ParquetWriteOptions options;
      options.write_statistics = statistics;
      options.write_page_index = page_index;
      options.data_page_bytes = 256;
      options.use_dictionary = false;
      auto buffer = *WriteParquetBuffer(*table, options);
      auto file = *ParquetFile::Open(io::BufferSource(buffer));
      const ColumnChunkInfo& info = file->row_group(0).columns[0];
      EXPECT_EQ(info.has_offset_index, page_index);
      EXPECT_EQ(info.has_column_index, page_index);
      EXPECT_EQ(file->ReadOffsetIndex(0, 0)->has_value(), page_index);
      ASSERT_OK_AND_ASSIGN(std::optional<ColumnIndex> index, file->ReadColumnIndex(0, 0));
      EXPECT_EQ(index.has_value(), page_index);
      const std::vector<WalkedPage> pages = WalkPages(*buffer, info);
      ASSERT_GT(pages.size(), 1u);
      for (const WalkedPage& page : pages) {
        EXPECT_EQ(page.header.data_page->statistics.has_value(), statistics);
      }
      if (statistics) {
        // The NaN is left out of the first page's min and max.
        const Statistics& first = *pages[0].header.data_page->statistics;
        EXPECT_EQ(Load<double>(*first.min_value), -0.0);
        EXPECT_TRUE(std::signbit(Load<double>(*first.min_value)));
        EXPECT_EQ(Load<double>(*first.max_value), 15.5);
        EXPECT_EQ(first.min, first.min_value);  // the deprecated field too (signed order)
      }
      if (page_index) {
        EXPECT_EQ(Load<double>(index->max_values.back()), 149.5);
        EXPECT_EQ(index->boundary_order, BoundaryOrder::kAscending);
      }
      ASSERT_OK_AND_ASSIGN(auto back, file->ReadTable());
      EXPECT_EQ(back->num_rows(), 300);
    }
  }
}

TEST(ParquetWriter, ChunksOfNaNPagesOrHugeValuesGetAnOffsetIndexAlone) {
  std::vector<float> nans(100, std::nanf(""));
  nans[0] = 1.0f;
  auto table = OneColumn("x", Primitive<float>(float32(), nans));
  ParquetWriteOptions options;
  options.write_page_index = true;
  options.use_dictionary = false;
  options.data_page_bytes = 64;
  auto buffer = *WriteParquetBuffer(*table, options);
  auto file = *ParquetFile::Open(io::BufferSource(buffer));
  EXPECT_TRUE(file->row_group(0).columns[0].has_offset_index);
  EXPECT_FALSE(file->row_group(0).columns[0].has_column_index);
  ASSERT_OK_AND_ASSIGN(std::optional<ColumnIndex> index, file->ReadColumnIndex(0, 0));
  EXPECT_FALSE(index.has_value());
  ASSERT_OK_AND_ASSIGN(std::optional<OffsetIndex> offsets, file->ReadOffsetIndex(0, 0));
  ASSERT_TRUE(offsets.has_value());
  EXPECT_EQ(offsets->page_locations.size(), 7u);  // 16 floats a page

  auto big = OneColumn("s", test::Utf8({std::string(5000, 'x'), std::string("y")}));
  auto big_file = *ParquetFile::Open(io::BufferSource(*WriteParquetBuffer(*big, options)));
  EXPECT_FALSE(big_file->row_group(0).columns[0].has_column_index);
  EXPECT_TRUE(big_file->row_group(0).columns[0].has_offset_index);
}

TEST(ParquetWriter, ListColumnPagesStartAtRows) {
  // Rows of 0 to 9 values (every 5th row null): pages count rows, not values.
  std::vector<int32_t> offsets{0};
  std::vector<bool> valid;
  std::vector<int16_t> values;
  for (int r = 0; r < 400; ++r) {
    valid.push_back(r % 5 != 0);
    if (r % 5 != 0) {
      for (int k = 0; k < r % 10; ++k) values.push_back(static_cast<int16_t>(r));
    }
    offsets.push_back(static_cast<int32_t>(values.size()));
  }
  auto l = ListOf(list(ListItem(int16())), offsets, valid, Primitive<int16_t>(int16(), values));
  auto table = OneColumn("l", l);
  ParquetWriteOptions options;
  options.write_page_index = true;
  options.data_page_version = 2;
  options.data_page_bytes = 128;
  auto buffer = *WriteParquetBuffer(*table, options);
  auto file = *ParquetFile::Open(io::BufferSource(buffer));
  ASSERT_OK_AND_ASSIGN(std::optional<OffsetIndex> index, file->ReadOffsetIndex(0, 0));
  ASSERT_TRUE(index.has_value());
  std::vector<WalkedPage> pages = WalkPages(*buffer, file->row_group(0).columns[0]);
  pages.erase(pages.begin());  // the dictionary page
  ASSERT_EQ(index->page_locations.size(), pages.size());
  ASSERT_GT(pages.size(), 3u);
  int64_t row = 0;
  for (size_t p = 0; p < pages.size(); ++p) {
    EXPECT_EQ(index->page_locations[p].first_row_index, row);
    row += pages[p].header.data_page_v2->num_rows;
  }
  EXPECT_EQ(row, 400);
  ASSERT_OK_AND_ASSIGN(std::optional<ColumnIndex> column_index, file->ReadColumnIndex(0, 0));
  EXPECT_EQ(column_index->boundary_order, BoundaryOrder::kAscending);
}

}  // namespace
}  // namespace quiver::parquet
