// Internal: the compressed blocks a dataset decoded most recently for
// takes of a few rows (row_blocks.h), kept up to a small byte budget. One
// row read after another (ds[i] in order, an evaluation loop) then decodes
// each block once rather than once per row; random rows rarely meet again
// within the budget and pay one copy per block.
#pragma once

#include <cstdint>
#include <list>
#include <mutex>
#include <unordered_map>

#include "quiver/buffer.h"

namespace quiver::dataset {

// A decoded block: of record batch `batch` of source `source` (an
// identity, never dereferenced), body buffer `buffer`, the block that
// starts at decoded byte `offset`.
struct BlockKey {
  const void* source = nullptr;
  int64_t batch = 0;
  int64_t buffer = 0;
  int64_t offset = 0;
  bool operator==(const BlockKey&) const = default;
};

struct BlockKeyHash {
  size_t operator()(const BlockKey& key) const;
};

// Thread-safe; the least recently used blocks dropped beyond the budget.
class RecentBlocks {
 public:
  explicit RecentBlocks(int64_t capacity_bytes) : capacity_(capacity_bytes) {}

  // The block's decoded bytes, or nullptr.
  BufferPtr Find(const BlockKey& key);
  // Keeps `bytes` (a buffer of the block alone) unless it is larger than
  // the budget.
  void Insert(const BlockKey& key, BufferPtr bytes);
  int64_t capacity() const { return capacity_; }
  int64_t bytes() const;

 private:
  struct Entry {
    BlockKey key;
    BufferPtr bytes;
  };
  const int64_t capacity_;
  mutable std::mutex mutex_;
  std::list<Entry> order_;  // most recently used first
  std::unordered_map<BlockKey, std::list<Entry>::iterator, BlockKeyHash> index_;
  int64_t held_ = 0;
};

}  // namespace quiver::dataset
