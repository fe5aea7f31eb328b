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

const uint8_t* Bytes(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }
int64_t Size(const std::string& s) { return static_cast<int64_t>(s.size()); }

OffsetIndex SampleOffsetIndex() {
  OffsetIndex index;
  index.page_locations = {{4, 100, 0}, {104, 90, 16}, {194, 300, 16}, {int64_t{1} << 40, 5, 99}};
  index.unencoded_byte_array_data_bytes = std::vector<int64_t>{10, 0, 7, int64_t{1} << 33};
  return index;
}

ColumnIndex SampleColumnIndex() {
  ColumnIndex index;
  // 20 pages: a list header with a varint count.
  for (int p = 0; p < 20; ++p) {
    const bool null_page = p % 7 == 3;
    index.null_pages.push_back(null_page);
    index.min_values.push_back(null_page ? "" : std::string(1, static_cast<char>('a' + p)));
    index.max_values.push_back(null_page ? "" : std::string(2, static_cast<char>('a' + p)));
  }
  index.boundary_order = BoundaryOrder::kAscending;
  index.null_counts = std::vector<int64_t>(20, 3);
  return index;
}

TEST(ParquetMetadataTest, PageIndexesRoundTrip) {
  const OffsetIndex offsets = SampleOffsetIndex();
  const std::string offset_bytes = EncodeOffsetIndex(offsets);
  ASSERT_OK_AND_ASSIGN(OffsetIndex offsets_back,
                       DecodeOffsetIndex(Bytes(offset_bytes), Size(offset_bytes), "oi"));
  ASSERT_EQ(offsets_back.page_locations.size(), 4u);
  for (size_t p = 0; p < 4; ++p) {
    EXPECT_EQ(offsets_back.page_locations[p].offset, offsets.page_locations[p].offset);
    EXPECT_EQ(offsets_back.page_locations[p].compressed_page_size,
              offsets.page_locations[p].compressed_page_size);
    EXPECT_EQ(offsets_back.page_locations[p].first_row_index,
              offsets.page_locations[p].first_row_index);
  }
  EXPECT_EQ(offsets_back.unencoded_byte_array_data_bytes, offsets.unencoded_byte_array_data_bytes);
  OffsetIndex bare;
  bare.page_locations = {{4, 10, 0}};
  const std::string bare_bytes = EncodeOffsetIndex(bare);
  ASSERT_OK_AND_ASSIGN(OffsetIndex bare_back,
                       DecodeOffsetIndex(Bytes(bare_bytes), Size(bare_bytes), "oi"));
  EXPECT_FALSE(bare_back.unencoded_byte_array_data_bytes.has_value());

  const ColumnIndex columns = SampleColumnIndex();
  const std::string column_bytes = EncodeColumnIndex(columns);
  ASSERT_OK_AND_ASSIGN(ColumnIndex back,
                       DecodeColumnIndex(Bytes(column_bytes), Size(column_bytes), "ci"));
  EXPECT_EQ(back.null_pages, columns.null_pages);
  EXPECT_EQ(back.min_values, columns.min_values);
  EXPECT_EQ(back.max_values, columns.max_values);
  EXPECT_EQ(back.boundary_order, BoundaryOrder::kAscending);
  EXPECT_EQ(back.null_counts, columns.null_counts);
  EXPECT_STREQ(BoundaryOrderName(BoundaryOrder::kDescending), "descending");
}

TEST(ParquetMetadataTest, PageIndexesSkipTheLevelHistograms) {
  ThriftWriter w;
  w.BeginStruct();
  w.ListHeader(1, ThriftType::kTrue, 2);
  w.BoolElement(false);
  w.BoolElement(true);
  w.ListHeader(2, ThriftType::kBinary, 2);
  w.BinaryElement("a");
  w.BinaryElement("");
  w.ListHeader(3, ThriftType::kBinary, 2);
  w.BinaryElement("b");
  w.BinaryElement("");
  w.I32(4, 2);
  w.ListHeader(6, ThriftType::kI64, 2);  // repetition_level_histograms
  w.I64Element(1);
  w.I64Element(2);
  w.ListHeader(7, ThriftType::kI64, 1);  // definition_level_histograms
  w.I64Element(3);
  w.EndStruct();
  ASSERT_OK_AND_ASSIGN(ColumnIndex back,
                       DecodeColumnIndex(Bytes(w.bytes()), Size(w.bytes()), "ci"));
  EXPECT_EQ(back.null_pages, (std::vector<bool>{false, true}));
  EXPECT_EQ(back.min_values, (std::vector<std::string>{"a", ""}));
  EXPECT_EQ(back.boundary_order, BoundaryOrder::kDescending);
  EXPECT_FALSE(back.null_counts.has_value());
}

