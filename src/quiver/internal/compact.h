// Internal: the buffers of an array cut down to the rows it covers,
// zero-copy where possible. A slice of a large array keeps its parent's
// buffers alive and offsets into them; writers that send an array
// elsewhere (the IPC encoder, pickling) want only the bytes its rows use.
#pragma once

#include "quiver/array.h"
#include "quiver/status.h"

namespace quiver::internal {

// One node of `data` compacted: its own buffers cut to its rows, its
// null_count computed, its validity bitmap dropped when it has no nulls,
// and its children sliced to the range its rows use (not compacted
// themselves: callers walking the tree compact each level). The result
// starts at offset 0 (IPC has no offsets): bitmaps and fixed-width values
// are sliced, bitmaps of arrays sliced off a byte boundary are copied,
// shifted; offsets are sliced when the first one is already 0 and
// otherwise copied re-based; variable-size data is sliced to the range
// the offsets delimit. Views keep their variadic buffers whole (views
// point into them by index) and dictionaries keep all their values.
// `data` must be valid at ValidationLevel::kDefault or above (offsets are
// read, not checked).
Result<ArrayDataPtr> CompactNode(const ArrayData& data);

// CompactNode over the whole tree is public: quiver::Compact (array.h).
using ::quiver::Compact;

}  // namespace quiver::internal
