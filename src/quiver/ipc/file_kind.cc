#include "quiver/ipc/file_kind.h"

#include <algorithm>
#include <cstring>
#include <string_view>

#include "quiver/internal/utf8.h"
#include "quiver/io/source_stream.h"

namespace quiver::ipc {

namespace {

struct Signature {
  std::string_view magic;
  FileKind kind;
};

// Leading bytes of the formats people most often hand an IPC reader by
// mistake (their own specifications' magic numbers).
constexpr Signature kSignatures[] = {
    {{"ARROW1", 6}, FileKind::kIpcFile},
    {{"\xFF\xFF\xFF\xFF", 4}, FileKind::kIpcStream},
    {{"PAR1", 4}, FileKind::kParquet},
    {{"PARE", 4}, FileKind::kParquet},  // encrypted footer
    {{"FEA1", 4}, FileKind::kFeatherV1},
    {{"\x93NUMPY", 6}, FileKind::kNumpy},
    {{"PK\x03\x04", 4}, FileKind::kZip},
    {{"PK\x05\x06", 4}, FileKind::kZip},  // an empty archive
    {{"\x1F\x8B", 2}, FileKind::kGzip},
    {{"\x28\xB5\x2F\xFD", 4}, FileKind::kZstd},
    {{"BZh", 3}, FileKind::kBzip2},
    {{"\xFD"
      "7zXZ\x00",
      6},
     FileKind::kXz},
    {{"\x89HDF\r\n\x1A\n", 8}, FileKind::kHdf5},
    {{"ORC", 3}, FileKind::kOrc},
    {{"Obj\x01", 4}, FileKind::kAvro},
    {{"version https://git-lfs", 23}, FileKind::kGitLfsPointer},
};

bool StartsWith(std::span<const uint8_t> head, std::string_view magic) {
  return head.size() >= magic.size() && std::memcmp(head.data(), magic.data(), magic.size()) == 0;
}

// A safetensors file: its JSON header's length (8 bytes, little endian; at
// most the format's 100 MB header cap, so the high bytes are zero) and the
// header's opening brace.
bool LooksLikeSafetensors(std::span<const uint8_t> head) {
  if (head.size() < 9 || head[8] != '{') return false;
  uint64_t length = 0;
  for (int i = 7; i >= 0; --i) length = length << 8 | head[static_cast<size_t>(i)];
  return length >= 2 && length <= 100'000'000;
}

// Printable ASCII and whitespace, or UTF-8; a sequence cut by the end of a
// partial head counts. Control bytes (NUL above all) never appear in text.
bool LooksLikeText(std::span<const uint8_t> head, bool whole) {
  if (head.empty()) return false;
  bool ascii = true;
  for (uint8_t byte : head) {
    if (byte >= 0x80) {
      ascii = false;
    } else if (byte < 0x20 && byte != '\t' && byte != '\n' && byte != '\r' && byte != '\f') {
      return false;
    } else if (byte == 0x7F) {
      return false;
    }
  }
  if (ascii) return true;
  for (size_t cut = 0; cut <= (whole ? 0u : 3u) && cut < head.size(); ++cut) {
    if (internal::IsValidUtf8(head.data(), static_cast<int64_t>(head.size() - cut))) return true;
  }
  return false;
}

// Up to 24 characters of a text file, escaped, for the error.
std::string Quote(std::span<const uint8_t> head) {
  std::string out = " (it starts \"";
  size_t i = 0;
  for (; i < head.size() && i < 24; ++i) {
    const char c = static_cast<char>(head[i]);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else {
      out += c;
    }
  }
  out = internal::EscapeInvalidUtf8(std::move(out));
  return out + (i < head.size() ? "...\")" : "\")");
}

// What to do instead, for the kinds where there is something to say.
std::string Advice(FileKind kind, FileKind expected) {
  switch (kind) {
    case FileKind::kIpcStream: return "; open it with open_stream (C++: ipc::StreamReader)";
    case FileKind::kIpcFile: return "; open it with open_file (C++: ipc::FileReader)";
    case FileKind::kParquet:
      return "; read it with a Parquet reader (pyarrow.parquet, polars) and pass the table on";
    case FileKind::kFeatherV1:
      return "; quiver reads Feather v2, which is the Arrow IPC file format";
    case FileKind::kNumpy: return "; load it with numpy.load";
    case FileKind::kGzip:
    case FileKind::kZstd:
    case FileKind::kBzip2:
    case FileKind::kXz:
      return "; decompress it first (IPC data compresses its buffers inside the " +
             std::string(expected == FileKind::kIpcFile ? "file" : "stream") +
             " with compression=)";
    case FileKind::kGitLfsPointer: return "; fetch the real file with git lfs pull";
    case FileKind::kSafetensors:
      return "; read it with quiver.safetensors, or convert it with quiver convert "
             "(one row, a fixed_shape_tensor column per tensor)";
    default: return "";
  }
}

// Replays the sniffed bytes, then reads on from the stream it wraps.
class ReplayStream : public InputStream {
 public:
  ReplayStream(BufferPtr head, std::shared_ptr<InputStream> rest)
      : head_(std::move(head)), rest_(std::move(rest)) {}

