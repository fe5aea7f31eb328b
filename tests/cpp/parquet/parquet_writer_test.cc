// Parquet files written whole: the footer read back, long lists in
// batches of levels, quiver reading its own files, errors, and a failed
// write that leaves nothing behind.
#include "parquet_writer_test_util.h"

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

}  // namespace
}  // namespace quiver::parquet
