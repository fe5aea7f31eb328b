// What the `quiver` tool reads: an Arrow IPC file, an Arrow IPC stream, a
// Tensor message, a SparseTensor message or a Parquet file, told apart by
// their bytes (the file extension is not trusted).
//
// Regular files are read with pread into memory of the tool's own, never
// memory-mapped: a file that another process truncates while the tool reads
// it is then an error, where a mapping would kill the tool with SIGBUS.
// "-" is standard input; pipes, FIFOs, terminals and sockets are read front
// to back as their bytes arrive (an IPC stream batch by batch; an IPC file
// a Tensor message or a Parquet file, which cannot be read in order, is
// gathered whole).
// http://, https:// and s3:// URLs are read with range requests
// (io::OpenSource), fetching the parts a command needs.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "quiver/io.h"
#include "quiver/ipc.h"
#include "quiver/parquet.h"
#include "quiver/record_batch.h"
#include "quiver/sparse_tensor.h"
#include "quiver/status.h"
#include "quiver/tensor.h"

namespace quiver::tools {

enum class InputKind { kIpcFile, kIpcStream, kTensor, kSparseTensor, kParquet };

// "ipc_file", "ipc_stream", "tensor", "sparse_tensor", "parquet" (the
// --json names).
const char* InputKindId(InputKind kind);
// "Arrow IPC file", "Arrow IPC stream", "Tensor message", "SparseTensor
// message", "Parquet file".
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
  std::unique_ptr<ipc::FileReader> file;          // kIpcFile
  std::unique_ptr<ipc::StreamReader> stream;      // kIpcStream
  std::optional<Tensor> tensor;                   // kTensor
  std::optional<SparseTensor> sparse;             // kSparseTensor
  std::unique_ptr<parquet::ParquetFile> parquet;  // kParquet

  // Whether the input holds record batches (an IPC file or stream, or a
  // Parquet file, whose row groups are its batches).
  bool has_batches() const {
    return kind == InputKind::kIpcFile || kind == InputKind::kIpcStream ||
           kind == InputKind::kParquet;
  }
  const SchemaPtr& schema() const;  // inputs with batches only
  // The number of batches of a file (IPC or Parquet); -1 for a stream.
  int num_batches() const;
  // Batch i of a file (IPC or Parquet); precondition: 0 <= i < num_batches().
  Result<RecordBatchPtr> ReadBatch(int i) const;
  // Bytes: the file's size, or for a pipe the bytes read from it so far.
  int64_t size() const;
};

// Opens `path` ("-": standard input) and reads what its kind needs up
// front: the footer of a file, the schema of a stream, the whole Tensor or
// SparseTensor message. Errors say what the file is when it is none of the
// five.
Result<Input> OpenInput(const std::string& path, const ipc::ReadOptions& options);

// Calls `visit(index, batch)` for every record batch of a file or stream
// input, stopping at the first error (returned with "batch N: " before it).
template <typename Visit>
Status ForEachBatch(Input& input, Visit&& visit) {
  if (input.kind != InputKind::kIpcStream) {
    for (int i = 0; i < input.num_batches(); ++i) {
      auto batch = input.ReadBatch(i);
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
