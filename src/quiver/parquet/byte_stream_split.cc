// BYTE_STREAM_SPLIT: a page of `count` values of `width` bytes holds
// `width` streams of `count` bytes, stream k holding byte k of every value.
// One transposing pass writes the values straight into the column's buffer.
#include <string>

#include "quiver/parquet/value_decoders.h"

namespace quiver::parquet {

namespace {

template <int kWidth>
void Transpose(const uint8_t* data, int64_t count, uint8_t* dst) {
  const uint8_t* streams[kWidth];
  for (int k = 0; k < kWidth; ++k) streams[k] = data + k * count;
  for (int64_t i = 0; i < count; ++i) {
    for (int k = 0; k < kWidth; ++k) dst[i * kWidth + k] = streams[k][i];
  }
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
