// Parquet's FileMetaData and PageHeader: encoded and decoded back whole,
// and the errors a footer missing what a reader needs gets.
#include "quiver/parquet/metadata.h"

#include <string>

#include "quiver/parquet/thrift_compact.h"
#include "test_util.h"

namespace quiver::parquet {
namespace {

Result<FileMetaData> Decode(const std::string& bytes) {
  return DecodeFileMetaData(reinterpret_cast<const uint8_t*>(bytes.data()),
                            static_cast<int64_t>(bytes.size()), "footer");
}

FileMetaData Sample() {
  FileMetaData m;
  m.version = 2;
  m.num_rows = 3;
  m.created_by = "quiver test";
  m.key_value_metadata = {{"ARROW:schema", "abc"}, {"empty", ""}};
  SchemaElement root;
  root.name = "schema";
  root.num_children = 3;
  SchemaElement price;
  price.name = "price";
  price.type = PhysicalType::kFixedLenByteArray;
  price.type_length = 16;
  price.repetition = Repetition::kOptional;
  price.converted_type = 5;
  price.scale = 2;
  price.precision = 30;
  price.logical_type.kind = LogicalType::kDecimal;
  price.logical_type.scale = 2;
  price.logical_type.precision = 30;
  SchemaElement when;
  when.name = "when";
  when.type = PhysicalType::kInt64;
  when.repetition = Repetition::kRequired;
  when.logical_type.kind = LogicalType::kTimestamp;
  when.logical_type.adjusted_to_utc = true;
  when.logical_type.unit = TimeUnit::kNano;
  SchemaElement small;
  small.name = "small";
  small.type = PhysicalType::kInt32;
  small.repetition = Repetition::kRequired;
  small.field_id = 7;
  small.logical_type.kind = LogicalType::kInteger;
  small.logical_type.bit_width = 8;
  small.logical_type.is_signed = false;
  m.schema = {root, price, when, small};
  RowGroup group;
  group.num_rows = 3;
  group.total_byte_size = 100;
  group.ordinal = 0;
  group.file_offset = 4;
  ColumnChunk chunk;
  chunk.file_offset = 0;
  ColumnMetaData meta;
  meta.type = PhysicalType::kInt32;
  meta.encodings = {Encoding::kPlain, Encoding::kRle, Encoding::kRleDictionary};
  meta.path_in_schema = {"small"};
  meta.codec = Codec::kZstd;
  meta.num_values = 3;
  meta.total_uncompressed_size = 50;
  meta.total_compressed_size = 40;
  meta.data_page_offset = 4;
  meta.dictionary_page_offset = 4;
  Statistics stats;
  stats.min_value = std::string("\x01\x00\x00\x00", 4);
  stats.max_value = std::string("\x09\x00\x00\x00", 4);
  stats.null_count = 0;
  meta.statistics = stats;
  chunk.meta_data = meta;
  chunk.offset_index_offset = 1000;
  chunk.offset_index_length = 20;
  group.columns = {chunk};
  m.row_groups = {group};
  return m;
}

TEST(ParquetMetadataTest, FileMetaDataRoundTripsEveryFieldQuiverUses) {
  const FileMetaData m = Sample();
  ASSERT_OK_AND_ASSIGN(FileMetaData back, Decode(EncodeFileMetaData(m)));
  EXPECT_EQ(back.version, 2);
  EXPECT_EQ(back.num_rows, 3);
  EXPECT_EQ(back.created_by, "quiver test");
  EXPECT_EQ(back.key_value_metadata, m.key_value_metadata);
  ASSERT_EQ(back.schema.size(), 4u);
  EXPECT_EQ(back.schema[0].num_children, 3);
  EXPECT_FALSE(back.schema[0].type.has_value());
  EXPECT_EQ(back.schema[1].type, PhysicalType::kFixedLenByteArray);
  EXPECT_EQ(back.schema[1].type_length, 16);
  EXPECT_EQ(back.schema[1].repetition, Repetition::kOptional);
  EXPECT_EQ(back.schema[1].logical_type.kind, LogicalType::kDecimal);
  EXPECT_EQ(back.schema[1].logical_type.precision, 30);
  EXPECT_EQ(back.schema[1].precision, 30);
  EXPECT_EQ(back.schema[2].logical_type.kind, LogicalType::kTimestamp);
  EXPECT_TRUE(back.schema[2].logical_type.adjusted_to_utc);
  EXPECT_EQ(back.schema[2].logical_type.unit, TimeUnit::kNano);
  EXPECT_EQ(back.schema[3].logical_type.kind, LogicalType::kInteger);
  EXPECT_EQ(back.schema[3].logical_type.bit_width, 8);
  EXPECT_FALSE(back.schema[3].logical_type.is_signed);
  EXPECT_EQ(back.schema[3].field_id, 7);
  ASSERT_EQ(back.row_groups.size(), 1u);
  const RowGroup& g = back.row_groups[0];
  EXPECT_EQ(g.ordinal, 0);
  EXPECT_EQ(g.file_offset, 4);
  ASSERT_EQ(g.columns.size(), 1u);
  const ColumnChunk& c = g.columns[0];
  EXPECT_EQ(c.offset_index_offset, 1000);
  EXPECT_EQ(c.offset_index_length, 20);
  ASSERT_TRUE(c.meta_data.has_value());
  EXPECT_EQ(c.meta_data->codec, Codec::kZstd);
  EXPECT_EQ(c.meta_data->encodings.size(), 3u);
  EXPECT_EQ(c.meta_data->path_in_schema, std::vector<std::string>{"small"});
  EXPECT_EQ(c.meta_data->dictionary_page_offset, 4);
  ASSERT_TRUE(c.meta_data->statistics.has_value());
  EXPECT_EQ(c.meta_data->statistics->max_value, std::string("\x09\x00\x00\x00", 4));
  EXPECT_EQ(c.meta_data->statistics->null_count, 0);
}

TEST(ParquetMetadataTest, MissingRequiredFieldsAreNamed) {
  ThriftWriter w;
  w.BeginStruct();
  w.I32(1, 1);
  w.ListHeader(2, ThriftType::kStruct, 0);
  w.ListHeader(4, ThriftType::kStruct, 0);
  w.EndStruct();
  EXPECT_ERROR(kInvalid, "FileMetaData lacks its required field num_rows", Decode(w.Take()));

  FileMetaData m = Sample();
  m.schema[1].name.clear();  // an empty name is still a name
  EXPECT_TRUE(Decode(EncodeFileMetaData(m)).ok());
}

TEST(ParquetMetadataTest, NegativeCountsUnknownEnumsAndTrailingBytesAreRefused) {
  FileMetaData m = Sample();
  m.num_rows = -1;
  EXPECT_ERROR(kInvalid, "num_rows is negative (-1)", Decode(EncodeFileMetaData(m)));

  m = Sample();
  m.schema[2].type = static_cast<PhysicalType>(9);
  EXPECT_ERROR(kInvalid, "unknown physical type 9", Decode(EncodeFileMetaData(m)));

  m = Sample();
  EXPECT_ERROR(kInvalid, "the structure ends before its",
               Decode(EncodeFileMetaData(m) + std::string("\x00", 1)));
}

TEST(ParquetMetadataTest, PlaintextFooterOfAnEncryptedFileMayBeFollowedByItsSignature) {
  // encryption_algorithm (field 8, an empty struct here) before the stop;
  // then the footer's 28-byte signature.
  std::string footer = EncodeFileMetaData(Sample());
  footer.insert(footer.size() - 1, std::string("\x0c\x10\x00", 3));
  const std::string signature(28, '\x5a');
  ASSERT_OK_AND_ASSIGN(FileMetaData m, Decode(footer + signature));
  EXPECT_TRUE(m.encrypted);
  // Other trailing bytes stay refused, and no footer without field 8 takes
  // a signature.
  EXPECT_ERROR(kInvalid, "the structure ends before its", Decode(footer + signature + "x"));
  EXPECT_ERROR(kInvalid, "the structure ends before its",
               Decode(EncodeFileMetaData(Sample()) + signature));
}

TEST(ParquetMetadataTest, FieldOfTheWrongWireTypeIsNamed) {
  ThriftWriter w;
  w.BeginStruct();
  w.Binary(1, "two");  // version is an i32
  w.EndStruct();
  EXPECT_ERROR(kInvalid, "version (field 1) has wire type binary, expected i32", Decode(w.Take()));
}

TEST(ParquetMetadataTest, PageHeadersRoundTripAndNeedTheirTypesHeader) {
  PageHeader h;
  h.type = PageType::kDataPageV2;
  h.uncompressed_page_size = 4096;
  h.compressed_page_size = 1000;
  h.crc = -5;
  DataPageHeaderV2 v2;
  v2.num_values = 10;
  v2.num_nulls = 2;
  v2.num_rows = 10;
  v2.encoding = Encoding::kByteStreamSplit;
  v2.definition_levels_byte_length = 3;
  v2.is_compressed = false;
  h.data_page_v2 = v2;
  std::string bytes = EncodePageHeader(h);
  const int64_t length = static_cast<int64_t>(bytes.size());
  bytes += "page data follows";
  int64_t header_size = 0;
  ASSERT_OK_AND_ASSIGN(PageHeader back,
                       DecodePageHeader(reinterpret_cast<const uint8_t*>(bytes.data()),
                                        static_cast<int64_t>(bytes.size()), "page", &header_size));
  EXPECT_EQ(header_size, length);
  EXPECT_EQ(back.type, PageType::kDataPageV2);
  EXPECT_EQ(back.crc, -5);
  ASSERT_TRUE(back.data_page_v2.has_value());
  EXPECT_EQ(back.data_page_v2->num_nulls, 2);
  EXPECT_EQ(back.data_page_v2->encoding, Encoding::kByteStreamSplit);
  EXPECT_FALSE(back.data_page_v2->is_compressed);

  PageHeader bare;
  bare.type = PageType::kDictionaryPage;
  const std::string lacking = EncodePageHeader(bare);
  EXPECT_ERROR(kInvalid, "lacks the header of its page type",
               DecodePageHeader(reinterpret_cast<const uint8_t*>(lacking.data()),
                                static_cast<int64_t>(lacking.size()), "page", &header_size));
}

}  // namespace
}  // namespace quiver::parquet
