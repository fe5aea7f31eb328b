// Parquet files: their schema (as Arrow types, tensor types restored from
// the ARROW:schema key), their metadata (row groups, column chunks, codecs,
// encodings, statistics, page indexes) and their columns, read from any source quiver
// reads (local files, memory, http://, https://, s3://) without libarrow or
// Thrift; and tables written as Parquet files (WriteParquet*). docs/parquet.md.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "quiver/io.h"
#include "quiver/record_batch.h"
#include "quiver/status.h"
#include "quiver/table.h"
#include "quiver/type.h"

namespace quiver::parquet {

// A column chunk's statistics as the file stores them: min and max in the
// column's PLAIN encoding (no length prefix for byte arrays), each present
// only where the writer wrote it.
struct ColumnStatistics {
  std::optional<std::string> min, max;
  std::optional<int64_t> null_count, distinct_count, nan_count;
};

// One column chunk of a row group.
struct ColumnChunkInfo {
  std::vector<std::string> path;  // in the Parquet schema: "list", "element" ...
  std::string physical_type;      // "INT32", "BYTE_ARRAY", ...
  std::string codec;              // "UNCOMPRESSED", "ZSTD", ...
  std::vector<std::string> encodings;
  int64_t num_values = 0;
  int64_t compressed_size = 0;  // bytes on disk, page headers included
  int64_t uncompressed_size = 0;
  int64_t data_page_offset = 0;
  std::optional<int64_t> dictionary_page_offset;
  std::optional<ColumnStatistics> statistics;
  bool has_page_index = false;  // an offset index (and perhaps a column index)
  bool has_offset_index = false, has_column_index = false;
};

// A column chunk's offset index (page index): where each of its data pages
// lies. Dictionary pages are not listed.
struct PageLocation {
  int64_t offset = 0;                // of the page header, in bytes from the file's start
  int32_t compressed_page_size = 0;  // bytes: the header and the page's (compressed) data
  int64_t first_row_index = 0;       // the page's first row, counted from the row group's first
};

struct OffsetIndex {
  std::vector<PageLocation> page_locations;  // in file order
  // Per page: the bytes of BYTE_ARRAY values unencoded (no length
  // prefixes), where the writer recorded them.
  std::optional<std::vector<int64_t>> unencoded_byte_array_data_bytes;
};

// How the pages' min and max values run from page to page (pages holding
// only nulls left out).
enum class BoundaryOrder : int32_t { kUnordered = 0, kAscending = 1, kDescending = 2 };
// "unordered", "ascending", "descending".
const char* BoundaryOrderName(BoundaryOrder order);

// A column chunk's column index (page index): per data page, in the
// offset index's order, min and max as the column statistics store them
// (PLAIN, no length prefix; empty for a page of nulls only) and its null
// count. The repetition and definition level histograms are not read.
struct ColumnIndex {
  std::vector<bool> null_pages;  // true: the page holds nulls only
  std::vector<std::string> min_values, max_values;
  BoundaryOrder boundary_order = BoundaryOrder::kUnordered;
  std::optional<std::vector<int64_t>> null_counts;
};

struct RowGroupInfo {
  int64_t num_rows = 0;
  int64_t total_byte_size = 0;  // uncompressed
  std::vector<ColumnChunkInfo> columns;
};

// The page codecs this build reads, by their Parquet names ("SNAPPY",
// "ZSTD", ...): a source build leaves out those whose library it lacked.
std::vector<std::string> ReadableCodecs();

struct ParquetReadOptions {
  // The top-level fields to read, by name, in this order (empty: all). Only
  // their column chunks are read and decoded.
  std::vector<std::string> columns;
  // Or the top-level fields by index, in this order (used when columns is
  // empty; both empty: all).
  std::vector<int> field_indices;
  // The row groups to read, in this order (none given: all).
  std::optional<std::vector<int>> row_groups;
  // Threads that decode column chunks at once (0: one per core).
  int threads = 0;
};

class ParquetFile {
 public:
  // Reads and checks the footer (one ReadRanges call for most files: the
  // leading magic and the last 64 KiB). Invalid, naming the source, for
  // bytes that are not Parquet or a footer that contradicts itself (a
  // schema whose leaves are not the row groups' columns, row counts that do
  // not add up, column chunks outside the file); NotImplemented for an
  // encrypted file.
  static Result<std::unique_ptr<ParquetFile>> Open(std::shared_ptr<io::InputSource> source);
  // A path or URL, as io::OpenSource opens it.
  static Result<std::unique_ptr<ParquetFile>> Open(const std::string& location,
                                                   const io::SourceOptions& options = {});
  ~ParquetFile();

