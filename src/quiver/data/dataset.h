// Internal: the files a BatchReader reads, as one table of rows: their
// readers, the schema they share, the selected columns, and where each
// global row lives (record batch, row within it).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "quiver/array.h"
#include "quiver/fixed_shape_tensor.h"
#include "quiver/record_batch.h"
#include "quiver/status.h"
#include "quiver/variable_shape_tensor.h"

namespace quiver::data {

// A record batch once its selected columns have been validated, with the
// ragged ones wrapped (made once, not per batch).
struct LoadedBatch {
  RecordBatchPtr batch;
  // Per selected column: the variable_shape_tensor array, or nullopt.
  std::vector<std::optional<VariableShapeTensorArray>> ragged;
  // Per selected column: the fixed_shape_tensor array, or nullopt.
  std::vector<std::optional<FixedShapeTensorArray>> fixed;
};

// Where a global row lives.
struct RowLocation {
  int record_batch = 0;  // over all files
  int64_t row = 0;       // within the record batch
};

class Dataset {
 public:
  // `sources`: files, or one directory (its *.arrow, *.feather and *.ipc
  // files, sorted). Opens every file (memory-mapped), checks that they
  // share the first file's schema, reads every record batch's header
  // (decoded at ValidationLevel::kMinimal, so every buffer is in bounds)
  // and resolves `columns` (empty: all). Errors name the file, the record
  // batch or the column.
  static Result<std::unique_ptr<Dataset>> Open(const std::vector<std::string>& sources,
                                               const std::vector<std::string>& columns,
                                               ValidationLevel level);

  const std::vector<std::string>& files() const { return files_; }
  const SchemaPtr& schema() const { return schema_; }
  // Schema indices of the selected columns, in the order asked for.
  const std::vector<int>& columns() const { return columns_; }
  int64_t num_rows() const { return starts_.back(); }
  int num_record_batches() const { return static_cast<int>(batches_.size()); }
  // Rows of record batch k.
  int64_t record_batch_rows(int k) const { return starts_[k + 1] - starts_[k]; }
  // The global row number of record batch k's first row.
  int64_t record_batch_start(int k) const { return starts_[k]; }
  // Precondition: 0 <= global_row < num_rows().
  RowLocation Locate(int64_t global_row) const;
  // "file a.arrow, record batch 3".
  std::string Describe(int k) const;

  // Record batch k with its selected columns validated at the level given
  // to Open (once; later calls return the same). Safe to call from several
  // threads. Errors name the file, the record batch and the column.
  Result<const LoadedBatch*> Load(int k);

 private:
  struct Slot {
    std::mutex mutex;
    std::optional<LoadedBatch> loaded;
    Status error;
  };
  Dataset() = default;
  Status AddFile(const std::string& path);
  Status SelectColumns(const std::vector<std::string>& names);

  ValidationLevel level_ = ValidationLevel::kFull;
  std::vector<std::string> files_;
  SchemaPtr schema_;
  std::vector<int> columns_;
  // Per record batch over all files: the decoded batch and its file.
  std::vector<RecordBatchPtr> batches_;
  std::vector<int> batch_file_;
  std::vector<int> batch_in_file_;
  std::vector<int64_t> starts_{0};  // num_record_batches() + 1 entries
  std::vector<std::unique_ptr<Slot>> slots_;
};

// The IPC files a source list names: files as given, a directory's
// *.arrow, *.feather and *.ipc files sorted by name. IOError for a path
// that does not exist, Invalid for an empty list or a directory without
// such files.
Result<std::vector<std::string>> ListFiles(const std::vector<std::string>& sources);

}  // namespace quiver::data
