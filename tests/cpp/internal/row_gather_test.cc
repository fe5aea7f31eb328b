// The row copies behind take, filter and concatenate: every width the
// kernels special-case and one they do not, chunks of uneven sizes (empty
// ones included), masks sparse, dense and clustered, validity bits, and
// outputs large enough to be shared between threads, each checked against
// a plain loop.
#include "quiver/internal/row_gather.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "quiver/internal/bitmap.h"

namespace quiver::internal {
namespace {

// A sequence of chunks over one values buffer of `rows` rows of `width`
// bytes (row r's bytes all r % 251, its first byte r % 256 too), cut at
// `cuts`; every third row of a chunk with a bitmap is null.
struct Sequence {
  int64_t width;
  std::vector<uint8_t> values;
  std::vector<std::vector<uint8_t>> bitmaps;
  std::vector<FlatChunk> chunks;

  Sequence(int64_t rows, int64_t w, std::vector<int64_t> cuts, bool nulls) : width(w) {
    values.resize(static_cast<size_t>(rows * width));
    for (int64_t r = 0; r < rows; ++r) {
      std::memset(values.data() + r * width, static_cast<int>(r % 251), static_cast<size_t>(width));
      values[static_cast<size_t>(r * width)] = static_cast<uint8_t>(r % 256);
    }
    cuts.push_back(rows);
    int64_t start = 0;
    bitmaps.reserve(cuts.size());
    for (int64_t end : cuts) {
      FlatChunk chunk{values.data() + start * width, nullptr, 3, end - start};
      if (nulls) {
        bitmaps.emplace_back(static_cast<size_t>(BitmapBytes(end - start + 3)), 0);
        for (int64_t i = 0; i < end - start; ++i) {
          if (i % 3 != 0) SetBit(bitmaps.back().data(), i + 3);
        }
        chunk.validity = bitmaps.back().data();
      }
      if (end == start) chunk.values = nullptr;  // an empty chunk may omit its values
      chunks.push_back(chunk);
      start = end;
    }
  }

  // Row `row` of the sequence: its bytes and whether it is valid.
  bool Valid(int64_t row) const {
    for (const FlatChunk& chunk : chunks) {
      if (row < chunk.length) {
        return !chunk.validity || GetBit(chunk.validity, chunk.validity_offset + row);
      }
      row -= chunk.length;
    }
    return false;
  }

