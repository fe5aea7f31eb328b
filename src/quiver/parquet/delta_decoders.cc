// The delta encodings. DELTA_BINARY_PACKED: a header (values per block,
// miniblocks per block, total count, first value as a zigzag varint), then
// blocks of a zigzag varint minimum delta, one bit-width byte per miniblock
// and the miniblocks, each `values per miniblock` deltas (less the minimum)
// packed LSB first; sums wrap modulo 2^32 / 2^64. DELTA_LENGTH_BYTE_ARRAY:
// the lengths so encoded, then the bytes back to back. DELTA_BYTE_ARRAY:
// prefix lengths so encoded, then the suffixes as DELTA_LENGTH_BYTE_ARRAY;
// each value is that many leading bytes of the previous value, then its
// suffix.
#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

#include "quiver/parquet/value_decoders.h"

namespace quiver::parquet {

namespace {

// Value bits [bit, bit + width) of LSB-first packed bytes at `p`, for a
// width of 0 to 64; reads no byte past the value's own.
inline uint64_t ReadBits(const uint8_t* p, int64_t bit, int width) {
  if (width > 56) {
    return ReadBits(p, bit, 32) | ReadBits(p, bit + 32, width - 32) << 32;
  }
  if (width == 0) return 0;
  const uint8_t* q = p + (bit >> 3);
  const int shift = static_cast<int>(bit & 7);
  const int bytes = (shift + width + 7) >> 3;
  uint64_t word = 0;
  for (int b = 0; b < bytes; ++b) word |= static_cast<uint64_t>(q[b]) << (8 * b);
  return (word >> shift) & ((uint64_t{1} << width) - 1);
}

// The same, for a width of 1 to 56 with 8 bytes readable at the value's
// first byte: one unaligned load.
inline uint64_t ReadBitsWide(const uint8_t* p, int64_t bit, int width) {
  uint64_t word;
  std::memcpy(&word, p + (bit >> 3), sizeof(word));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  word = __builtin_bswap64(word);
#endif
  return (word >> (bit & 7)) & ((uint64_t{1} << width) - 1);
}

// A DELTA_BINARY_PACKED run of values of type T (uint32_t for INT32 and
// lengths, uint64_t for INT64) over bytes it does not own.
template <typename T>
class DeltaReader {
 public:
  static constexpr int kBits = sizeof(T) * 8;

  DeltaReader(const uint8_t* data, int64_t size, const std::string& what)
      : data_(data), size_(size), what_(what) {}

  // Reads the header, whose total count must be `count`.
  Status Start(int64_t count) {
    uint64_t block_size = 0, miniblocks = 0, total = 0, first = 0;
    QUIVER_RETURN_NOT_OK(Varint(&block_size, "the block size"));
    QUIVER_RETURN_NOT_OK(Varint(&miniblocks, "the miniblock count"));
    QUIVER_RETURN_NOT_OK(Varint(&total, "the value count"));
    QUIVER_RETURN_NOT_OK(Varint(&first, "the first value"));
    if (block_size == 0 || block_size % 128 != 0 || block_size > (uint64_t{1} << 31)) {
      return Status::Invalid(what_, ": a DELTA_BINARY_PACKED block of ", block_size,
                             " values (a positive multiple of 128)");
    }
    if (miniblocks == 0 || block_size % miniblocks != 0 || (block_size / miniblocks) % 32 != 0) {
      return Status::Invalid(what_, ": DELTA_BINARY_PACKED blocks of ", block_size, " values in ",
                             miniblocks, " miniblocks (each a multiple of 32 values)");
    }
    if (total != static_cast<uint64_t>(count)) {
      return Status::Invalid(what_, ": the DELTA_BINARY_PACKED header says ", total,
                             " values, the page holds ", count);
    }
    // Each block takes a varint and a width byte per miniblock at least: a
    // count the page's bytes cannot hold is refused before any allocation.
    const uint64_t blocks = count > 1 ? (static_cast<uint64_t>(count) - 2) / block_size + 1 : 0;
    if (blocks > 0 && static_cast<uint64_t>(size_ - position_) / (1 + miniblocks) < blocks) {
      return Status::Invalid(what_, ": DELTA_BINARY_PACKED values run past the page's end: ", count,
                             " values need ", blocks, " blocks of at least ", 1 + miniblocks,
                             " bytes, ", size_ - position_, " bytes are left");
    }
    miniblocks_ = static_cast<int64_t>(miniblocks);
    per_miniblock_ = static_cast<int64_t>(block_size / miniblocks);
    total_ = count;
    first_ = static_cast<T>(ZigZag(first));
    return Status::OK();
  }

