// Internal: state that belongs to one process (libcurl handles, their
// connections, the locks around them, memos guarded by a lock). A forked child must not use the
// parent's: a lock another parent thread held stays held forever, and a
// connection is shared with the parent. ForkLocal<T>::Get() makes a fresh
// T in a child the first time it is used there and drops the parent's
// without destroying it (destroying would touch those connections and
// locks): a deliberate, bounded leak, once per fork.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <utility>

#include "quiver/internal/threads.h"

namespace quiver::internal {

template <typename T>
class ForkLocal {
 public:
  ForkLocal() = default;
  ForkLocal(const ForkLocal&) = delete;
  ForkLocal& operator=(const ForkLocal&) = delete;
  ~ForkLocal() {
    Slot* slot = slot_.load(std::memory_order_acquire);
    if (slot != nullptr && slot->generation == ForkGeneration()) delete slot;
  }

  // This process's T, made on first use (thread-safe).
  T& Get() {
    const uint64_t generation = ForkGeneration();
    Slot* slot = slot_.load(std::memory_order_acquire);
    if (slot != nullptr && slot->generation == generation) return slot->value;
    auto fresh = std::make_unique<Slot>(generation);
    if (slot_.compare_exchange_strong(slot, fresh.get(), std::memory_order_acq_rel)) {
      return fresh.release()->value;  // `slot` (the parent's, or none) is dropped
    }
    return slot->value;  // another thread of this process made one first
  }

  // Whether `value` is this process's T (not one left from before a fork).
  bool Current(const T& value) const {
    const Slot* slot = slot_.load(std::memory_order_acquire);
    return slot != nullptr && &slot->value == &value && slot->generation == ForkGeneration();
  }

 private:
  struct Slot {
    explicit Slot(uint64_t g) : generation(g) {}
    uint64_t generation;
    T value;
  };
  std::atomic<Slot*> slot_{nullptr};
};

}  // namespace quiver::internal
