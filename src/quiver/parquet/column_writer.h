// One column chunk written as Parquet pages: a dictionary page when the
// chunk is dictionary-encoded, then data pages cut at row boundaries once
// their values reach the page size, each with its PageHeader. Version 1
// pages hold the levels (RLE, each with a 4-byte length) and the values,
// compressed together; version 2 pages hold the levels uncompressed and
// the values compressed. docs/parquet.md, "Writing".
#pragma once

#include <cstdint>

#include "quiver/io.h"
#include "quiver/parquet/level_shredding.h"
#include "quiver/parquet/metadata.h"
#include "quiver/parquet/value_encoders.h"
#include "quiver/status.h"

namespace quiver::parquet {

struct ColumnWriteSettings {
  Codec codec = Codec::kUncompressed;
  int level = 0;
  int64_t page_bytes = int64_t{1} << 20;
  bool dictionary = true;
  int64_t dictionary_bytes = int64_t{1} << 20;
  bool byte_stream_split = false;
  bool statistics = true;
  int page_version = 1;
};

// A page's share of a column chunk: levels [level_begin, level_end), the
// values among them [value_begin, value_end), and the rows they make.
struct PageSpan {
  int64_t level_begin = 0, level_end = 0;
  int64_t value_begin = 0, value_end = 0;
  int64_t rows = 0;
  int64_t row_begin = 0;
};

// Where the chunk's pages end (at row boundaries, each holding at least one
// row), for values of `value_bits` bits each (0: BYTE_ARRAY, sized from
// `values`).
std::vector<PageSpan> CutPages(const ShreddedLeaf& leaf, const PhysicalValues& values,
                               int64_t value_bits, int64_t page_bytes);

// Levels as RLE / bit-packed hybrid runs (no length prefix).
std::string EncodeDefinitionLevels(const ShreddedLeaf& leaf, const PageSpan& page);
std::string EncodeRepetitionLevels(const ShreddedLeaf& leaf, const PageSpan& page);

// A column chunk's page index as its pages are written: each data page's
// location and, in the column index, its min, max (Statistics' order) and
// null count. has_column_index is false when a page with values has no
// min or max (values over the statistics' size limit, NaNs only).
struct ChunkPageIndex {
  OffsetIndex offset_index;
  ColumnIndex column_index;
  bool has_column_index = true;
};

// The statistics of a column chunk or a page from its values' min and max
// (ComputeMinMax's) and `null_count`: min_value and max_value (none when
// either passes 4096 bytes, as Arrow) and, where the order is signed, the
// deprecated min and max. A chunk's min and max are its pages' merged in
// the column's order, so its values are scanned once.
Statistics FinishStatistics(std::optional<std::string> min, std::optional<std::string> max,
                            SortOrder order, int64_t null_count);

// Whether the non-null pages of `index` (null_pages false) have mins and
// maxes that never fall (ascending), never rise (descending), or neither;
// ascending when both, unordered when no page has values.
BoundaryOrder BoundaryOrderOf(const ColumnIndex& index, SortOrder order, PhysicalType type);

// Writes the pages of leaf `leaf_index` of `column` (a StoredArray, the
// row group's rows; `nullable`: the top-level field's) to `sink` and fills
// `meta` (all but path_in_schema). The chunk's values are encoded from
// the column's buffers; its levels are made in batches of rows, so a
// column of long lists never holds them all at once. With
// settings.statistics each data page's header carries its statistics;
// `dictionary_entries` (LeafDictionaries), when given and the chunk is
// dictionary-encoded, opens its dictionary page in their order (null
// entries left out); `page_index` (null: none) receives the chunk's page
// index. Errors name `what` (the column).
Status WriteColumnChunk(const ArrayDataPtr& column, bool nullable, int leaf_index,
                        const LeafEncoding& encoding, const ColumnWriteSettings& settings,
                        io::OutputSink* sink, ColumnMetaData* meta, const std::string& what,
                        const ArrayDataPtr& dictionary_entries = nullptr,
                        ChunkPageIndex* page_index = nullptr);

}  // namespace quiver::parquet
