#include "input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

namespace quiver::tools {

const char* InputKindId(InputKind kind) {
  switch (kind) {
    case InputKind::kIpcFile: return "ipc_file";
    case InputKind::kIpcStream: return "ipc_stream";
    case InputKind::kTensor: return "tensor";
    case InputKind::kSparseTensor: return "sparse_tensor";
    case InputKind::kParquet: return "parquet";
  }
  return "unknown";
}

const char* InputKindName(InputKind kind) {
  switch (kind) {
    case InputKind::kIpcFile: return "Arrow IPC file";
    case InputKind::kIpcStream: return "Arrow IPC stream";
    case InputKind::kTensor: return "Tensor message";
    case InputKind::kSparseTensor: return "SparseTensor message";
    case InputKind::kParquet: return "Parquet file";
  }
  return "unknown";
}

const SchemaPtr& Input::schema() const {
  if (kind == InputKind::kParquet) return parquet->schema();
  return kind == InputKind::kIpcFile ? file->schema() : stream->schema();
}

int Input::num_batches() const {
  if (kind == InputKind::kParquet) return parquet->num_row_groups();
  return kind == InputKind::kIpcFile ? file->num_record_batches() : -1;
}

Result<RecordBatchPtr> Input::ReadBatch(int i) const {
  if (kind == InputKind::kParquet) return parquet->ReadRowGroup(i);
  return file->ReadRecordBatch(i);
}

int64_t Input::size() const { return source ? source->size() : pipe->position(); }

namespace {

constexpr char kFileMagic[] = "ARROW1";
constexpr char kParquetMagic[] = "PAR1";

bool StartsWith(ipc::InputSource& source, const char* magic, int64_t length) {
  if (source.size() < length) return false;
  auto head = source.ReadAt(0, length);
  return head.ok() && std::memcmp((*head)->data(), magic, static_cast<size_t>(length)) == 0;
}

// A descriptor read with read(2) that keeps a copy of what it hands out
// until told to stop: the stream reader tries the bytes first, and when
// they are an IPC file or a Tensor message instead, what it consumed is
// still there to read them again as a whole.
class RecordingStream : public ipc::ReadSomeStream {
 public:
  RecordingStream(int fd, bool owned, std::string name)
      : fd_(fd), owned_(owned), name_(std::move(name)) {}
  ~RecordingStream() override {
    if (owned_) close(fd_);
  }
  std::string name() const override { return name_; }

  void StopRecording() {
    recording_ = false;
    std::vector<uint8_t>().swap(recorded_);
  }
  const std::vector<uint8_t>& recorded() const { return recorded_; }

  // Everything recorded, then the rest of the stream, as one buffer.
  Result<BufferPtr> RecordedAndRest() {
    std::vector<uint8_t> bytes = std::move(recorded_);
    StopRecording();
    constexpr size_t kChunk = size_t{1} << 20;
    while (true) {
      const size_t at = bytes.size();
      bytes.resize(at + kChunk);
      QUIVER_ASSIGN_OR_RETURN(int64_t got, ReadFd(bytes.data() + at, kChunk));
      bytes.resize(at + static_cast<size_t>(got));
      if (got == 0) break;
    }
    QUIVER_ASSIGN_OR_RETURN(BufferPtr out,
                            Buffer::AllocateUninitialized(static_cast<int64_t>(bytes.size())));
    if (!bytes.empty()) std::memcpy(out->mutable_data(), bytes.data(), bytes.size());
    return out;
  }

 protected:
  Result<int64_t> ReadSome(uint8_t* out, int64_t capacity) override {
    QUIVER_ASSIGN_OR_RETURN(int64_t got, ReadFd(out, static_cast<size_t>(capacity)));
    if (recording_) recorded_.insert(recorded_.end(), out, out + got);
    return got;
  }

 private:
  Result<int64_t> ReadFd(uint8_t* out, size_t capacity) {
    while (true) {
      const ssize_t got = read(fd_, out, std::min<size_t>(capacity, size_t{1} << 30));
      if (got >= 0) return static_cast<int64_t>(got);
      if (errno != EINTR) return Status::IOError("cannot read ", name_, ": ", std::strerror(errno));
    }
  }

