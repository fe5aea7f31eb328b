#include "quiver/data/epoch_plan.h"

#include <algorithm>
#include <cstdint>
#include <numeric>

namespace quiver::data {

namespace {

// The window of a window shuffle when the options leave it at 0.
constexpr int64_t kDefaultWindowBatches = 64;

// Every row, file by file, in the epoch's order (before sharding).
std::vector<int64_t> EpochOrder(std::span<const int64_t> record_batch_rows,
                                const BatchReaderOptions& options, SplitMix64& rng) {
  const int64_t total =
      std::accumulate(record_batch_rows.begin(), record_batch_rows.end(), int64_t{0});
  std::vector<int64_t> rows(static_cast<size_t>(total));
  if (options.shuffle != Shuffle::kWindow) {
    std::iota(rows.begin(), rows.end(), int64_t{0});
    if (options.shuffle == Shuffle::kGlobal) ShuffleInPlace(rows, rng);
    return rows;
  }
  // Record batches in a shuffled order, then rows shuffled per window.
  std::vector<int64_t> starts(record_batch_rows.size() + 1, 0);
  std::partial_sum(record_batch_rows.begin(), record_batch_rows.end(), starts.begin() + 1);
  std::vector<int64_t> order(record_batch_rows.size());
  std::iota(order.begin(), order.end(), int64_t{0});
  ShuffleInPlace(order, rng);
  size_t at = 0;
  for (int64_t k : order) {
    for (int64_t r = starts[k]; r < starts[k + 1]; ++r) rows[at++] = r;
  }
  const int64_t window =
      options.window_rows > 0
          ? options.window_rows
          : std::min(options.batch_size, INT64_MAX / kDefaultWindowBatches) * kDefaultWindowBatches;
  for (int64_t begin = 0; begin < total; begin += window) {
    const int64_t length = std::min(window, total - begin);
    ShuffleInPlace(
        std::span<int64_t>(rows).subspan(static_cast<size_t>(begin), static_cast<size_t>(length)),
        rng);
  }
  return rows;
}

// Cuts `rows` into batches; with bucketing, per window of bucket_window
// batches the rows are sorted by size first and (when shuffling) the
// window's batches shuffled.
void CutBatches(const BatchReaderOptions& options, std::span<const int64_t> sizes, SplitMix64& rng,
                EpochPlan* plan) {
  const int64_t n = static_cast<int64_t>(plan->rows.size());
  const int64_t b = options.batch_size;
  plan->batch_starts.clear();
  if (sizes.empty()) {
    for (int64_t begin = 0; begin < n; begin += std::min(b, n - begin)) {
      plan->batch_starts.push_back(begin);
    }
    plan->batch_starts.push_back(n);
    return;
  }
  std::vector<int64_t> out;
  out.reserve(plan->rows.size());
  plan->batch_starts.push_back(0);
  const int64_t window = options.bucket_window > n / b ? n : options.bucket_window * b;
  for (int64_t begin = 0; begin < n; begin += window) {
    const int64_t end = std::min(n, begin + window);
    std::vector<int64_t> rows(plan->rows.begin() + begin, plan->rows.begin() + end);
    std::stable_sort(rows.begin(), rows.end(),
                     [&](int64_t x, int64_t y) { return sizes[x] < sizes[y]; });
    std::vector<int64_t> batch_begins;
    for (int64_t at = 0; at < end - begin; at += b) batch_begins.push_back(at);
    if (options.shuffle != Shuffle::kNone) ShuffleInPlace(batch_begins, rng);
    for (int64_t at : batch_begins) {
      const int64_t stop = std::min(at + b, end - begin);
      out.insert(out.end(), rows.begin() + at, rows.begin() + stop);
      plan->batch_starts.push_back(static_cast<int64_t>(out.size()));
    }
  }
  plan->rows = std::move(out);
}

}  // namespace

uint64_t SplitMix64::Next() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t SplitMix64::Below(uint64_t bound) {
  // Draws below 2^64 mod bound would make the low values of r % bound
  // more likely: they are drawn again.
  const uint64_t threshold = (0 - bound) % bound;
  while (true) {
    const uint64_t r = Next();
    if (r >= threshold) return r % bound;
  }
}

uint64_t EpochSeed(uint64_t seed, int64_t epoch) {
  SplitMix64 mix(seed);
  return mix.Next() ^ SplitMix64(static_cast<uint64_t>(epoch) ^ 0x5851f42d4c957f2dULL).Next();
}

void ShuffleInPlace(std::span<int64_t> values, SplitMix64& rng) {
  for (size_t i = values.size(); i > 1; --i) {
    const size_t j = static_cast<size_t>(rng.Below(i));
    std::swap(values[i - 1], values[j]);
  }
}

int64_t ShardRows(int64_t total, int rank, int world_size, bool drop_last) {
  if (drop_last) return total / world_size;
  // ceil((total - rank) / world_size), without total + world_size overflowing.
  if (total <= rank) return 0;
  const int64_t rest = total - rank;
  return rest / world_size + (rest % world_size != 0 ? 1 : 0);
}

int64_t BatchCount(int64_t rows, int64_t batch_size, bool drop_last) {
  // rows + batch_size - 1 would overflow for a batch_size near 2^63.
  return rows / batch_size + (!drop_last && rows % batch_size != 0 ? 1 : 0);
}

EpochPlan PlanEpoch(std::span<const int64_t> record_batch_rows, const BatchReaderOptions& options,
                    int64_t epoch, std::span<const int64_t> sizes) {
  SplitMix64 rng(EpochSeed(options.seed, epoch));
  std::vector<int64_t> order = EpochOrder(record_batch_rows, options, rng);
  const int64_t total = static_cast<int64_t>(order.size());
  const int64_t shard = ShardRows(total, options.rank, options.world_size, options.drop_last);
  const int64_t kept =
      options.drop_last ? BatchCount(shard, options.batch_size, true) * options.batch_size : shard;
  EpochPlan plan;
  plan.rows.resize(static_cast<size_t>(kept));
  for (int64_t i = 0; i < kept; ++i) {
    plan.rows[i] = order[static_cast<size_t>(options.rank + i * options.world_size)];
  }
  CutBatches(options, sizes, rng, &plan);
  return plan;
}

Status CheckOptions(const BatchReaderOptions& options) {
  if (options.batch_size <= 0) {
    return Status::Invalid("batch_size must be > 0, got ", options.batch_size);
  }
  if (options.world_size <= 0) {
    return Status::Invalid("shard world_size must be > 0, got ", options.world_size);
  }
  if (options.rank < 0 || options.rank >= options.world_size) {
    return Status::Invalid("shard rank must be in [0, ", options.world_size, "), got ",
                           options.rank);
  }
  if (options.window_rows < 0) {
    return Status::Invalid("window_rows must be > 0, got ", options.window_rows);
  }
  if (!options.bucket_by.empty() && options.bucket_window <= 0) {
    return Status::Invalid("bucket_window must be > 0 with bucket_by, got ", options.bucket_window);
  }
  if (options.prefetch < 0) return Status::Invalid("prefetch must be >= 0, got ", options.prefetch);
  if (options.threads < 0)
    return Status::Invalid("num_threads must be >= 0, got ", options.threads);
  if (options.max_batch_bytes <= 0) {
    return Status::Invalid("max_batch_bytes must be > 0, got ", options.max_batch_bytes);
  }
  return Status::OK();
}

}  // namespace quiver::data
