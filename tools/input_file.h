// What the `quiver` tool reads: an Arrow IPC file, an Arrow IPC stream, a
// Tensor message or a SparseTensor message, told apart by their bytes (the
// file extension is not trusted).
//
// Regular files are read with pread into memory of the tool's own, never
// memory-mapped: a file that another process truncates while the tool reads
// it is then an error, where a mapping would kill the tool with SIGBUS.
// "-" is standard input; pipes, FIFOs, terminals and sockets are read front
// to back as their bytes arrive (an IPC stream batch by batch; an IPC file
// or a Tensor message, which cannot be read in order, is gathered whole).
// http://, https:// and s3:// URLs are read with range requests
// (io::OpenSource), fetching the parts a command needs.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "quiver/io.h"
#include "quiver/ipc.h"
#include "quiver/record_batch.h"
#include "quiver/sparse_tensor.h"
#include "quiver/status.h"
#include "quiver/tensor.h"

namespace quiver::tools {

enum class InputKind { kIpcFile, kIpcStream, kTensor, kSparseTensor };

// "ipc_file", "ipc_stream", "tensor", "sparse_tensor" (the --json names).
const char* InputKindId(InputKind kind);
// "Arrow IPC file", "Arrow IPC stream", "Tensor message", "SparseTensor message".
const char* InputKindName(InputKind kind);

// The path that means standard input.
inline constexpr const char* kStandardInput = "-";

struct Input {
  std::string path;
  InputKind kind = InputKind::kIpcFile;
  // The bytes: a regular file (pread), or what a pipe held (in memory).
  std::shared_ptr<ipc::InputSource> source;
  // An IPC stream read from a pipe as it arrives (`source` is then null).
  std::shared_ptr<ipc::InputStream> pipe;
  std::unique_ptr<ipc::FileReader> file;      // kIpcFile
  std::unique_ptr<ipc::StreamReader> stream;  // kIpcStream
  std::optional<Tensor> tensor;               // kTensor
  std::optional<SparseTensor> sparse;         // kSparseTensor

  const SchemaPtr& schema() const;  // file and stream only
  // Bytes: the file's size, or for a pipe the bytes read from it so far.
  int64_t size() const;
};

// Opens `path` ("-": standard input) and reads what its kind needs up
// front: the footer of a file, the schema of a stream, the whole Tensor or
// SparseTensor message. Errors say what the file is when it is none of the
// four.
Result<Input> OpenInput(const std::string& path, const ipc::ReadOptions& options);

// Calls `visit(index, batch)` for every record batch of a file or stream
// input, stopping at the first error (returned with "batch N: " before it).
template <typename Visit>
Status ForEachBatch(Input& input, Visit&& visit) {
  if (input.kind == InputKind::kIpcFile) {
    for (int i = 0; i < input.file->num_record_batches(); ++i) {
      auto batch = input.file->ReadRecordBatch(i);
      if (!batch.ok()) return batch.status().WithContext("batch " + std::to_string(i));
      QUIVER_RETURN_NOT_OK(visit(i, *batch));
    }
    return Status::OK();
  }
  for (int i = 0;; ++i) {
    auto batch = input.stream->Next();
    if (!batch.ok()) return batch.status().WithContext("batch " + std::to_string(i));
    if (*batch == nullptr) return Status::OK();
    QUIVER_RETURN_NOT_OK(visit(i, *batch));
  }
}

}  // namespace quiver::tools
