#include "quiver/ipc/message.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <span>
#include <string>

#include "File_generated.h"
#include "quiver/internal/checked_math.h"
#include "quiver/io/source_stream.h"
#include "quiver/ipc/file_kind.h"

namespace quiver::ipc {

namespace {

constexpr uint32_t kContinuation = 0xFFFFFFFFu;

int32_t ReadInt32(const uint8_t* p) {
  int32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

std::string At(int64_t offset) { return "at byte " + std::to_string(offset); }

}  // namespace

Result<BufferPtr> AlignedTo8(BufferPtr bytes) {
  if (reinterpret_cast<uintptr_t>(bytes->data()) % 8 == 0) return bytes;
  QUIVER_ASSIGN_OR_RETURN(BufferPtr copy, Buffer::AllocateUninitialized(bytes->size()));
  if (bytes->size() > 0) {
    std::memcpy(copy->mutable_data(), bytes->data(), static_cast<size_t>(bytes->size()));
  }
  return copy;
}

std::string Message::Where() const { return "message " + At(offset); }

template <typename T>
Status VerifyFlatbuffer(const uint8_t* bytes, int64_t size, const char* what, int64_t offset) {
  if (size < 8) {
    return Status::Invalid(what, " ", At(offset), " is ", size,
                           " bytes, too short for a flatbuffer");
  }
  flatbuffers::Verifier verifier(bytes, static_cast<size_t>(size), kMaxVerifierDepth,
                                 kMaxVerifierTables);
  if (!verifier.VerifyBuffer<T>(nullptr)) {
    return Status::Invalid(std::string(what), " ", At(offset),
                           " is not a valid flatbuffer (corrupt, or nested or sized past the "
                           "reader's limits)");
  }
  return Status::OK();
}

template Status VerifyFlatbuffer<fb::Message>(const uint8_t*, int64_t, const char*, int64_t);
template Status VerifyFlatbuffer<fb::Footer>(const uint8_t*, int64_t, const char*, int64_t);

namespace {

// `length` bytes from `stream` for `what` of the message at `offset`: the
// claim is checked against what is left where the stream knows it (before
// anything is allocated), and a stream that ends first is reported as one
// that ends inside the message.
Result<BufferPtr> ReadPart(InputStream& stream, int64_t length, const std::string& claim,
                           int64_t offset) {
  const int64_t left = stream.remaining();
  if (left >= 0 && length > left) {
    return Status::Invalid("message ", At(offset), " claims ", claim, ", ", left, " are left");
  }
  QUIVER_ASSIGN_OR_RETURN(BufferPtr part, stream.Read(length));
  if (part->size() < length) {
    return Status::Invalid("the stream ends inside the message ", At(offset), ": it claims ", claim,
                           ", ", part->size(), " arrived");
  }
  return part;
}

// The metadata in memory of the reader's own, 8-byte aligned: it is
// verified once and read many times after, so bytes that somebody else
// can change (a caller's buffer, a mapped file) are never read in place.
Result<BufferPtr> OwnedMetadata(BufferPtr raw, bool borrowed) {
  if (!borrowed) return AlignedTo8(std::move(raw));
  QUIVER_ASSIGN_OR_RETURN(BufferPtr copy, Buffer::AllocateUninitialized(raw->size()));
  if (raw->size() > 0)
    std::memcpy(copy->mutable_data(), raw->data(), static_cast<size_t>(raw->size()));
  return copy;
}

// A union tag says which table the header is, not that the table is there.
Status CheckHeaderPresent(const fb::Message& header, int64_t offset) {
  if (header.header_type() == fb::MessageHeader::NONE) {
    return Status::Invalid("message ", At(offset), " has no header");
  }
  if (header.header() == nullptr) {
    const char* name = fb::EnumNameMessageHeader(header.header_type());
    return Status::Invalid(
        "message ", At(offset), " names a ",
        (*name ? std::string(name)
               : "type " + std::to_string(static_cast<int>(header.header_type()))),
        " header but carries no header table");
  }
  return Status::OK();
}

}  // namespace

namespace {

// A source from `offset` on as a stream, made on the stack to read one
// message (no allocation per message): a source of views (a mapped file,
// memory) is viewed once and each part of the message is a slice of that
// view, so a mapped file's size is checked once per message, not once per
// part; other sources are read part by part.
class MessageCursor final : public io::internal::SourceReadStream {
 public:
  MessageCursor(InputSource& source, int64_t offset)
      : SourceReadStream(source, nullptr, offset, /*view_once=*/true) {}
};

}  // namespace

Result<std::optional<Message>> ReadMessageHead(InputStream& stream) {
  const int64_t offset = stream.position();
  QUIVER_ASSIGN_OR_RETURN(BufferPtr head, stream.Read(4));
  if (head->size() == 0) return std::optional<Message>();  // the stream simply ends
  if (head->size() < 4) {
    return Status::Invalid("truncated message prefix ", At(offset), ": ", head->size(),
                           " bytes left");
  }
  int64_t prefix = 4;
  int32_t length = ReadInt32(head->data());
  if (static_cast<uint32_t>(length) == kContinuation) {
    QUIVER_ASSIGN_OR_RETURN(BufferPtr rest, stream.Read(4));
    if (rest->size() < 4) return Status::Invalid("truncated message length ", At(offset + 4));
    length = ReadInt32(rest->data());
    prefix = 8;
  }
  if (length == 0) return std::optional<Message>();  // end-of-stream marker
  if (length < 0) {
    return Status::Invalid("message ", At(offset), " has a negative metadata length ", length);
  }
  Message message;
  message.offset = offset;
  QUIVER_ASSIGN_OR_RETURN(
      BufferPtr raw,
      ReadPart(stream, length, std::to_string(length) + " bytes of metadata", offset));
  QUIVER_ASSIGN_OR_RETURN(message.metadata, OwnedMetadata(std::move(raw), stream.zero_copy()));
  QUIVER_RETURN_NOT_OK(
      VerifyFlatbuffer<fb::Message>(message.metadata->data(), length, "message metadata", offset));
  message.header = flatbuffers::GetRoot<fb::Message>(message.metadata->data());
  QUIVER_RETURN_NOT_OK(CheckHeaderPresent(*message.header, offset));
  message.size = prefix + length;
  if (message.header->body_length() < 0) {
    return Status::Invalid("message ", At(offset), " claims a body of ",
                           message.header->body_length(), " bytes");
  }
  return std::optional<Message>(std::move(message));
}

Result<std::optional<Message>> ReadMessageHead(InputSource& source, int64_t offset) {
  MessageCursor stream(source, offset);
  return ReadMessageHead(stream);
}

namespace {

// The body of `message`, whose head `stream` has just read.
Result<std::optional<Message>> ReadBody(InputStream& stream, Message message) {
  const int64_t offset = message.offset;
  const int64_t body_length = message.header->body_length();  // checked non-negative
  QUIVER_ASSIGN_OR_RETURN(
      message.body,
      ReadPart(stream, body_length, "a body of " + std::to_string(body_length) + " bytes", offset));
  message.size += body_length;
  return std::optional<Message>(std::move(message));
}

Result<std::optional<Message>> ReadWholeMessage(InputStream& stream) {
  QUIVER_ASSIGN_OR_RETURN(std::optional<Message> message, ReadMessageHead(stream));
  if (!message) return message;
  return ReadBody(stream, std::move(*message));
}

}  // namespace

Result<std::optional<Message>> ReadMessage(InputStream& stream) {
  // A stream over a source of views (a mapped file opened as a stream):
  // the message is read from the source through a cursor, which views it
  // whole, so the file's size is checked once per message, not per part.
  auto* over = dynamic_cast<io::internal::SourceReadStream*>(&stream);
  if (over == nullptr || !over->zero_copy()) return ReadWholeMessage(stream);
  MessageCursor cursor(over->source(), over->position());
  auto message = ReadWholeMessage(cursor);
  over->MoveTo(cursor.position());
  return message;
}

Result<std::optional<Message>> ReadMessage(InputSource& source, int64_t offset) {
  MessageCursor stream(source, offset);
  return ReadWholeMessage(stream);
}

Result<std::optional<Message>> ReadMessage(InputSource& source, int64_t offset,
                                           const std::function<Status(const Message&)>& check) {
  MessageCursor stream(source, offset);
  QUIVER_ASSIGN_OR_RETURN(std::optional<Message> message, ReadMessageHead(stream));
  if (!message) return message;
  QUIVER_RETURN_NOT_OK(check(*message));
  return ReadBody(stream, std::move(*message));
}

Result<MessageKind> PeekMessageKind(InputSource& source, int64_t offset) {
  MessageCursor stream(source, offset);
  QUIVER_ASSIGN_OR_RETURN(std::optional<Message> message, ReadMessageHead(stream));
  if (!message) return Status::Invalid("no message at byte ", offset);
  const fb::MessageHeader type = message->header->header_type();
  switch (type) {
    case fb::MessageHeader::Schema: return MessageKind::kSchema;
    case fb::MessageHeader::DictionaryBatch: return MessageKind::kDictionaryBatch;
    case fb::MessageHeader::RecordBatch: return MessageKind::kRecordBatch;
    case fb::MessageHeader::Tensor: return MessageKind::kTensor;
    case fb::MessageHeader::SparseTensor: return MessageKind::kSparseTensor;
    default: break;
  }
  return Status::Invalid("message ", At(offset), " has a header of unknown type ",
                         static_cast<int>(type));
}

Result<Message> ReadMessageOfKind(const std::shared_ptr<InputSource>& source, int64_t offset,
                                  fb::MessageHeader kind, const std::string& name) {
  if (!source) return Status::Invalid("Read", name, " needs a source");
  if (offset == 0 && source->size() > 0) {
    // Another kind of file is named before its bytes are parsed as a
    // message (an empty one keeps the "no message" error below).
    const int64_t size = source->size();
    QUIVER_ASSIGN_OR_RETURN(BufferPtr head, source->ReadAt(0, std::min(size, kSniffBytes)));
    const std::span<const uint8_t> bytes(head->data(), static_cast<size_t>(head->size()));
    QUIVER_RETURN_NOT_OK(CheckFileKind(SniffFileKind(bytes, size <= kSniffBytes),
                                       FileKind::kIpcStream, source->name(), bytes,
                                       "an Arrow IPC " + name + " message"));
  }
  QUIVER_ASSIGN_OR_RETURN(std::optional<Message> message, ReadMessage(*source, offset));
  if (!message) return Status::Invalid("no ", name, " message at byte ", offset);
  if (message->header->header_type() != kind) {
    return Status::Invalid(message->Where(), " is a ",
                           std::string(fb::EnumNameMessageHeader(message->header->header_type())),
                           " message, not a ", name);
  }
  return std::move(*message);
}

int64_t PaddingFor(int64_t size, int64_t alignment) {
  const int64_t remainder = size % alignment;
  return remainder == 0 ? 0 : alignment - remainder;
}

Status WritePadding(OutputSink& sink, int64_t bytes) {
  static const uint8_t kZeros[64] = {};
  while (bytes > 0) {
    const int64_t chunk = std::min<int64_t>(bytes, 64);
    QUIVER_RETURN_NOT_OK(sink.Write(kZeros, chunk));
    bytes -= chunk;
  }
  return Status::OK();
}

Result<BufferPtr> FrameMetadata(const flatbuffers::FlatBufferBuilder& builder, int64_t position,
                                int64_t alignment) {
  const int64_t flatbuffer = static_cast<int64_t>(builder.GetSize());
  // Body start = position + 8 + padded metadata: pad to 8 at least, and to
  // `alignment` relative to the stream position.
  int64_t padded = flatbuffer + PaddingFor(flatbuffer, 8);
  padded += PaddingFor(position + 8 + padded, alignment);
  if (padded > std::numeric_limits<int32_t>::max()) {
    return Status::Invalid("message metadata of ", padded,
                           " bytes does not fit the int32 length prefix");
  }
  QUIVER_ASSIGN_OR_RETURN(BufferPtr out, Buffer::Allocate(8 + padded));
  uint8_t* bytes = out->mutable_data();
  const uint32_t continuation = kContinuation;
  const int32_t length = static_cast<int32_t>(padded);
  std::memcpy(bytes, &continuation, 4);
  std::memcpy(bytes + 4, &length, 4);
  std::memcpy(bytes + 8, builder.GetBufferPointer(), static_cast<size_t>(flatbuffer));
  return out;
}

Result<int32_t> WriteMessageHead(OutputSink& sink, const flatbuffers::FlatBufferBuilder& builder,
                                 int64_t body_length) {
  QUIVER_ASSIGN_OR_RETURN(BufferPtr framed,
                          FrameMetadata(builder, sink.position(), kBodyAlignment));
  sink.Reserve(framed->size() + body_length);
  QUIVER_RETURN_NOT_OK(sink.Write(framed->data(), framed->size()));
  return static_cast<int32_t>(framed->size());
}

Status WriteEndOfStream(OutputSink& sink) {
  const uint32_t marker[2] = {kContinuation, 0};
  return sink.Write(marker, 8);
}

}  // namespace quiver::ipc
