// UTF-8 well-formedness check (RFC 3629: no overlongs, no surrogates,
// nothing above U+10FFFF).
#pragma once

#include <cstdint>

namespace quiver::internal {

bool IsValidUtf8(const uint8_t* data, int64_t size);

}  // namespace quiver::internal