  // The Arrow schema the columns read as (field metadata from ARROW:schema;
  // the schema's metadata is the file's key/value metadata without it).
  const SchemaPtr& schema() const;
  int64_t num_rows() const;
  int num_row_groups() const;
  // Precondition: 0 <= i < num_row_groups().
  const RowGroupInfo& row_group(int i) const;
  // The leaf columns' paths joined with '.', in column chunk order.
  const std::vector<std::string>& column_paths() const;
  const std::string& created_by() const;
  int32_t format_version() const;
  // The file's key/value metadata, ARROW:schema included.
  const KeyValueMetadata& key_value_metadata() const;

  // Row group `i` as a record batch of the fields options.columns names
  // (options.row_groups is ignored). Values are decoded into memory of
  // their own (the file's bytes are copied or decompressed, never shared).
  // IndexError for a row group out of range; Invalid naming a field the
  // file lacks (and the fields it has); Invalid naming the column, row group and page for data that
  // contradicts the file's metadata or its encodings; NotImplemented for
  // a codec this build lacks.
  Result<RecordBatchPtr> ReadRowGroup(int i, const ParquetReadOptions& options = {}) const;
  // Rows [first, first + count) of row group `i` as a record batch of the
  // fields options.columns names (options.row_groups is ignored). A field
  // whose leaves all have offset indexes (lists and tensors too: their
  // pages start on rows, as the format requires where the index exists)
  // reads only the pages that hold those rows (and the dictionary page);
  // other fields read their whole column chunks. Either way the batch holds
  // `count` rows (sliced from what was decoded). IndexError for a row group
  // out of range or rows past its end; otherwise ReadRowGroup's errors, and
  // ReadOffsetIndex's for the indexes it reads; Invalid naming the page for
  // a page of a list column that starts inside a row.
  Result<RecordBatchPtr> ReadRowRange(int i, int64_t first, int64_t count,
                                      const ParquetReadOptions& options = {}) const;
  // The same for several (first, count) ranges of row group `i` at once, a
  // batch for each: a leaf's pages for all of them are read in one
  // ReadRanges, with its dictionary page read once; a column chunk read
  // whole is read once for all of them.
  Result<std::vector<RecordBatchPtr>> ReadRowRanges(
      int i, const std::vector<std::pair<int64_t, int64_t>>& ranges,
      const ParquetReadOptions& options = {}) const;
  // The rows of row group `i` at which a page of some leaf of the fields
  // options.columns names starts (ascending, 0 first), from their offset
  // indexes; nullopt when one of those leaves has none. Rows between two
  // neighbours share every page they need: ReadRowRange reads each page
  // once for a run of them. IndexError for a row group out of range;
  // otherwise ReadOffsetIndex's errors.
  Result<std::optional<std::vector<int64_t>>> PageRowStarts(
      int i, const ParquetReadOptions& options = {}) const;
  // The row groups options.row_groups names (all when it names none) as a
  // table, one chunk per row group; IndexError for one out of range.
  Result<TablePtr> ReadTable(const ParquetReadOptions& options = {}) const;

  // The offset index and the column index of leaf column `column` (in
  // column_paths() order) of row group `row_group`: nullopt when the
  // chunk has none. Each reads its bytes from the source (the footer does
  // not hold them). IndexError for a row group or column out of range;
  // Invalid naming the file, row group and column for an index whose bytes
  // lie outside the file's data, that does not decode (the error names the
  // structure and the byte), whose lists disagree in length, or whose pages
  // lie outside the column chunk or past the row group's rows.
  Result<std::optional<OffsetIndex>> ReadOffsetIndex(int row_group, int column) const;
  Result<std::optional<ColumnIndex>> ReadColumnIndex(int row_group, int column) const;

