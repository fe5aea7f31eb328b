#include "quiver/data/read_ahead.h"

#include <algorithm>
#include <unordered_set>

namespace quiver::data {

namespace {

// At most this many record batches per warm: as many as remote sources
// fetch at once, four times over.
constexpr int64_t kMostRecordBatches = 64;

}  // namespace

int64_t ReadAhead::Budget() const {
  const dataset::CacheStats stats = source_->stats();
  const int64_t columns =
      std::max<int64_t>(1, static_cast<int64_t>(source_->schema()->fields.size()));
  const int64_t decoded = stats.misses / columns;
  if (decoded == 0 || stats.bytes_decoded == 0) return 4;  // nothing seen yet: a few
  const int64_t per_batch = std::max<int64_t>(1, stats.bytes_decoded / decoded);
  return std::clamp<int64_t>(cache_bytes_ / 4 / per_batch, 1, kMostRecordBatches);
}

void ReadAhead::Before(const EpochPlan& plan, int64_t i) {
  if (i < warmed_until_) return;
  const int64_t budget = Budget();
  // The record batches of batches i, i + 1, ... while they fit the budget
  // (whole batches, at least batch i's); those that read as views of a
  // mapped file count but need no warming.
  std::unordered_set<int64_t> seen;
  std::vector<int64_t> wanted;
  int64_t batch = i;
  for (; batch < plan.num_batches(); ++batch) {
    plan.BatchRows(batch, &rows_);
    std::vector<int64_t> added;
    for (int64_t row : rows_) {
      const int k = source_->Locate(row).record_batch;
      if (seen.insert(k).second) added.push_back(k);
    }
    if (batch > i && static_cast<int64_t>(seen.size()) > budget) break;
    for (int64_t k : added) {
      if (!source_->IsMappedView(static_cast<int>(k))) wanted.push_back(k);
    }
  }
  warmed_until_ = batch;
  // A failure is met again, with the batch named, when the batch is read.
  if (!wanted.empty()) (void)source_->Warm(wanted);
}

}  // namespace quiver::data
