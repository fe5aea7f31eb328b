#include "quiver/internal/stream_copy.h"

#include <algorithm>
#include <cstring>

#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h>  // SSE2: in every x86-64 CPU
#include <xmmintrin.h>
#define QUIVER_STREAM_STORES 1
#endif

namespace quiver::internal {

void StreamCopy(uint8_t* dst, const uint8_t* src, size_t n) {
#ifdef QUIVER_STREAM_STORES
  // Plain stores up to a 16-byte boundary of the destination (the rows of
  // a column start at any element), then 64 bytes at a time streamed; the
  // remainder by plain stores. A cache line that neighbouring rows share
  // gets both kinds of store, which x86 keeps coherent (only slower).
  const size_t head = std::min(n, (16 - (reinterpret_cast<uintptr_t>(dst) & 15)) & 15);
  std::memcpy(dst, src, head);
  dst += head, src += head, n -= head;
  const size_t body = n & ~size_t{63};
  // Touching the source a page ahead starts its page walk early: rows
  // copied from many small arrays cross a 4 KiB page every few lines, and
  // the hardware prefetchers stop at page boundaries (from_numpy of 10^5
  // NumPy arrays: 37 -> 32 ms). A prefetch never faults, past the end of
  // the source included; its address is formed as an integer for that.
  const uintptr_t ahead = reinterpret_cast<uintptr_t>(src) + 4096;
  for (size_t i = 0; i < body; i += 64) {
    _mm_prefetch(reinterpret_cast<const char*>(ahead + i), _MM_HINT_T0);
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 16));
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 32));
    const __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 48));
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i), a);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 16), b);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 32), c);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 48), d);
  }
  std::memcpy(dst + body, src + body, n - body);
#else
  std::memcpy(dst, src, n);
#endif
}

void StreamFence() {
#ifdef QUIVER_STREAM_STORES
  _mm_sfence();
#endif
}

}  // namespace quiver::internal