  // All the values, each stored little endian at dst + i * sizeof(T).
  Status Decode(uint8_t* dst) {
    if (total_ == 0) return Status::OK();
    T last = first_;
    std::memcpy(dst, &last, sizeof(T));
    int64_t i = 1;
    while (i < total_) {
      uint64_t min_delta_bits = 0;
      QUIVER_RETURN_NOT_OK(Varint(&min_delta_bits, "a block's minimum delta"));
      const T min_delta = static_cast<T>(ZigZag(min_delta_bits));
      if (size_ - position_ < miniblocks_) {
        return Status::Invalid(what_, ": DELTA_BINARY_PACKED bit widths of ", miniblocks_,
                               " miniblocks run past the page's end at byte ", position_, " of ",
                               size_);
      }
      const uint8_t* widths = data_ + position_;
      position_ += miniblocks_;
      for (int64_t m = 0; m < miniblocks_ && i < total_; ++m) {
        const int width = widths[m];
        if (width > kBits) {
          return Status::Invalid(what_, ": a DELTA_BINARY_PACKED miniblock of bit width ", width,
                                 " (0 to ", kBits, ")");
        }
        const int64_t bytes = per_miniblock_ * width / 8;
        if (bytes > size_ - position_) {
          return Status::Invalid(what_, ": a DELTA_BINARY_PACKED miniblock of ", per_miniblock_,
                                 " values of ", width, " bits runs past the page's end at byte ",
                                 position_, " of ", size_);
        }
        const uint8_t* packed = data_ + position_;
        const int64_t n = std::min(per_miniblock_, total_ - i);
        uint8_t* out = dst + i * static_cast<int64_t>(sizeof(T));
        if (width == 0) {
          for (int64_t k = 0; k < n; ++k) {
            last = static_cast<T>(last + min_delta);
            std::memcpy(out + k * sizeof(T), &last, sizeof(T));
          }
        } else {
          // Values whose 8 bytes from their first lie inside the miniblock
          // take one load each; the last few are read byte by byte.
          int64_t k = 0;
          if (width <= 56) {
            const int64_t fast = std::min(n, bytes >= 8 ? ((bytes - 8) * 8) / width + 1 : 0);
            for (; k < fast; ++k) {
              const T delta = static_cast<T>(ReadBitsWide(packed, k * width, width));
              last = static_cast<T>(last + static_cast<T>(min_delta + delta));
              std::memcpy(out + k * sizeof(T), &last, sizeof(T));
            }
          }
          for (; k < n; ++k) {
            const T delta = static_cast<T>(ReadBits(packed, k * width, width));
            last = static_cast<T>(last + static_cast<T>(min_delta + delta));
            std::memcpy(out + k * sizeof(T), &last, sizeof(T));
          }
        }
        position_ += bytes;
        i += n;
      }
    }
    return Status::OK();
  }

  // Bytes read: after Decode, through the last miniblock holding a value.
  int64_t position() const { return position_; }

 private:
  static uint64_t ZigZag(uint64_t n) { return (n >> 1) ^ (~(n & 1) + 1); }

  Status Varint(uint64_t* out, const char* field) {
    uint64_t value = 0;
    for (int shift = 0;; shift += 7) {
      if (position_ >= size_) {
        return Status::Invalid(what_, ": DELTA_BINARY_PACKED ", field,
                               " runs past the page's end at byte ", position_);
      }
      if (shift > 63) {
        return Status::Invalid(what_, ": DELTA_BINARY_PACKED ", field,
                               " is a varint longer than 64 bits");
      }
      const uint8_t byte = data_[position_++];
      value |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) break;
    }
    *out = value;
    return Status::OK();
  }

