#include "quiver/data/buffer_pool.h"

#include <atomic>
#include <utility>

namespace quiver::data {

namespace {

// Below this, a buffer from the default allocator is not worth keeping:
// fresh small allocations are cheap, and a ring of them would hold many
// idle buffers. A custom allocator's buffers are kept at any size: pinning
// memory (cudaHostAlloc) costs far more than the bytes it pins.
constexpr int64_t kSmallBuffer = 4096;

}  // namespace

BufferPool::BufferPool(int64_t capacity, Allocator allocate, std::function<Status()> before_reuse)
    : capacity_(capacity), allocate_(std::move(allocate)), before_reuse_(std::move(before_reuse)) {}

Result<BufferPtr> BufferPool::Acquire(int64_t bytes, int64_t array) {
  bool reused = false;
  QUIVER_ASSIGN_OR_RETURN(BufferPtr buffer, Take(bytes, array, &reused));
  // Outside the lock (it may wait for a device): the reference returned
  // holds the buffer, so no other Acquire can hand it out meanwhile.
  if (reused && before_reuse_) QUIVER_RETURN_NOT_OK(before_reuse_());
  return buffer;
}

Result<BufferPtr> BufferPool::Take(int64_t bytes, int64_t array, bool* reused) {
  if (bytes < 0) return Status::Invalid("cannot allocate ", bytes, " bytes");
  if (array < 0) return Status::Invalid("array number ", array, " is negative");
  std::lock_guard<std::mutex> lock(mutex_);
  if (static_cast<size_t>(array) >= kept_.size()) kept_.resize(static_cast<size_t>(array) + 1);
  std::vector<BufferPtr>& kept = kept_[static_cast<size_t>(array)];
  // A buffer only the pool holds cannot be picked up by anyone else (no
  // other reference exists to copy), so use_count() == 1 is stable here.
  BufferPtr* best = nullptr;
  for (BufferPtr& buffer : kept) {
    if (buffer.use_count() != 1 || buffer->size() < bytes || buffer->size() > 2 * bytes + 64)
      continue;
    if (!best || buffer->size() < (*best)->size()) best = &buffer;
  }
  if (best) {
    // The consumers' last reads of this buffer happen before our writes:
    // their reference drops are release operations on the count that
    // use_count() read. GCC refuses fences under ThreadSanitizer, which
    // models none; there the copy returned below orders it instead, its
    // reference increment being an acquire-release operation on that count
    // in libstdc++ (libc++ increments relaxed: hence the fence elsewhere).
#if !defined(__SANITIZE_THREAD__)
    std::atomic_thread_fence(std::memory_order_acquire);
#endif
    *reused = true;
    return *best;
  }
  ++allocations_;
  Result<BufferPtr> fresh = allocate_ ? allocate_(bytes) : Buffer::AllocateUninitialized(bytes);
  if (!fresh.ok()) return fresh.status();
  if (!*fresh || (*fresh)->size() < bytes) {
    return Status::Invalid("the batch allocator returned fewer than ", bytes, " bytes");
  }
  if ((bytes < kSmallBuffer && !allocate_) || capacity_ <= 0) return fresh;
  if (static_cast<int64_t>(kept.size()) < capacity_) {
    kept.push_back(*fresh);
    return fresh;
  }
  BufferPtr* smallest_idle = nullptr;
  for (BufferPtr& buffer : kept) {
    if (buffer.use_count() != 1) continue;
    if (!smallest_idle || buffer->size() < (*smallest_idle)->size()) smallest_idle = &buffer;
  }
  if (smallest_idle) *smallest_idle = *fresh;
  return fresh;
}

int64_t BufferPool::kept() const {
  std::lock_guard<std::mutex> lock(mutex_);
  int64_t total = 0;
  for (const std::vector<BufferPtr>& kept : kept_) total += static_cast<int64_t>(kept.size());
  return total;
}

int64_t BufferPool::allocations() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return allocations_;
}

}  // namespace quiver::data
