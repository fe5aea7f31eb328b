// Internal: the rows a BatchReader reads, as record batches of a
// dataset::Dataset (any source it opens: files, streams, directories,
// globs, HTTP, S3, compressed or not), each loaded with its struct columns
// flattened into "parent.child" columns and its tensor columns wrapped once
// for the gather.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "quiver/dataset.h"
#include "quiver/fixed_shape_tensor.h"
#include "quiver/record_batch.h"
#include "quiver/status.h"
#include "quiver/variable_shape_tensor.h"

namespace quiver::data {

// A record batch's projected columns, with the tensor ones wrapped.
struct LoadedBatch {
  RecordBatchPtr batch;
  // Per column: the structs it is a field of that have null rows (row r of
  // each is row r of the batch): a row is null where any of them is.
  std::vector<std::vector<ArrayDataPtr>> null_parents;
  // Whether row `row` of column `position` is not null, its structs' rows
  // included.
  bool RowValid(int position, int64_t row) const {
    if (!batch->column(position)->IsValid(row)) return false;
    for (const ArrayDataPtr& parent : null_parents[static_cast<size_t>(position)]) {
      if (!parent->IsValid(row)) return false;
    }
    return true;
  }
  // Per column: the variable_shape_tensor array, or nullopt.
  std::vector<std::optional<VariableShapeTensorArray>> ragged;
  // Per column: the fixed_shape_tensor array, or nullopt.
  std::vector<std::optional<FixedShapeTensorArray>> fixed;
};

// Where a global row lives.
struct RowLocation {
  int record_batch = 0;  // over all sources
  int64_t row = 0;       // within the record batch
};

class BatchSource {
 public:
  // Opens `sources` as dataset::Dataset::Open does, with its options
  // (columns, memory_map, cache_bytes, validation, remote). Errors name the
  // source, the column or the option.
  static Result<std::unique_ptr<BatchSource>> Open(const std::vector<std::string>& sources,
                                                   const dataset::DatasetOptions& options);

  const std::vector<std::string>& locations() const { return dataset_->locations(); }
  // The projected columns, in the order asked for, struct columns replaced
  // by their fields ("parent.child", nested structs "a.b.c"), each nullable
  // where the struct or the field is.
  const SchemaPtr& schema() const { return schema_; }
  int64_t num_rows() const { return dataset_->num_rows(); }
  int num_record_batches() const { return dataset_->num_record_batches(); }
  int64_t record_batch_rows(int k) const {
    return dataset_->record_batch_start(k + 1) - dataset_->record_batch_start(k);
  }
  int64_t record_batch_start(int k) const { return dataset_->record_batch_start(k); }
  // Precondition: 0 <= global_row < num_rows().
  RowLocation Locate(int64_t global_row) const;
  // "LOCATION: record batch J".
  std::string Describe(int k) const { return dataset_->DescribeRecordBatch(k); }

  // Record batch k's columns, decoded and validated through the dataset's
  // cache (a failure is returned again on every later call, as the batch
  // is read again). Safe to call from several threads.
  Result<std::shared_ptr<const LoadedBatch>> Load(int k);

  // To be called in a process forked since Open before anything else (the
  // dataset notices the fork itself; the kept views' lock may have been
  // held by a thread of the parent, and is replaced).
  void AfterFork();

  dataset::CacheStats stats() const { return dataset_->cache_stats(); }
  // Whether record batch k reads as views of a mapped file (nothing to
  // decode, nothing to warm).
  bool IsMappedView(int k) const { return dataset_->IsMappedView(k); }
  // Reads the record batches into the dataset's cache at once
  // (dataset::Dataset::Warm).
  Status Warm(std::span<const int64_t> record_batches) { return dataset_->Warm(record_batches); }
  int64_t WarmBudget() const { return dataset_->WarmBudget(); }
  // Whether nothing would ever be decoded (dataset::Dataset::ReadsOnlyViews).
  bool ReadsOnlyViews() { return dataset_->ReadsOnlyViews(); }

 private:
  // Loaded batches that are views of a mapped file, which cost nothing to
  // keep: wrapping them again for every row of a shuffled epoch would cost
  // more than the copy. Direct-mapped by record batch number.
  static constexpr size_t kKeptViews = 4096;
  struct KeptView {
    int record_batch = -1;
    std::shared_ptr<const LoadedBatch> loaded;
  };

  BatchSource() = default;
  // The flat columns of the dataset's schema (schema_, paths_).
  Status FlattenSchema();
  // The flat columns of a read record batch: struct fields sliced to the
  // struct's rows (zero-copy), the structs with null rows remembered.
  Status Flatten(int k, const RecordBatchPtr& read, LoadedBatch* loaded) const;
  Status Wrap(int k, LoadedBatch* loaded) const;

  std::shared_ptr<dataset::Dataset> dataset_;
  SchemaPtr schema_;
  // Per flat column: its top-level column, then the field index at each
  // struct level (just the column for one that is not a struct's field).
  std::vector<std::vector<int>> paths_;
  bool flattened_ = false;  // some column is a struct's field
  std::vector<int64_t> starts_;
  std::unique_ptr<std::mutex> views_mutex_ = std::make_unique<std::mutex>();
  std::unique_ptr<std::vector<KeptView>> views_ =
      std::make_unique<std::vector<KeptView>>(kKeptViews);
};

}  // namespace quiver::data