  int fd_;
  bool owned_;
  std::string name_;
  bool recording_ = true;
  std::vector<uint8_t> recorded_;
};

// The five kinds, told apart in bytes that can be read at any offset: an
// IPC file and a Parquet file by their magic, the rest by the kind of their
// first message. A schema message starts a stream, and so (for the stream
// reader to say what is wrong) do a stray batch and bytes that are no
// message at all.
InputKind KindOf(ipc::InputSource& source) {
  if (StartsWith(source, kFileMagic, 6)) return InputKind::kIpcFile;
  // PARE: a Parquet file with an encrypted footer, which the Parquet
  // reader refuses by name.
  if (StartsWith(source, kParquetMagic, 4) || StartsWith(source, "PARE", 4)) {
    return InputKind::kParquet;
  }
  auto kind = ipc::PeekMessageKind(source);
  if (!kind.ok()) return InputKind::kIpcStream;
  switch (*kind) {
    case ipc::MessageKind::kTensor: return InputKind::kTensor;
    case ipc::MessageKind::kSparseTensor: return InputKind::kSparseTensor;
    case ipc::MessageKind::kSchema:
    case ipc::MessageKind::kDictionaryBatch:
    case ipc::MessageKind::kRecordBatch: break;
  }
  return InputKind::kIpcStream;
}

Result<Input> OpenSource(Input input, const ipc::ReadOptions& options) {
  input.kind = KindOf(*input.source);
  switch (input.kind) {
    case InputKind::kIpcFile: {
      QUIVER_ASSIGN_OR_RETURN(input.file, ipc::FileReader::Open(input.source, options));
      break;
    }
    case InputKind::kIpcStream: {
      QUIVER_ASSIGN_OR_RETURN(input.stream, ipc::StreamReader::Open(input.source, options));
      break;
    }
    case InputKind::kTensor: {
      QUIVER_ASSIGN_OR_RETURN(input.tensor, ipc::ReadTensor(input.source, 0, options));
      break;
    }
    case InputKind::kSparseTensor: {
      QUIVER_ASSIGN_OR_RETURN(input.sparse, ipc::ReadSparseTensor(input.source, 0, options));
      break;
    }
    case InputKind::kParquet: {
      QUIVER_ASSIGN_OR_RETURN(input.parquet, parquet::ParquetFile::Open(input.source));
      break;
    }
  }
  return input;
}

// A pipe, FIFO, terminal or socket: an IPC stream is read as it arrives;
// anything else is gathered whole and read as a file would be.
Result<Input> OpenPipe(Input input, int fd, bool owned, std::string name,
                       const ipc::ReadOptions& options) {
  auto pipe = std::make_shared<RecordingStream>(fd, owned, std::move(name));
  auto stream = ipc::StreamReader::Open(pipe, options);
  if (stream.ok()) {
    pipe->StopRecording();
    input.kind = InputKind::kIpcStream;
    input.stream = std::move(*stream);
    input.pipe = std::move(pipe);
    return input;
  }
  // Not a stream: what the reader consumed says what the bytes are instead.
  // (A Tensor message, an IPC file or a Parquet file cannot be read in
  // order: gather it.)
  const std::vector<uint8_t>& head = pipe->recorded();
  const InputKind kind = KindOf(
      *ipc::BufferSource(Buffer::Wrap(head.data(), static_cast<int64_t>(head.size()), nullptr)));
  if (kind == InputKind::kIpcStream) return stream.status();
  QUIVER_ASSIGN_OR_RETURN(BufferPtr bytes, pipe->RecordedAndRest());
  input.source = ipc::BufferSource(std::move(bytes));
  return OpenSource(std::move(input), options);
}

}  // namespace

Result<Input> OpenInput(const std::string& path, const ipc::ReadOptions& options) {
  Input input;
  input.path = path;
  if (io::IsRemoteLocation(path)) {  // http(s):// and s3:// (docs/remote.md)
    QUIVER_ASSIGN_OR_RETURN(input.source, io::OpenSource(path));
    return OpenSource(std::move(input), options);
  }
  if (path == kStandardInput) {
    struct stat info;
    if (fstat(STDIN_FILENO, &info) != 0) {
      return Status::IOError("cannot stat standard input: ", std::strerror(errno));
    }
    if (!S_ISREG(info.st_mode)) {
      return OpenPipe(std::move(input), STDIN_FILENO, false, "standard input", options);
    }
    QUIVER_ASSIGN_OR_RETURN(input.source, ipc::FileDescriptorSource(STDIN_FILENO));
    return OpenSource(std::move(input), options);
  }
  // Opened once and asked what it is, so that a FIFO is not opened twice
  // (its writer would see two readers) nor a regular file swapped between.
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::IOError("cannot open '", path, "': ", std::strerror(errno));
  struct stat info;
  if (fstat(fd, &info) != 0) {
    const int error = errno;
    close(fd);
    return Status::IOError("cannot stat '", path, "': ", std::strerror(error));
  }
  if (S_ISDIR(info.st_mode)) {
    close(fd);
    return Status::IOError("'", path, "' is a directory, not a file");
  }
  if (!S_ISREG(info.st_mode))
    return OpenPipe(std::move(input), fd, true, "'" + path + "'", options);
  close(fd);
  QUIVER_ASSIGN_OR_RETURN(input.source, ipc::OpenFileSource(path, /*memory_map=*/false));
  return OpenSource(std::move(input), options);
}

}  // namespace quiver::tools
