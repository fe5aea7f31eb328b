// Where the `quiver` tool writes record batches: an IPC file, or an IPC
// stream when the output name ends in .arrows or .stream.
#pragma once

#include <memory>
#include <string>

#include "quiver/ipc.h"
#include "quiver/record_batch.h"
#include "quiver/status.h"

namespace quiver::tools {

// Whether `path` names an IPC stream (.arrows, .stream) rather than a file.
bool IsStreamPath(const std::string& path);

// The format an output name's extension stands for when that is not Arrow
// IPC ("Parquet" for .parquet, "NumPy" for .npy, ...; case ignored), or
// empty: .arrow, .arrows, .feather (Feather v2 is the IPC file format),
// .ipc, .stream, no extension and extensions no format claims are fine.
// The tool writes only Arrow IPC, and a foreign name would mislead every
// program that trusts it, so such names are refused.
std::string ForeignFormatOf(const std::string& path);
// The extensions the refusal suggests.
inline constexpr const char* kIpcExtensions =
    ".arrow, .feather or .ipc (an IPC file), .arrows or .stream (an IPC stream)";

// "none", "lz4", "zstd" (what --compression takes).
Result<ipc::Compression> ParseCompression(const std::string& name);

class BatchWriter {
 public:
  // A new file at `path` (written under a temporary name, renamed by
  // Close: a failure leaves nothing at `path`).
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
};

}  // namespace quiver::tools
