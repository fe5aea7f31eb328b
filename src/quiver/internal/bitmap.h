// Internal: LSB-ordered validity bitmaps (bit i of byte i / 8 is slot i).
#pragma once

#include <cstdint>

#include "quiver/buffer.h"
#include "quiver/internal/layout.h"
#include "quiver/status.h"

namespace quiver::internal {

inline bool GetBit(const uint8_t* bits, int64_t i) { return (bits[i >> 3] >> (i & 7)) & 1; }

inline void SetBit(uint8_t* bits, int64_t i) {
  bits[i >> 3] |= static_cast<uint8_t>(1u << (i & 7));
}

// Bits [src_offset, src_offset + count) of `src` to bits [dst_offset, ...)
// of `dst`, whose bits there are still 0: whole bytes where both sides are
// byte-aligned, bit by bit elsewhere.
void CopyBits(const uint8_t* src, int64_t src_offset, uint8_t* dst, int64_t dst_offset,
              int64_t count);

// Sets bits [offset, offset + count) of `bits`.
void SetBits(uint8_t* bits, int64_t offset, int64_t count);

// Bits set in `word`, without the popcnt instruction this build may not
// assume.
inline int CountBits(uint64_t word) {
  word -= (word >> 1) & 0x5555555555555555ull;
  word = (word & 0x3333333333333333ull) + ((word >> 2) & 0x3333333333333333ull);
  word = (word + (word >> 4)) & 0x0F0F0F0F0F0F0F0Full;
  return static_cast<int>((word * 0x0101010101010101ull) >> 56);
}

// Unset bits among [offset, offset + length) of `bits`.
int64_t CountUnsetBits(const uint8_t* bits, int64_t offset, int64_t length);

// Bits [offset, offset + length) of `bits` re-based to bit 0 of a fresh
// buffer; `unset` receives how many of them are 0.
Result<BufferPtr> CopyBitmap(const uint8_t* bits, int64_t offset, int64_t length, int64_t* unset);

}  // namespace quiver::internal
