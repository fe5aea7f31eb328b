#include "quiver/data/dataset.h"

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <type_traits>

#include "quiver/dataset/schema_match.h"
#include "quiver/internal/checked_math.h"
#include "quiver/ipc.h"

namespace quiver::data {

using dataset::ColumnName;
using dataset::CompareSchemas;

namespace {

namespace fs = std::filesystem;

bool IsIpcName(const fs::path& path) {
  const std::string ext = path.extension().string();
  return ext == ".arrow" || ext == ".feather" || ext == ".ipc";
}

std::string JoinNames(const Schema& schema) {
  std::string out;
  for (const Field& field : schema.fields) {
    if (!out.empty()) out += ", ";
    out += "'" + field.name + "'";
  }
  return out.empty() ? "none" : out;
}

// Validates one selected column of `batch` and wraps tensor columns.
Status LoadColumn(const RecordBatch& batch, int index, ValidationLevel level,
                  std::optional<VariableShapeTensorArray>* ragged,
                  std::optional<FixedShapeTensorArray>* fixed) {
  const ArrayDataPtr& column = batch.column(index);
  const DataType& type = *column->type;
  if (type.id() == TypeId::kExtension &&
      type.extension_name() == VariableShapeTensorType::kExtensionName) {
    QUIVER_ASSIGN_OR_RETURN(VariableShapeTensorArray array,
                            VariableShapeTensorArray::Make(column, level));
    ragged->emplace(std::move(array));
    return Status::OK();
  }
  if (type.id() == TypeId::kExtension &&
      type.extension_name() == FixedShapeTensorType::kExtensionName) {
    QUIVER_ASSIGN_OR_RETURN(FixedShapeTensorArray array,
                            FixedShapeTensorArray::Make(column, level));
    fixed->emplace(std::move(array));
    return Status::OK();
  }
  return Validate(*column, level);
}

}  // namespace

Result<std::vector<std::string>> ListFiles(const std::vector<std::string>& sources) {
  if (sources.empty()) return Status::Invalid("no files to read (the source list is empty)");
  std::vector<std::string> files;
  for (const std::string& source : sources) {
    std::error_code error;
    const fs::file_status status = fs::status(source, error);
    if (error || !fs::exists(status)) return Status::IOError(source, ": no such file or directory");
    if (!fs::is_directory(status)) {
      files.push_back(source);
      continue;
    }
    std::vector<std::string> found;
    for (fs::directory_iterator it(source, error), end; !error && it != end; it.increment(error)) {
      const fs::path& path = it->path();
      if (path.filename().string().starts_with(".") || !IsIpcName(path)) continue;
      if (it->is_regular_file(error)) found.push_back(path.string());
    }
    if (error) return Status::IOError(source, ": ", error.message());
    if (found.empty()) {
      return Status::Invalid("directory ", source, " holds no .arrow, .feather or .ipc files");
    }
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

Result<std::unique_ptr<Dataset>> Dataset::Open(const std::vector<std::string>& sources,
                                               const std::vector<std::string>& columns,
                                               ValidationLevel level, bool memory_map,
                                               int64_t cache_bytes) {
  std::unique_ptr<Dataset> dataset(new Dataset());
  dataset->level_ = level;
  dataset->memory_map_ = memory_map;
  dataset->cache_bytes_ = cache_bytes;
  QUIVER_ASSIGN_OR_RETURN(std::vector<std::string> files, ListFiles(sources));
  for (const std::string& file : files) QUIVER_RETURN_NOT_OK(dataset->AddFile(file));
  QUIVER_RETURN_NOT_OK(dataset->SelectColumns(columns));
  return dataset;
}

Result<std::unique_ptr<ipc::FileReader>> Dataset::OpenReader(const std::string& path) const {
  QUIVER_ASSIGN_OR_RETURN(std::shared_ptr<ipc::InputSource> source,
                          ipc::OpenFileSource(path, memory_map_));
  ipc::ReadOptions options;
  // Only what makes every buffer safe to index here; the full check of
  // each record batch waits for its first use (Load).
  options.validation = ValidationLevel::kMinimal;
  options.threads = 1;
  Result<std::unique_ptr<ipc::FileReader>> reader = ipc::FileReader::Open(source, options);
  if (!reader.ok()) {
    return Status(reader.status().code(), "file " + path + " is not a readable Arrow IPC file: " +
                                              reader.status().message());
  }
  return std::move(*reader);
}

Status Dataset::AddFile(const std::string& path) {
  QUIVER_ASSIGN_OR_RETURN(std::unique_ptr<ipc::FileReader> reader, OpenReader(path));
  if (!schema_) {
    schema_ = reader->schema();
  } else {
    QUIVER_RETURN_NOT_OK(CompareSchemas(*schema_, *reader->schema(), files_[0], path));
  }
  files_.push_back(path);
  if (!memory_map_) {
    unmapped_.push_back(std::make_unique<UnmappedFile>());
    unmapped_.back()->reader = std::move(reader);
    return AddUnmappedFile(path, *unmapped_.back()->reader);
  }
  const int file = static_cast<int>(files_.size()) - 1;
  for (int i = 0; i < reader->num_record_batches(); ++i) {
    Result<RecordBatchPtr> batch = reader->ReadRecordBatch(i);
    if (!batch.ok()) {
      return Status(batch.status().code(), "file " + path + ", record batch " + std::to_string(i) +
                                               ": " + batch.status().message());
    }
    const int64_t rows = (*batch)->num_rows();
    QUIVER_RETURN_NOT_OK(AddRecordBatch(std::move(*batch), file, i, rows));
  }
  return Status::OK();
}

Status Dataset::AddRecordBatch(RecordBatchPtr batch, int file, int index, int64_t rows) {
  if (rows == 0) return Status::OK();  // no row to locate in it
  QUIVER_ASSIGN_OR_RETURN(int64_t end,
                          internal::AddChecked(starts_.back(), rows, "rows in the files"));
  batches_.push_back(std::move(batch));
  batch_file_.push_back(file);
  batch_in_file_.push_back(index);
  starts_.push_back(end);
  slots_.push_back(std::make_unique<Slot>());
  return Status::OK();
}

// Row counts from the message headers alone: no body is read at open.
Status Dataset::AddUnmappedFile(const std::string& path, ipc::FileReader& reader) {
  const int file = static_cast<int>(files_.size()) - 1;
  for (int i = 0; i < reader.num_record_batches(); ++i) {
    Result<ipc::BatchLayout> layout = reader.RecordBatchLayout(i);
    if (!layout.ok()) {
      return Status(layout.status().code(), "file " + path + ", record batch " + std::to_string(i) +
                                                ": " + layout.status().message());
    }
    QUIVER_RETURN_NOT_OK(AddRecordBatch(nullptr, file, i, layout->num_rows));
  }
  return Status::OK();
}

Status Dataset::SelectColumns(const std::vector<std::string>& names) {
  if (names.empty()) {
    for (size_t i = 0; i < schema_->fields.size(); ++i) columns_.push_back(static_cast<int>(i));
    return Status::OK();
  }
  for (const std::string& name : names) {
    auto it = std::find_if(schema_->fields.begin(), schema_->fields.end(),
                           [&](const Field& field) { return field.name == name; });
    if (it == schema_->fields.end()) {
      return Status::Invalid("unknown column '", name, "': the files have columns ",
                             JoinNames(*schema_));
    }
    const int index = static_cast<int>(it - schema_->fields.begin());
    if (std::find(columns_.begin(), columns_.end(), index) != columns_.end()) {
      return Status::Invalid("column '", name, "' is asked for twice");
    }
    columns_.push_back(index);
  }
  return Status::OK();
}

RowLocation Dataset::Locate(int64_t global_row) const {
  auto it = std::upper_bound(starts_.begin(), starts_.end(), global_row);
  const int k = static_cast<int>(it - starts_.begin()) - 1;
  return {k, global_row - starts_[k]};
}

std::string Dataset::Describe(int k) const {
  return "file " + files_[batch_file_[k]] + ", record batch " + std::to_string(batch_in_file_[k]);
}

Result<RecordBatchPtr> Dataset::ReadUnmapped(int k) {
  UnmappedFile& file = *unmapped_[batch_file_[k]];
  std::lock_guard<std::mutex> lock(file.mutex);
  if (!file.reader) return Status::IOError(Describe(k), ": the file could not be opened again");
  Result<RecordBatchPtr> batch = file.reader->ReadRecordBatch(batch_in_file_[k]);
  if (!batch.ok())
    return Status(batch.status().code(), Describe(k) + ": " + batch.status().message());
  if ((*batch)->num_rows() != record_batch_rows(k)) {
    return Status::IOError(Describe(k), ": has ", (*batch)->num_rows(), " rows, but ",
                           record_batch_rows(k), " when the file was opened (it was rewritten)");
  }
  return batch;
}

Result<std::shared_ptr<const LoadedBatch>> Dataset::Load(int k) {
  Slot& slot = *slots_[k];
  int64_t bytes = 0;
  std::shared_ptr<const LoadedBatch> result;
  {
    std::lock_guard<std::mutex> lock(slot.mutex);
    if (slot.loaded) return slot.loaded;
    if (!slot.error.ok()) return slot.error;
    auto loaded = std::make_shared<LoadedBatch>();
    if (batches_[k]) {
      loaded->batch = batches_[k];
    } else {
      Result<RecordBatchPtr> read = ReadUnmapped(k);
      // A failed read (a truncated file) may succeed later: not remembered.
      if (!read.ok()) return read.status();
      loaded->batch = std::move(*read);
    }
    loaded->ragged.resize(columns_.size());
    loaded->fixed.resize(columns_.size());
    for (size_t c = 0; c < columns_.size(); ++c) {
      Status st =
          LoadColumn(*loaded->batch, columns_[c], level_, &loaded->ragged[c], &loaded->fixed[c]);
      if (!st.ok()) {
        slot.error =
            Status(st.code(), Describe(k) + ", column '" + schema_->fields[columns_[c]].name +
                                  "': " + st.message());
        return slot.error;
      }
      if (!batches_[k]) {
        Result<int64_t> used = ReferencedBytes(*loaded->batch->column(columns_[c]));
        if (used.ok()) bytes += *used;
      }
    }
    slot.loaded = loaded;
    result = std::move(loaded);
  }
  if (!batches_[k]) Remember(k, bytes);
  return result;
}

void Dataset::Remember(int k, int64_t bytes) {
  std::vector<int> dropped;
  {
    std::lock_guard<std::mutex> lock(cache_->mutex);
    cache_->loaded.emplace_back(k, bytes);
    cache_->bytes += bytes;
    size_t drop = 0;
    while (cache_->bytes > cache_bytes_ && drop + 1 < cache_->loaded.size()) {
      cache_->bytes -= cache_->loaded[drop].second;
      dropped.push_back(cache_->loaded[drop++].first);
    }
    cache_->loaded.erase(cache_->loaded.begin(),
                         cache_->loaded.begin() + static_cast<std::ptrdiff_t>(drop));
  }
  // Outside the cache's lock: Load takes a slot's lock first, then the
  // cache's. A batch being gathered keeps its LoadedBatch alive.
  for (int j : dropped) {
    std::lock_guard<std::mutex> lock(slots_[j]->mutex);
    slots_[j]->loaded.reset();
  }
}

void Dataset::AfterFork() {
  // try_lock on a lock held by a thread that no longer exists fails: the
  // lock and its state are left behind (a few bytes) and replaced.
  auto replace_if_held = [](auto& owner) {
    if (owner->mutex.try_lock()) {
      owner->mutex.unlock();
      return false;
    }
    (void)owner.release();
    owner = std::make_unique<std::remove_reference_t<decltype(*owner)>>();
    return true;
  };
  for (std::unique_ptr<Slot>& slot : slots_) replace_if_held(slot);
  // A cache left behind no longer counts the batches it held: they are
  // dropped, to be read again.
  if (replace_if_held(cache_)) {
    for (std::unique_ptr<Slot>& slot : slots_) {
      if (!memory_map_) slot->loaded.reset();
    }
  }
  for (size_t f = 0; f < unmapped_.size(); ++f) {
    if (!replace_if_held(unmapped_[f])) continue;
    // A reader left mid-read may hold a half-parsed message: the file is
    // opened again (when that fails, Load says so).
    Result<std::unique_ptr<ipc::FileReader>> reader = OpenReader(files_[f]);
    if (reader.ok()) unmapped_[f]->reader = std::move(*reader);
  }
}

}  // namespace quiver::data
