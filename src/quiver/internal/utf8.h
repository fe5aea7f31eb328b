// UTF-8 well-formedness check (RFC 3629: no overlongs, no surrogates,
// nothing above U+10FFFF).
#pragma once

#include <cstdint>
#include <string>

namespace quiver::internal {

bool IsValidUtf8(const uint8_t* data, int64_t size);

// `text` as it is when it is valid UTF-8; otherwise each byte that does not
// belong to a valid sequence becomes the four characters \xNN.
std::string EscapeInvalidUtf8(std::string text);

}  // namespace quiver::internal
