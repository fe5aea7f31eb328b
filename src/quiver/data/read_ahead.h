// Internal: the loader's read-ahead. A record batch that must be read and
// decoded (remote, compressed, pread) costs a round trip or a
// decompression; read one at a time as rows reach them, an in-order epoch
// over HTTP waits a round trip per record batch. ReadAhead warms the
// record batches of the batches the producer gathers next, a group at a
// time (as many record batches as a quarter of the cache holds:
// dataset::Dataset::WarmBudget), in one
// parallel dataset::Dataset::Warm (remote sources on up to 16 connections,
// compressed ones on every core): the group a batch belongs to is warm
// before it is gathered, and the next group is warmed on a thread of its
// own while the producer gathers this one.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "quiver/data/batch_source.h"
#include "quiver/data/epoch_plan.h"
#include "quiver/internal/threads.h"

namespace quiver::data {

class ReadAhead {
 public:
  // Over a dataset that reads only views of mapped files (nothing to
  // decode), it does nothing.
  explicit ReadAhead(BatchSource* source)
      : source_(source), views_only_(source->ReadsOnlyViews()) {}
  ~ReadAhead() { Wait(); }
  ReadAhead(const ReadAhead&) = delete;
  ReadAhead& operator=(const ReadAhead&) = delete;

  // Called before batch `i` of `plan` is gathered, batches in order.
  void Before(const std::shared_ptr<const EpochPlan>& plan, int64_t i);
  // The next batch gathered will be `i` (a new epoch, a resumed one): a
  // warm under way is waited for.
  void Restart(int64_t i);
  // In a forked child: a warm the parent's thread was running is not
  // running here, and what it warmed may have been left behind with the
  // dataset's cache.
  void AfterFork(int64_t i);

 private:
  // The record batches of batches first, first + 1, ... that fit the
  // budget (whole batches, at least one); *end is the batch after them.
  std::vector<int64_t> Group(const EpochPlan& plan, int64_t first, int64_t* end);
  void Wait();

  BatchSource* source_;
  int64_t warm_until_ = 0;     // batches before it are warm
  int64_t warming_until_ = 0;  // ... or being warmed by `thread_`
  bool views_only_;
  std::unique_ptr<internal::BackgroundThread> thread_;
  std::vector<int64_t> rows_;
};

}  // namespace quiver::data
