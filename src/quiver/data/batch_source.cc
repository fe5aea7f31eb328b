#include "quiver/data/batch_source.h"

#include <algorithm>
#include <cstring>

namespace quiver::data {

Result<std::unique_ptr<BatchSource>> BatchSource::Open(const std::vector<std::string>& sources,
                                                       const dataset::DatasetOptions& options) {
  std::unique_ptr<BatchSource> source(new BatchSource());
  QUIVER_ASSIGN_OR_RETURN(source->dataset_, dataset::Dataset::Open(sources, options));
  QUIVER_RETURN_NOT_OK(source->Flatten());
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

namespace {

// Struct levels a flattened column may sit under.
constexpr int kMaxStructDepth = 64;

bool IsPlainStruct(const DataType& type) { return type.id() == TypeId::kStruct; }

// Field j of a struct array, cut to the struct's rows, and null wherever
// the struct is: its validity bitmap ANDed with the struct's (a copy only
// when the struct has nulls).
Result<ArrayDataPtr> StructField(const ArrayDataPtr& parent, int j) {
  QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr child, Slice(parent->children[static_cast<size_t>(j)],
                                                    parent->offset, parent->length));
  if (!parent->buffers[0] || parent->ComputeNullCount() == 0) return child;
  // The merged bitmap is read at the child's own offset, as its other
  // buffers are.
  const int64_t n = child->length;
  const int64_t bytes = (child->offset + n + 7) / 8;
  QUIVER_ASSIGN_OR_RETURN(BufferPtr bitmap, Buffer::Allocate(bytes));
  uint8_t* bits = bitmap->mutable_data();
  std::memset(bits, 0, static_cast<size_t>(bytes));
  for (int64_t i = 0; i < n; ++i) {
    if (!parent->IsValid(i) || !child->IsValid(i)) continue;
    const int64_t at = child->offset + i;
    bits[at >> 3] |= static_cast<uint8_t>(1 << (at & 7));
  }
  auto merged = std::make_shared<ArrayData>(*child);
  if (merged->buffers.empty()) merged->buffers.resize(1);
  merged->buffers[0] = std::move(bitmap);
  merged->null_count = kUnknownNullCount;
  return ArrayDataPtr(std::move(merged));
}

}  // namespace

Status BatchSource::Flatten() {
  std::vector<Field> fields;
  const Schema& schema = *dataset_->schema();
  // Depth-first over struct fields, iteratively: (field, path, name).
  struct Pending {
    const Field* field;
    std::vector<int> path;
    std::string name;
    bool nullable;
  };
  for (size_t c = 0; c < schema.fields.size(); ++c) {
    std::vector<Pending> stack = {{&schema.fields[c],
                                   {static_cast<int>(c)},
                                   schema.fields[c].name,
                                   schema.fields[c].nullable}};
    while (!stack.empty()) {
      Pending at = std::move(stack.back());
      stack.pop_back();
      if (!IsPlainStruct(*at.field->type)) {
        Field flat = *at.field;
        flat.name = at.name;
        flat.nullable = at.nullable;
        fields.push_back(std::move(flat));
        paths_.push_back(std::move(at.path));
        continue;
      }
      if (static_cast<int>(at.path.size()) > kMaxStructDepth) {
        return Status::Invalid("column '", schema.fields[c].name, "' nests structs more than ",
                               kMaxStructDepth, " deep");
      }
      flattened_ = flattened_ || at.path.size() == 1;
      const std::vector<Field>& children = at.field->type->children();
      for (size_t j = children.size(); j-- > 0;) {
        std::vector<int> path = at.path;
        path.push_back(static_cast<int>(j));
        stack.push_back({&children[j], std::move(path), at.name + "." + children[j].name,
                         at.nullable || children[j].nullable});
      }
    }
  }
  schema_ = std::make_shared<Schema>(Schema{std::move(fields), schema.metadata});
  return Status::OK();
}

Result<RecordBatchPtr> BatchSource::FlatBatch(int k, const RecordBatchPtr& batch) const {
  if (!flattened_) return batch;
  std::vector<ArrayDataPtr> columns;
  columns.reserve(paths_.size());
  for (const std::vector<int>& path : paths_) {
    ArrayDataPtr column = batch->column(path[0]);
    for (size_t level = 1; level < path.size(); ++level) {
      Result<ArrayDataPtr> field = StructField(column, path[level]);
      if (!field.ok()) {
        return Status(field.status().code(), Describe(k) + ": " + field.status().message());
      }
      column = std::move(*field);
    }
    columns.push_back(std::move(column));
  }
  return RecordBatch::Make(schema_, batch->num_rows(), std::move(columns),
                           ValidationLevel::kMinimal);
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
  QUIVER_ASSIGN_OR_RETURN(RecordBatchPtr read, dataset_->ReadRecordBatch(k));
  QUIVER_ASSIGN_OR_RETURN(RecordBatchPtr batch, FlatBatch(k, read));
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
