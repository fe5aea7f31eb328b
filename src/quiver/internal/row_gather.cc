#include "quiver/internal/row_gather.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

uint64_t Load64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

constexpr uint64_t kLows = 0x7F7F7F7F7F7F7F7Full, kHighs = 0x8080808080808080ull;

// The high bit of each byte of `v` that is not 0: the low seven bits
// carried into it, or its own.
uint64_t NonZeroBytes(uint64_t v) { return (((v & kLows) + kLows) | v) & kHighs; }

// Bit b of the result: whether mask[b] is marked (not 0), for b in
// [0, count), count <= 64; the bits above are 0.
uint64_t MarkedBits(const uint8_t* mask, int64_t count) {
  uint64_t bits = 0;
  int64_t b = 0;
#if defined(__SSE2__)
  const __m128i zero = _mm_setzero_si128();
  for (; b + 16 <= count; b += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(mask + b));
    const auto zeros = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, zero)));
    bits |= static_cast<uint64_t>(~zeros & 0xFFFFu) << b;
  }
#endif
  for (; b < count; ++b) bits |= static_cast<uint64_t>(mask[b] != 0) << b;
  return bits;
}

// Calls run(begin, end) for each maximal run of marked bytes of
// mask[0, n), in order, until run returns false. The mask is read once,
// 64 bytes at a time into a word of bits, and runs are cut out of the
// words by counting trailing zeros: a sparse mask costs a few instructions
// per 64 bytes, and a run per marked stretch, whatever its length.
template <typename Run>
void ForEachRun(const uint8_t* mask, int64_t n, Run&& run) {
  int64_t open = -1;  // where a run still marked at the last word's end began
  for (int64_t base = 0; base < n; base += 64) {
    const int64_t count = std::min<int64_t>(64, n - base);
    uint64_t bits = MarkedBits(mask + base, count);
    if (open >= 0) {
      if (count == 64 && bits == ~uint64_t{0}) continue;  // the run goes on
      const int marked = __builtin_ctzll(~bits);          // its end in this word
      if (!run(open, base + marked)) return;
      open = -1;
      bits &= ~uint64_t{0} << marked;  // marked < 64 here
    }
    while (bits != 0) {
      const int first = __builtin_ctzll(bits);
      const uint64_t unmarked = ~(bits >> first);  // 1 where not marked from `first` on
      const int length = unmarked == 0 ? 64 : __builtin_ctzll(unmarked);
      if (first + length == 64) {  // marked to the word's end: the next may go on
        open = base + first;
        break;
      }
      if (!run(base + first, base + first + length)) return;
      bits &= ~(((uint64_t{1} << length) - 1) << first);  // first + length < 64 here
    }
  }
  if (open >= 0) run(open, n);
}

// The marked rows of one chunk's stretch src[0, n) (mask[0, n) its mask
// bytes) to dst, at most `room` rows (what is left of the part's output);
// returns the rows written. Dense masks copy every row and advance the
// output by the mask (no branch to mispredict), stopping before the output
// would pass its room; sparse and clustered ones copy runs.
template <int64_t W>
int64_t FilterStretch(const uint8_t* src, const uint8_t* mask, int64_t n, bool dense, int64_t room,
                      int64_t width, uint8_t* dst) {
  const int64_t w = W > 0 ? W : width;
  int64_t j = 0;
  if (W > 0 && W <= 16 && dense) {
    for (int64_t i = 0; i < n && j < room; ++i) {
      CopyRow<W>(dst + j * w, src + i * w, w);
      j += mask[i] != 0;
    }
    return j;
  }
  ForEachRun(mask, n, [&](int64_t begin, int64_t end) {
    const int64_t rows = std::min(end - begin, room - j);  // a mask changed meanwhile
    std::memcpy(dst + j * w, src + begin * w, static_cast<size_t>(rows * w));
    j += rows;
    return j < room;
  });
  return j;
}

// The `kept` marked rows among [begin, end) of the sequence into dst,
// chunk by chunk.
template <int64_t W>
void FilterPart(std::span<const FlatChunk> chunks, const ChunkFinder& finder, int64_t width,
                const uint8_t* mask, int64_t begin, int64_t end, int64_t kept, uint8_t* dst) {
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
    written += FilterStretch<W>(chunks[c].values + (lo - start) * w, mask + lo, hi - lo, dense,
                                kept - written, width, dst + written * w);
  }
  // A mask changed meanwhile (another thread's) may now mark fewer rows
  // than were counted: the rest of the part's output is cleared, not left
  // as the allocation found it.
  if (written < kept) std::memset(dst + written * w, 0, static_cast<size_t>((kept - written) * w));
}

