#include "quiver/row_mask.h"

#include <utility>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "quiver/internal/bitmap.h"
#include "quiver/internal/row_mask_words.h"

namespace quiver {

namespace {

// Bit b of the result: whether bytes[b] is not 0, for b in [0, count),
// count <= 64; the bits above are 0. Sixteen bytes a compare where SSE2 is.
uint64_t NonZeroBits(const uint8_t* bytes, int64_t count) {
  uint64_t bits = 0;
  int64_t b = 0;
#if defined(__SSE2__)
  const __m128i zero = _mm_setzero_si128();
  for (; b + 16 <= count; b += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes + b));
    const auto zeros = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, zero)));
    bits |= static_cast<uint64_t>(~zeros & 0xFFFFu) << b;
  }
#endif
  for (; b < count; ++b) bits |= static_cast<uint64_t>(bytes[b] != 0) << b;
  return bits;
}

// NonZeroBits of 64 bytes: four compares, no loop.
uint64_t NonZeroBits64(const uint8_t* bytes) {
#if defined(__SSE2__)
  const __m128i zero = _mm_setzero_si128();
  auto zeros = [&](int at) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes + at));
    return static_cast<uint64_t>(static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, zero))));
  };
  return ~(zeros(0) | zeros(16) << 16 | zeros(32) << 32 | zeros(48) << 48);
#else
  return NonZeroBits(bytes, 64);
#endif
}

}  // namespace

namespace internal {

int64_t PackMaskWords(const uint8_t* bytes, int64_t full, uint64_t* words) {
  int64_t kept = 0;
  for (int64_t w = 0; w < full; ++w) {
    const uint64_t word = NonZeroBits64(bytes + w * 64);
    words[w] = word;
    kept += CountBits(word);
  }
  return kept;
}

#if defined(__x86_64__) && defined(__GNUC__)
namespace {

// Thirty-two bytes a compare and the popcnt instruction: under half the
// instructions of the SSE2 loop, which they bound (not the reading).
__attribute__((target("avx2,popcnt"))) int64_t PackWordsAvx2(const uint8_t* bytes, int64_t full,
                                                             uint64_t* words) {
  const __m256i zero = _mm256_setzero_si256();
  int64_t kept = 0;
  for (int64_t w = 0; w < full; ++w) {
    const auto* at = reinterpret_cast<const __m256i*>(bytes + w * 64);
    const auto low = static_cast<uint32_t>(
        _mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_loadu_si256(at), zero)));
    const auto high = static_cast<uint32_t>(
        _mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_loadu_si256(at + 1), zero)));
    const uint64_t word = ~(uint64_t{low} | uint64_t{high} << 32);
    words[w] = word;
    kept += __builtin_popcountll(word);
  }
  return kept;
}

}  // namespace
#endif

bool PackMaskWordsAvx2(const uint8_t* bytes, int64_t full, uint64_t* words, int64_t* kept) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt")) {
    *kept = PackWordsAvx2(bytes, full, words);
    return true;
  }
#endif
  (void)bytes, (void)full, (void)words, (void)kept;
  return false;
}

}  // namespace internal

RowMask RowMask::FromBytes(std::span<const uint8_t> bytes) {
  const auto length = static_cast<int64_t>(bytes.size());
  std::vector<uint64_t> words(static_cast<size_t>((length + 63) / 64));
  const int64_t full = length / 64;
  int64_t kept = 0;
  if (!internal::PackMaskWordsAvx2(bytes.data(), full, words.data(), &kept)) {
    kept = internal::PackMaskWords(bytes.data(), full, words.data());
  }
  if (full * 64 < length) {
    const uint64_t word = NonZeroBits(bytes.data() + full * 64, length - full * 64);
    words.back() = word;
    kept += internal::CountBits(word);
  }
  return RowMask(std::move(words), length, kept);
}

}  // namespace quiver
