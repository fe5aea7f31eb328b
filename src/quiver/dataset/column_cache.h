// Internal: decoded columns of record batches, kept up to a byte budget,
// the least recently used dropped first.
#pragma once

#include <cstdint>
#include <list>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "quiver/array.h"

namespace quiver::dataset {

// A column of a record batch: (record batch over the dataset, position in
// the projection).
struct ColumnKey {
  int64_t batch = 0;
  int64_t column = 0;
  bool operator==(const ColumnKey&) const = default;
};

struct ColumnKeyHash {
  size_t operator()(const ColumnKey& key) const {
    return std::hash<int64_t>()(key.batch * 1000003 + key.column);
  }
};

// Counters of a ColumnCache.
struct ColumnCacheCounts {
  int64_t hits = 0;
  int64_t misses = 0;
  int64_t evictions = 0;
  int64_t bytes = 0;  // held now
};

// Thread-safe. An entry larger than the whole budget is not kept.
class ColumnCache {
 public:
  explicit ColumnCache(int64_t capacity_bytes) : capacity_(capacity_bytes) {}

  // The column, counted as a hit, or nullopt, counted as a miss.
  std::optional<ArrayDataPtr> Find(const ColumnKey& key);
  // Whether the column is held, counted as neither (nor made recent).
  bool Contains(const ColumnKey& key) const;
  // Keeps `data`, which costs `bytes`, dropping the least recently used
  // entries beyond the budget.
  void Insert(const ColumnKey& key, ArrayDataPtr data, int64_t bytes);
  ColumnCacheCounts counts() const;
  // Whether the cache is (all but) full: of no budget, within a sixteenth
  // of it, or it has ever dropped or refused an entry for want of room.
  // Until then a decoded batch costs it nothing it holds.
  bool Full() const;

 private:
  struct Entry {
    ColumnKey key;
    ArrayDataPtr data;
    int64_t bytes = 0;
  };
  void Evict();

  const int64_t capacity_;
  mutable std::mutex mutex_;
  std::list<Entry> order_;  // most recently used first
  std::unordered_map<ColumnKey, std::list<Entry>::iterator, ColumnKeyHash> index_;
  ColumnCacheCounts counts_;
  bool pressed_ = false;  // an entry was dropped or refused for want of room
};

// The bytes of the buffers `data` and its children and dictionary hold
// (a buffer shared by several counts each time).
int64_t ArrayBytes(const ArrayData& data);

}  // namespace quiver::dataset
