// The one pass enforce_shape makes over a ragged column's shape buffer:
// which axes have one size in every valid row, and the per-row sizes of
// the others.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "quiver/status.h"
#include "quiver/variable_shape_tensor.h"

namespace quiver::shape {

// One logical axis of a ragged column.
struct RaggedAxis {
  size_t physical = 0;  // in: the axis's entry in a row of the shape buffer
  int32_t size = -1;    // out: the size every valid row has, unless `varies`
  bool varies = false;  // out: valid rows differ, or no row is valid
  // Out when `varies`: a size per row (`filled` of them, one per row in
  // the end), -1 in null rows. Allocated once and never zeroed: every
  // entry is written once.
  std::unique_ptr<int32_t[]> per_row;
  size_t filled = 0;

  std::span<const int32_t> sizes() const { return {per_row.get(), filled}; }
};

// Reads every row of `array` once, blocks at a time, for all of `axes`
// together: no allocation per row, and per-row sizes only for the axes
// that vary (an axis found to vary at row r gets rows before r written as
// its constant). Invalid naming the first valid row (then axis) with a
// negative size: validation refused those, but shape storage shared with a
// caller may have changed since.
Status ScanRaggedAxes(const VariableShapeTensorArray& array, std::span<RaggedAxis> axes);

}  // namespace quiver::shape
