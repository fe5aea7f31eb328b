// Internal: the buffers of an array cut down to the rows it covers,
// zero-copy where possible. A slice of a large array keeps its parent's
// buffers alive and offsets into them; writers that send an array
// elsewhere (the IPC encoder, pickling) want only the bytes its rows use.
#pragma once

#include "quiver/array.h"
#include "quiver/status.h"

namespace quiver::internal {

struct CompactOptions {
  // false: the result starts at offset 0 (IPC has no offsets), so bitmaps
  // of arrays sliced off a byte boundary are copied, shifted.
  // true: the result keeps offset % 8, so bitmaps are always sliced
  // without a copy (and the few slots before the first row come along).
  bool keep_bit_offset = false;
};

// One node of `data` compacted: its own buffers cut to its rows, its
// null_count computed, its validity bitmap dropped when it has no nulls,
// and its children sliced to the range its rows use (not compacted
// themselves: callers walking the tree compact each level). Bitmaps and
// fixed-width values are sliced; offsets are sliced when the first one is
// already 0 (or, with keep_bit_offset, the first covered one) and
// otherwise copied re-based; variable-size data is sliced to the range
// the offsets delimit. Views keep their variadic buffers whole (views
// point into them by index) and dictionaries keep all their values.
// `data` must be valid at ValidationLevel::kDefault or above (offsets are
// read, not checked).
Result<ArrayDataPtr> CompactNode(const ArrayData& data, CompactOptions options = {});

// CompactNode over the whole tree: every child and dictionary compacted.
Result<ArrayDataPtr> Compact(const ArrayData& data, CompactOptions options = {});

}  // namespace quiver::internal
