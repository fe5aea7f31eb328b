// Internal: ranges that lie close together read by one request. The
// asked ranges are merged (sorted by offset, joined where less than `gap`
// bytes apart), fetched, and each asked range is then sliced (zero-copy)
// out of the merged buffer that holds it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "quiver/buffer.h"
#include "quiver/io.h"

namespace quiver::io::internal {

struct CoalescedRanges {
  // What to fetch, sorted by offset, disjoint.
  std::vector<ByteRange> merged;
  // For each asked range, in the order asked: which merged range holds it
  // (merged.size() for an empty range), where it starts inside that range
  // and its length.
  struct Part {
    size_t merged = 0;
    int64_t offset = 0;
    int64_t length = 0;
  };
  std::vector<Part> parts;
};

// Invalid for a negative offset or length or one whose end leaves int64.
// Empty ranges are kept (as empty slices) but fetch nothing of their own.
Result<CoalescedRanges> CoalesceRanges(const std::vector<ByteRange>& ranges, int64_t gap);

// The asked ranges out of `fetched` (one buffer per merged range, each as
// long as its range), in the order asked.
Result<std::vector<BufferPtr>> SliceCoalesced(const CoalescedRanges& plan,
                                              const std::vector<BufferPtr>& fetched);

}  // namespace quiver::io::internal
