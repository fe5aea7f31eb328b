// Python indices and slices resolved against row counts, as NumPy and
// pyarrow resolve them (negative indices, clipped slices, steps).
#pragma once

#include <nanobind/nanobind.h>

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace quiver::python {

namespace nb = nanobind;

// Resolves a Python index (negative counts from the end) against
// `length`, or raises IndexError.
int64_t ResolveIndex(int64_t index, int64_t length, const char* what = "rows");
// The same for any Python integer (int, NumPy integers: whatever has
// __index__): one beyond int64 (np.uint64(2**64 - 1), 2**70) is an
// IndexError quoting it as written, never a wrapped or clipped value.
int64_t ResolveIndex(nb::handle index, int64_t length, const char* what = "rows");
// [start, start + count) of a step-1 Python slice over `length` rows.
std::pair<int64_t, int64_t> ResolveSlice(const nb::slice& slice, int64_t length);
// [start, start + count) of slice(offset, length) over `rows` rows, clipped
// as pyarrow clips it (past the end is empty); IndexError for a negative
// offset or length.
std::pair<int64_t, int64_t> ClipSlice(int64_t offset, std::optional<int64_t> length, int64_t rows);
// The rows a slice with a step other than 1 picks over `length` rows, in
// its order, for take() (pyarrow slices so); false, `rows` untouched, for a
// step of 1, which ResolveSlice serves without a copy.
bool SliceRows(const nb::slice& slice, int64_t length, std::vector<int64_t>* rows);

}  // namespace quiver::python
