// Internal: C Data Interface format strings and metadata encoding.
#pragma once

#include <string>

#include "quiver/c_data.h"
#include "quiver/status.h"
#include "quiver/type.h"

namespace quiver::interchange {

// FormatString and TypeFromFormat are public (quiver/c_data.h).

// Encodes metadata as the C Data binary form; "" for no pairs.
std::string EncodeMetadata(const KeyValueMetadata& metadata);
// Decodes the binary form (NULL means none).
Result<KeyValueMetadata> DecodeMetadata(const char* encoded);

}  // namespace quiver::interchange
