#include "quiver/data/batch_source.h"

#include <algorithm>

namespace quiver::data {

Result<std::unique_ptr<BatchSource>> BatchSource::Open(const std::vector<std::string>& sources,
                                                       const dataset::DatasetOptions& options) {
  std::unique_ptr<BatchSource> source(new BatchSource());
  QUIVER_ASSIGN_OR_RETURN(source->dataset_, dataset::Dataset::Open(sources, options));
  const int count = source->dataset_->num_record_batches();
  source->starts_.reserve(static_cast<size_t>(count) + 1);
  for (int k = 0; k <= count; ++k)
    source->starts_.push_back(source->dataset_->record_batch_start(k));
  return source;
}

RowLocation BatchSource::Locate(int64_t global_row) const {
  const auto it = std::upper_bound(starts_.begin(), starts_.end(), global_row);
  const int k = static_cast<int>(it - starts_.begin()) - 1;
  return {k, global_row - starts_[static_cast<size_t>(k)]};
}

Result<std::shared_ptr<const LoadedBatch>> BatchSource::Wrap(int k, RecordBatchPtr batch) const {
  auto loaded = std::make_shared<LoadedBatch>();
  const size_t columns = schema()->fields.size();
  loaded->ragged.resize(columns);
  loaded->fixed.resize(columns);
  for (size_t c = 0; c < columns; ++c) {
    const ArrayDataPtr& column = batch->column(static_cast<int>(c));
    const DataType& type = *column->type;
    if (type.id() != TypeId::kExtension) continue;
    // The dataset validated the column when it decoded it: the wrappers
    // check only their structure.
    Status st;
    if (type.extension_name() == VariableShapeTensorType::kExtensionName) {
      Result<VariableShapeTensorArray> array =
          VariableShapeTensorArray::Make(column, ValidationLevel::kMinimal);
      if (array.ok()) loaded->ragged[c].emplace(std::move(*array));
      st = array.status();
    } else if (type.extension_name() == FixedShapeTensorType::kExtensionName) {
      Result<FixedShapeTensorArray> array =
          FixedShapeTensorArray::Make(column, ValidationLevel::kMinimal);
      if (array.ok()) loaded->fixed[c].emplace(std::move(*array));
      st = array.status();
    }
    if (!st.ok()) {
      return Status(st.code(),
                    Describe(k) + ", column '" + schema()->fields[c].name + "': " + st.message());
    }
  }
  loaded->batch = std::move(batch);
  return std::shared_ptr<const LoadedBatch>(std::move(loaded));
}

Result<std::shared_ptr<const LoadedBatch>> BatchSource::Load(int k) {
  KeptView& slot = (*views_)[static_cast<size_t>(k) % kKeptViews];
  {
    std::lock_guard<std::mutex> lock(*views_mutex_);
    if (slot.record_batch == k) return slot.loaded;
  }
  QUIVER_ASSIGN_OR_RETURN(RecordBatchPtr batch, dataset_->ReadRecordBatch(k));
  QUIVER_ASSIGN_OR_RETURN(std::shared_ptr<const LoadedBatch> loaded, Wrap(k, std::move(batch)));
  if (dataset_->IsMappedView(k)) {
    std::lock_guard<std::mutex> lock(*views_mutex_);
    slot.record_batch = k;
    slot.loaded = loaded;
  }
  return loaded;
}

void BatchSource::AfterFork() {
  // A lock a thread of the parent held at the fork stays held: left behind
  // (a few bytes) with the views it guarded, which may be half written. A
  // free lock guards nothing in flight: kept.
  if (views_mutex_->try_lock()) {
    views_mutex_->unlock();
    return;
  }
  (void)views_mutex_.release();
  views_mutex_ = std::make_unique<std::mutex>();
  (void)views_.release();
  views_ = std::make_unique<std::vector<KeptView>>(kKeptViews);
}

}  // namespace quiver::data
