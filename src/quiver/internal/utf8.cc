#include "quiver/internal/utf8.h"

#include <cstring>

namespace quiver::internal {

bool IsValidUtf8(const uint8_t* data, int64_t size) {
  int64_t i = 0;
  while (i < size) {
    // Text is mostly ASCII: skip 8 bytes at a time while no high bit is set.
    while (size - i >= 8) {
      uint64_t word;
      std::memcpy(&word, data + i, 8);
      if (word & 0x8080808080808080ULL) break;
      i += 8;
    }
    if (i >= size) break;
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

namespace {

// The length of the UTF-8 sequence a lead byte starts (1 for ASCII and for
// bytes that cannot start one).
int SequenceLength(uint8_t lead) {
  if ((lead & 0xE0) == 0xC0) return 2;
  if ((lead & 0xF0) == 0xE0) return 3;
  if ((lead & 0xF8) == 0xF0) return 4;
  return 1;
}

}  // namespace

std::string EscapeInvalidUtf8(std::string text) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(text.data());
  const auto size = static_cast<int64_t>(text.size());
  if (IsValidUtf8(bytes, size)) return text;
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size() + 16);
  int64_t i = 0;
  while (i < size) {
    const int length = SequenceLength(bytes[i]);
    if (bytes[i] < 0x80 || (length > 1 && i + length <= size && IsValidUtf8(bytes + i, length))) {
      out.append(text, static_cast<size_t>(i), static_cast<size_t>(length));
      i += length;
      continue;
    }
    out += "\\x";
    out += kHex[bytes[i] >> 4];
    out += kHex[bytes[i] & 0xF];
    ++i;
  }
  return out;
}

}  // namespace quiver::internal
