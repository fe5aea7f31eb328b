// Internal: which rows go into which batch in an epoch. Everything here is
// a pure function of the options, the epoch and the dataset's row counts,
// so every rank of a distributed job computes the same order.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "quiver/data.h"
#include "quiver/status.h"

namespace quiver::data {

// SplitMix64 (Steele, Lea and Flood 2014): a 64-bit state advanced by a
// fixed odd constant and mixed. Written out here rather than taken from
// <random>, whose distributions differ between standard libraries.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next();
  // Uniform in [0, bound) for bound > 0, unbiased: Next() % bound, with
  // the few draws that would favour low values drawn again.
  uint64_t Below(uint64_t bound);

 private:
  uint64_t state_;
};

// The generator's seed for (seed, epoch): both mixed, so neighbouring
// seeds and epochs give unrelated streams.
uint64_t EpochSeed(uint64_t seed, int64_t epoch);

// Fisher-Yates (Durstenfeld) in place: for i from size - 1 down to 1, swap values[i]
// with values[rng.Below(i + 1)].
void ShuffleInPlace(std::span<int64_t> values, SplitMix64& rng);

// Rows of shard `rank` of `world_size` over `total` rows: ceil((total -
// rank) / world_size), or total / world_size for every rank with drop_last.
int64_t ShardRows(int64_t total, int rank, int world_size, bool drop_last);
// Batches of `batch_size` over `rows` rows (the short last one dropped with
// drop_last).
int64_t BatchCount(int64_t rows, int64_t batch_size, bool drop_last);

// Which rows go into which batch in one epoch of one shard. The rows of
// a batch are computed when it is read, not stored: the plan holds
// O(record batches) (the window shuffle's record batch order), not O(rows),
// whatever the dataset's size. Only bucketing (bucket_by) sorts rows by
// size and so keeps the epoch's rows, 8 bytes a row of the shard.
//
// The epoch's order before sharding, position j of [0, total):
//   kNone    row j;
//   kGlobal  RowPermutation(total, EpochSeed(seed, epoch))(j);
//   kWindow  the record batches in a Fisher-Yates order drawn from
//            SplitMix64(EpochSeed(seed, epoch)), their rows end to end,
//            and within window w (window_rows rows from w * window_rows)
//            offset o read from offset RowPermutation(length of w,
//            WindowKey(epoch seed, w))(o).
// Shard rank r of world_size s reads positions r, r + s, r + 2s, ... and
// cuts them into batches of batch_size.
class EpochPlan {
 public:
  // The plan of `epoch` for a dataset whose record batches hold
  // `record_batch_rows` rows each (in order). `sizes` (one per global row)
  // are the element counts to bucket by; empty when not bucketing. The
  // options must have been checked (CheckOptions).
  EpochPlan(std::span<const int64_t> record_batch_rows, const BatchReaderOptions& options,
            int64_t epoch, std::span<const int64_t> sizes);

  int64_t num_batches() const { return num_batches_; }
  // The rows of batch i (0 <= i < num_batches()) into *rows (replaced).
  void BatchRows(int64_t i, std::vector<int64_t>* rows) const;
  // Every batch's rows, batch after batch (O(shard rows): for inspection).
  std::vector<int64_t> AllRows() const;
  // Bytes the plan keeps.
  int64_t memory_bytes() const;

 private:
  // The row at position j of the epoch's order, before sharding.
  int64_t RowAt(int64_t j) const;
  void PlanWindows(std::span<const int64_t> record_batch_rows, SplitMix64& rng);
  void Bucket(std::span<const int64_t> sizes, int64_t bucket_window, SplitMix64& rng);

  Shuffle shuffle_ = Shuffle::kNone;
  int64_t total_ = 0;  // rows of the dataset
  int64_t kept_ = 0;   // rows of this shard in the epoch
  int64_t batch_size_ = 1;
  int64_t rank_ = 0;
  int64_t world_size_ = 1;
  int64_t num_batches_ = 0;
  uint64_t epoch_seed_ = 0;
  // kWindow: record batches in the epoch's order, the first global row of
  // each (in that order) and where each starts in the order.
  std::vector<int64_t> window_batch_first_;
  std::vector<int64_t> window_batch_at_;
  int64_t window_ = 0;
  // Bucketing: the shard's rows batch after batch, and batch offsets.
  std::vector<int64_t> bucketed_rows_;
  std::vector<int64_t> bucketed_starts_;
};

// A digest of everything an epoch's order depends on besides the epoch:
// the record batches' row counts and the options that shape the order
// (shuffle, seed, window_rows, shard, batch_size, drop_last, bucketing).
// FNV-1a over their values: the same on every platform. A saved loader
// state carries it, so that it is not restored into another order.
uint64_t OrderKey(std::span<const int64_t> record_batch_rows, const BatchReaderOptions& options);

// The key of window w's permutation in a window shuffle.
uint64_t WindowKey(uint64_t epoch_seed, int64_t window);

// Every option's check, in one place (BatchReader::Open calls it; the
// Python bindings only convert values): Invalid naming the option for
// batch_size <= 0, world_size <= 0, a rank outside [0, world_size),
// window_rows < 0, bucket_window <= 0 with bucket_by set, prefetch < 0,
// threads < 0, max_batch_bytes <= 0, cache_bytes < 0.
Status CheckOptions(const BatchReaderOptions& options);

}  // namespace quiver::data
