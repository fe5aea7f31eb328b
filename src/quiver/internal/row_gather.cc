#include "quiver/internal/row_gather.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <utility>

#include "quiver/internal/bitmap.h"
#include "quiver/internal/stream_copy.h"
#include "quiver/internal/threads.h"

namespace quiver::internal {

namespace {

// Rows whose addresses are prefetched ahead of the copy: enough misses in
// flight to cover the memory's latency at a few nanoseconds a row.
constexpr int64_t kAhead = 16;
// Output bytes a thread should have to be worth its start (tens of
// microseconds) and its share of the memory bandwidth.
constexpr int64_t kBytesPerThread = int64_t{1} << 20;
// Part boundaries fall on multiples of this many rows, so that threads
// writing a bitmap never share a byte of it.
constexpr int64_t kRowAlign = 64;

// Copies one row of W bytes (W = 0: `width`, known only at run time).
template <int64_t W>
inline void CopyRow(uint8_t* dst, const uint8_t* src, int64_t width) {
  if constexpr (W > 0) {
    std::memcpy(dst, src, W);
  } else {
    std::memcpy(dst, src, static_cast<size_t>(width));
  }
}

// Calls fn.template operator()<W>() with the row width as a constant for
// the common widths.
template <typename Fn>
void WithWidth(int64_t width, Fn&& fn) {
  switch (width) {
    case 1: fn.template operator()<1>(); break;
    case 2: fn.template operator()<2>(); break;
    case 4: fn.template operator()<4>(); break;
    case 8: fn.template operator()<8>(); break;
    case 16: fn.template operator()<16>(); break;
    case 32: fn.template operator()<32>(); break;
    default: fn.template operator()<0>();
  }
}

// Threads for an output of `rows` rows of `width` bytes.
int WorkersFor(int64_t rows, int64_t width) {
  const int64_t rows_per_thread =
      std::max<int64_t>(kBytesPerThread / std::max<int64_t>(width, 1), kRowAlign);
  return WorkerCount(rows, 0, rows_per_thread);
}

// Runs part(begin, end) over [0, n) cut into `workers` ranges whose
// boundaries are multiples of kRowAlign.
template <typename Part>
void InParts(int64_t n, int workers, Part&& part) {
  if (workers <= 1) {
    if (n > 0) part(int64_t{0}, n);
    return;
  }
  int64_t step = (n + workers - 1) / workers;
  step = (step + kRowAlign - 1) / kRowAlign * kRowAlign;
  RunOnThreads(workers, [&](int w) {
    const int64_t begin = std::min(n, w * step), end = std::min(n, begin + step);
    if (begin < end) part(begin, end);
  });
}

// Rows rows[0, n) to dst, each checked against the sequence's length as
// it is read (no pass of its own over the row numbers); returns the
// position of the first out of range, or -1.
template <int64_t W>
int64_t GatherValues(std::span<const FlatChunk> chunks, const ChunkFinder& finder, int64_t width,
                     const int64_t* rows, int64_t n, uint8_t* dst) {
  const int64_t w = W > 0 ? W : width;
  const auto length = static_cast<uint64_t>(finder.length());
  if (chunks.size() == 1) {  // no chunk to find: the tightest loop
    const uint8_t* base = chunks[0].values;
    const auto at = reinterpret_cast<uintptr_t>(base);
    for (int64_t j = 0; j < n; ++j) {
      // The row ahead is not checked yet: its address is computed in
      // unsigned arithmetic (no overflow), and a prefetch of a wild
      // address is harmless (it never faults).
      if (j + kAhead < n) {
        __builtin_prefetch(reinterpret_cast<const void*>(
            at + static_cast<uintptr_t>(rows[j + kAhead]) * static_cast<uintptr_t>(w)));
      }
      if (static_cast<uint64_t>(rows[j]) >= length) return j;
      CopyRow<W>(dst + j * w, base + rows[j] * w, w);
    }
    return -1;
  }
  // Each row's address is found kAhead rows before it is copied and
  // prefetched then, kept in a ring until its turn.
  const uint8_t* ring[kAhead];
  auto address = [&](int64_t row) {
    const size_t c = finder.Find(row);
    return chunks[c].values + (row - finder.start(c)) * w;
  };
  for (int64_t k = 0; k < std::min(kAhead, n); ++k) {
    if (static_cast<uint64_t>(rows[k]) >= length) return k;
    ring[k] = address(rows[k]);
    __builtin_prefetch(ring[k]);
  }
  for (int64_t j = 0; j < n; ++j) {
    const uint8_t* from = ring[j % kAhead];
    if (j + kAhead < n) {  // rows before j + kAhead were all checked
      const int64_t row = rows[j + kAhead];
      if (static_cast<uint64_t>(row) >= length) return j + kAhead;
      ring[j % kAhead] = address(row);
      __builtin_prefetch(ring[j % kAhead]);
    }
    CopyRow<W>(dst + j * w, from, w);
  }
  return -1;
}

// Validity bits of rows[0, n) into bits [first, first + n) of `bits`.
void GatherValidity(std::span<const FlatChunk> chunks, const ChunkFinder& finder,
                    const int64_t* rows, int64_t n, int64_t first, uint8_t* bits) {
  for (int64_t j = 0; j < n; ++j) {
    const size_t c = finder.Find(rows[j]);
    const FlatChunk& chunk = chunks[c];
    const int64_t local = rows[j] - finder.start(c);
    if (!chunk.validity || GetBit(chunk.validity, chunk.validity_offset + local)) {
      SetBit(bits, first + j);
    }
  }
}

// Calls run(begin, end) for each maximal run of kept rows among rows
// [begin, end) of `words` (a RowMask's), in order, until run returns
// false. Runs are cut out of each word by counting trailing zeros: a
// sparse mask costs a few instructions per 64 rows, and a run per kept
// stretch, whatever its length.
template <typename Run>
void ForEachRun(const uint64_t* words, int64_t begin, int64_t end, Run&& run) {
  int64_t open = -1;  // where a run still kept at the last word's end began
  for (int64_t base = begin & ~int64_t{63}; base < end; base += 64) {
    uint64_t bits = words[base >> 6];
    if (base < begin) bits &= ~uint64_t{0} << (begin - base);
    if (end - base < 64) bits &= (uint64_t{1} << (end - base)) - 1;
    if (open >= 0) {
      if (bits == ~uint64_t{0}) continue;       // the run goes on
      const int kept = __builtin_ctzll(~bits);  // its end in this word
      if (!run(open, base + kept)) return;
      open = -1;
      bits &= ~uint64_t{0} << kept;  // kept < 64 here
    }
    while (bits != 0) {
      const int first = __builtin_ctzll(bits);
      const uint64_t dropped = ~(bits >> first);  // 1 where not kept from `first` on
      const int length = dropped == 0 ? 64 : __builtin_ctzll(dropped);
      if (first + length == 64) {  // kept to the word's end: the next may go on
        open = base + first;
        break;
      }
      if (!run(base + first, base + first + length)) return;
      bits &= ~(((uint64_t{1} << length) - 1) << first);  // first + length < 64 here
    }
  }
  if (open >= 0) run(open, end);
}

// Rows of `words` kept among [begin, end), begin a multiple of 64 (end
// one too, or the mask's length: the bits past it are 0).
int64_t KeptIn(const uint64_t* words, int64_t begin, int64_t end) {
  if (begin >= end) return 0;  // a part past the mask's end: its last word is not its own
  int64_t kept = 0;
  for (int64_t w = begin >> 6; w < (end + 63) >> 6; ++w) kept += CountBits(words[w]);
  return kept;
}

// The kept rows of one chunk's stretch: rows [lo, hi) of the mask, whose
// values start at src, to dst; returns the rows written. Dense masks copy
// every row and advance the output by the mask (no branch to mispredict),
// stopping at the last kept row; sparse and clustered ones copy runs.
template <int64_t W>
int64_t FilterStretch(const uint8_t* src, const uint64_t* words, int64_t lo, int64_t hi, bool dense,
                      int64_t room, int64_t width, uint8_t* dst) {
  const int64_t w = W > 0 ? W : width;
  int64_t j = 0;
  if (W > 0 && W <= 16 && dense) {
    for (int64_t i = lo; i < hi && j < room; ++i) {
      CopyRow<W>(dst + j * w, src + (i - lo) * w, w);
      j += static_cast<int64_t>((words[i >> 6] >> (i & 63)) & 1);
    }
    return j;
  }
  ForEachRun(words, lo, hi, [&](int64_t begin, int64_t end) {
    const int64_t rows = end - begin;
    const uint8_t* from = src + (begin - lo) * w;
    if (W > 0 && rows <= 4) {  // a call to memcpy costs more than a few rows
      for (int64_t r = 0; r < rows; ++r) CopyRow<W>(dst + (j + r) * w, from + r * w, w);
    } else {
      std::memcpy(dst + j * w, from, static_cast<size_t>(rows * w));
    }
    j += rows;
    return true;
  });
  return j;
}

// The `kept` kept rows among [begin, end) of the sequence into dst, chunk
// by chunk.
template <int64_t W>
void FilterPart(std::span<const FlatChunk> chunks, const ChunkFinder& finder, int64_t width,
                const uint64_t* words, int64_t begin, int64_t end, int64_t kept, uint8_t* dst) {
  const int64_t w = W > 0 ? W : width;
  // Between an eighth and seven eighths kept, runs are short and their
  // ends unpredictable: the branchless copy wins.
  const int64_t rows = end - begin;
  const bool dense = kept > rows / 8 && kept < rows - rows / 8;
  int64_t written = 0;
  for (size_t c = begin < end ? finder.Find(begin) : chunks.size(); c < chunks.size(); ++c) {
    const int64_t start = finder.start(c);
    if (start >= end || written == kept) break;
    const int64_t lo = std::max(begin, start), hi = std::min(end, start + chunks[c].length);
    if (lo >= hi) continue;
    written += FilterStretch<W>(chunks[c].values + (lo - start) * w, words, lo, hi, dense,
                                kept - written, width, dst + written * w);
  }
}

// Validity bits of the kept rows.
void FilterValidity(std::span<const FlatChunk> chunks, const ChunkFinder& finder,
                    const uint64_t* words, uint8_t* bits) {
  int64_t j = 0;
  for (size_t c = 0; c < chunks.size(); ++c) {
    const FlatChunk& chunk = chunks[c];
    const int64_t start = finder.start(c);
    ForEachRun(words, start, start + chunk.length, [&](int64_t begin, int64_t end) {
      if (chunk.validity) {
        CopyBits(chunk.validity, chunk.validity_offset + (begin - start), bits, j, end - begin);
      } else {
        SetBits(bits, j, end - begin);
      }
      j += end - begin;
      return true;
    });
  }
}

}  // namespace

namespace {

std::vector<int64_t> LengthsOf(std::span<const FlatChunk> chunks) {
  std::vector<int64_t> lengths;
  lengths.reserve(chunks.size());
  for (const FlatChunk& chunk : chunks) lengths.push_back(chunk.length);
  return lengths;
}

}  // namespace

ChunkFinder::ChunkFinder(std::span<const FlatChunk> chunks) : ChunkFinder(LengthsOf(chunks)) {}

ChunkFinder::ChunkFinder(std::vector<int64_t> lengths) : lengths_(std::move(lengths)) {
  for (const int64_t length : lengths_) {
    length_ += length;
    ends_.push_back(length_);
  }
  // About eight buckets a chunk (at most 2^16): a bucket then holds at
  // most one chunk boundary when chunks are of similar sizes.
  const int64_t wanted =
      std::min<int64_t>(int64_t{8} * static_cast<int64_t>(lengths_.size()), 1 << 16);
  while (shift_ < 62 && (length_ >> shift_) > wanted) ++shift_;
  buckets_.resize(static_cast<size_t>((length_ >> shift_) + 1));
  uint32_t c = 0;
  for (size_t b = 0; b < buckets_.size(); ++b) {
    const int64_t first = static_cast<int64_t>(b) << shift_;
    while (c + 1 < ends_.size() && first >= ends_[c]) ++c;
    buckets_[b] = c;
  }
  if (ends_.empty()) buckets_.assign(1, 0);
}

int64_t GatherRows(std::span<const FlatChunk> chunks, int64_t width, std::span<const int64_t> rows,
                   uint8_t* values, uint8_t* validity) {
  const auto n = static_cast<int64_t>(rows.size());
  if (n == 0) return -1;
  const ChunkFinder finder(chunks);
  const bool any_validity = validity && std::any_of(chunks.begin(), chunks.end(),
                                                    [](const FlatChunk& c) { return c.validity; });
  std::atomic<int64_t> first_bad{n};  // the lowest position out of range, of any part
  InParts(n, WorkersFor(n, width), [&](int64_t begin, int64_t end) {
    int64_t bad = -1;
    WithWidth(width, [&]<int64_t W>() {
      bad = GatherValues<W>(chunks, finder, width, rows.data() + begin, end - begin,
                            values + begin * width);
    });
    if (bad >= 0) {
      int64_t seen = first_bad.load();
      while (begin + bad < seen && !first_bad.compare_exchange_weak(seen, begin + bad)) {
      }
      return;
    }
    if (any_validity) {
      GatherValidity(chunks, finder, rows.data() + begin, end - begin, begin, validity);
    } else if (validity) {
      SetBits(validity, begin, end - begin);
    }
  });
  return first_bad.load() < n ? first_bad.load() : -1;
}

MarkedRuns FindMarkedRuns(const MaskWords& mask, size_t max_runs) {
  MarkedRuns out;
  out.kept = mask.kept;
  ForEachRun(mask.words, 0, mask.length, [&](int64_t begin, int64_t end) {
    if (out.runs.size() == max_runs) {
      out.complete = false;
      return false;
    }
    out.runs.push_back({begin, end - begin});
    return true;
  });
  if (!out.complete) out.runs.clear();  // too many runs
  return out;
}

void FilterRows(std::span<const FlatChunk> chunks, int64_t width, const MaskWords& mask,
                uint8_t* values, uint8_t* validity) {
  const ChunkFinder finder(chunks);
  const int64_t n = mask.length;
  const uint64_t* words = mask.words;
  const int workers = WorkersFor(mask.kept, width);
  // Each part's output starts after the rows the parts before it keep.
  int64_t step = (n + workers - 1) / std::max(workers, 1);
  step = (step + kRowAlign - 1) / kRowAlign * kRowAlign;
  std::vector<int64_t> first(static_cast<size_t>(workers) + 1, 0);
  first[1] = mask.kept;
  for (int w = 0; w < workers && workers > 1; ++w) {
    const int64_t begin = std::min(n, w * step), end = std::min(n, begin + step);
    first[static_cast<size_t>(w) + 1] = first[static_cast<size_t>(w)] + KeptIn(words, begin, end);
  }
  RunOnThreads(workers, [&](int w) {
    const int64_t begin = std::min(n, w * step), end = std::min(n, begin + step);
    WithWidth(width, [&]<int64_t W>() {
      const int64_t from = first[static_cast<size_t>(w)];
      FilterPart<W>(chunks, finder, width, words, begin, end,
                    first[static_cast<size_t>(w) + 1] - from, values + from * width);
    });
  });
  if (validity) FilterValidity(chunks, finder, words, validity);
}

void CopyRanges(std::span<const CopyRange> copies) {
  int64_t total = 0;
  for (const CopyRange& copy : copies) total += copy.size;
  // An output of half the last-level cache or more is not read again from
  // the cache: its stores bypass it (StreamCopy), which saves reading each
  // destination line before writing it.
  const bool stream = total >= kStreamCopyBytes / 4;
  auto copy_bytes = [stream](uint8_t* dst, const uint8_t* src, int64_t size) {
    if (size <= 0) return;
    if (stream) {
      StreamCopy(dst, src, static_cast<size_t>(size));
    } else {
      std::memcpy(dst, src, static_cast<size_t>(size));
    }
  };
  const int workers = WorkerCount(total, 0, kBytesPerThread);
  // Each thread copies the bytes [w * share, (w + 1) * share) of the
  // concatenation, whichever copies they fall in.
  const int64_t share = (total + workers - 1) / std::max(workers, 1);
  RunOnThreads(workers, [&](int w) {
    const int64_t begin = w * share, end = std::min(total, begin + share);
    int64_t at = 0;
    for (const CopyRange& copy : copies) {
      const int64_t lo = std::max(begin, at), hi = std::min(end, at + copy.size);
      if (lo < hi) copy_bytes(copy.dst + (lo - at), copy.src + (lo - at), hi - lo);
      at += copy.size;
      if (at >= end) break;
    }
    if (stream) StreamFence();
  });
}

}  // namespace quiver::internal
