// Internal: C Data Interface format strings and metadata encoding.
#pragma once

#include <string>

#include "quiver/status.h"
#include "quiver/type.h"

namespace quiver::internal {

// The format string of a non-extension type ("i", "+w:4", ...).
std::string FormatString(const DataType& type);

// The type a format string names, given its already imported children.
// Errors name the format and what is wrong with it.
Result<TypePtr> TypeFromFormat(const std::string& format, std::vector<Field> children);

// Encodes metadata as the C Data binary form; "" for no pairs.
std::string EncodeMetadata(const KeyValueMetadata& metadata);
// Decodes the binary form (NULL means none).
Result<KeyValueMetadata> DecodeMetadata(const char* encoded);

}  // namespace quiver::internal
