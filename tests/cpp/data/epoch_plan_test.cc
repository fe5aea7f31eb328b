// The epoch plan: the generator and shuffle it uses, shard and batch
// counts, every row once per epoch under every option, determinism by seed
// and epoch, windows and bucketing.
#include "quiver/data/epoch_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>
#include <vector>

#include "test_util.h"

namespace quiver::data {
namespace {

BatchReaderOptions Options(int64_t batch_size, Shuffle shuffle = Shuffle::kNone) {
  BatchReaderOptions options;
  options.batch_size = batch_size;
  options.shuffle = shuffle;
  options.seed = 7;
  return options;
}

std::vector<int64_t> Sorted(std::vector<int64_t> rows) {
  std::sort(rows.begin(), rows.end());
  return rows;
}

std::vector<int64_t> Rows(const EpochPlan& plan, int64_t batch) {
  std::vector<int64_t> rows;
  plan.BatchRows(batch, &rows);
  return rows;
}

std::vector<int64_t> Iota(int64_t n) {
  std::vector<int64_t> rows(static_cast<size_t>(n));
  std::iota(rows.begin(), rows.end(), int64_t{0});
  return rows;
}

TEST(EpochPlan, SplitMix64MatchesTheReferenceSequence) {
  // The published SplitMix64 outputs for seed 0.
  SplitMix64 rng(0);
  EXPECT_EQ(rng.Next(), 0xe220a8397b1dcdafULL);
  EXPECT_EQ(rng.Next(), 0x6e789e6aa1b965f4ULL);
  EXPECT_EQ(rng.Next(), 0x06c45d188009454fULL);
}

TEST(EpochPlan, BelowStaysInRangeAndReachesEveryValue) {
  SplitMix64 rng(3);
  std::vector<int> counts(6, 0);
  for (int i = 0; i < 6000; ++i) {
    const uint64_t v = rng.Below(6);
    ASSERT_LT(v, 6u);
    ++counts[v];
  }
  for (int c : counts) EXPECT_GT(c, 850);  // about 1000 each
  EXPECT_EQ(rng.Below(1), 0u);
}

TEST(EpochPlan, ShuffleIsAPermutationAndDeterministic) {
  std::vector<int64_t> a = Iota(100), b = Iota(100);
  SplitMix64 first(EpochSeed(1, 0)), second(EpochSeed(1, 0));
  ShuffleInPlace(a, first);
  ShuffleInPlace(b, second);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, Iota(100));
  EXPECT_EQ(Sorted(a), Iota(100));
  EXPECT_NE(EpochSeed(1, 0), EpochSeed(1, 1));
  EXPECT_NE(EpochSeed(1, 0), EpochSeed(2, 0));
}

TEST(EpochPlan, ShardAndBatchCounts) {
  EXPECT_EQ(ShardRows(10, 0, 3, false), 4);
  EXPECT_EQ(ShardRows(10, 1, 3, false), 3);
  EXPECT_EQ(ShardRows(10, 2, 3, false), 3);
  EXPECT_EQ(ShardRows(10, 2, 3, true), 3);
  EXPECT_EQ(ShardRows(2, 2, 3, false), 0);
  EXPECT_EQ(BatchCount(10, 4, false), 3);
  EXPECT_EQ(BatchCount(10, 4, true), 2);
  EXPECT_EQ(BatchCount(0, 4, false), 0);
  // Sizes near 2^63 (rows + batch_size - 1 would overflow).
  constexpr int64_t kMax = INT64_MAX;
  EXPECT_EQ(BatchCount(10, kMax, false), 1);
  EXPECT_EQ(BatchCount(10, kMax, true), 0);
  EXPECT_EQ(BatchCount(kMax, kMax - 1, false), 2);
  EXPECT_EQ(BatchCount(kMax, 2, false), kMax / 2 + 1);
  EXPECT_EQ(ShardRows(kMax, 0, 2, false), kMax / 2 + 1);
  EXPECT_EQ(ShardRows(kMax, 1, 2, false), kMax / 2);
  EXPECT_EQ(ShardRows(kMax, 0, INT32_MAX, false), kMax / INT32_MAX + 1);
}

TEST(EpochPlan, EveryRowOncePerEpochUnderEveryOption) {
  const std::vector<int64_t> record_batches = {7, 5, 11, 3};  // 26 rows
  for (Shuffle shuffle : {Shuffle::kNone, Shuffle::kGlobal, Shuffle::kWindow}) {
    for (bool drop_last : {false, true}) {
      for (int world : {1, 3}) {
        std::vector<int64_t> all;
        std::set<int64_t> batch_counts;
        for (int rank = 0; rank < world; ++rank) {
          BatchReaderOptions options = Options(4, shuffle);
          options.window_rows = 6;
          options.drop_last = drop_last;
          options.rank = rank;
          options.world_size = world;
          EpochPlan plan(record_batches, options, 2, {});
          const int64_t shard = ShardRows(26, rank, world, drop_last);
          EXPECT_EQ(plan.num_batches(), BatchCount(shard, 4, drop_last));
          batch_counts.insert(plan.num_batches());
          for (int64_t b = 0; b < plan.num_batches(); ++b) {
            const int64_t size = static_cast<int64_t>(Rows(plan, b).size());
            if (drop_last || b + 1 < plan.num_batches()) {
              EXPECT_EQ(size, 4);
            }
          }
          const std::vector<int64_t> rows = plan.AllRows();
          all.insert(all.end(), rows.begin(), rows.end());
        }
        std::vector<int64_t> sorted = Sorted(all);
        // No row twice; without drop_last every row.
        EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end());
        if (!drop_last) {
          EXPECT_EQ(sorted, Iota(26));
        } else {
          EXPECT_EQ(batch_counts.size(), 1u);  // equal across ranks
          EXPECT_EQ(static_cast<int64_t>(sorted.size()), world * (26 / world / 4) * 4);
        }
      }
    }
  }
}

