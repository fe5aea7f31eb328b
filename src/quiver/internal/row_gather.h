// Internal: the row copies behind take, filter and concatenate of rows of
// a fixed number of bytes (numbers, fixed-size lists of them, tensor
// cells), with the chunks of a column read as one sequence of rows.
//
// The copies are bound by memory latency (a random take) or bandwidth
// (a mask, a concatenation), not by arithmetic: the kernels keep the loop
// that touches the source as short as possible so that many loads are in
// flight, prefetch the rows ahead, and split a large output between
// threads, each writing its own range.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace quiver::internal {

// One chunk's rows: `values` points at its row 0 (the chunk's offset
// applied; null only when it has no rows), `validity` at its bitmap (null:
// every row valid) whose bit `validity_offset` is row 0's.
struct FlatChunk {
  const uint8_t* values = nullptr;
  const uint8_t* validity = nullptr;
  int64_t validity_offset = 0;
  int64_t length = 0;
};

// Which chunk holds a row of the sequence. A table of buckets of rows
// names the chunk of each bucket's first row, and a short step forward
// covers the chunks inside a bucket: constant time for chunks of similar
// sizes, without the chain of dependent loads a binary search costs on
// every row.
class ChunkFinder {
 public:
  explicit ChunkFinder(std::span<const FlatChunk> chunks);
  // Chunks of these lengths.
  explicit ChunkFinder(std::vector<int64_t> lengths);
  int64_t length() const { return length_; }
  // Precondition: 0 <= row < length().
  size_t Find(int64_t row) const {
    size_t c = buckets_[static_cast<size_t>(row >> shift_)];
    c += static_cast<size_t>(row >= ends_[c]);  // the common step, without a branch
    while (row >= ends_[c]) ++c;                // empty or small chunks stepped over
    return c;
  }
  int64_t start(size_t c) const { return ends_[c] - lengths_[c]; }

 private:
  std::vector<int64_t> ends_;     // one past each chunk's last row
  std::vector<int64_t> lengths_;  // each chunk's rows
  std::vector<uint32_t> buckets_;
  int shift_ = 0;
  int64_t length_ = 0;
};

// The rows `rows` names of `chunks`, `width` bytes each, into `values`
// (rows.size() * width bytes); when `validity` is not null, their
// validity bits too, into a bitmap that starts all 0. Threads share a
// large output. Each row is checked to lie in [0, length) as it is read:
// returns the position of the first that does not (the output is then
// partly written), or -1.
int64_t GatherRows(std::span<const FlatChunk> chunks, int64_t width, std::span<const int64_t> rows,
                   uint8_t* values, uint8_t* validity);

// Rows [begin, begin + length) of a sequence.
struct RowRun {
  int64_t begin;
  int64_t length;
};

// A filter's mask as RowMask packs it: bit i % 64 of words[i / 64] is
// set when row i of `length` is kept (bits past `length` are 0), `kept`
// rows in all.
struct MaskWords {
  const uint64_t* words;
  int64_t length;
  int64_t kept;
};

// The runs of kept rows of a mask, found in one pass over its words;
// when there are more than `max_runs` (a mask whose rows alternate),
// `runs` is empty and `complete` false. `kept` is the mask's.
struct MarkedRuns {
  int64_t kept = 0;
  bool complete = true;
  std::vector<RowRun> runs;
};
MarkedRuns FindMarkedRuns(const MaskWords& mask, size_t max_runs);

// The rows `mask` keeps (its length is the rows of `chunks`), in order,
// into `values` (mask.kept * width bytes) and, when not null, `validity`
// (all 0 beforehand), as GatherRows.
void FilterRows(std::span<const FlatChunk> chunks, int64_t width, const MaskWords& mask,
                uint8_t* values, uint8_t* validity);

// One memcpy of a concatenation.
struct CopyRange {
  uint8_t* dst;
  const uint8_t* src;
  int64_t size;
};

// Runs every copy, large ones cut into pieces shared between threads.
void CopyRanges(std::span<const CopyRange> copies);

}  // namespace quiver::internal
