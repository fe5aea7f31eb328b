// Internal: copying into a destination far larger than the caches.
#pragma once

#include <cstddef>
#include <cstdint>

namespace quiver::internal {

// Destinations from this size on are written by StreamCopy: well past
// any last-level cache, so nothing written is still cached when it is
// read, and bypassing the cache saves reading every destination line
// before writing it (a third of the memory traffic of a plain copy).
constexpr int64_t kStreamCopyBytes = int64_t{64} << 20;

// Copies n bytes like memcpy, writing the destination with non-temporal
// (cache-bypassing) stores on x86-64 and by memcpy elsewhere. The bytes
// are visible to other threads only after StreamFence() on this thread
// (before it signals that its part is done).
void StreamCopy(uint8_t* dst, const uint8_t* src, size_t n);

// Orders this thread's earlier StreamCopy stores before its later stores.
void StreamFence();

}  // namespace quiver::internal
