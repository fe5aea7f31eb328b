// PLAIN: fixed-width values back to back (one copy into the column's
// buffer), booleans bit-packed LSB first, byte arrays as a 4-byte
// little-endian length then the bytes.
#include <cstring>
#include <limits>
#include <string>

#include "quiver/parquet/value_decoders.h"

namespace quiver::parquet {

namespace {

constexpr int64_t kMaxByteArrayBytes = std::numeric_limits<int32_t>::max();

inline uint32_t LoadLe32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

Status DecodePlainBooleans(const uint8_t* data, int64_t size, int64_t count, ColumnValues* out,
                           const std::string& what) {
  const int64_t need = count / 8 + (count % 8 != 0);
  if (need > size) {
    return Status::Invalid(what, ": PLAIN values run past the page's end: ", count,
                           " BOOLEAN values need ", need, " bytes, the page holds ", size);
  }
  QUIVER_ASSIGN_OR_RETURN(uint8_t * dst, out->fixed.Extend(count));
  const int64_t whole = count / 8;
  for (int64_t i = 0; i < whole; ++i) {
    const uint8_t byte = data[i];
    for (int b = 0; b < 8; ++b) dst[i * 8 + b] = (byte >> b) & 1;
  }
  for (int64_t i = whole * 8; i < count; ++i) dst[i] = (data[i / 8] >> (i % 8)) & 1;
  out->count += count;
  return Status::OK();
}

Status DecodePlainByteArrays(const uint8_t* data, int64_t size, int64_t count, ColumnValues* out,
                             const std::string& what) {
  // First pass: every length checked against the page, the total against
  // int32 offsets; then the offsets and the bytes are written in one go.
  int64_t position = 0;
  int64_t total = 0;
  const int64_t start = LastOffset(*out);
  for (int64_t i = 0; i < count; ++i) {
    if (size - position < 4) {
      return Status::Invalid(what, ": PLAIN value ", i, " of ", count,
                             " runs past the page's end: its 4-byte length starts at byte ",
                             position, " of ", size);
    }
    const uint32_t length = LoadLe32(data + position);
    position += 4;
    if (length > static_cast<uint64_t>(size - position)) {
      return Status::Invalid(what, ": PLAIN value ", i, " of ", count,
                             " runs past the page's end: ", length, " bytes at byte ", position,
                             " of ", size);
    }
    position += length;
    total += length;
    if (start + total > kMaxByteArrayBytes) return ByteArrayTooLarge(what, start + total);
  }
  QUIVER_ASSIGN_OR_RETURN(uint8_t * offsets_out,
                          out->offsets.Extend(count * static_cast<int64_t>(sizeof(int32_t))));
  QUIVER_ASSIGN_OR_RETURN(uint8_t * bytes_out, out->bytes.Extend(total));
  int32_t offset = static_cast<int32_t>(start);
  position = 0;
  for (int64_t i = 0; i < count; ++i) {
    const uint32_t length = LoadLe32(data + position);
    position += 4;
    if (length > 0) std::memcpy(bytes_out, data + position, length);
    bytes_out += length;
    position += length;
    offset += static_cast<int32_t>(length);
    std::memcpy(offsets_out + i * 4, &offset, sizeof(offset));
  }
  out->count += count;
  return Status::OK();
}

}  // namespace

int32_t LastOffset(const ColumnValues& values) {
  int32_t last = 0;
  if (values.offsets.size() >= 4) {
    std::memcpy(&last, values.offsets.data() + values.offsets.size() - 4, sizeof(last));
  }
  return last;
}

Status ByteArrayTooLarge(const std::string& what, int64_t bytes) {
  return Status::Invalid(what, ": the column chunk's BYTE_ARRAY values pass 2^31 - 1 bytes (",
                         bytes, " so far), more than one Arrow array with int32 offsets holds");
}

Status AppendByteArrayOffsets(const int32_t* lengths, int64_t count, ColumnValues* out,
                              const std::string& what) {
  int64_t offset = LastOffset(*out);
  QUIVER_ASSIGN_OR_RETURN(uint8_t * dst,
                          out->offsets.Extend(count * static_cast<int64_t>(sizeof(int32_t))));
  for (int64_t i = 0; i < count; ++i) {
    offset += lengths[i];
    if (offset > kMaxByteArrayBytes) {
      out->offsets.Shrink((count - i) * static_cast<int64_t>(sizeof(int32_t)));
      return ByteArrayTooLarge(what, offset);
    }
    const int32_t value = static_cast<int32_t>(offset);
    std::memcpy(dst + i * 4, &value, sizeof(value));
  }
  return Status::OK();
}

Status DecodePlain(const uint8_t* data, int64_t size, int64_t count, ColumnValues* out,
                   const std::string& what) {
  switch (out->type) {
    case PhysicalType::kBoolean: return DecodePlainBooleans(data, size, count, out, what);
    case PhysicalType::kByteArray: return DecodePlainByteArrays(data, size, count, out, what);
    default: break;
  }
  int64_t need = 0;
  const bool overflow = __builtin_mul_overflow(count, static_cast<int64_t>(out->width), &need);
  if (overflow || need > size) {
    return Status::Invalid(what, ": PLAIN values run past the page's end: ", count, " ",
                           PhysicalTypeName(out->type), " values need ",
                           overflow ? std::string("over 2^63") : std::to_string(need),
                           " bytes, the page holds ", size);
  }
  QUIVER_ASSIGN_OR_RETURN(uint8_t * dst, out->fixed.Extend(need));
  if (need > 0) std::memcpy(dst, data, static_cast<size_t>(need));
  out->count += count;
  return Status::OK();
}

}  // namespace quiver::parquet
