// Internal: checks of the canonical extension types quiver understands
// (arrow.fixed_shape_tensor, arrow.variable_shape_tensor, arrow.bool8)
// wherever they appear in a type tree, as readers of foreign schemas need.
#pragma once

#include "quiver/status.h"
#include "quiver/type.h"

namespace quiver::internal {

// OK unless `type` is one of those extension types and its metadata or
// storage is invalid for it. Other types, and other extension names, pass.
Status CheckCanonicalExtension(const DataType& type);

// CheckCanonicalExtension on `type` and every type nested in it (fields,
// and the value type of dictionaries); errors name the path ("field 1
// (images): ...", "dictionary: ..."). Refuses types nested deeper
// than kMaxNestingDepth first, so the walk is bounded.
Status CheckCanonicalExtensions(const DataType& type);

}  // namespace quiver::internal
