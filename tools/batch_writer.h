// Where the `quiver` tool writes record batches: an IPC file, an IPC
// stream when the output name ends in .arrows or .stream, or a Parquet
// file when it ends in .parquet or .pq.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "quiver/ipc.h"
#include "quiver/parquet.h"
#include "quiver/record_batch.h"
#include "quiver/status.h"

namespace quiver::tools {

// Whether `path` names an IPC stream (.arrows, .stream) rather than a file.
bool IsStreamPath(const std::string& path);
// Whether `path` names a Parquet file (.parquet, .pq; case ignored).
bool IsParquetPath(const std::string& path);
// What the tool writes at `path`: "Parquet file", "Arrow IPC stream" or
// "Arrow IPC file".
const char* OutputKindName(const std::string& path);

// The format an output name's extension stands for when that is neither
// Arrow IPC nor Parquet ("NumPy" for .npy, "CSV" for .csv, ...; case
// ignored), or empty: .arrow, .arrows, .feather (Feather v2 is the IPC file
// format), .ipc, .stream, .parquet, .pq, no extension and extensions no
// format claims are fine. The tool writes only Arrow IPC and Parquet, and
// a foreign name would mislead every program that trusts it, so such names
// are refused.
std::string ForeignFormatOf(const std::string& path);
// The extensions the refusal suggests.
inline constexpr const char* kIpcExtensions =
    ".arrow, .feather or .ipc (an IPC file), .arrows or .stream (an IPC stream), .parquet "
    "(Parquet)";

// "none", "lz4", "zstd" (what --compression takes).
Result<ipc::Compression> ParseCompression(const std::string& name);

class BatchWriter {
 public:
  // A new file at `path` (written under a temporary name, renamed by
  // Close: a failure leaves nothing at `path`). A Parquet file is written
  // as the batches come, a row group each time the batches held reach
  // 2^20 rows or kRowGroupBytes of values (so memory stays near that,
  // whatever the input's size), compressed with options.compression (none:
  // no codec; lz4: LZ4_RAW; zstd: ZSTD).
  static Result<std::unique_ptr<BatchWriter>> Open(const std::string& path, SchemaPtr schema,
                                                   ipc::WriteOptions options, bool stream);
  Status Write(const RecordBatch& batch);
  Status Close();
  // Bytes written so far.
  int64_t position() const { return sink_->position(); }

 private:
  std::shared_ptr<ipc::OutputSink> sink_;
  std::unique_ptr<ipc::FileWriter> file_;
  std::unique_ptr<ipc::StreamWriter> stream_;
  // Parquet: the writer, and the batches held for its next row group.
  static constexpr int64_t kRowGroupBytes = int64_t{64} << 20;
  Status FlushRowGroup();
  std::unique_ptr<parquet::ParquetWriter> parquet_;
  SchemaPtr parquet_schema_;
  std::vector<RecordBatchPtr> pending_;
  int64_t pending_rows_ = 0, pending_bytes_ = 0;
  int64_t parquet_rows_ = 0;  // row_group_rows
};

}  // namespace quiver::tools
