// Recently decoded blocks (recent_blocks.h).
#include "quiver/dataset/recent_blocks.h"

#include <functional>

namespace quiver::dataset {

size_t BlockKeyHash::operator()(const BlockKey& key) const {
  size_t h = std::hash<const void*>()(key.source);
  for (int64_t part : {key.batch, key.buffer, key.offset}) {
    h = h * 1000003u ^ std::hash<int64_t>()(part);
  }
  return h;
}

BufferPtr RecentBlocks::Find(const BlockKey& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = index_.find(key);
  if (found == index_.end()) return nullptr;
  order_.splice(order_.begin(), order_, found->second);
  return found->second->bytes;
}

void RecentBlocks::Insert(const BlockKey& key, BufferPtr bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (bytes->size() > capacity_ || index_.count(key) > 0) return;
  held_ += bytes->size();
  order_.push_front(Entry{key, std::move(bytes)});
  index_.emplace(key, order_.begin());
  while (held_ > capacity_) {
    held_ -= order_.back().bytes->size();
    index_.erase(order_.back().key);
    order_.pop_back();
  }
}

int64_t RecentBlocks::bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return held_;
}

}  // namespace quiver::dataset
