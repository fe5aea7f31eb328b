// Parquet's metadata structures as quiver holds them: the file footer
// (FileMetaData: schema, row groups, column chunks, statistics, key/value
// metadata), the page header and the page index (ColumnIndex, OffsetIndex:
// the structures of quiver/parquet.h), decoded from and encoded to the Thrift
// compact protocol. Field ids follow parquet.thrift of the Parquet format
// (docs/formats.md, "Parquet: metadata"); fields quiver does not use are
// skipped on reading (encryption, bloom filters, size statistics) and
// never written.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "quiver/parquet.h"
#include "quiver/status.h"
#include "quiver/type.h"

namespace quiver::parquet {

enum class PhysicalType : int32_t {
  kBoolean = 0,
  kInt32 = 1,
  kInt64 = 2,
  kInt96 = 3,
  kFloat = 4,
  kDouble = 5,
  kByteArray = 6,
  kFixedLenByteArray = 7,
};
const char* PhysicalTypeName(PhysicalType type);

enum class Repetition : int32_t { kRequired = 0, kOptional = 1, kRepeated = 2 };

enum class Codec : int32_t {
  kUncompressed = 0,
  kSnappy = 1,
  kGzip = 2,
  kLzo = 3,
  kBrotli = 4,
  kLz4 = 5,  // the legacy framing (deprecated)
  kZstd = 6,
  kLz4Raw = 7,
};
const char* CodecName(Codec codec);

enum class Encoding : int32_t {
  kPlain = 0,
  kPlainDictionary = 2,
  kRle = 3,
  kBitPacked = 4,
  kDeltaBinaryPacked = 5,
  kDeltaLengthByteArray = 6,
  kDeltaByteArray = 7,
  kRleDictionary = 8,
  kByteStreamSplit = 9,
};
const char* EncodingName(Encoding encoding);

// The ConvertedType values (SchemaElement's deprecated annotation), as
// plain integers: the field holds any int32 a writer left.
namespace converted_type {
enum : int32_t {
  kUtf8 = 0,
  kMap = 1,
  kMapKeyValue = 2,
  kList = 3,
  kEnum = 4,
  kDecimal = 5,
  kDate = 6,
  kTimeMillis = 7,
  kTimeMicros = 8,
  kTimestampMillis = 9,
  kTimestampMicros = 10,
  kUint8 = 11,
  kUint16 = 12,
  kUint32 = 13,
  kUint64 = 14,
  kInt8 = 15,
  kInt16 = 16,
  kInt32 = 17,
  kInt64 = 18,
  kJson = 19,
  kBson = 20,
  kInterval = 21,
};
}  // namespace converted_type

enum class PageType : int32_t {
  kDataPage = 0,
  kIndexPage = 1,
  kDictionaryPage = 2,
  kDataPageV2 = 3,
};

// The LogicalType union: which member is set, and the parameters of those
// that have some. kNone: no logical type.
struct LogicalType {
  enum Kind : int16_t {
    kNone = 0,
    kString = 1,
    kMap = 2,
    kList = 3,
    kEnum = 4,
    kDecimal = 5,
    kDate = 6,
    kTime = 7,
    kTimestamp = 8,
    kInteger = 10,
    kUnknown = 11,  // always null
    kJson = 12,
    kBson = 13,
    kUuid = 14,
    kFloat16 = 15,
    kVariant = 16,
    kGeometry = 17,
    kGeography = 18,
  };
  Kind kind = kNone;
  int32_t scale = 0, precision = 0;  // decimal
  bool adjusted_to_utc = false;      // time, timestamp
  TimeUnit unit = TimeUnit::kMilli;  // time, timestamp: milli, micro or nano
  int8_t bit_width = 0;              // integer
  bool is_signed = true;             // integer
};

struct SchemaElement {
  std::optional<PhysicalType> type;  // leaves only
  int32_t type_length = 0;           // FIXED_LEN_BYTE_ARRAY: bytes per value
  std::optional<Repetition> repetition;
  std::string name;
  int32_t num_children = -1;  // groups only; -1 for a leaf
  std::optional<int32_t> converted_type;
  int32_t scale = 0, precision = 0;
  std::optional<int32_t> field_id;
  LogicalType logical_type;
};

struct Statistics {
  std::optional<std::string> min_value, max_value;  // the current fields
  std::optional<std::string> min, max;              // the deprecated ones (signed order)
  std::optional<int64_t> null_count, distinct_count, nan_count;
};

struct ColumnMetaData {
  PhysicalType type = PhysicalType::kBoolean;
  std::vector<Encoding> encodings;
  std::vector<std::string> path_in_schema;
  Codec codec = Codec::kUncompressed;
  int64_t num_values = 0;
  int64_t total_uncompressed_size = 0;
  int64_t total_compressed_size = 0;
  KeyValueMetadata key_value_metadata;
  int64_t data_page_offset = 0;
  std::optional<int64_t> index_page_offset, dictionary_page_offset;
  std::optional<Statistics> statistics;
};

struct ColumnChunk {
  std::string file_path;  // empty: this file
  int64_t file_offset = 0;
  std::optional<ColumnMetaData> meta_data;
  std::optional<int64_t> offset_index_offset, column_index_offset;
  int32_t offset_index_length = 0, column_index_length = 0;
  bool encrypted = false;  // crypto metadata or encrypted metadata present
};

struct RowGroup {
  std::vector<ColumnChunk> columns;
  int64_t total_byte_size = 0;
  int64_t num_rows = 0;
  std::optional<int64_t> file_offset, total_compressed_size;
  std::optional<int16_t> ordinal;
};

struct FileMetaData {
  int32_t version = 0;
  std::vector<SchemaElement> schema;  // depth first; [0] is the root
  int64_t num_rows = 0;
  std::vector<RowGroup> row_groups;
  KeyValueMetadata key_value_metadata;
  std::string created_by;
  bool encrypted = false;  // an encryption algorithm is named
  // Written only (the reader skips column_orders): this many leaf columns
  // listed with TYPE_DEFINED_ORDER, which tells readers that the
  // statistics' min_value and max_value follow each column's logical type
  // (0: the field is left out).
  int32_t type_defined_column_orders = 0;
};

struct DataPageHeader {
  int32_t num_values = 0;
  Encoding encoding = Encoding::kPlain;
  Encoding definition_level_encoding = Encoding::kRle;
  Encoding repetition_level_encoding = Encoding::kRle;
  std::optional<Statistics> statistics;
};

struct DictionaryPageHeader {
  int32_t num_values = 0;
  Encoding encoding = Encoding::kPlain;
  bool is_sorted = false;
};

struct DataPageHeaderV2 {
  int32_t num_values = 0, num_nulls = 0, num_rows = 0;
  Encoding encoding = Encoding::kPlain;
  int32_t definition_levels_byte_length = 0;
  int32_t repetition_levels_byte_length = 0;
  bool is_compressed = true;
  std::optional<Statistics> statistics;
};

struct PageHeader {
  PageType type = PageType::kDataPage;
  int32_t uncompressed_page_size = 0;
  int32_t compressed_page_size = 0;
  std::optional<int32_t> crc;
  std::optional<DataPageHeader> data_page;
  std::optional<DictionaryPageHeader> dictionary_page;
  std::optional<DataPageHeaderV2> data_page_v2;
};

// The FileMetaData in `size` bytes (the footer between the file's data and
// its length word); `what` names the file in errors. Checks what the
// decoder relies on: required fields present, sizes and counts not
// negative, enum values known. `size` must cover exactly one structure.
Result<FileMetaData> DecodeFileMetaData(const uint8_t* data, int64_t size, const std::string& what);
std::string EncodeFileMetaData(const FileMetaData& metadata);

// A page header at the start of `size` bytes; `*header_size` is set to its
// length in bytes (the page's data follows it).
Result<PageHeader> DecodePageHeader(const uint8_t* data, int64_t size, const std::string& what,
                                    int64_t* header_size);
std::string EncodePageHeader(const PageHeader& header);

// The page index structures, each filling `size` bytes exactly. Checks
// the lengths: min_values, max_values and null_counts one per null_pages
// entry, unencoded_byte_array_data_bytes one per page location; offsets,
// sizes, counts and first rows not negative, first rows not decreasing.
Result<OffsetIndex> DecodeOffsetIndex(const uint8_t* data, int64_t size, const std::string& what);
std::string EncodeOffsetIndex(const OffsetIndex& index);
Result<ColumnIndex> DecodeColumnIndex(const uint8_t* data, int64_t size, const std::string& what);
std::string EncodeColumnIndex(const ColumnIndex& index);

}  // namespace quiver::parquet
