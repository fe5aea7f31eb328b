#include "quiver/internal/utf8.h"

namespace quiver::internal {

bool IsValidUtf8(const uint8_t* data, int64_t size) {
  int64_t i = 0;
  while (i < size) {
    uint8_t lead = data[i];
    if (lead < 0x80) {
      ++i;
      continue;
    }
    int extra;
    uint32_t min_code;
    uint32_t code;
    if ((lead & 0xE0) == 0xC0) {
      extra = 1, min_code = 0x80, code = lead & 0x1F;
    } else if ((lead & 0xF0) == 0xE0) {
      extra = 2, min_code = 0x800, code = lead & 0x0F;
    } else if ((lead & 0xF8) == 0xF0) {
      extra = 3, min_code = 0x10000, code = lead & 0x07;
    } else {
      return false;  // stray continuation byte or invalid lead
    }
    if (size - i <= extra) return false;
    for (int k = 1; k <= extra; ++k) {
      uint8_t next = data[i + k];
      if ((next & 0xC0) != 0x80) return false;
      code = (code << 6) | (next & 0x3F);
    }
    if (code < min_code || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return false;
    i += extra + 1;
  }
  return true;
}

}  // namespace quiver::internal
