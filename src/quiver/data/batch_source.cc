#include "quiver/data/batch_source.h"

#include <algorithm>

#include "quiver/internal/threads.h"

namespace quiver::data {

Result<std::unique_ptr<BatchSource>> BatchSource::Open(const std::vector<std::string>& sources,
                                                       const dataset::DatasetOptions& options) {
  std::unique_ptr<BatchSource> source(new BatchSource());
  QUIVER_ASSIGN_OR_RETURN(source->dataset_, dataset::Dataset::Open(sources, options));
  QUIVER_RETURN_NOT_OK(source->FlattenSchema());
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

bool HasNullRows(const ArrayData& data) {
  return !data.buffers.empty() && data.buffers[0] && data.ComputeNullCount() > 0;
}

}  // namespace

Status BatchSource::FlattenSchema() {
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

Status BatchSource::Flatten(int k, const RecordBatchPtr& read, LoadedBatch* loaded) const {
  loaded->null_parents.assign(paths_.size(), {});
  if (!flattened_) {
    loaded->batch = read;
    return Status::OK();
  }
  std::vector<ArrayDataPtr> columns;
  columns.reserve(paths_.size());
  for (size_t c = 0; c < paths_.size(); ++c) {
    const std::vector<int>& path = paths_[c];
    ArrayDataPtr column = read->column(path[0]);
    for (size_t level = 1; level < path.size(); ++level) {
      if (HasNullRows(*column)) loaded->null_parents[c].push_back(column);
      Result<ArrayDataPtr> field =
          Slice(column->children[static_cast<size_t>(path[level])], column->offset, column->length);
      if (!field.ok()) return field.status().WithContext(Describe(k));
      column = std::move(*field);
    }
    columns.push_back(std::move(column));
  }
  QUIVER_ASSIGN_OR_RETURN(
      loaded->batch,
      RecordBatch::Make(schema_, read->num_rows(), std::move(columns), ValidationLevel::kMinimal));
  return Status::OK();
}

Status BatchSource::Wrap(int k, LoadedBatch* loaded) const {
  const RecordBatchPtr& batch = loaded->batch;
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
  return Status::OK();
}

Result<std::shared_ptr<const LoadedBatch>> BatchSource::Load(int k) {
  KeptView& slot = (*views_)[static_cast<size_t>(k) % kKeptViews];
  {
    std::lock_guard<std::mutex> lock(*views_mutex_);
    if (slot.record_batch == k) return slot.loaded;
  }
  QUIVER_ASSIGN_OR_RETURN(RecordBatchPtr read, dataset_->ReadRecordBatch(k));
  auto made = std::make_shared<LoadedBatch>();
  QUIVER_RETURN_NOT_OK(Flatten(k, read, made.get()));
  QUIVER_RETURN_NOT_OK(Wrap(k, made.get()));
  std::shared_ptr<const LoadedBatch> loaded = std::move(made);
  if (dataset_->IsMappedView(k)) {
    std::lock_guard<std::mutex> lock(*views_mutex_);
    slot.record_batch = k;
    slot.loaded = loaded;
  }
  return loaded;
}

void BatchSource::AfterFork() {
  if (!internal::ReplaceIfHeldAtFork(views_mutex_)) return;
  // The views the held lock guarded may be half written: left behind too.
  (void)views_.release();
  views_ = std::make_unique<std::vector<KeptView>>(kKeptViews);
}

}  // namespace quiver::data
