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

#include "quiver/internal/fork_local.h"
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
    State& state = state_.Get();
    std::lock_guard<std::mutex> lock(state.mutex);
    auto it = state.entries.find(metadata);
    if (it == state.entries.end()) return std::nullopt;
    for (const Entry& entry : it->second) {
      if (entry.storage->Equals(storage)) return entry.parsed;
    }
    return std::nullopt;
  }

  void Insert(std::string_view metadata, TypePtr storage, Parsed parsed) {
    State& state = state_.Get();
    std::lock_guard<std::mutex> lock(state.mutex);
    if (state.size >= kCapacity) {
      state.entries.clear();
      state.size = 0;
    }
    state.entries[std::string(metadata)].push_back(Entry{std::move(storage), std::move(parsed)});
    ++state.size;
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
  struct State {
    std::mutex mutex;
    std::unordered_map<std::string, std::vector<Entry>, Hash, std::equal_to<>> entries;
    size_t size = 0;
  };
  // One per process: a thread that held the lock when another forked
  // does not exist in the child, which starts an empty memo of its own
  // (a loader's forked workers parse types while its threads may be
  // parsing them in the parent).
  mutable ForkLocal<State> state_;
};

}  // namespace quiver::internal
