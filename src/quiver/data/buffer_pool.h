// Internal: the ring of batch buffers a BatchReader reuses, so that a
// steady stream of batches of similar sizes stops allocating (and stops
// paying page faults, or pinning memory again) after the first few.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

#include "quiver/buffer.h"
#include "quiver/status.h"

namespace quiver::data {

class BufferPool {
 public:
  using Allocator = std::function<Result<BufferPtr>(int64_t)>;

  // Keeps up to `capacity` buffers for each array of a batch; `allocate`
  // makes new ones (unset: Buffer::AllocateUninitialized, and buffers under
  // 4 KiB are not kept); `before_reuse`, when set, runs before a kept
  // buffer is handed out again (BatchReaderOptions::before_reuse).
  BufferPool(int64_t capacity, Allocator allocate, std::function<Status()> before_reuse = {});

  // A buffer of at least `bytes` writable bytes for the batch's array
  // number `array` (>= 0), its contents undefined. A kept buffer of that
  // array is handed out again only when nothing but the pool references it
  // (every consumer of its last batch let go) and it is not more than
  // twice too large; otherwise a new one is allocated, and kept in place of
  // the array's smallest idle one when the array has `capacity` already.
  // Each array has a ring of its own: with one ring for all, the largest
  // array took the places of the small ones and its ring grew to hold
  // several times `capacity` of the batch's biggest buffers. Thread-safe.
  Result<BufferPtr> Acquire(int64_t bytes, int64_t array = 0);

  // Buffers the pool keeps (for all arrays), and how many Acquire calls
  // allocated.
  int64_t kept() const;
  int64_t allocations() const;

 private:
  // Acquire's work under the lock: a kept buffer (*reused = true) or a new one.
  Result<BufferPtr> Take(int64_t bytes, int64_t array, bool* reused);

  mutable std::mutex mutex_;
  int64_t capacity_;
  Allocator allocate_;
  std::function<Status()> before_reuse_;
  std::vector<std::vector<BufferPtr>> kept_;  // by array
  int64_t allocations_ = 0;
};

}  // namespace quiver::data