 private:
  struct Impl;
  explicit ParquetFile(std::unique_ptr<Impl> impl);
  // The (first, count) ranges of row group i (checked by the callers).
  Result<std::vector<RecordBatchPtr>> ReadRows(
      int i, const std::vector<std::pair<int64_t, int64_t>>& ranges,
      const ParquetReadOptions& options) const;
  // The offset indexes of leaf columns `columns` of a row group (null where
  // a chunk has none), each read and checked once and kept.
  Result<std::vector<const OffsetIndex*>> OffsetIndexes(int row_group,
                                                        const std::vector<int>& columns) const;
  Result<OffsetIndex> CheckedOffsetIndex(int row_group, int column, const Buffer& bytes) const;
  std::unique_ptr<Impl> impl_;
};

// --- writing ----------------------------------------------------------------------

struct ParquetWriteOptions {
  // Rows per row group at most (> 0).
  int64_t row_group_rows = int64_t{1} << 20;
  // A data page is cut (at a row boundary) once its values reach this many
  // bytes (> 0).
  int64_t data_page_bytes = int64_t{1} << 20;
  // UNCOMPRESSED, SNAPPY, ZSTD or LZ4_RAW (any case): Invalid otherwise,
  // NotImplemented when this build lacks the codec's library.
  std::string compression = "SNAPPY";
  // 0: the codec's default (ZSTD: 1, as Arrow's); SNAPPY and LZ4_RAW have
  // no levels.
  int compression_level = 0;
  // Dictionary-encode every column but BOOLEAN ones (and FLOAT/DOUBLE ones
  // written with byte_stream_split): the chunk's distinct values in a
  // dictionary page, RLE_DICTIONARY indices in the data pages. A column
  // chunk whose dictionary passes dictionary_page_bytes is written PLAIN.
  bool use_dictionary = true;
  int64_t dictionary_page_bytes = int64_t{1} << 20;
  // BYTE_STREAM_SPLIT for FLOAT and DOUBLE columns (instead of dictionary
  // or PLAIN).
  bool byte_stream_split = false;
  // min, max and null_count of every column chunk and every data page (in
  // its header), as Parquet orders the column's logical type.
  bool write_statistics = true;
  // 1: DataPage (levels and values compressed together); 2: DataPageV2
  // (levels uncompressed, values compressed).
  int data_page_version = 1;
  // A page index for every column chunk: all column indexes, then all
  // offset indexes, between the last row group and the footer. A chunk
  // whose non-null pages lack a min or max (values over 4096 bytes, pages
  // of NaNs only) gets an offset index alone.
  bool write_page_index = false;
};

// A Parquet file written a table or record batch at a time. Each call's
// rows become row groups of at most row_group_rows rows, written before
// the call returns: rows are not held back between calls, so memory stays
// at what one call passes (pass batches of the row group size you want).
// The schema and options are those of WriteParquet.
class ParquetWriter {
 public:
  // Builds the Parquet schema (TypeError naming a column Parquet cannot
  // hold, Invalid for bad options: nothing is written then) and writes the
  // leading magic to `sink`.
  static Result<std::unique_ptr<ParquetWriter>> Open(std::shared_ptr<io::OutputSink> sink,
                                                     SchemaPtr schema,
                                                     const ParquetWriteOptions& options = {});
  ~ParquetWriter();
  // TypeError, the writer still usable, when the table's column count,
  // names, types or nullability differ from the schema's; an error found
  // before a row group's first byte is written (a value Parquet cannot
  // take) leaves the file whole and the writer usable too, the row groups
  // of earlier rows written. A failed write (a full disk) breaks the file:
  // this and every later call, Close included, return it.
  Status WriteTable(const Table& table);
  Status Write(const RecordBatch& batch);
  // Writes the footer and flushes the sink, which stays open: a sink from
  // io::OpenFileSink is put in place by its own Close. A second Close
  // returns what the first did.
  Status Close();
  int64_t num_rows() const;
  int num_row_groups() const;

 private:
  struct Impl;
  explicit ParquetWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Writes `table` as a Parquet file to `sink` (not closed): the schema as
// Parquet types with their logical and converted annotations, plus the
// Arrow schema under the ARROW:schema key (as pyarrow writes it), so that
// extension types, durations, large and fixed-size lists come back as
// written. TypeError naming the column for a type Parquet cannot hold
// (unions, intervals, run-end encoded, list views); Invalid for bad
// options. docs/parquet.md, "Writing".
Status WriteParquet(const Table& table, io::OutputSink* sink,
                    const ParquetWriteOptions& options = {});
// The file at `path`, atomically: written under a temporary name in the
// same directory and renamed over `path` at the end; on failure nothing is
// left (io::OpenFileSink).
Status WriteParquetFile(const Table& table, const std::string& path,
                        const ParquetWriteOptions& options = {});
// The file's bytes.
Result<BufferPtr> WriteParquetBuffer(const Table& table, const ParquetWriteOptions& options = {});

}  // namespace quiver::parquet
