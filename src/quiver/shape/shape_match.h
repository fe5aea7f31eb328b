// The matcher behind every EnforceShape overload: a pattern against the
// observed axes of a tensor, an array or a ragged column.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "quiver/shape_pattern.h"

namespace quiver::shape {

struct ObservedShape {
  std::span<const DimSize> axes;
  // >= 0 for a ragged column: axis 0 counts the rows and per-row sizes
  // have this many entries. -1 for everything else.
  int64_t rows = -1;
};

// Matches, binds and fills the result. `proved`, when given, receives per
// observed axis the size the check established for every row (nullopt
// where the axis may vary).
Result<ShapeMatch> MatchShape(const ObservedShape& observed, const ShapePattern& pattern,
                              const EnforceShapeOptions& options,
                              std::vector<std::optional<int64_t>>* proved = nullptr);

// "(8, 32, 32, 3)", "(5,)", "()"; sizes that vary print as None.
std::string FormatShapeTuple(std::span<const DimSize> axes, int64_t row = -1);

}  // namespace quiver::shape
