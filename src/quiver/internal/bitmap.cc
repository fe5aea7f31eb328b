#include "quiver/internal/bitmap.h"

#include <bit>

namespace quiver::internal {

int64_t CountUnsetBits(const uint8_t* bits, int64_t offset, int64_t length) {
  int64_t set = 0;
  int64_t i = offset;
  const int64_t end = offset + length;
  for (; i < end && (i & 7) != 0; ++i) set += GetBit(bits, i);
  for (; i + 8 <= end; i += 8) set += std::popcount(static_cast<unsigned>(bits[i >> 3]));
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
