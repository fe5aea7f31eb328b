#include "quiver/data/read_ahead.h"

#include <algorithm>
#include <unordered_set>

namespace quiver::data {

namespace {

// At most this many batches per group: a few record batches shared by
// many batches (small rows, large record batches) must not make a group
// compute the rows of the whole epoch.
constexpr int64_t kMostBatches = 64;

}  // namespace

std::vector<int64_t> ReadAhead::Group(const EpochPlan& plan, int64_t first, int64_t* end) {
  const auto budget = static_cast<size_t>(source_->WarmBudget());
  // Record batches that read as views of a mapped file count against the
  // budget but need no warming. Batch `first` alone may need more record
  // batches than the budget (a global shuffle): only the budget's first
  // are warmed, the rest read as the gather reaches them.
  std::unordered_set<int64_t> seen;
  std::vector<int64_t> wanted;
  int64_t batch = first;
  for (; batch < plan.num_batches() && batch - first < kMostBatches; ++batch) {
    plan.BatchRows(batch, &rows_);
    std::vector<int64_t> added;
    for (int64_t row : rows_) {
      const int k = source_->Locate(row).record_batch;
      if (seen.insert(k).second) added.push_back(k);
    }
    if (batch > first && seen.size() > budget) break;
    for (int64_t k : added) {
      if (!source_->IsMappedView(static_cast<int>(k)) && wanted.size() < budget) {
        wanted.push_back(k);
      }
    }
  }
  *end = batch;
  return wanted;
}

void ReadAhead::Wait() {
  thread_.reset();  // joins (an orphaned one is left behind)
  warm_until_ = std::max(warm_until_, warming_until_);
}

void ReadAhead::Before(const std::shared_ptr<const EpochPlan>& plan, int64_t i) {
  if (views_only_) return;
  if (i >= warm_until_) {
    Wait();
    if (i >= warm_until_) {
      // Batch i's group, warmed here: the batch needs it now. A failure is
      // met again, with the batch named, when the batch is read.
      int64_t end = i;
      const std::vector<int64_t> wanted = Group(*plan, i, &end);
      if (!wanted.empty()) (void)source_->Warm(wanted);
      warm_until_ = warming_until_ = end;
    }
  }
  if (views_only_ || thread_ || warm_until_ >= plan->num_batches()) return;
  // The next group, on a thread of its own while this one is gathered.
  int64_t end = warm_until_;
  std::vector<int64_t> wanted = Group(*plan, warm_until_, &end);
  if (wanted.empty()) {
    warm_until_ = warming_until_ = end;
    return;
  }
  Result<std::unique_ptr<internal::BackgroundThread>> started = internal::BackgroundThread::Start(
      [source = source_, wanted = std::move(wanted)] { (void)source->Warm(wanted); });
  if (!started.ok()) return;  // no thread: the group is warmed when reached
  thread_ = std::move(*started);
  warming_until_ = end;
}

void ReadAhead::Restart(int64_t i) {
  Wait();
  warm_until_ = warming_until_ = i;
}

void ReadAhead::AfterFork(int64_t i) {
  if (thread_ && thread_->orphaned()) (void)thread_.release();
  thread_.reset();
  warm_until_ = warming_until_ = i;
}

}  // namespace quiver::data
