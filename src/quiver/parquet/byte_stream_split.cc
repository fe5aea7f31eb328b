// BYTE_STREAM_SPLIT: a page of `count` values of `width` bytes holds
// `width` streams of `count` bytes, stream k holding byte k of every value.
// One transposing pass writes the values straight into the column's buffer.
#include <algorithm>
#include <cstring>
#include <string>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "quiver/parquet/value_decoders.h"

namespace quiver::parquet {

namespace {

template <int kWidth>
void TransposeScalar(const uint8_t* data, int64_t count, int64_t begin, uint8_t* dst) {
  // Tiles of values whose output stays in L1: stream by stream within a
  // tile, so reads are sequential and each write lands in a cached line.
  constexpr int64_t kTile = 512;
  for (int64_t start = begin; start < count; start += kTile) {
    const int64_t n = std::min(kTile, count - start);
    uint8_t* out = dst + start * kWidth;
    for (int k = 0; k < kWidth; ++k) {
      const uint8_t* stream = data + k * count + start;
      for (int64_t i = 0; i < n; ++i) out[i * kWidth + k] = stream[i];
    }
  }
}

#ifdef __SSE2__
// 16 values at a time: byte k of each value from stream k, interleaved by
// unpacking bytes, then pairs, then quads (then octets for 8 bytes).
void Transpose4(const uint8_t* data, int64_t count, uint8_t* dst) {
  const int64_t whole = count / 16 * 16;
  for (int64_t i = 0; i < whole; i += 16) {
    __m128i a[4];
    for (int k = 0; k < 4; ++k) {
      a[k] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + k * count + i));
    }
    const __m128i ab_lo = _mm_unpacklo_epi8(a[0], a[1]), ab_hi = _mm_unpackhi_epi8(a[0], a[1]);
    const __m128i cd_lo = _mm_unpacklo_epi8(a[2], a[3]), cd_hi = _mm_unpackhi_epi8(a[2], a[3]);
    __m128i* out = reinterpret_cast<__m128i*>(dst + i * 4);
    _mm_storeu_si128(out + 0, _mm_unpacklo_epi16(ab_lo, cd_lo));
    _mm_storeu_si128(out + 1, _mm_unpackhi_epi16(ab_lo, cd_lo));
    _mm_storeu_si128(out + 2, _mm_unpacklo_epi16(ab_hi, cd_hi));
    _mm_storeu_si128(out + 3, _mm_unpackhi_epi16(ab_hi, cd_hi));
  }
  TransposeScalar<4>(data, count, whole, dst);
}

void Transpose8(const uint8_t* data, int64_t count, uint8_t* dst) {
  const int64_t whole = count / 16 * 16;
  for (int64_t i = 0; i < whole; i += 16) {
    __m128i a[8];
    for (int k = 0; k < 8; ++k) {
      a[k] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + k * count + i));
    }
    // Byte pairs (streams 2j, 2j + 1) of values 0-7 (lo) and 8-15 (hi).
    __m128i pair_lo[4], pair_hi[4];
    for (int j = 0; j < 4; ++j) {
      pair_lo[j] = _mm_unpacklo_epi8(a[2 * j], a[2 * j + 1]);
      pair_hi[j] = _mm_unpackhi_epi8(a[2 * j], a[2 * j + 1]);
    }
    // Quads: bytes 0-3 (q[0]) and 4-7 (q[1]) of values 0-3, 4-7, 8-11, 12-15.
    __m128i q0[4], q1[4];
    q0[0] = _mm_unpacklo_epi16(pair_lo[0], pair_lo[1]);
    q0[1] = _mm_unpackhi_epi16(pair_lo[0], pair_lo[1]);
    q0[2] = _mm_unpacklo_epi16(pair_hi[0], pair_hi[1]);
    q0[3] = _mm_unpackhi_epi16(pair_hi[0], pair_hi[1]);
    q1[0] = _mm_unpacklo_epi16(pair_lo[2], pair_lo[3]);
    q1[1] = _mm_unpackhi_epi16(pair_lo[2], pair_lo[3]);
    q1[2] = _mm_unpacklo_epi16(pair_hi[2], pair_hi[3]);
    q1[3] = _mm_unpackhi_epi16(pair_hi[2], pair_hi[3]);
    __m128i* out = reinterpret_cast<__m128i*>(dst + i * 8);
    for (int j = 0; j < 4; ++j) {
      _mm_storeu_si128(out + 2 * j, _mm_unpacklo_epi32(q0[j], q1[j]));
      _mm_storeu_si128(out + 2 * j + 1, _mm_unpackhi_epi32(q0[j], q1[j]));
    }
  }
  TransposeScalar<8>(data, count, whole, dst);
}
#endif

template <int kWidth>
void Transpose(const uint8_t* data, int64_t count, uint8_t* dst) {
#ifdef __SSE2__
  if constexpr (kWidth == 4) return Transpose4(data, count, dst);
  if constexpr (kWidth == 8) return Transpose8(data, count, dst);
#endif
  TransposeScalar<kWidth>(data, count, 0, dst);
}

void Transpose(const uint8_t* data, int64_t count, int width, uint8_t* dst) {
  switch (width) {
    case 2: return Transpose<2>(data, count, dst);
    case 4: return Transpose<4>(data, count, dst);
    case 8: return Transpose<8>(data, count, dst);
    case 16: return Transpose<16>(data, count, dst);
    default: break;
  }
  // Any other FIXED_LEN_BYTE_ARRAY width: stream by stream, so each pass
  // reads one stream in order.
  for (int k = 0; k < width; ++k) {
    const uint8_t* stream = data + static_cast<int64_t>(k) * count;
    uint8_t* column = dst + k;
    for (int64_t i = 0; i < count; ++i) column[i * width] = stream[i];
  }
}

}  // namespace

Status DecodeByteStreamSplit(const uint8_t* data, int64_t size, int64_t count, ColumnValues* out,
                             const std::string& what) {
  int64_t need = 0;
  const bool overflow = __builtin_mul_overflow(count, static_cast<int64_t>(out->width), &need);
  if (overflow || need != size) {
    return Status::Invalid(
        what, ": BYTE_STREAM_SPLIT values take exactly count * width bytes: ", count, " ",
        PhysicalTypeName(out->type), " values of ", out->width, " bytes need ",
        overflow ? std::string("over 2^63") : std::to_string(need), ", the page holds ", size);
  }
  QUIVER_ASSIGN_OR_RETURN(uint8_t * dst, out->fixed.Extend(need));
  if (count > 0) Transpose(data, count, out->width, dst);
  out->count += count;
  return Status::OK();
}

}  // namespace quiver::parquet
