// Internal: the loader's read-ahead. A record batch that must be read and
// decoded (remote, compressed, pread) costs a round trip or a
// decompression; read one at a time as rows reach them, an in-order epoch
// over HTTP waits a round trip per record batch. Before the producer
// gathers a batch whose record batches are not warm yet, ReadAhead warms
// the record batches of that batch and the ones after it, in one parallel
// dataset::Dataset::Warm (remote sources on up to 16 connections,
// compressed ones on every core), as many as a quarter of the cache holds.
#pragma once

#include <cstdint>
#include <vector>

#include "quiver/data/batch_source.h"
#include "quiver/data/epoch_plan.h"

namespace quiver::data {

class ReadAhead {
 public:
  ReadAhead(BatchSource* source, int64_t cache_bytes)
      : source_(source), cache_bytes_(cache_bytes) {}

  // Called before batch `i` of `plan` is gathered, batches in order.
  void Before(const EpochPlan& plan, int64_t i);
  // The next batch gathered will be `i` (a new epoch, a resumed one).
  void Restart(int64_t i) { warmed_until_ = i; }

 private:
  // Record batches one warm may read: a quarter of the cache, by the
  // decoded bytes per record batch seen so far, between 1 and 64.
  int64_t Budget() const;

  BatchSource* source_;
  int64_t cache_bytes_;
  int64_t warmed_until_ = 0;  // batches before it were warmed
  std::vector<int64_t> rows_;
};

}  // namespace quiver::data
