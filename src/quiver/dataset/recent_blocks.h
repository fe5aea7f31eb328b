// Internal: what a dataset learned from the compressed record batches it
// read for takes of a few rows (row_blocks.h), each kept up to a small byte
// budget, the least recently used dropped first:
// - the blocks it decoded: one row read after another (ds[i] in order, an
//   evaluation loop) then decodes each block once rather than once per
//   row; random rows rarely meet again and pay one copy per block;
// - where each stored buffer's blocks lie: a later take of the same batch
//   reads only the blocks it needs (a remote or unmapped source fetches
//   those bytes alone) without walking the buffer's block headers again.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "quiver/buffer.h"
#include "quiver/ipc/codec.h"

namespace quiver::dataset {

// A stored body buffer of record batch `batch` of source `source` (an
// identity, never dereferenced), body buffer `buffer`; `offset`: its block
// that starts at that decoded byte, or -1 for the buffer's block index.
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

// What the 8-byte prefix of a stored body buffer says: its decoded length,
// and whether its bytes are stored raw (prefix -1; an absent buffer reads
// as raw and empty).
struct StoredPrefix {
  int64_t length = 0;
  bool raw = false;
};

// Where a stored body buffer's blocks lie: its prefix, its stored bytes
// (prefix included), and its blocks (CompressedBlocks; source offsets
// counted after the prefix). No blocks: stored raw, or one frame, read and
// decoded whole.
struct BufferBlocks {
  StoredPrefix prefix;
  int64_t stored = 0;
  std::vector<ipc::DecompressPiece> blocks;
};

// Thread-safe.
class RecentBlocks {
 public:
  RecentBlocks(int64_t block_bytes, int64_t index_bytes)
      : blocks_(block_bytes), indexes_(index_bytes) {}

  // A decoded block, or nullptr.
  BufferPtr FindBlock(const BlockKey& key) { return blocks_.Find(key); }
  // Keeps `bytes` (a buffer of the block alone) unless it is larger than
  // the budget.
  void InsertBlock(const BlockKey& key, BufferPtr bytes) {
    const int64_t size = bytes->size();
    blocks_.Insert(key, std::move(bytes), size);
  }
  std::shared_ptr<const BufferBlocks> FindIndex(const BlockKey& key) { return indexes_.Find(key); }
  void InsertIndex(const BlockKey& key, std::shared_ptr<const BufferBlocks> index) {
    const auto size = static_cast<int64_t>(sizeof(BufferBlocks) +
                                           index->blocks.size() * sizeof(ipc::DecompressPiece));
    indexes_.Insert(key, std::move(index), size);
  }
  int64_t block_capacity() const { return blocks_.capacity(); }
  int64_t block_bytes() const { return blocks_.bytes(); }
  int64_t index_bytes() const { return indexes_.bytes(); }

 private:
  // Values up to a byte budget, the least recently used dropped first.
  template <typename Value>
  class Lru {
   public:
    explicit Lru(int64_t capacity) : capacity_(capacity) {}
    Value Find(const BlockKey& key) {
      std::lock_guard<std::mutex> lock(mutex_);
      auto found = index_.find(key);
      if (found == index_.end()) return nullptr;
      order_.splice(order_.begin(), order_, found->second);
      return found->second->value;
    }
    void Insert(const BlockKey& key, Value value, int64_t bytes) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (bytes > capacity_ || index_.count(key) > 0) return;
      held_ += bytes;
      order_.push_front(Entry{key, std::move(value), bytes});
      index_.emplace(key, order_.begin());
      while (held_ > capacity_) {
        held_ -= order_.back().bytes;
        index_.erase(order_.back().key);
        order_.pop_back();
      }
    }
    int64_t capacity() const { return capacity_; }
    int64_t bytes() const {
      std::lock_guard<std::mutex> lock(mutex_);
      return held_;
    }

   private:
    struct Entry {
      BlockKey key;
      Value value;
      int64_t bytes = 0;
    };
    const int64_t capacity_;
    mutable std::mutex mutex_;
    std::list<Entry> order_;  // most recently used first
    std::unordered_map<BlockKey, typename std::list<Entry>::iterator, BlockKeyHash> index_;
    int64_t held_ = 0;
  };

  Lru<BufferPtr> blocks_;
  Lru<std::shared_ptr<const BufferBlocks>> indexes_;
};

}  // namespace quiver::dataset
