// The decoded-column cache (column_cache.h).
#include "quiver/dataset/column_cache.h"

namespace quiver::dataset {

std::optional<ArrayDataPtr> ColumnCache::Find(const ColumnKey& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = index_.find(key);
  if (found == index_.end()) {
    ++counts_.misses;
    return std::nullopt;
  }
  ++counts_.hits;
  order_.splice(order_.begin(), order_, found->second);
  return found->second->data;
}

bool ColumnCache::Contains(const ColumnKey& key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return index_.count(key) > 0;
}

void ColumnCache::Insert(const ColumnKey& key, ArrayDataPtr data, int64_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (bytes > capacity_) {
    pressed_ = true;
    return;
  }
  auto found = index_.find(key);
  if (found != index_.end()) {  // another thread decoded it too
    order_.splice(order_.begin(), order_, found->second);
    return;
  }
  order_.push_front(Entry{key, std::move(data), bytes});
  index_.emplace(key, order_.begin());
  counts_.bytes += bytes;
  Evict();
}

void ColumnCache::Evict() {
  while (counts_.bytes > capacity_ && !order_.empty()) {
    const Entry& last = order_.back();
    counts_.bytes -= last.bytes;
    index_.erase(last.key);
    order_.pop_back();
    ++counts_.evictions;
    pressed_ = true;
  }
}

bool ColumnCache::Full() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return capacity_ == 0 || pressed_ || counts_.bytes > capacity_ - capacity_ / 16;
}

ColumnCacheCounts ColumnCache::counts() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return counts_;
}

int64_t ArrayBytes(const ArrayData& data) {
  int64_t total = 0;
  for (const BufferPtr& buffer : data.buffers) total += buffer ? buffer->size() : 0;
  for (const ArrayDataPtr& child : data.children) total += child ? ArrayBytes(*child) : 0;
  if (data.dictionary) total += ArrayBytes(*data.dictionary);
  return total;
}

}  // namespace quiver::dataset