TEST(EpochPlan, APlanOfABillionRowsHoldsItsRecordBatchesNotItsRows) {
  // 10^9 rows in record batches of 65,536 (15,259 of them): every shuffle's
  // plan keeps a few bytes per record batch, the same as for a thousandth
  // of the rows in as many record batches, far under 64 MiB; its batches
  // are computed when asked for.
  const int64_t total = 1000000000;
  std::vector<int64_t> record_batches(static_cast<size_t>(total / 65536), 65536);
  record_batches.push_back(total % 65536);
  std::vector<int64_t> thousandth(record_batches.size(), 65);
  for (Shuffle shuffle : {Shuffle::kNone, Shuffle::kGlobal, Shuffle::kWindow}) {
    BatchReaderOptions options = Options(256, shuffle);
    options.window_rows = 1 << 20;
    const EpochPlan plan(record_batches, options, 3, {});
    EXPECT_LT(plan.memory_bytes(), int64_t{64} << 20);
    EXPECT_LE(plan.memory_bytes(), 3 * 8 * static_cast<int64_t>(record_batches.size()) + 4096);
    EXPECT_EQ(plan.memory_bytes(), EpochPlan(thousandth, options, 3, {}).memory_bytes());
    EXPECT_EQ(plan.num_batches(), total / 256);
    for (int64_t b : {int64_t{0}, int64_t{1}, plan.num_batches() - 1}) {
      const std::vector<int64_t> rows = Sorted(Rows(plan, b));
      EXPECT_EQ(rows.size(), 256u);  // 10^9 is a multiple of 256
      EXPECT_EQ(std::adjacent_find(rows.begin(), rows.end()), rows.end());
      EXPECT_GE(rows.front(), 0);
      EXPECT_LT(rows.back(), total);
    }
  }
}

TEST(EpochPlan, UnshuffledIsInFileOrder) {
  EpochPlan plan(std::vector<int64_t>{3, 4}, Options(3), 0, {});
  EXPECT_EQ(plan.AllRows(), Iota(7));
  EXPECT_EQ(plan.num_batches(), 3);
  EXPECT_EQ(Rows(plan, 2), (std::vector<int64_t>{6}));
}

TEST(EpochPlan, SameSeedAndEpochSameOrderOthersDiffer) {
  const std::vector<int64_t> rb = {50, 50};
  const BatchReaderOptions options = Options(8, Shuffle::kGlobal);
  EXPECT_EQ(EpochPlan(rb, options, 1, {}).AllRows(), EpochPlan(rb, options, 1, {}).AllRows());
  EXPECT_NE(EpochPlan(rb, options, 1, {}).AllRows(), EpochPlan(rb, options, 2, {}).AllRows());
  BatchReaderOptions other = options;
  other.seed = 8;
  EXPECT_NE(EpochPlan(rb, options, 1, {}).AllRows(), EpochPlan(rb, other, 1, {}).AllRows());
}

