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

struct EpochPlan {
  std::vector<int64_t> rows;          // global rows, batch after batch
  std::vector<int64_t> batch_starts;  // num_batches() + 1 offsets into rows
  int64_t num_batches() const { return static_cast<int64_t>(batch_starts.size()) - 1; }
  std::span<const int64_t> batch(int64_t i) const {
    return std::span<const int64_t>(rows).subspan(
        static_cast<size_t>(batch_starts[i]),
        static_cast<size_t>(batch_starts[i + 1] - batch_starts[i]));
  }
};

// The plan of `epoch` for a dataset whose record batches hold
// `record_batch_rows` rows each (in order), under options.shuffle, seed,
// window_rows, rank, world_size, batch_size, drop_last and bucket_window.
// `sizes` (one per global row) are the element counts to bucket by; empty
// when not bucketing. The options must have been checked (CheckOptions).
EpochPlan PlanEpoch(std::span<const int64_t> record_batch_rows, const BatchReaderOptions& options,
                    int64_t epoch, std::span<const int64_t> sizes);

// Invalid naming the option for batch_size <= 0, a rank outside
// [0, world_size), window_rows < 0, bucket_window <= 0 with bucket_by set,
// prefetch < 0, threads < 0.
Status CheckOptions(const BatchReaderOptions& options);

}  // namespace quiver::data