  const uint8_t* data_;
  int64_t size_;
  const std::string& what_;
  int64_t position_ = 0;
  int64_t miniblocks_ = 0;
  int64_t per_miniblock_ = 0;
  int64_t total_ = 0;
  T first_ = 0;
};

// `count` DELTA_BINARY_PACKED lengths (none negative) into `lengths`; the
// bytes they took into *consumed.
Status DecodeLengths(const uint8_t* data, int64_t size, int64_t count, const std::string& what,
                     ValueBuffer* lengths, int64_t* consumed, int64_t* sum) {
  DeltaReader<uint32_t> reader(data, size, what);
  QUIVER_RETURN_NOT_OK(reader.Start(count));
  QUIVER_ASSIGN_OR_RETURN(uint8_t * dst, lengths->Extend(count * 4));
  QUIVER_RETURN_NOT_OK(reader.Decode(dst));
  const int32_t* values = reinterpret_cast<const int32_t*>(dst);
  int64_t total = 0;
  for (int64_t i = 0; i < count; ++i) {
    if (values[i] < 0) {
      return Status::Invalid(what, ": length ", i, " is negative (", values[i], ")");
    }
    total += values[i];
  }
  *consumed = reader.position();
  *sum = total;
  return Status::OK();
}

}  // namespace

Status DecodeDeltaBinaryPacked(const uint8_t* data, int64_t size, int64_t count, ColumnValues* out,
                               const std::string& what) {
  const int64_t width = out->width;
  QUIVER_ASSIGN_OR_RETURN(uint8_t * dst, out->fixed.Extend(count * width));
  if (width == 4) {
    DeltaReader<uint32_t> reader(data, size, what);
    QUIVER_RETURN_NOT_OK(reader.Start(count));
    QUIVER_RETURN_NOT_OK(reader.Decode(dst));
  } else {
    DeltaReader<uint64_t> reader(data, size, what);
    QUIVER_RETURN_NOT_OK(reader.Start(count));
    QUIVER_RETURN_NOT_OK(reader.Decode(dst));
  }
  out->count += count;
  return Status::OK();
}

Status DecodeDeltaLengthByteArray(const uint8_t* data, int64_t size, int64_t count,
                                  ColumnValues* out, const std::string& what) {
  ValueBuffer lengths;
  int64_t consumed = 0, total = 0;
  QUIVER_RETURN_NOT_OK(DecodeLengths(data, size, count, what + ": DELTA_LENGTH_BYTE_ARRAY lengths",
                                     &lengths, &consumed, &total));
  if (total > size - consumed) {
    return Status::Invalid(what, ": DELTA_LENGTH_BYTE_ARRAY values of ", total,
                           " bytes in all run past the page's end: ", size - consumed,
                           " bytes follow the lengths");
  }
  QUIVER_RETURN_NOT_OK(
      AppendByteArrayOffsets(reinterpret_cast<const int32_t*>(lengths.data()), count, out, what));
  QUIVER_RETURN_NOT_OK(out->bytes.Append(data + consumed, total));
  out->count += count;
  return Status::OK();
}

