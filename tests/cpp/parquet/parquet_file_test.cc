// ParquetFile: the schema and metadata of a file, and the footers that
// contradict themselves or the file (wrong column counts, row counts,
// types, paths, chunks outside the data) refused with the row group and
// column named.
#include "quiver/parquet.h"

#include <string>

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

}  // namespace
}  // namespace quiver::parquet