TEST(EpochPlan, WindowShuffleKeepsRecordBatchesTogetherPerWindow) {
  // Record batches of 10 rows and windows of 10 rows: every window holds
  // the rows of exactly one record batch, in a shuffled order.
  const std::vector<int64_t> rb(8, 10);
  BatchReaderOptions options = Options(5, Shuffle::kWindow);
  options.window_rows = 10;
  EpochPlan plan(rb, options, 0, {});
  const std::vector<int64_t> rows = plan.AllRows();
  std::vector<int64_t> first_rows;
  for (int64_t w = 0; w < 8; ++w) {
    std::set<int64_t> record_batches;
    for (int64_t i = 0; i < 10; ++i) record_batches.insert(rows[w * 10 + i] / 10);
    EXPECT_EQ(record_batches.size(), 1u);
    first_rows.push_back(*record_batches.begin());
  }
  EXPECT_NE(first_rows, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_FALSE(std::is_sorted(rows.begin(), rows.begin() + 10));  // rows shuffled too
}

TEST(EpochPlan, BucketingGroupsSizesWithinWindows) {
  // Sizes alternate small and large; windows of 2 batches of 4.
  std::vector<int64_t> sizes(16);
  for (int64_t i = 0; i < 16; ++i) sizes[i] = i % 2 ? 100 : 1;
  BatchReaderOptions options = Options(4);
  options.bucket_by = "img";
  options.bucket_window = 2;
  EpochPlan plan(std::vector<int64_t>{16}, options, 0, sizes);
  ASSERT_EQ(plan.num_batches(), 4);
  for (int64_t b = 0; b < 4; ++b) {
    std::set<int64_t> batch_sizes;
    for (int64_t row : Rows(plan, b)) batch_sizes.insert(sizes[row]);
    EXPECT_EQ(batch_sizes.size(), 1u) << "batch " << b;
  }
  EXPECT_EQ(Sorted(plan.AllRows()), Iota(16));
  // Shuffled, the windows' batches come in a seeded order, rows still grouped.
  options.shuffle = Shuffle::kGlobal;
  EpochPlan shuffled(std::vector<int64_t>{16}, options, 0, sizes);
  EXPECT_EQ(Sorted(shuffled.AllRows()), Iota(16));
  for (int64_t b = 0; b < 4; ++b) {
    std::set<int64_t> batch_sizes;
    for (int64_t row : Rows(shuffled, b)) batch_sizes.insert(sizes[row]);
    EXPECT_EQ(batch_sizes.size(), 1u);
  }
}

TEST(EpochPlan, OptionErrorsNameTheOption) {
  BatchReaderOptions options;
  EXPECT_ERROR(kInvalid, "batch_size must be > 0, got 0", CheckOptions(options));
  options.batch_size = -3;
  EXPECT_ERROR(kInvalid, "batch_size must be > 0, got -3", CheckOptions(options));
  options.batch_size = 2;
  options.rank = 2;
  options.world_size = 2;
  EXPECT_ERROR(kInvalid, "shard rank must be in [0, 2), got 2", CheckOptions(options));
  options.rank = 0;
  options.world_size = 0;
  EXPECT_ERROR(kInvalid, "world_size must be > 0", CheckOptions(options));
  options.world_size = 1;
  options.bucket_by = "img";
  EXPECT_ERROR(kInvalid, "bucket_window must be > 0", CheckOptions(options));
  options.bucket_window = 1;
  options.prefetch = -1;
  EXPECT_ERROR(kInvalid, "prefetch must be >= 0", CheckOptions(options));
  options.prefetch = 0;
  options.window_rows = -1;
  EXPECT_ERROR(kInvalid, "window_rows", CheckOptions(options));
  options.window_rows = 0;
  options.threads = -2;
  EXPECT_ERROR(kInvalid, "num_threads must be >= 0, got -2", CheckOptions(options));
  options.threads = 0;
  options.max_batch_bytes = 0;
  EXPECT_ERROR(kInvalid, "max_batch_bytes must be > 0, got 0", CheckOptions(options));
  options.max_batch_bytes = 1;
  options.cache_bytes = -1;
  EXPECT_ERROR(kInvalid, "cache_bytes must be >= 0, got -1", CheckOptions(options));
  options.cache_bytes = 0;
  ASSERT_OK(CheckOptions(options));
}

}  // namespace
}  // namespace quiver::data
