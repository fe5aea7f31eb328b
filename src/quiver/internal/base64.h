// Base64 (RFC 4648, the standard alphabet with '=' padding), for metadata
// that carries binary in text: the ARROW:schema key of Parquet files.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace quiver::internal {

// The bytes `text` encodes, or nullopt when it is not base64 (a character
// outside the alphabet, a length that is not a multiple of 4, padding
// anywhere but the end). Whitespace is not skipped.
std::optional<std::string> DecodeBase64(std::string_view text);

std::string EncodeBase64(std::string_view bytes);

}  // namespace quiver::internal
