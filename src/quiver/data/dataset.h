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
#include "quiver/ipc.h"
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

// Bytes of record batches a Dataset opened without memory mapping keeps
// loaded (beyond the ones a batch being gathered holds): the oldest loaded
// go first.
constexpr int64_t kUnmappedCacheBytes = int64_t{256} << 20;

class Dataset {
 public:
  // `sources`: files, or one directory (its *.arrow, *.feather and *.ipc
  // files, sorted). Opens every file, checks that they share the first
  // file's schema, reads every record batch's header and resolves
  // `columns` (empty: all). Errors name the file, the record batch or the
  // column.
  //
  // memory_map true: the files are mapped and every record batch decoded
  // at ValidationLevel::kMinimal here (zero-copy: every buffer is in
  // bounds); a file truncated while mapped kills the process (SIGBUS)
  // when a batch touches the lost pages. false: only the message headers
  // are read here; a record batch's body is read with pread into memory of
  // its own when it is first loaded, so a truncated file is an IOError,
  // and loaded batches are kept up to `cache_bytes`.
  static Result<std::unique_ptr<Dataset>> Open(const std::vector<std::string>& sources,
                                               const std::vector<std::string>& columns,
                                               ValidationLevel level, bool memory_map = true,
                                               int64_t cache_bytes = kUnmappedCacheBytes);

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
  // to Open (once while it stays loaded; a failure is returned again on
  // every later call). Safe to call from several threads. Errors name the
  // file, the record batch and the column.
  Result<std::shared_ptr<const LoadedBatch>> Load(int k);

  // To be called before anything else in a process forked since Open (or
  // since the last call): a lock that another thread of the parent held at
  // the fork stays held forever in the child, so every lock found held is
  // left behind with what it guarded (a record batch half loaded, a file
  // reader mid-read: the file is opened again) and replaced.
  void AfterFork();

 private:
  struct Slot {
    std::mutex mutex;
    std::shared_ptr<const LoadedBatch> loaded;
    Status error;
  };
  // A file read without mapping: its reader, one read at a time.
  struct UnmappedFile {
    std::mutex mutex;
    std::unique_ptr<ipc::FileReader> reader;
  };
  // The loaded record batches of an unmapped dataset, oldest first.
  struct Cache {
    std::mutex mutex;
    std::vector<std::pair<int, int64_t>> loaded;  // (record batch, bytes)
    int64_t bytes = 0;
  };
  Dataset() = default;
  Status AddFile(const std::string& path);
  Status AddUnmappedFile(const std::string& path, ipc::FileReader& reader);
  // Record batch `index` of file `file`, of `rows` rows (`batch` null when
  // not memory-mapped: read on Load); one of no rows is left out.
  Status AddRecordBatch(RecordBatchPtr batch, int file, int index, int64_t rows);
  Status SelectColumns(const std::vector<std::string>& names);
  Result<RecordBatchPtr> ReadUnmapped(int k);
  // Counts record batch k's bytes in the cache and drops the oldest
  // loaded batches beyond cache_bytes_ (never the one just loaded).
  void Remember(int k, int64_t bytes);
  Result<std::unique_ptr<ipc::FileReader>> OpenReader(const std::string& path) const;

  ValidationLevel level_ = ValidationLevel::kFull;
  bool memory_map_ = true;
  int64_t cache_bytes_ = kUnmappedCacheBytes;
  std::vector<std::string> files_;
  SchemaPtr schema_;
  std::vector<int> columns_;
  // Per record batch over all files: the decoded batch (null when not
  // memory-mapped: read on Load) and its file.
  std::vector<RecordBatchPtr> batches_;
  std::vector<int> batch_file_;
  std::vector<int> batch_in_file_;
  std::vector<int64_t> starts_{0};  // num_record_batches() + 1 entries
  std::vector<std::unique_ptr<Slot>> slots_;
  std::vector<std::unique_ptr<UnmappedFile>> unmapped_;  // per file, when not mapped
  std::unique_ptr<Cache> cache_ = std::make_unique<Cache>();
};

// The IPC files a source list names: files as given, a directory's
// *.arrow, *.feather and *.ipc files sorted by name. IOError for a path
// that does not exist, Invalid for an empty list or a directory without
// such files.
Result<std::vector<std::string>> ListFiles(const std::vector<std::string>& sources);

}  // namespace quiver::data
