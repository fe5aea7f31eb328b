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

// The 8 values of the bit-packed group at `packed` (which holds `width`
// bytes): copied into a padded local block first, so that each value is
// one unaligned 64-bit load whatever the bytes after the group.
inline void UnpackGroup(const uint8_t* packed, int width, uint32_t* out) {
  uint8_t local[40] = {};
  std::memcpy(local, packed, static_cast<size_t>(width));
  const uint64_t mask = (uint64_t{1} << width) - 1;
  for (int j = 0; j < 8; ++j) {
    const int bit = j * width;
    uint64_t word;
    std::memcpy(&word, local + bit / 8, sizeof(word));
    out[j] = static_cast<uint32_t>((word >> (bit % 8)) & mask);
  }
}

// Values [index, index + n) of a bit-packed run: whole groups of 8 at a
// time where they are aligned, one by one at the edges.
void UnpackValues(const uint8_t* packed, int64_t index, int64_t n, int width, uint32_t* out) {
  if (width == 0) {
    std::fill(out, out + n, 0u);
    return;
  }
  int64_t i = 0;
  while (i < n) {
    const int64_t at = index + i;
    if (at % 8 == 0 && n - i >= 8) {
      UnpackGroup(packed + (at / 8) * width, width, out + i);
      i += 8;
    } else {
      out[i] = PackedValue(packed, at, width);
      ++i;
    }
  }
}

}  // namespace

Result<int64_t> RleHybridDecoder::DecodeRun(int64_t max, uint32_t* out, bool* repeated,
                                            uint32_t* value) {
  if (left_ == 0) QUIVER_RETURN_NOT_OK(NextRun());
  const int64_t n = std::min(max, left_);
  *repeated = !packed_;
  if (packed_) {
    UnpackValues(data_ + packed_start_, packed_index_, n, bit_width_, out);
    packed_index_ += n;
  } else {
    *value = repeated_;
  }
  left_ -= n;
  return n;
}

Status RleHybridDecoder::Decode(uint32_t* out, int64_t count) {
  while (count > 0) {
    if (left_ == 0) QUIVER_RETURN_NOT_OK(NextRun());
    const int64_t n = std::min(count, left_);
    if (packed_) {
      UnpackValues(data_ + packed_start_, packed_index_, n, bit_width_, out);
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
    // LSB first through a 64-bit accumulator (a value is at most 32 bits).
    const size_t at = out.size();
    out.resize(at + static_cast<size_t>(groups * bit_width), '\0');
    char* packed = out.data() + at;
    uint64_t accumulator = 0;
    int bits = 0;
    const uint64_t mask = bit_width == 32 ? 0xffffffffull : (uint64_t{1} << bit_width) - 1;
    for (int64_t k = start; k < i; ++k) {
      accumulator |= (values[k] & mask) << bits;
      bits += bit_width;
      while (bits >= 8) {
        *packed++ = static_cast<char>(accumulator);
        accumulator >>= 8;
        bits -= 8;
      }
    }
    if (bits > 0) *packed = static_cast<char>(accumulator);
  }
  return out;
}

}  // namespace quiver::parquet