Status DecodeDeltaByteArray(const uint8_t* data, int64_t size, int64_t count, ColumnValues* out,
                            const std::string& what) {
  ValueBuffer prefix_buffer, suffix_buffer;
  int64_t prefix_bytes = 0, suffix_bytes = 0, prefix_total = 0, suffix_total = 0;
  QUIVER_RETURN_NOT_OK(DecodeLengths(data, size, count, what + ": DELTA_BYTE_ARRAY prefix lengths",
                                     &prefix_buffer, &prefix_bytes, &prefix_total));
  QUIVER_RETURN_NOT_OK(DecodeLengths(data + prefix_bytes, size - prefix_bytes, count,
                                     what + ": DELTA_BYTE_ARRAY suffix lengths", &suffix_buffer,
                                     &suffix_bytes, &suffix_total));
  const int64_t suffix_start = prefix_bytes + suffix_bytes;
  if (suffix_total > size - suffix_start) {
    return Status::Invalid(what, ": DELTA_BYTE_ARRAY suffixes of ", suffix_total,
                           " bytes in all run past the page's end: ", size - suffix_start,
                           " bytes follow the lengths");
  }
  const int32_t* prefixes = reinterpret_cast<const int32_t*>(prefix_buffer.data());
  const int32_t* suffixes = reinterpret_cast<const int32_t*>(suffix_buffer.data());
  const uint8_t* suffix = data + suffix_start;
  // The previous value of the first is the column's last one: some writers
  // (parquet-mr before 1.8) carried prefixes across the pages of a chunk.
  if (out->type == PhysicalType::kFixedLenByteArray) {
    const int64_t width = out->width;
    const int64_t before = out->fixed.size();
    int64_t previous_length = out->count > 0 ? width : 0;
    for (int64_t i = 0; i < count; ++i) {
      if (prefixes[i] > previous_length || prefixes[i] + int64_t{suffixes[i]} != width) {
        return Status::Invalid(what, ": DELTA_BYTE_ARRAY value ", i, " has a prefix of ",
                               prefixes[i], " bytes (the previous value has ", previous_length,
                               ") and a suffix of ", suffixes[i], " bytes, not ", width,
                               " bytes in all");
      }
      previous_length = width;
    }
    int64_t bytes = 0;
    if (__builtin_mul_overflow(count, width, &bytes)) {
      return Status::Invalid(what, ": ", count, " values of ", width, " bytes pass 2^63 bytes");
    }
    QUIVER_RETURN_NOT_OK(out->fixed.Extend(bytes).status());
    uint8_t* dst = out->fixed.mutable_data() + before;
    for (int64_t i = 0; i < count; ++i) {
      if (prefixes[i] > 0) std::memcpy(dst, dst - width, static_cast<size_t>(prefixes[i]));
      std::memcpy(dst + prefixes[i], suffix, static_cast<size_t>(suffixes[i]));
      suffix += suffixes[i];
      dst += width;
    }
    out->count += count;
    return Status::OK();
  }
  // BYTE_ARRAY: check each prefix against the previous value's length and
  // sum the values' bytes, then write the offsets and the bytes.
  const int32_t start = LastOffset(*out);
  int64_t previous_length = 0;
  if (out->count > 0 && out->offsets.size() >= 8) {
    int32_t previous_start;
    std::memcpy(&previous_start, out->offsets.data() + out->offsets.size() - 8, 4);
    previous_length = start - previous_start;
  }
  int64_t previous = start - previous_length;  // where the previous value starts
  int64_t total = 0;
  ValueBuffer length_buffer;
  QUIVER_ASSIGN_OR_RETURN(uint8_t * length_bytes, length_buffer.Extend(count * 4));
  int32_t* lengths = reinterpret_cast<int32_t*>(length_bytes);
  for (int64_t i = 0; i < count; ++i) {
    if (prefixes[i] > previous_length) {
      return Status::Invalid(what, ": DELTA_BYTE_ARRAY value ", i, " has a prefix of ", prefixes[i],
                             " bytes, the previous value only ", previous_length);
    }
    previous_length = int64_t{prefixes[i]} + suffixes[i];
    if (previous_length > std::numeric_limits<int32_t>::max() - start - total) {
      return ByteArrayTooLarge(what, start + total + previous_length);
    }
    lengths[i] = static_cast<int32_t>(previous_length);
    total += previous_length;
  }
  QUIVER_RETURN_NOT_OK(AppendByteArrayOffsets(lengths, count, out, what));
  QUIVER_RETURN_NOT_OK(out->bytes.Extend(total).status());
  uint8_t* base = out->bytes.mutable_data();
  int64_t write = start;
  for (int64_t i = 0; i < count; ++i) {
    uint8_t* dst = base + write;
    if (prefixes[i] > 0) std::memcpy(dst, base + previous, static_cast<size_t>(prefixes[i]));
    if (suffixes[i] > 0) std::memcpy(dst + prefixes[i], suffix, static_cast<size_t>(suffixes[i]));
    suffix += suffixes[i];
    previous = write;
    write += lengths[i];
  }
  out->count += count;
  return Status::OK();
}

}  // namespace quiver::parquet
