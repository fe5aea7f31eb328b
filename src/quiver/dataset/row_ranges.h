// Internal: the bytes of an uncompressed record batch body that some of its
// rows need, for columns whose every buffer has a fixed number of bits per
// row (fixed-width values, bit-packed booleans, fixed-size lists and
// structs of those). A remote take of a few rows then fetches those rows,
// not whole buffers: one 12 KiB row of a 1 MiB buffer costs 12 KiB.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "quiver/ipc.h"

namespace quiver::dataset {

// Bytes [offset, offset + length) of body buffer `buffer` (an index into
// BatchLayout::buffers), offset counted from the buffer's start.
struct BufferPiece {
  int64_t buffer = 0;
  int64_t offset = 0;
  int64_t length = 0;
};

// The pieces of `layout`'s buffers that rows `rows` (ascending, distinct,
// each < layout.num_rows) of `column` need, appended to `out`: the rows'
// bytes of value buffers (neighbouring rows merged), validity bitmaps whole
// (they are an eighth of a byte a slot, and their null counts stay true).
// False, with `out` as it was, where the column's layout does not allow
// it: offsets, views, dictionaries, unions, run ends. `lengths`, when
// given, are the buffers' decoded lengths by index (a compressed body's
// layout holds their stored lengths).
bool RowPieces(const ipc::BatchLayout& layout, const ipc::FieldNodeLayout& column,
               std::span<const int64_t> rows, std::vector<BufferPiece>* out,
               std::span<const int64_t> lengths = {});

}  // namespace quiver::dataset
