// Helpers for the C Data interface tests: release callbacks that count
// their calls (every test sets the counter to 0 before it counts) and
// foreign ArrowSchema / ArrowArray structs built by hand.
#pragma once

#include <cstdint>
#include <vector>

#include "quiver/c_data.h"
#include "test_util.h"

namespace quiver::test {

// Calls of the Count*Release callbacks below but CountDictionaryRelease.
inline int g_releases = 0;
// Calls of CountDictionaryRelease.
inline int g_dictionary_releases = 0;

// A release callback for `Struct` that counts its calls in `*counter`.
template <typename Struct, int* counter = &g_releases>
void CountRelease(Struct* released) {
  ++*counter;
  released->release = nullptr;
}
inline constexpr auto CountArrayRelease = &CountRelease<ArrowArray>;
inline constexpr auto CountSchemaRelease = &CountRelease<ArrowSchema>;
inline constexpr auto CountStreamRelease = &CountRelease<ArrowArrayStream>;
inline constexpr auto CountDictionaryRelease = &CountRelease<ArrowArray, &g_dictionary_releases>;

// A foreign ArrowSchema of `format` with no children.
inline ArrowSchema Leaf(const char* format) {
  ArrowSchema schema{};
  schema.format = format;
  schema.name = "x";
  schema.flags = ARROW_FLAG_NULLABLE;
  schema.release = CountSchemaRelease;
  return schema;
}

// A foreign ArrowArray over `buffers`.
inline ArrowArray Foreign(int64_t length, std::vector<const void*>& buffers) {
  ArrowArray array{};
  array.length = length;
  array.n_buffers = static_cast<int64_t>(buffers.size());
  array.buffers = buffers.empty() ? nullptr : buffers.data();
  array.release = CountArrayRelease;
  return array;
}

}  // namespace quiver::test
