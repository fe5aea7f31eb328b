// Internal: checks of the canonical extension types quiver understands
// (arrow.fixed_shape_tensor, arrow.variable_shape_tensor, arrow.bool8)
// wherever they appear in a type tree, as readers of foreign schemas need.
#pragma once

#include <optional>
#include <string>

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

// How DataType::ToString spells the tensor extension types: as their own
// ToString does ("fixed_shape_tensor<float32>[3, 4] dim_names=[H, W]",
// "variable_shape_tensor<uint8, ndim=3> uniform_shape=[null, null, 3]"),
// not as their storage. nullopt for other types, and for tensor types
// whose metadata does not parse (those print as extension<name, storage>).
std::optional<std::string> CanonicalExtensionToString(const DataType& type);

}  // namespace quiver::internal