// Validity bits of the marked rows, `kept` at most.
void FilterValidity(std::span<const FlatChunk> chunks, const ChunkFinder& finder,
                    const uint8_t* mask, int64_t kept, uint8_t* bits) {
  int64_t j = 0;
  for (size_t c = 0; c < chunks.size() && j < kept; ++c) {
    const FlatChunk& chunk = chunks[c];
    ForEachRun(mask + finder.start(c), chunk.length, [&](int64_t begin, int64_t end) {
      const int64_t rows = std::min(end - begin, kept - j);  // a mask changed meanwhile
      if (chunk.validity) {
        CopyBits(chunk.validity, chunk.validity_offset + begin, bits, j, rows);
      } else {
        SetBits(bits, j, rows);
      }
      j += rows;
      return j < kept;
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

int64_t CountMarked(std::span<const uint8_t> mask) {
  const uint8_t* bytes = mask.data();
  const auto n = static_cast<int64_t>(mask.size());
  int64_t count = 0, i = 0;
#if defined(__SSE2__)
  // Sixteen bytes at a time: 1 for each marked byte, summed into two
  // 64-bit lanes by the sum of absolute differences against 0.
  const __m128i zero = _mm_setzero_si128(), one = _mm_set1_epi8(1);
  __m128i sums = zero;
  for (; i + 16 <= n; i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes + i));
    const __m128i marked = _mm_andnot_si128(_mm_cmpeq_epi8(v, zero), one);
    sums = _mm_add_epi64(sums, _mm_sad_epu8(marked, zero));
  }
  count = _mm_cvtsi128_si64(sums) + _mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums));
#endif
  // Eight bytes at a time: the high bits of the marked bytes, shifted to
  // the bytes' low bits, are summed by one multiply (into the top byte).
  // No popcount: without -mpopcnt it is a call into the compiler's runtime.
  constexpr uint64_t kOnes = 0x0101010101010101ull;
  for (; i + 8 <= n; i += 8) {
    count += static_cast<int64_t>(((NonZeroBytes(Load64(bytes + i)) >> 7) * kOnes) >> 56);
  }
  for (; i < n; ++i) count += bytes[i] != 0;
  return count;
}

MarkedRuns FindMarkedRuns(std::span<const uint8_t> mask, size_t max_runs) {
  MarkedRuns out;
  const auto n = static_cast<int64_t>(mask.size());
  ForEachRun(mask.data(), n, [&](int64_t begin, int64_t end) {
    if (out.runs.size() == max_runs) {
      out.complete = false;
      return false;
    }
    out.runs.push_back({begin, end - begin});
    out.kept += end - begin;
    return true;
  });
  if (!out.complete) {  // too many runs: counted only
    out.complete = false;
    out.runs.clear();
    out.kept = CountMarked(mask);
  }
  return out;
}

void FilterRows(std::span<const FlatChunk> chunks, int64_t width, std::span<const uint8_t> mask,
                int64_t kept, uint8_t* values, uint8_t* validity) {
  const ChunkFinder finder(chunks);
  const auto n = static_cast<int64_t>(mask.size());
  const int workers = WorkersFor(kept, width);
  // Each part's output starts after the rows the parts before it keep.
  const int64_t step = (n + workers - 1) / std::max(workers, 1);
  std::vector<int64_t> first(static_cast<size_t>(workers) + 1, 0);
  first[1] = kept;
  for (int w = 0; w < workers && workers > 1; ++w) {
    const int64_t begin = std::min(n, w * step), end = std::min(n, begin + step);
    // At most `kept` in all, even if the mask changed since it was counted.
    first[static_cast<size_t>(w) + 1] =
        std::min(kept, first[static_cast<size_t>(w)] +
                           CountMarked(mask.subspan(static_cast<size_t>(begin),
                                                    static_cast<size_t>(end - begin))));
  }
  RunOnThreads(workers, [&](int w) {
    const int64_t begin = std::min(n, w * step), end = std::min(n, begin + step);
    WithWidth(width, [&]<int64_t W>() {
      const int64_t from = first[static_cast<size_t>(w)];
      FilterPart<W>(chunks, finder, width, mask.data(), begin, end,
                    first[static_cast<size_t>(w) + 1] - from, values + from * width);
    });
  });
  // Rows counted that no part was given (the mask marks fewer now, as each
  // part's count found): cleared too.
  const int64_t given = first[static_cast<size_t>(workers)];
  if (given < kept) {
    std::memset(values + given * width, 0, static_cast<size_t>((kept - given) * width));
  }
  if (validity) FilterValidity(chunks, finder, mask.data(), kept, validity);
}

void CopyRuns(std::span<const FlatChunk> chunks, int64_t width, std::span<const RowRun> runs,
              int64_t kept, uint8_t* values, uint8_t* validity) {
  const ChunkFinder finder(chunks);
  // A large output is copied by CopyRanges, on threads; a small one here,
  // a short run row by row (a call to memcpy costs more than its bytes).
  const bool large = kept * width >= 4 * kBytesPerThread;
  std::vector<CopyRange> copies;
  WithWidth(width, [&]<int64_t W>() {
    const int64_t w = W > 0 ? W : width;
    int64_t j = 0;
    for (size_t k = 0; k < runs.size(); ++k) {
      RowRun run = runs[k];
      while (run.length > 0) {  // a run may cross chunk boundaries
        const size_t c = finder.Find(run.begin);
        const FlatChunk& chunk = chunks[c];
        const int64_t local = run.begin - finder.start(c);
        const int64_t rows = std::min(run.length, chunk.length - local);
        const uint8_t* src = chunk.values + local * w;
        if (large) {
          copies.push_back({values + j * w, src, rows * w});
        } else if (W > 0 && rows <= 4) {
          for (int64_t r = 0; r < rows; ++r) CopyRow<W>(values + (j + r) * w, src + r * w, w);
        } else {
          std::memcpy(values + j * w, src, static_cast<size_t>(rows * w));
        }
        if (validity && chunk.validity) {
          CopyBits(chunk.validity, chunk.validity_offset + local, validity, j, rows);
        } else if (validity) {
          SetBits(validity, j, rows);
        }
        j += rows;
        run.begin += rows;
        run.length -= rows;
      }
    }
  });
  if (large) CopyRanges(copies);
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
