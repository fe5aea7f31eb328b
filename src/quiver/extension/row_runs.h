// Internal: take, filter and concat of tensor columns as runs of
// consecutive rows, shared by arrow.fixed_shape_tensor and
// arrow.variable_shape_tensor: each type then only gathers the runs (one
// block copy per run), and both check indices and masks with one wording.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "quiver/status.h"

namespace quiver::internal {

// Rows [begin, end) of `source`.
template <typename Array>
struct RowRun {
  const Array* source;
  int64_t begin;
  int64_t end;

  int64_t count() const { return end - begin; }
};

// Appends row i of `source`, extending the last run when i follows it.
template <typename Array>
void AppendRow(std::vector<RowRun<Array>>& runs, const Array* source, int64_t i) {
  if (!runs.empty() && runs.back().source == source && runs.back().end == i) {
    ++runs.back().end;  // consecutive rows copy as one block
  } else {
    runs.push_back({source, i, i + 1});
  }
}

// The rows `indices` picks, in order; IndexError for one out of range.
template <typename Array>
Result<std::vector<RowRun<Array>>> TakeRuns(const Array& array, std::span<const int64_t> indices) {
  std::vector<RowRun<Array>> runs;
  for (size_t j = 0; j < indices.size(); ++j) {
    const int64_t i = indices[j];
    if (i < 0 || i >= array.length()) {
      return Status::IndexError("index ", std::to_string(i), " at position ", std::to_string(j),
                                " is out of range for ", std::to_string(array.length()), " rows");
    }
    AppendRow(runs, &array, i);
  }
  return runs;
}

// The rows whose mask entry is non-zero; Invalid for a mask of another length.
template <typename Array>
Result<std::vector<RowRun<Array>>> FilterRuns(const Array& array, std::span<const uint8_t> mask) {
  if (static_cast<int64_t>(mask.size()) != array.length()) {
    return Status::Invalid("filter mask has ", std::to_string(mask.size()), " entries for ",
                           std::to_string(array.length()), " rows");
  }
  std::vector<RowRun<Array>> runs;
  for (int64_t i = 0; i < array.length(); ++i) {
    if (mask[static_cast<size_t>(i)]) AppendRow(runs, &array, i);
  }
  return runs;
}

// Every row of every array, in order (the caller checked the types agree).
template <typename Array>
std::vector<RowRun<Array>> ConcatRuns(std::span<const Array> arrays) {
  std::vector<RowRun<Array>> runs;
  runs.reserve(arrays.size());
  for (const Array& array : arrays) runs.push_back({&array, 0, array.length()});
  return runs;
}

}  // namespace quiver::internal
