#include "quiver/data/epoch_plan.h"

#include <algorithm>
#include <cstdint>
#include <numeric>

#include "quiver/data/row_permutation.h"

namespace quiver::data {

namespace {

// The window of a window shuffle when the options leave it at 0.
constexpr int64_t kDefaultWindowBatches = 64;

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

uint64_t OrderKey(std::span<const int64_t> record_batch_rows, const BatchReaderOptions& options) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  auto mix = [&](uint64_t value) {
    for (int byte = 0; byte < 8; ++byte) {
      hash ^= (value >> (8 * byte)) & 0xff;
      hash *= 0x100000001b3ULL;
    }
  };
  mix(record_batch_rows.size());
  for (int64_t rows : record_batch_rows) mix(static_cast<uint64_t>(rows));
  mix(static_cast<uint64_t>(options.shuffle));
  mix(options.seed);
  mix(static_cast<uint64_t>(options.window_rows));
  mix(static_cast<uint64_t>(options.rank));
  mix(static_cast<uint64_t>(options.world_size));
  mix(static_cast<uint64_t>(options.batch_size));
  mix(options.drop_last ? 1 : 0);
  mix(options.bucket_by.size());
  for (char c : options.bucket_by) mix(static_cast<unsigned char>(c));
  mix(static_cast<uint64_t>(options.bucket_window));
  return hash;
}

uint64_t WindowKey(uint64_t epoch_seed, int64_t window) {
  SplitMix64 mix(epoch_seed ^ (static_cast<uint64_t>(window) * 0xd1342543de82ef95ULL));
  return mix.Next();
}

EpochPlan::EpochPlan(std::span<const int64_t> record_batch_rows, const BatchReaderOptions& options,
                     int64_t epoch, std::span<const int64_t> sizes)
    : shuffle_(options.shuffle),
      batch_size_(options.batch_size),
      rank_(options.rank),
      world_size_(options.world_size),
      epoch_seed_(EpochSeed(options.seed, epoch)) {
  total_ = std::accumulate(record_batch_rows.begin(), record_batch_rows.end(), int64_t{0});
  const int64_t shard = ShardRows(total_, options.rank, options.world_size, options.drop_last);
  kept_ = options.drop_last ? BatchCount(shard, batch_size_, true) * batch_size_ : shard;
  num_batches_ = BatchCount(kept_, batch_size_, false);
  SplitMix64 rng(epoch_seed_);
  if (shuffle_ == Shuffle::kWindow) {
    window_ = options.window_rows > 0 ? options.window_rows
                                      : std::min(batch_size_, INT64_MAX / kDefaultWindowBatches) *
                                            kDefaultWindowBatches;
    PlanWindows(record_batch_rows, rng);
  }
  if (!sizes.empty()) {
    Bucket(sizes, options.bucket_window, rng);
    num_batches_ = static_cast<int64_t>(bucketed_starts_.size()) - 1;
  }
}

void EpochPlan::PlanWindows(std::span<const int64_t> record_batch_rows, SplitMix64& rng) {
  std::vector<int64_t> first(record_batch_rows.size() + 1, 0);
  std::partial_sum(record_batch_rows.begin(), record_batch_rows.end(), first.begin() + 1);
  std::vector<int64_t> order(record_batch_rows.size());
  std::iota(order.begin(), order.end(), int64_t{0});
  ShuffleInPlace(order, rng);
  window_batch_first_.resize(order.size());
  window_batch_at_.assign(order.size() + 1, 0);
  for (size_t t = 0; t < order.size(); ++t) {
    const auto k = static_cast<size_t>(order[t]);
    window_batch_first_[t] = first[k];
    window_batch_at_[t + 1] = window_batch_at_[t] + record_batch_rows[k];
  }
}

int64_t EpochPlan::RowAt(int64_t j) const {
  switch (shuffle_) {
    case Shuffle::kNone: return j;
    case Shuffle::kGlobal:
      return static_cast<int64_t>(
          RowPermutation(static_cast<uint64_t>(total_), epoch_seed_)(static_cast<uint64_t>(j)));
    case Shuffle::kWindow: break;
  }
  const int64_t window = j / window_;
  const int64_t begin = window * window_;
  const int64_t length = std::min(window_, total_ - begin);
  const int64_t at = begin + static_cast<int64_t>(RowPermutation(
                                 static_cast<uint64_t>(length),
                                 WindowKey(epoch_seed_, window))(static_cast<uint64_t>(j - begin)));
  // The record batch (in the epoch's order) holding position `at`.
  const size_t t =
      static_cast<size_t>(std::upper_bound(window_batch_at_.begin(), window_batch_at_.end(), at) -
                          window_batch_at_.begin() - 1);
  return window_batch_first_[t] + (at - window_batch_at_[t]);
}

void EpochPlan::BatchRows(int64_t i, std::vector<int64_t>* rows) const {
  rows->clear();
  if (!bucketed_starts_.empty()) {
    rows->assign(bucketed_rows_.begin() + bucketed_starts_[static_cast<size_t>(i)],
                 bucketed_rows_.begin() + bucketed_starts_[static_cast<size_t>(i) + 1]);
    return;
  }
  const int64_t begin = i * batch_size_;
  const int64_t end = std::min(kept_, begin + batch_size_);
  rows->reserve(static_cast<size_t>(end - begin));
  if (shuffle_ == Shuffle::kGlobal) {
    // One permutation for the batch (its round keys computed once).
    const RowPermutation permutation(static_cast<uint64_t>(total_), epoch_seed_);
    for (int64_t p = begin; p < end; ++p) {
      rows->push_back(
          static_cast<int64_t>(permutation(static_cast<uint64_t>(rank_ + p * world_size_))));
    }
    return;
  }
  for (int64_t p = begin; p < end; ++p) rows->push_back(RowAt(rank_ + p * world_size_));
}

std::vector<int64_t> EpochPlan::AllRows() const {
  std::vector<int64_t> all, rows;
  all.reserve(static_cast<size_t>(kept_));
  for (int64_t i = 0; i < num_batches_; ++i) {
    BatchRows(i, &rows);
    all.insert(all.end(), rows.begin(), rows.end());
  }
  return all;
}

int64_t EpochPlan::memory_bytes() const {
  const size_t words = window_batch_first_.capacity() + window_batch_at_.capacity() +
                       bucketed_rows_.capacity() + bucketed_starts_.capacity();
  return static_cast<int64_t>(sizeof(*this) + words * sizeof(int64_t));
}

// Bucketing sorts the rows of each window of bucket_window batches by
// size, so it needs them all: the shard's rows are kept, cut into batches,
// and (when shuffling) each window's batches shuffled.
void EpochPlan::Bucket(std::span<const int64_t> sizes, int64_t bucket_window, SplitMix64& rng) {
  std::vector<int64_t> order(static_cast<size_t>(kept_));
  for (int64_t p = 0; p < kept_; ++p)
    order[static_cast<size_t>(p)] = RowAt(rank_ + p * world_size_);
  const int64_t n = kept_;
  const int64_t b = batch_size_;
  bucketed_rows_.reserve(order.size());
  bucketed_starts_.push_back(0);
  const int64_t window = bucket_window > n / b ? n : bucket_window * b;
  for (int64_t begin = 0; begin < n; begin += window) {
    const int64_t end = std::min(n, begin + window);
    std::vector<int64_t> rows(order.begin() + begin, order.begin() + end);
    std::stable_sort(rows.begin(), rows.end(),
                     [&](int64_t x, int64_t y) { return sizes[x] < sizes[y]; });
    std::vector<int64_t> batch_begins;
    for (int64_t at = 0; at < end - begin; at += b) batch_begins.push_back(at);
    if (shuffle_ != Shuffle::kNone) ShuffleInPlace(batch_begins, rng);
    for (int64_t at : batch_begins) {
      const int64_t stop = std::min(at + b, end - begin);
      bucketed_rows_.insert(bucketed_rows_.end(), rows.begin() + at, rows.begin() + stop);
      bucketed_starts_.push_back(static_cast<int64_t>(bucketed_rows_.size()));
    }
  }
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
  if (options.cache_bytes < 0) {
    return Status::Invalid("cache_bytes must be >= 0, got ", options.cache_bytes);
  }
  return Status::OK();
}

}  // namespace quiver::data
