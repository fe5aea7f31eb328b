#include "input_file.h"

#include <cstring>
#include <utility>

namespace quiver::tools {

const char* InputKindId(InputKind kind) {
  switch (kind) {
    case InputKind::kIpcFile: return "ipc_file";
    case InputKind::kIpcStream: return "ipc_stream";
    case InputKind::kTensor: return "tensor";
    case InputKind::kSparseTensor: return "sparse_tensor";
  }
  return "unknown";
}

const char* InputKindName(InputKind kind) {
  switch (kind) {
    case InputKind::kIpcFile: return "Arrow IPC file";
    case InputKind::kIpcStream: return "Arrow IPC stream";
    case InputKind::kTensor: return "Tensor message";
    case InputKind::kSparseTensor: return "SparseTensor message";
  }
  return "unknown";
}

const SchemaPtr& Input::schema() const {
  return kind == InputKind::kIpcFile ? file->schema() : stream->schema();
}

namespace {

bool StartsWithFileMagic(ipc::InputSource& source) {
  if (source.size() < 6) return false;
  auto head = source.ReadAt(0, 6);
  return head.ok() && std::memcmp((*head)->data(), "ARROW1", 6) == 0;
}

bool Contains(const std::string& text, const char* piece) {
  return text.find(piece) != std::string::npos;
}

}  // namespace

Result<Input> OpenInput(const std::string& path, const ipc::ReadOptions& options) {
  Input input;
  input.path = path;
  QUIVER_ASSIGN_OR_RETURN(input.source, ipc::OpenFileSource(path, /*memory_map=*/true));
  if (StartsWithFileMagic(*input.source)) {
    input.kind = InputKind::kIpcFile;
    QUIVER_ASSIGN_OR_RETURN(input.file, ipc::FileReader::Open(input.source, options));
    return input;
  }
  // A stream, a Tensor message and a SparseTensor message all start with
  // an encapsulated message; the stream reader names the header type of
  // one that is not a schema, which tells the other two apart.
  auto stream = ipc::StreamReader::Open(input.source, options);
  if (stream.ok()) {
    input.kind = InputKind::kIpcStream;
    input.stream = std::move(*stream);
    return input;
  }
  const std::string& message = stream.status().message();
  if (Contains(message, "is a Tensor message")) {
    input.kind = InputKind::kTensor;
    QUIVER_ASSIGN_OR_RETURN(input.tensor, ipc::ReadTensor(input.source, 0, options));
    return input;
  }
  if (Contains(message, "is a SparseTensor message")) {
    input.kind = InputKind::kSparseTensor;
    QUIVER_ASSIGN_OR_RETURN(input.sparse, ipc::ReadSparseTensor(input.source, 0, options));
    return input;
  }
  return stream.status();
}

}  // namespace quiver::tools
