// PLAIN_DICTIONARY / RLE_DICTIONARY: a byte giving the indices' bit width,
// then the indices as RLE / bit-packed hybrid runs; each index picks a value
// of the chunk's dictionary page. Also RLE booleans, the same runs at bit
// width 1 behind a 4-byte length.
#include <algorithm>
#include <cstring>
#include <string>

#include "quiver/parquet/rle_hybrid.h"
#include "quiver/parquet/value_decoders.h"

namespace quiver::parquet {

namespace {

// Indices are decoded this many at a time into a stack buffer, checked,
// then gathered.
constexpr int64_t kBatch = 1024;

template <int kWidth>
void GatherFixed(const uint8_t* dictionary, const uint32_t* indices, int64_t n, uint8_t* dst) {
  for (int64_t i = 0; i < n; ++i) {
    std::memcpy(dst + i * kWidth, dictionary + static_cast<int64_t>(indices[i]) * kWidth, kWidth);
  }
}

void GatherFixed(const uint8_t* dictionary, int width, const uint32_t* indices, int64_t n,
                 uint8_t* dst) {
  switch (width) {
    case 1: return GatherFixed<1>(dictionary, indices, n, dst);
    case 2: return GatherFixed<2>(dictionary, indices, n, dst);
    case 4: return GatherFixed<4>(dictionary, indices, n, dst);
    case 8: return GatherFixed<8>(dictionary, indices, n, dst);
    case 12: return GatherFixed<12>(dictionary, indices, n, dst);
    case 16: return GatherFixed<16>(dictionary, indices, n, dst);
    default: break;
  }
  const size_t w = static_cast<size_t>(width);
  for (int64_t i = 0; i < n; ++i) {
    std::memcpy(dst + static_cast<size_t>(i) * w, dictionary + indices[i] * w, w);
  }
}

// The first index of a batch that the dictionary lacks, as an error.
Status CheckIndices(const uint32_t* indices, int64_t n, int64_t dictionary_count,
                    const std::string& what) {
  uint32_t max = 0;
  for (int64_t i = 0; i < n; ++i) max = std::max(max, indices[i]);
  if (static_cast<int64_t>(max) < dictionary_count) return Status::OK();
  for (int64_t i = 0; i < n; ++i) {
    if (static_cast<int64_t>(indices[i]) >= dictionary_count) {
      return Status::Invalid(what, ": dictionary index ", indices[i],
                             " is out of range (the dictionary holds ", dictionary_count,
                             " values)");
    }
  }
  return Status::OK();
}

int32_t OffsetAt(const ColumnValues& values, int64_t i) {
  int32_t offset;
  std::memcpy(&offset, values.offsets.data() + i * 4, sizeof(offset));
  return offset;
}

}  // namespace

Status DecodeDictionary(const uint8_t* data, int64_t size, int64_t count,
                        const ColumnValues& dictionary, ColumnValues* out,
                        const std::string& what) {
  if (count == 0) return Status::OK();
  if (size < 1) {
    return Status::Invalid(what, ": a dictionary-encoded page of ", count,
                           " values without its bit width byte");
  }
  const int bit_width = data[0];
  if (bit_width > 32) {
    return Status::Invalid(what, ": dictionary indices of bit width ", bit_width, " (0 to 32)");
  }
  RleHybridDecoder decoder(data + 1, size - 1, bit_width, what + ": dictionary indices");
  uint32_t indices[kBatch];
  if (out->type != PhysicalType::kByteArray) {
    const int width = out->width;
    int64_t bytes = 0;
    if (__builtin_mul_overflow(count, static_cast<int64_t>(width), &bytes)) {
      return Status::Invalid(what, ": ", count, " values of ", width, " bytes pass 2^63 bytes");
    }
    QUIVER_ASSIGN_OR_RETURN(uint8_t * dst, out->fixed.Extend(bytes));
    for (int64_t done = 0; done < count;) {
      const int64_t n = std::min(kBatch, count - done);
      QUIVER_RETURN_NOT_OK(decoder.Decode(indices, n));
      QUIVER_RETURN_NOT_OK(CheckIndices(indices, n, dictionary.count, what));
      GatherFixed(dictionary.fixed.data(), width, indices, n, dst + done * width);
      done += n;
    }
    out->count += count;
    return Status::OK();
  }
  // BYTE_ARRAY: per batch, the lengths give the offsets and the bytes to
  // reserve, then the bytes are copied.
  int32_t lengths[kBatch];
  const uint8_t* dictionary_bytes = dictionary.bytes.data();
  for (int64_t done = 0; done < count;) {
    const int64_t n = std::min(kBatch, count - done);
    QUIVER_RETURN_NOT_OK(decoder.Decode(indices, n));
    QUIVER_RETURN_NOT_OK(CheckIndices(indices, n, dictionary.count, what));
    int64_t total = 0;
    for (int64_t i = 0; i < n; ++i) {
      lengths[i] = OffsetAt(dictionary, indices[i] + 1) - OffsetAt(dictionary, indices[i]);
      total += lengths[i];
    }
    QUIVER_RETURN_NOT_OK(AppendByteArrayOffsets(lengths, n, out, what));
    QUIVER_ASSIGN_OR_RETURN(uint8_t * dst, out->bytes.Extend(total));
    for (int64_t i = 0; i < n; ++i) {
      const size_t length = static_cast<size_t>(lengths[i]);
      if (length > 0) {
        std::memcpy(dst, dictionary_bytes + OffsetAt(dictionary, indices[i]), length);
      }
      dst += length;
    }
    done += n;
  }
  out->count += count;
  return Status::OK();
}

Status DecodeRleBoolean(const uint8_t* data, int64_t size, int64_t count, ColumnValues* out,
                        const std::string& what) {
  if (count == 0) return Status::OK();
  if (size < 4) {
    return Status::Invalid(what, ": RLE booleans need a 4-byte length, the page holds ", size,
                           " bytes");
  }
  const uint32_t length = static_cast<uint32_t>(data[0]) | static_cast<uint32_t>(data[1]) << 8 |
                          static_cast<uint32_t>(data[2]) << 16 |
                          static_cast<uint32_t>(data[3]) << 24;
  if (length > static_cast<uint64_t>(size - 4)) {
    return Status::Invalid(what, ": RLE booleans say ", length, " bytes of runs, the page holds ",
                           size - 4, " after the length");
  }
  RleHybridDecoder decoder(data + 4, length, 1, what + ": RLE booleans");
  QUIVER_ASSIGN_OR_RETURN(uint8_t * dst, out->fixed.Extend(count));
  uint32_t values[kBatch];
  for (int64_t done = 0; done < count;) {
    const int64_t n = std::min(kBatch, count - done);
    QUIVER_RETURN_NOT_OK(decoder.Decode(values, n));
    for (int64_t i = 0; i < n; ++i) dst[done + i] = static_cast<uint8_t>(values[i]);
    done += n;
  }
  out->count += count;
  return Status::OK();
}

}  // namespace quiver::parquet
