// One column chunk of one row group read whole: its pages walked in order
// (an optional dictionary page, then data pages v1 and v2), each
// decompressed, its repetition and definition levels decoded and its
// values appended to one ColumnValues. docs/formats.md, "Parquet: pages".
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "quiver/io.h"
#include "quiver/parquet/metadata.h"
#include "quiver/parquet/schema.h"
#include "quiver/parquet/value_decoder.h"
#include "quiver/status.h"

namespace quiver::parquet {

// What a leaf column holds for one row group, ready for the assembler.
struct ColumnChunkData {
  // The values that are present (not null, not an empty or null list), in
  // order.
  ColumnValues values;
  // The number of levels: values, nulls and empty lists, as the page
  // headers count them.
  int64_t num_levels = 0;
  // One per level; empty when the leaf's maximum definition level is 0, and
  // when every level was the maximum (all_defined: no nulls, no empty lists
  // anywhere on the path).
  std::vector<int16_t> def_levels;
  bool all_defined = true;
  // One per level; empty when the leaf's maximum repetition level is 0, and
  // when `fixed_list_size` was given and checked (every row a list of
  // exactly that many values).
  std::vector<int16_t> rep_levels;
  // The chunk's dictionary page decoded PLAIN (null when it has none): a
  // column read as an Arrow dictionary takes its entries, in their order,
  // unused ones too.
  std::unique_ptr<ColumnValues> dictionary;
};

struct ColumnChunkOptions {
  // > 0: the leaf sits in exactly one list level, which the Arrow type says
  // is a fixed-size list of this size; the reader checks the repetition
  // levels against that pattern page by page instead of keeping them
  // (the tensor fast path). A level that breaks it is an Invalid error.
  int64_t fixed_list_size = 0;
  // Threads that may decompress the chunk's pages at once (1: in order on
  // the calling thread). Pages are decompressed a window at a time, so
  // memory holds a few pages per thread beyond the values.
  int threads = 1;
  // Not empty: the pages are a run the offset index named, and these are
  // the rows each of its data pages holds, in order (a flat leaf's levels;
  // a repeated leaf's pages must start and end on a row). A data page
  // that holds another count or starts inside a row, a data page more, or
  // bytes left after the last are Invalid: an index that lies is never
  // read as other rows. `first_indexed_page` is the first one's place in
  // the index (for errors).
  std::vector<int64_t> page_levels;
  size_t first_indexed_page = 0;
};

// Reads column chunk `chunk` (checked by ParquetFile::Open) of `leaf` from
// `source`. `what` names the column and row group in errors.
Result<ColumnChunkData> ReadColumnChunk(io::InputSource& source, const ColumnChunk& chunk,
                                        const SchemaNode& leaf, const ColumnChunkOptions& options,
                                        const std::string& what);

// The same for pages already in memory: [data, data + size) holds pages
// back to back (a chunk's whole, or a dictionary page and a run of data
// pages) that together hold meta.num_values levels. Reading rows through
// the offset index passes a chunk's metadata with num_values and
// total_compressed_size set to those of the pages it read.
Result<ColumnChunkData> ReadColumnChunkPages(const uint8_t* data, int64_t size,
                                             const ColumnMetaData& meta, const SchemaNode& leaf,
                                             const ColumnChunkOptions& options,
                                             const std::string& what);

// Rows [skip, skip + rows) of `data`, a leaf's levels and values for the
// rows of the pages read (fixed_list_size: as the read was given it): those
// rows' levels and the values present among them, copied. A read through
// the offset index decodes whole pages; each leaf keeps the rows asked.
// Invalid when `data` holds fewer rows.
Result<ColumnChunkData> KeepRows(const ColumnChunkData& data, const SchemaNode& leaf,
                                 int64_t fixed_list_size, int64_t skip, int64_t rows,
                                 const std::string& what);

// The levels the data pages in [data, data + size) hold, from their
// headers alone (a dictionary page holds none): what a run of a repeated
// leaf's pages passes as num_values. Invalid for a header that does not
// decode or a page that runs past `size`.
Result<int64_t> LevelsInPages(const uint8_t* data, int64_t size, const std::string& what);

}  // namespace quiver::parquet
