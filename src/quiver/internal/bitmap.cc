#include "quiver/internal/bitmap.h"

#include <cstring>

namespace quiver::internal {

namespace {

// Set bits of `v` by adding neighbours in ever wider fields. Not
// std::popcount: built without -mpopcnt (a portable binary), that is a
// call into the compiler's runtime per word.
int64_t PopCount(uint64_t v) {
  v -= (v >> 1) & 0x5555555555555555ull;
  v = (v & 0x3333333333333333ull) + ((v >> 2) & 0x3333333333333333ull);
  v = (v + (v >> 4)) & 0x0F0F0F0F0F0F0F0Full;
  return static_cast<int64_t>((v * 0x0101010101010101ull) >> 56);
}

}  // namespace

void CopyBits(const uint8_t* src, int64_t src_offset, uint8_t* dst, int64_t dst_offset,
              int64_t count) {
  int64_t i = 0;
  if (src_offset % 8 == dst_offset % 8) {
    for (; i < count && (src_offset + i) % 8 != 0; ++i) {
      if (GetBit(src, src_offset + i)) SetBit(dst, dst_offset + i);
    }
    const int64_t bytes = (count - i) / 8;
    if (bytes > 0) {
      std::memcpy(dst + (dst_offset + i) / 8, src + (src_offset + i) / 8,
                  static_cast<size_t>(bytes));
      i += bytes * 8;
    }
  }
  for (; i < count; ++i) {
    if (GetBit(src, src_offset + i)) SetBit(dst, dst_offset + i);
  }
}

void SetBits(uint8_t* bits, int64_t offset, int64_t count) {
  int64_t i = offset;
  const int64_t end = offset + count;
  for (; i < end && (i & 7) != 0; ++i) SetBit(bits, i);
  if (end - i >= 8) {
    std::memset(bits + (i >> 3), 0xFF, static_cast<size_t>((end - i) >> 3));
    i += (end - i) & ~int64_t{7};
  }
  for (; i < end; ++i) SetBit(bits, i);
}

int64_t CountUnsetBits(const uint8_t* bits, int64_t offset, int64_t length) {
  int64_t set = 0;
  int64_t i = offset;
  const int64_t end = offset + length;
  for (; i < end && (i & 7) != 0; ++i) set += GetBit(bits, i);
  for (; i + 64 <= end; i += 64) {
    uint64_t word;
    std::memcpy(&word, bits + (i >> 3), 8);
    set += PopCount(word);
  }
  for (; i + 8 <= end; i += 8) set += PopCount(bits[i >> 3]);
  for (; i < end; ++i) set += GetBit(bits, i);
  return length - set;
}

Result<BufferPtr> CopyBitmap(const uint8_t* bits, int64_t offset, int64_t length, int64_t* unset) {
  QUIVER_ASSIGN_OR_RETURN(BufferPtr out, Buffer::Allocate(BitmapBytes(length)));
  uint8_t* dst = out->mutable_data();
  *unset = 0;
  for (int64_t i = 0; i < length; ++i) {
    if (GetBit(bits, offset + i)) {
      SetBit(dst, i);
    } else {
      ++*unset;
    }
  }
  return out;
}

}  // namespace quiver::internal
