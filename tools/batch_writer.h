// Where the `quiver` tool writes record batches: an IPC file, an IPC
// stream when the output name ends in .arrows or .stream, or a Parquet
// file when it ends in .parquet or .pq.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "quiver/ipc.h"
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
  // Close: a failure leaves nothing at `path`). A Parquet file gathers the
  // batches in memory and is written by Close in row groups of at most
  // 2^20 rows, compressed with options.compression (none: no
  // codec; lz4: LZ4_RAW; zstd: ZSTD).
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
  // Parquet: the schema and the batches gathered for Close.
  SchemaPtr parquet_schema_;
  std::vector<RecordBatchPtr> parquet_batches_;
  ipc::Compression parquet_compression_ = ipc::Compression::kNone;
};

}  // namespace quiver::tools
