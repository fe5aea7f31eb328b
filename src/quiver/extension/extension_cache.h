// Internal: a small thread-safe memo of parsed extension types, so that a
// type imported again and again (every call from Python, every batch of a
// stream) has its metadata JSON parsed and checked once per distinct
// (metadata string, storage type) rather than on every import, ImportArray
// validation and array construction.
#pragma once

#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "quiver/type.h"

namespace quiver::internal {

// Parsed values are stored only after they were fully checked, so a hit
// returns exactly what parsing the same metadata against an equal storage
// type would give. Bounded: past kCapacity entries the memo starts over,
// so hostile streams of distinct strings cannot grow it without limit.
template <typename Parsed>
class ExtensionCache {
 public:
  static constexpr size_t kCapacity = 64;

  // The value parsed from `metadata` with a storage type equal to `storage`.
  std::optional<Parsed> Find(std::string_view metadata, const DataType& storage) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = entries_.find(metadata);
    if (it == entries_.end()) return std::nullopt;
    for (const Entry& entry : it->second) {
      if (entry.storage->Equals(storage)) return entry.parsed;
    }
    return std::nullopt;
  }

  void Insert(std::string_view metadata, TypePtr storage, Parsed parsed) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (size_ >= kCapacity) {
      entries_.clear();
      size_ = 0;
    }
    entries_[std::string(metadata)].push_back(Entry{std::move(storage), std::move(parsed)});
    ++size_;
  }

 private:
  struct Entry {
    TypePtr storage;
    Parsed parsed;
  };
  // Heterogeneous lookup: Find takes a string_view without copying it.
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
  };
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::vector<Entry>, Hash, std::equal_to<>> entries_;
  size_t size_ = 0;
};

}  // namespace quiver::internal