TEST(ParquetMetadataTest, TruncatedPageIndexesAreRefusedAtEveryLength) {
  const std::string offsets = EncodeOffsetIndex(SampleOffsetIndex());
  const std::string columns = EncodeColumnIndex(SampleColumnIndex());
  for (size_t n = 0; n < offsets.size(); ++n) {
    auto st = test::StatusOf(DecodeOffsetIndex(Bytes(offsets), static_cast<int64_t>(n), "the oi"));
    EXPECT_EQ(st.code(), StatusCode::kInvalid) << n;
    EXPECT_NE(st.message().find("the oi: "), std::string::npos) << st.ToString();
    EXPECT_NE(st.message().find(" at byte "), std::string::npos) << st.ToString();
  }
  for (size_t n = 0; n < columns.size(); ++n) {
    auto st = test::StatusOf(DecodeColumnIndex(Bytes(columns), static_cast<int64_t>(n), "the ci"));
    EXPECT_EQ(st.code(), StatusCode::kInvalid) << n;
    EXPECT_NE(st.message().find(" at byte "), std::string::npos) << st.ToString();
  }
  const std::string longer = offsets + "x";
  EXPECT_ERROR(kInvalid, "the structure ends before its",
               DecodeOffsetIndex(Bytes(longer), Size(longer), "oi"));
}

TEST(ParquetMetadataTest, MalformedPageIndexesAreNamed) {
  auto offset_error = [](const OffsetIndex& index) {
    const std::string bytes = EncodeOffsetIndex(index);
    return DecodeOffsetIndex(Bytes(bytes), Size(bytes), "oi");
  };
  auto column_error = [](const ColumnIndex& index) {
    const std::string bytes = EncodeColumnIndex(index);
    return DecodeColumnIndex(Bytes(bytes), Size(bytes), "ci");
  };
  OffsetIndex o = SampleOffsetIndex();
  o.page_locations[2].first_row_index = 3;
  EXPECT_ERROR(kInvalid, "OffsetIndex page 2's first_row_index 3 is below page 1's (16)",
               offset_error(o));
  o = SampleOffsetIndex();
  o.page_locations[1].offset = -1;
  EXPECT_ERROR(kInvalid, "offset is negative (-1)", offset_error(o));
  o = SampleOffsetIndex();
  o.page_locations[0].compressed_page_size = -8;
  EXPECT_ERROR(kInvalid, "compressed_page_size is negative (-8)", offset_error(o));
  o = SampleOffsetIndex();
  o.unencoded_byte_array_data_bytes->pop_back();
  EXPECT_ERROR(kInvalid,
               "OffsetIndex's unencoded_byte_array_data_bytes holds 3 entries for its 4 page "
               "locations",
               offset_error(o));
  o = SampleOffsetIndex();
  (*o.unencoded_byte_array_data_bytes)[1] = -2;
  EXPECT_ERROR(kInvalid, "unencoded_byte_array_data_bytes[1] is negative (-2)", offset_error(o));

  ColumnIndex c = SampleColumnIndex();
  c.max_values.pop_back();
  EXPECT_ERROR(kInvalid, "ColumnIndex's max_values holds 19 entries for its 20 null_pages",
               column_error(c));
  c = SampleColumnIndex();
  c.null_counts->push_back(0);
  EXPECT_ERROR(kInvalid, "ColumnIndex's null_counts holds 21 entries", column_error(c));
  c = SampleColumnIndex();
  c.boundary_order = static_cast<BoundaryOrder>(3);
  EXPECT_ERROR(kInvalid, "unknown boundary_order 3", column_error(c));

  // Required fields missing, and a field of the wrong wire type.
  ThriftWriter w;
  w.BeginStruct();
  w.ListHeader(1, ThriftType::kTrue, 0);
  w.EndStruct();
  EXPECT_ERROR(kInvalid, "ColumnIndex lacks its required field min_values",
               DecodeColumnIndex(Bytes(w.bytes()), Size(w.bytes()), "ci"));
  ThriftWriter p;
  p.BeginStruct();
  p.ListHeader(1, ThriftType::kStruct, 1);
  p.BeginStruct();
  p.I64(1, 4);
  p.I32(2, 10);
  p.EndStruct();
  p.EndStruct();
  EXPECT_ERROR(kInvalid, "PageLocation lacks its required field first_row_index",
               DecodeOffsetIndex(Bytes(p.bytes()), Size(p.bytes()), "oi"));
  ThriftWriter t;
  t.BeginStruct();
  t.I32(1, 5);
  t.EndStruct();
  EXPECT_ERROR(kInvalid, "page_locations",
               DecodeOffsetIndex(Bytes(t.bytes()), Size(t.bytes()), "oi"));
  ThriftWriter e;
  e.BeginStruct();
  e.ListHeader(1, ThriftType::kI32, 1);
  e.I32Element(5);
  e.EndStruct();
  EXPECT_ERROR(kInvalid, "page_locations holds elements of type i32, expected struct",
               DecodeOffsetIndex(Bytes(e.bytes()), Size(e.bytes()), "oi"));
}

}  // namespace
}  // namespace quiver::parquet
