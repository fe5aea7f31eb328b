#include "quiver/parquet/rle_hybrid.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "quiver/parquet/varint.h"

namespace quiver::parquet {

int BitWidthOf(uint32_t max_value) { return max_value == 0 ? 0 : 32 - __builtin_clz(max_value); }

RleHybridDecoder::RleHybridDecoder(const uint8_t* data, int64_t size, int bit_width,
                                   std::string what)
    : data_(data), size_(size), bit_width_(bit_width), what_(std::move(what)) {}

Status RleHybridDecoder::Error(const std::string& message) const {
  return Status::Invalid(what_, ": ", message, " at byte ", position_);
}

Status RleHybridDecoder::NextRun() {
  if (bit_width_ < 0 || bit_width_ > 32) {
    return Error("a bit width of " + std::to_string(bit_width_) + " (0 to 32)");
  }
  uint64_t header = 0;
  for (int shift = 0;; shift += 7) {
    if (position_ >= size_) return Error("the values end before the page's count");
    if (shift > 63) return Error("a run header's varint runs past 64 bits");
    const uint8_t byte = data_[position_++];
    header |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if (!(byte & 0x80)) break;
  }
  const int64_t left = size_ - position_;
  if (header & 1) {  // bit-packed: groups of 8 values in bit_width bytes each
    const uint64_t groups = header >> 1;
    if (groups == 0) return Error("an empty bit-packed run");
    if (bit_width_ > 0 && groups > static_cast<uint64_t>(left / bit_width_)) {
      return Error("a bit-packed run of " + std::to_string(groups) + " groups of " +
                   std::to_string(bit_width_) + " bytes runs past the " + std::to_string(left) +
                   " bytes left");
    }
    // Never more than the values a page can hold: 8 * groups fits in int64.
    if (groups > (uint64_t{1} << 59)) return Error("a bit-packed run too long to be real");
    packed_ = true;
    left_ = static_cast<int64_t>(groups * 8);
    packed_start_ = position_;
    packed_index_ = 0;
    position_ += static_cast<int64_t>(groups) * bit_width_;
    return Status::OK();
  }
  const uint64_t count = header >> 1;
  if (count == 0) return Error("an empty repeated run");
  if (count > (uint64_t{1} << 62)) return Error("a repeated run too long to be real");
  const int bytes = (bit_width_ + 7) / 8;
  if (bytes > left) return Error("a repeated run's value runs past the bytes left");
  uint32_t value = 0;
  for (int i = 0; i < bytes; ++i) value |= static_cast<uint32_t>(data_[position_ + i]) << (8 * i);
  position_ += bytes;
  if (bit_width_ < 32 && (value >> bit_width_) != 0) {
    return Error("a repeated value " + std::to_string(value) + " wider than " +
                 std::to_string(bit_width_) + " bits");
  }
  packed_ = false;
  left_ = static_cast<int64_t>(count);
  repeated_ = value;
  return Status::OK();
}

namespace {

// Value `index` of bit-packed values of `width` bits starting at `packed`,
// reading no byte past the value's own.
inline uint32_t PackedValue(const uint8_t* packed, int64_t index, int width) {
  if (width == 0) return 0;
  const int64_t bit = index * width;
  const uint8_t* p = packed + bit / 8;
  const int shift = static_cast<int>(bit % 8);
  const int bytes = (shift + width + 7) / 8;  // at most 5
  uint64_t word = 0;
  for (int i = 0; i < bytes; ++i) word |= static_cast<uint64_t>(p[i]) << (8 * i);
  const uint64_t mask = (uint64_t{1} << width) - 1;
  return static_cast<uint32_t>((word >> shift) & mask);
}

// The same with one 8-byte load, where the run has 8 bytes from the
// value's first byte.
inline uint32_t PackedValueWide(const uint8_t* packed, int64_t index, int width) {
  const int64_t bit = index * width;
  uint64_t word;
  std::memcpy(&word, packed + bit / 8, sizeof(word));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  word = __builtin_bswap64(word);
#endif
  return static_cast<uint32_t>((word >> (bit % 8)) & ((uint64_t{1} << width) - 1));
}

}  // namespace

Status RleHybridDecoder::Decode(uint32_t* out, int64_t count) {
  while (count > 0) {
    if (left_ == 0) QUIVER_RETURN_NOT_OK(NextRun());
    const int64_t n = std::min(count, left_);
    if (packed_) {
      const uint8_t* run = data_ + packed_start_;
      int64_t i = 0;
      if (bit_width_ > 0) {
        // The run holds (packed_index_ + left_) values in whole groups;
        // values up to `wide` have 8 bytes from their first inside it.
        const int64_t run_bytes = (packed_index_ + left_) * bit_width_ / 8;
        const int64_t wide = run_bytes >= 8 ? (run_bytes - 8) * 8 / bit_width_ + 1 : 0;
        const int64_t fast = std::clamp<int64_t>(wide - packed_index_, 0, n);
        for (; i < fast; ++i) out[i] = PackedValueWide(run, packed_index_ + i, bit_width_);
      }
      for (; i < n; ++i) out[i] = PackedValue(run, packed_index_ + i, bit_width_);
      packed_index_ += n;
    } else {
      std::fill(out, out + n, repeated_);
    }
    out += n;
    count -= n;
    left_ -= n;
  }
  return Status::OK();
}

Result<bool> RleHybridDecoder::NextAllEqual(int64_t count, uint32_t value) {
  bool all = true;
  while (count > 0) {
    if (left_ == 0) QUIVER_RETURN_NOT_OK(NextRun());
    const int64_t n = std::min(count, left_);
    if (packed_) {
      for (int64_t i = 0; i < n && all; ++i) {
        all = PackedValue(data_ + packed_start_, packed_index_ + i, bit_width_) == value;
      }
      packed_index_ += n;
    } else {
      all = all && repeated_ == value;
    }
    count -= n;
    left_ -= n;
  }
  return all;
}

namespace {

// How many values from `i` on equal values[i].
int64_t RunLength(const uint32_t* values, int64_t count, int64_t i) {
  int64_t n = 1;
  while (i + n < count && values[i + n] == values[i]) ++n;
  return n;
}

}  // namespace

std::string EncodeRleHybrid(const uint32_t* values, int64_t count, int bit_width) {
  std::string out;
  const int value_bytes = (bit_width + 7) / 8;
  int64_t i = 0;
  while (i < count) {
    const int64_t same = RunLength(values, count, i);
    if (same >= 8) {
      AppendVarint(out, static_cast<uint64_t>(same) << 1);
      for (int b = 0; b < value_bytes; ++b) out.push_back(static_cast<char>(values[i] >> (8 * b)));
      i += same;
      continue;
    }
    // Bit-pack whole groups of 8 until a run of 8 equal values starts at a
    // group's end (only the last group, at the end of the values, may be
    // short: its padding is never read as values).
    const int64_t start = i;
    while (i < count) {
      i += std::min<int64_t>(8, count - i);
      if (i < count && RunLength(values, count, i) >= 8) break;
    }
    const int64_t groups = (i - start + 7) / 8;
    AppendVarint(out, static_cast<uint64_t>(groups) << 1 | 1);
    std::string packed(static_cast<size_t>(groups * bit_width), '\0');
    for (int64_t k = 0; k < i - start; ++k) {
      const uint32_t v = values[start + k];
      for (int b = 0; b < bit_width; ++b) {
        if (v >> b & 1) {
          const int64_t bit = k * bit_width + b;
          packed[static_cast<size_t>(bit / 8)] |= static_cast<char>(1 << (bit % 8));
        }
      }
    }
    out += packed;
  }
  return out;
}

}  // namespace quiver::parquet
