// The rows a filter keeps, packed one bit a row: what Filter reads, made
// once from a caller's one-byte-a-row mask.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace quiver {

class RowMask {
 public:
  // From one byte a row: row i is kept where bytes[i] is not 0. `bytes` is
  // read once, here: the mask is a snapshot, whatever happens to the bytes
  // afterwards. An eighth of their size, so a filter's later passes read
  // 125 KB for 10^6 rows where they would read a megabyte. (There is no
  // default constructor, so that a mask written `{}` still means the byte
  // span of the functions that take either.)
  static RowMask FromBytes(std::span<const uint8_t> bytes);

  // Rows the mask covers, and how many of them it keeps.
  int64_t length() const { return length_; }
  int64_t kept() const { return kept_; }
  // Bit i % 64 of word i / 64 is set when row i is kept; bits past
  // length() are 0.
  std::span<const uint64_t> words() const { return words_; }
  // Precondition: 0 <= row < length().
  bool Keeps(int64_t row) const {
    return (words_[static_cast<size_t>(row >> 6)] >> (row & 63)) & 1;
  }

 private:
  RowMask(std::vector<uint64_t> words, int64_t length, int64_t kept)
      : words_(std::move(words)), length_(length), kept_(kept) {}

  std::vector<uint64_t> words_;
  int64_t length_ = 0;
  int64_t kept_ = 0;
};

}  // namespace quiver
