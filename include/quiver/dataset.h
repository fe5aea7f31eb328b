// Random access to the rows of many IPC files and streams and Parquet
// files, compressed or not, on local disk, over HTTP and in S3
// (docs/dataset.md).
//
// A Dataset indexes its sources when it opens: a file by its footer (the
// row counts quiver's writers put there, or else every record batch's
// message header), a stream by walking its message headers, skipping the
// bodies, a Parquet file by its footer (its row groups are its record
// batches). Rows are then read in any order: only the record batches a
// request touches are read, and of those only the projected columns'
// buffers. Decoded columns (decompressed, validated) are kept in a cache
// bounded in bytes, least recently used first out, so memory stays bounded
// whatever the dataset's size.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "quiver/io.h"
#include "quiver/record_batch.h"
#include "quiver/status.h"
#include "quiver/table.h"

namespace quiver::dataset {

// Bytes of decoded columns a Dataset keeps by default.
inline constexpr int64_t kDefaultCacheBytes = int64_t{256} << 20;

// The file names a directory or an s3:// prefix contributes.
inline const std::vector<std::string>& DatasetExtensions() {
  static const std::vector<std::string> extensions = {".arrow", ".arrows", ".feather", ".ipc",
                                                      ".parquet"};
  return extensions;
}

struct DatasetOptions {
  // The columns to read, by name, in the order wanted (empty: all).
  std::vector<std::string> columns;
  // Local files: memory-mapped (zero-copy) or read with pread into memory
  // of their own (a file truncated meanwhile is an IOError, not SIGBUS).
  bool memory_map = true;
  // Bytes of decoded columns kept for later requests (0: none kept).
  // Columns that are views of a mapped file count a few hundred bytes.
  int64_t cache_bytes = kDefaultCacheBytes;
  // How far each record batch's columns are checked when first decoded.
  ValidationLevel validation = ValidationLevel::kFull;
  // Threads decoding the record batches one request needs (0: one per
  // core; remote sources fetch in parallel whatever this says).
  int threads = 0;
  io::RemoteOptions remote;
};

// What the cache did and what the sources read, since the dataset opened.
struct CacheStats {
  int64_t hits = 0;           // columns of a record batch found decoded
  int64_t misses = 0;         // ... read and decoded
  int64_t evictions = 0;      // ... dropped to stay within cache_bytes
  int64_t bytes_decoded = 0;  // bytes of the buffers decoded (after decompression)
  int64_t bytes_cached = 0;   // bytes the cache holds now
  int64_t bytes_fetched = 0;  // bytes the sources read (remote: response bodies)
  int64_t requests = 0;       // requests (remote) or reads (pread) the sources made
};

class Dataset {
 public:
  // `sources`: local files, directories (their *.arrow, *.arrows,
  // *.feather and *.ipc files, sorted), glob patterns, http(s):// URLs,
  // s3://bucket/key and s3://bucket/prefix/ (io::ExpandLocations). Each
  // may be an IPC file or an IPC stream; all must have the first one's
  // schema. Errors name the source and, for a damaged one, the message.
  static Result<std::shared_ptr<Dataset>> Open(const std::vector<std::string>& sources,
                                               const DatasetOptions& options = {});
  ~Dataset();

  // The projected columns' schema.
  const SchemaPtr& schema() const;
  int64_t num_rows() const;
  // Record batches over all sources, those of no rows left out.
  int num_record_batches() const;
  // The objects read, in order.
  const std::vector<std::string>& locations() const;
  // The global row number of record batch k's first row, for 0 <= k <=
  // num_record_batches() (k == num_record_batches(): num_rows()).
  int64_t record_batch_start(int k) const;
  // "LOCATION: record batch J" (J counted within its source) for error
  // messages; precondition 0 <= k < num_record_batches().
  std::string DescribeRecordBatch(int k) const;
  // Whether every record batch reads as views of a mapped file (every
  // source local, mapped, in native byte order, its first record batch
  // uncompressed): nothing would be decoded, so nothing needs warming.
  // Reads each source's first record batch header.
  bool ReadsOnlyViews();
  // Whether record batch k's columns, once read, are views of a mapped
  // file (uncompressed, native byte order), which cost no memory to keep.
  bool IsMappedView(int k) const;

  // The rows at `indices` (0 <= i < num_rows(), any order, repeats
  // allowed), in the order asked: a copy. IndexError naming the position
  // of the first index out of range. From a remote or pread source, a few
  // rows of an uncompressed batch whose columns are all fixed-width are
  // fetched alone (their bytes, not whole buffers) and not cached.
  Result<TablePtr> Take(std::span<const int64_t> indices);
  // Rows [offset, offset + length): zero-copy views of the decoded record
  // batches (of a few rows' bytes, read alone, where Take would read them
  // so). IndexError for a range outside the dataset.
  Result<TablePtr> Slice(int64_t offset, int64_t length);
  // Record batch k over all sources, in order (projected columns only;
  // record batches of no rows are left out, as num_record_batches()).
  Result<RecordBatchPtr> ReadRecordBatch(int k);

  // Reads and decodes into the cache the projected columns of record
  // batches `record_batches` that it does not hold, at once (remote
  // sources in parallel, compressed ones on every core), so that reads of
  // their rows that follow find them: a loader warms the record batches of
  // its next batches this way. A mapped file's uncompressed batches are
  // views and are left alone. The first error is returned (a later read
  // of that batch meets it again).
  Status Warm(std::span<const int64_t> record_batches);
  // How many record batches one Warm should read so that what it reads
  // fits a quarter of the cache: by the decoded bytes per record batch seen
  // so far (4 before any), between 1 and 64.
  int64_t WarmBudget() const;

  CacheStats cache_stats() const;

 private:
  struct Impl;
  explicit Dataset(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace quiver::dataset
