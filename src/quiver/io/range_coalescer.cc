// Coalescing nearby ranges into fewer requests, and splitting the answers.
#include "quiver/io/range_coalescer.h"

#include <algorithm>
#include <numeric>

namespace quiver::io::internal {

namespace {

Status CheckRanges(const std::vector<ByteRange>& ranges) {
  for (const ByteRange& r : ranges) {
    int64_t end = 0;
    if (r.offset < 0 || r.length < 0 || __builtin_add_overflow(r.offset, r.length, &end)) {
      return Status::Invalid("invalid byte range: ", r.length, " bytes at offset ", r.offset);
    }
  }
  return Status::OK();
}

}  // namespace

Result<CoalescedRanges> CoalesceRanges(const std::vector<ByteRange>& ranges, int64_t gap) {
  QUIVER_RETURN_NOT_OK(CheckRanges(ranges));
  gap = std::max<int64_t>(gap, 0);
  std::vector<size_t> order(ranges.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return ranges[a].offset < ranges[b].offset; });
  CoalescedRanges plan;
  plan.parts.resize(ranges.size());
  for (size_t i : order) {
    const ByteRange& r = ranges[i];
    if (r.length == 0) continue;  // placed below, once the merged ranges are known
    if (!plan.merged.empty()) {
      ByteRange& last = plan.merged.back();
      const int64_t last_end = last.offset + last.length;
      // offset - last_end may be negative (overlap); neither side overflows.
      if (r.offset - last_end < gap || r.offset <= last_end) {
        last.length = std::max(last_end, r.offset + r.length) - last.offset;
        plan.parts[i] = {plan.merged.size() - 1, r.offset - last.offset, r.length};
        continue;
      }
    }
    plan.merged.push_back(r);
    plan.parts[i] = {plan.merged.size() - 1, 0, r.length};
  }
  // Empty ranges slice nothing: any merged range (or none) will do.
  for (size_t i = 0; i < ranges.size(); ++i) {
    if (ranges[i].length == 0) plan.parts[i] = {plan.merged.size(), 0};
  }
  return plan;
}

Result<std::vector<BufferPtr>> SliceCoalesced(const CoalescedRanges& plan,
                                              const std::vector<BufferPtr>& fetched) {
  if (fetched.size() != plan.merged.size()) {
    return Status::Invalid("got ", fetched.size(), " buffers for ", plan.merged.size(),
                           " merged ranges");
  }
  std::vector<BufferPtr> out;
  out.reserve(plan.parts.size());
  BufferPtr empty;
  for (const CoalescedRanges::Part& part : plan.parts) {
    if (part.merged == plan.merged.size()) {
      if (!empty) {
        QUIVER_ASSIGN_OR_RETURN(empty, Buffer::Allocate(0));
      }
      out.push_back(empty);
      continue;
    }
    const BufferPtr& parent = fetched[part.merged];
    if (!parent || parent->size() != plan.merged[part.merged].length) {
      return Status::Invalid("merged range ", part.merged, " came back with ",
                             parent ? parent->size() : 0, " bytes, not ",
                             plan.merged[part.merged].length);
    }
    QUIVER_ASSIGN_OR_RETURN(BufferPtr slice, Buffer::Slice(parent, part.offset, part.length));
    out.push_back(std::move(slice));
  }
  return out;
}

}  // namespace quiver::io::internal