  Result<BufferPtr> Read(int64_t length) override {
    const int64_t left = head_->size() - used_;
    if (left == 0 || length < 0) return rest_->Read(length);
    if (length <= left) {
      QUIVER_ASSIGN_OR_RETURN(BufferPtr part, Buffer::Slice(head_, used_, length));
      used_ += length;
      return part;
    }
    QUIVER_ASSIGN_OR_RETURN(BufferPtr more, rest_->Read(length - left));
    QUIVER_ASSIGN_OR_RETURN(BufferPtr joined, Buffer::AllocateUninitialized(left + more->size()));
    std::memcpy(joined->mutable_data(), head_->data() + used_, static_cast<size_t>(left));
    if (more->size() > 0) {
      std::memcpy(joined->mutable_data() + left, more->data(), static_cast<size_t>(more->size()));
    }
    used_ = head_->size();
    return joined;
  }
  int64_t position() const override { return rest_->position() - (head_->size() - used_); }
  int64_t remaining() const override {
    const int64_t rest = rest_->remaining();
    return rest < 0 ? rest : rest + (head_->size() - used_);
  }
  bool zero_copy() const override { return rest_->zero_copy(); }
  std::string name() const override { return rest_->name(); }

 private:
  BufferPtr head_;
  int64_t used_ = 0;
  std::shared_ptr<InputStream> rest_;
};

}  // namespace

FileKind SniffFileKind(std::span<const uint8_t> head, bool whole) {
  if (head.empty()) return whole ? FileKind::kEmpty : FileKind::kUnknown;
  for (const Signature& signature : kSignatures) {
    if (StartsWith(head, signature.magic)) return signature.kind;
  }
  if (LooksLikeSafetensors(head)) return FileKind::kSafetensors;
  return LooksLikeText(head, whole) ? FileKind::kText : FileKind::kUnknown;
}

const char* FileKindName(FileKind kind) {
  switch (kind) {
    case FileKind::kEmpty: return "empty";
    case FileKind::kIpcFile: return "an Arrow IPC file";
    case FileKind::kIpcStream: return "an Arrow IPC stream";
    case FileKind::kParquet: return "a Parquet file";
    case FileKind::kFeatherV1: return "a Feather v1 file";
    case FileKind::kNumpy: return "a NumPy .npy file";
    case FileKind::kZip: return "a zip archive";
    case FileKind::kGzip: return "a gzip-compressed file";
    case FileKind::kZstd: return "a zstd-compressed file";
    case FileKind::kBzip2: return "a bzip2-compressed file";
    case FileKind::kXz: return "an xz-compressed file";
    case FileKind::kHdf5: return "an HDF5 file";
    case FileKind::kOrc: return "an ORC file";
    case FileKind::kAvro: return "an Avro file";
    case FileKind::kGitLfsPointer: return "a Git LFS pointer file";
    case FileKind::kSafetensors: return "a safetensors file";
    case FileKind::kText: return "a text file";
    case FileKind::kUnknown: break;
  }
  return "of an unknown kind";
}

Status CheckFileKind(FileKind kind, FileKind expected, const std::string& name,
                     std::span<const uint8_t> head, const std::string& what) {
  if (kind == expected || kind == FileKind::kUnknown) return Status::OK();
  const bool file = expected == FileKind::kIpcFile;
  const std::string subject = name.empty() ? "the input" : name;
  const std::string wanted = !what.empty() ? what
                             : file        ? "an Arrow IPC file"
                                           : "an Arrow IPC stream";
  if (kind == FileKind::kEmpty) {
    if (file || !what.empty()) return Status::Invalid(subject, " is empty (0 bytes), not ", wanted);
    if (name.empty()) return Status::Invalid("the IPC stream is empty: it has no schema message");
    return Status::Invalid(name, " is empty: an Arrow IPC stream starts with a schema message");
  }
  const std::string quote =
      kind == FileKind::kText || kind == FileKind::kGitLfsPointer ? Quote(head) : "";
  return Status::Invalid(subject, " is ", FileKindName(kind), quote, ", not ", wanted,
                         Advice(kind, expected));
}

Result<FileKind> PeekFileKind(std::shared_ptr<InputStream>* stream, BufferPtr* head) {
  // A message prefix is 8 bytes (continuation, length), and the metadata
  // after it is longer: a reader of a pipe would wait for these anyway.
  constexpr int64_t kPeek = 8;
  auto* over = dynamic_cast<io::internal::SourceReadStream*>(stream->get());
  if (over != nullptr) {
    // A source read front to back is peeked without reading the stream:
    // it stays as it is, so its messages are read straight from the
    // source, each viewed whole (ReadMessage), not through a replay.
    const int64_t take = std::min(kPeek, over->remaining());
    QUIVER_ASSIGN_OR_RETURN(*head, over->source().ReadAt(over->position(), take));
  } else {
    QUIVER_ASSIGN_OR_RETURN(*head, (*stream)->Read(kPeek));
  }
  const std::span<const uint8_t> bytes((*head)->data(), static_cast<size_t>((*head)->size()));
  const FileKind kind = SniffFileKind(bytes, (*head)->size() < kPeek);
  if (over == nullptr) *stream = std::make_shared<ReplayStream>(*head, std::move(*stream));
  return kind;
}

}  // namespace quiver::ipc