  void Expect(const std::vector<int64_t>& rows, const std::vector<uint8_t>& out,
              const std::vector<uint8_t>& bits) const {
    for (size_t j = 0; j < rows.size(); ++j) {
      ASSERT_EQ(std::memcmp(out.data() + j * width, values.data() + rows[j] * width,
                            static_cast<size_t>(width)),
                0)
          << "output row " << j << " (row " << rows[j] << ")";
      ASSERT_EQ(GetBit(bits.data(), static_cast<int64_t>(j)), Valid(rows[j]))
          << "validity of output row " << j;
    }
  }
};

// A mask of one byte a row packed as RowMask packs it, by a plain loop.
struct Packed {
  std::vector<uint64_t> words;
  int64_t length = 0;
  int64_t kept = 0;
  operator MaskWords() const { return {words.data(), length, kept}; }
};
Packed Pack(const std::vector<uint8_t>& mask) {
  Packed out;
  out.length = static_cast<int64_t>(mask.size());
  out.words.assign((mask.size() + 63) / 64, 0);
  for (size_t i = 0; i < mask.size(); ++i) {
    if (mask[i] == 0) continue;
    out.words[i / 64] |= uint64_t{1} << (i % 64);
    ++out.kept;
  }
  return out;
}

std::vector<int64_t> Marked(const std::vector<uint8_t>& mask) {
  std::vector<int64_t> rows;
  for (size_t i = 0; i < mask.size(); ++i) {
    if (mask[i]) rows.push_back(static_cast<int64_t>(i));
  }
  return rows;
}

TEST(ChunkFinder, FindsTheChunkOfEveryRowOverEmptyAndUnevenChunks) {
  const std::vector<int64_t> lengths = {0, 5, 0, 0, 1, 1000, 3, 0, 70};
  std::vector<FlatChunk> chunks;
  for (int64_t n : lengths) chunks.push_back({nullptr, nullptr, 0, n});
  const ChunkFinder finder(chunks);
  ASSERT_EQ(finder.length(), 1079);
  size_t c = 0;
  int64_t start = 0;
  for (int64_t row = 0; row < finder.length(); ++row) {
    while (row >= start + lengths[c]) start += lengths[c++];
    ASSERT_EQ(finder.Find(row), c) << "row " << row;
    ASSERT_EQ(finder.start(c), start);
  }
}

TEST(GatherRows, EveryWidthOverChunksWithNullsMatchesALoop) {
  std::mt19937_64 rng(7);
  for (int64_t width : {1, 2, 3, 4, 8, 16, 24, 32, 100}) {
    for (bool nulls : {false, true}) {
      const Sequence seq(5000, width, {0, 17, 17, 2000, 4990}, nulls);
      std::vector<int64_t> rows(3001);
      for (int64_t& r : rows) r = static_cast<int64_t>(rng() % 5000);
      rows[0] = 0, rows[1] = 4999, rows[2] = 16, rows[3] = 17;  // the chunk edges
      std::vector<uint8_t> out(rows.size() * static_cast<size_t>(width));
      std::vector<uint8_t> bits(static_cast<size_t>(BitmapBytes(3001)), 0);
      ASSERT_EQ(GatherRows(seq.chunks, width, rows, out.data(), bits.data()), -1);
      SCOPED_TRACE("width " + std::to_string(width) + (nulls ? " with nulls" : ""));
      seq.Expect(rows, out, bits);
    }
  }
}

TEST(GatherRows, OutputsSharedBetweenThreadsMatchALoop) {
  // 8 MiB and more of output: several threads, each its own range of
  // rows and of the bitmap's bytes.
  std::mt19937_64 rng(8);
  const Sequence seq(300000, 8, {1, 150000, 150001, 299999}, true);
  std::vector<int64_t> rows(1100003);
  for (int64_t& r : rows) r = static_cast<int64_t>(rng() % 300000);
  std::vector<uint8_t> out(rows.size() * 8);
  std::vector<uint8_t> bits(static_cast<size_t>(BitmapBytes(static_cast<int64_t>(rows.size()))), 0);
  ASSERT_EQ(GatherRows(seq.chunks, 8, rows, out.data(), bits.data()), -1);
  seq.Expect(rows, out, bits);
}

TEST(GatherRows, ReportsTheFirstRowOutOfRangeWhateverThePartThatMeetsIt) {
  const Sequence seq(300000, 8, {1000}, false);
  for (size_t chunks : {size_t{1}, size_t{2}}) {
    const std::span<const FlatChunk> view(seq.chunks.data(), chunks);
    const int64_t length = chunks == 1 ? 1000 : 300000;
    std::vector<int64_t> rows(1000000, 7);
    std::vector<uint8_t> out(rows.size() * 8);
    for (int64_t bad : {length, int64_t{-1}, int64_t{1} << 62}) {
      rows[999999] = bad;  // in the last part
      EXPECT_EQ(GatherRows(view, 8, rows, out.data(), nullptr), 999999);
      rows[600001] = bad;  // and in an earlier one
      EXPECT_EQ(GatherRows(view, 8, rows, out.data(), nullptr), 600001);
      rows[3] = bad;
      EXPECT_EQ(GatherRows(view, 8, rows, out.data(), nullptr), 3);
      rows[3] = rows[600001] = rows[999999] = length - 1;
      EXPECT_EQ(GatherRows(view, 8, rows, out.data(), nullptr), -1);
    }
  }
}

TEST(FilterRows, SparseDenseAndClusteredMasksMatchMarkedRows) {
  std::mt19937_64 rng(9);
  const int64_t n = 40000;
  for (int64_t width : {1, 4, 8, 12, 16, 32, 64}) {
    for (double keep : {0.001, 0.01, 0.5, 0.99, 1.0}) {
      for (bool nulls : {false, true}) {
        const Sequence seq(n, width, {0, 3, 10000, 10000, 39999}, nulls);
        std::vector<uint8_t> mask(static_cast<size_t>(n));
        for (uint8_t& m : mask) {
          m = static_cast<double>(rng() % 100000) / 100000.0 < keep
                  ? static_cast<uint8_t>(rng() | 1)
                  : 0;
        }
        for (int64_t i = 20000; i < 20100; ++i) mask[static_cast<size_t>(i)] = 2;  // a long run
        const std::vector<int64_t> rows = Marked(mask);
        const Packed packed = Pack(mask);
        ASSERT_EQ(packed.kept, static_cast<int64_t>(rows.size()));
        // Sized exactly: AddressSanitizer sees a row written past the end.
        std::vector<uint8_t> out(rows.size() * static_cast<size_t>(width));
        std::vector<uint8_t> bits(static_cast<size_t>(BitmapBytes(n)), 0);
        FilterRows(seq.chunks, width, packed, out.data(), bits.data());
        SCOPED_TRACE("width " + std::to_string(width) + " keep " + std::to_string(keep));
        seq.Expect(rows, out, bits);
      }
    }
  }
}

// The maximal runs of marked bytes, found one byte at a time.
std::vector<RowRun> RunsByLoop(const std::vector<uint8_t>& mask) {
  std::vector<RowRun> runs;
  for (size_t i = 0; i < mask.size(); ++i) {
    if (mask[i] == 0) continue;
    if (!runs.empty() && runs.back().begin + runs.back().length == static_cast<int64_t>(i)) {
      ++runs.back().length;
    } else {
      runs.push_back({static_cast<int64_t>(i), 1});
    }
  }
  return runs;
}

// Runs that start, end and cross at every place a 64-byte word can put
// them: its first and last byte, a word boundary, a mask's last byte, a
// mask shorter than a word, runs of several whole words.
TEST(FindMarkedRuns, EveryRunOfEveryPlaceAndLengthMatchesALoop) {
  std::mt19937_64 rng(11);
  for (int64_t n : {0, 1, 7, 63, 64, 65, 127, 128, 129, 200, 1000}) {
    for (int trial = 0; trial < 200; ++trial) {
      std::vector<uint8_t> mask(static_cast<size_t>(n), 0);
      const int kind = trial % 4;
      for (int64_t i = 0; i < n; ++i) {
        const uint64_t r = rng();
        if (kind == 0) mask[static_cast<size_t>(i)] = static_cast<uint8_t>(r % 2 ? r | 1 : 0);
        if (kind == 1) mask[static_cast<size_t>(i)] = r % 50 == 0;
        if (kind == 2) mask[static_cast<size_t>(i)] = r % 50 != 0 ? 255 : 0;
      }
      if (kind == 3 && n > 0) {  // one run between two random places
        const int64_t a = static_cast<int64_t>(rng() % static_cast<uint64_t>(n));
        const int64_t b = a + static_cast<int64_t>(rng() % static_cast<uint64_t>(n - a + 1));
        for (int64_t i = a; i < b; ++i) mask[static_cast<size_t>(i)] = 128;
      }
      const std::vector<RowRun> want = RunsByLoop(mask);
      const Packed packed = Pack(mask);
      const MarkedRuns got = FindMarkedRuns(packed, mask.size() + 1);
      ASSERT_TRUE(got.complete);
      ASSERT_EQ(got.runs.size(), want.size()) << n << " " << trial;
      for (size_t r = 0; r < want.size(); ++r) {
        EXPECT_EQ(got.runs[r].begin, want[r].begin) << n << " " << trial << " " << r;
        EXPECT_EQ(got.runs[r].length, want[r].length) << n << " " << trial << " " << r;
      }
      EXPECT_EQ(got.kept, static_cast<int64_t>(Marked(mask).size()));
      // Too many runs: counted only.
      if (want.size() > 1) {
        const MarkedRuns few = FindMarkedRuns(packed, want.size() - 1);
        EXPECT_FALSE(few.complete);
        EXPECT_TRUE(few.runs.empty());
        EXPECT_EQ(few.kept, got.kept);
      }
    }
  }
  std::vector<uint8_t> all(1000, 1);
  const MarkedRuns whole = FindMarkedRuns(Pack(all), 1);
  ASSERT_EQ(whole.runs.size(), 1u);
  EXPECT_EQ(whole.runs[0].begin, 0);
  EXPECT_EQ(whole.runs[0].length, 1000);
}

TEST(FilterRows, LargeOutputsSharedBetweenThreadsMatchMarkedRows) {
  std::mt19937_64 rng(10);
  const int64_t n = 2000000;
  const Sequence seq(n, 4, {5, 999999, 1000000, 1500000}, false);
  std::vector<uint8_t> mask(static_cast<size_t>(n));
  for (uint8_t& m : mask) m = static_cast<uint8_t>(rng() % 4 != 0);
  const std::vector<int64_t> rows = Marked(mask);
  std::vector<uint8_t> out(rows.size() * 4);
  std::vector<uint8_t> bits(static_cast<size_t>(BitmapBytes(n)), 0);
  FilterRows(seq.chunks, 4, Pack(mask), out.data(), nullptr);
  SetBits(bits.data(), 0, static_cast<int64_t>(rows.size()));  // no validity asked: all valid
  seq.Expect(rows, out, bits);
}

TEST(CopyRanges, LargeAndSmallCopiesLandWhereTheySay) {
  std::vector<uint8_t> src(24 << 20);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i * 7 + 3);
  std::vector<uint8_t> dst(src.size() + 10, 0xEE);
  // Out of order, with an empty copy and a few bytes between others.
  const std::vector<CopyRange> copies = {
      {dst.data() + 10, src.data() + (20 << 20), 4 << 20},
      {dst.data() + (4 << 20) + 10, src.data(), 0},
      {dst.data() + (4 << 20) + 10, src.data(), 20 << 20},
      {dst.data(), src.data() + 5, 10},
  };
  CopyRanges(copies);
  EXPECT_EQ(std::memcmp(dst.data(), src.data() + 5, 10), 0);
  EXPECT_EQ(std::memcmp(dst.data() + 10, src.data() + (20 << 20), 4 << 20), 0);
  EXPECT_EQ(std::memcmp(dst.data() + (4 << 20) + 10, src.data(), 20 << 20), 0);
}

}  // namespace
}  // namespace quiver::internal
