// Internal: checks of the canonical extension types quiver understands
// (arrow.fixed_shape_tensor, arrow.variable_shape_tensor, arrow.bool8)
// wherever they appear in a type tree or an array, as readers of foreign
// schemas and data need.
//
// The one door from the core model (the files at the root of src/quiver/)
// into extension/: type.cc and array.cc include this header and nothing
// else of the folder (LayoutRules checks it), and never branch on an
// extension's name themselves.
#pragma once

#include <optional>
#include <string>

#include "quiver/array.h"
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

// The checks of a canonical extension array's contents beyond its
// storage's, for Validate once `data`'s children are valid at `level`: at
// kFull, every arrow.variable_shape_tensor row's data length against the
// product of its shape. Other types, and lower levels, pass.
Status CheckCanonicalExtensionData(const ArrayData& data, ValidationLevel level);

// How DataType::ToString spells the tensor extension types: as their own
// ToString does ("fixed_shape_tensor<float32>[3, 4] dim_names=[H, W]",
// "variable_shape_tensor<uint8, ndim=3> uniform_shape=[null, null, 3]"),
// not as their storage. nullopt for other types, and for tensor types
// whose metadata does not parse (those print as extension<name, storage>).
std::optional<std::string> CanonicalExtensionToString(const DataType& type);

// The extension metadata a writer (IPC, C Data export) puts out for `type`:
// for the tensor extension types, the spec form whenever the metadata is in
// another form quiver reads (an earlier draft, arrow-rs's nulls and
// "permutations", unknown keys); metadata already equal to the spec form as
// JSON, and every other type's, exactly as given.
std::string ExtensionMetadataToWrite(const DataType& type);

}  // namespace quiver::internal
