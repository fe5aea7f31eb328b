// Internal: encapsulated IPC messages. On the wire a message is the
// continuation marker 0xFFFFFFFF, an int32 metadata length, the Message
// flatbuffer padded to 8 bytes, then the body (docs/formats.md, "Framing").
#pragma once

#include <flatbuffers/flatbuffers.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "Message_generated.h"
#include "quiver/ipc.h"
#include "quiver/ipc/metadata.h"

namespace quiver::ipc {

struct Message {
  BufferPtr metadata;                   // the flatbuffer (8-byte aligned)
  const fb::Message* header = nullptr;  // verified, points into metadata
  BufferPtr body;
  int64_t offset = 0;  // where the message starts in its source
  int64_t size = 0;    // prefix + metadata + body, in bytes

  // "message at byte 1234" for errors.
  std::string Where() const;
};

// `bytes`, or an 8-byte-aligned copy when it starts off such a boundary:
// flatbuffers read scalars in place, and the kernels read offsets and
// values through typed pointers. Honest writers align what they write, so
// the copy happens only for odd input.
Result<BufferPtr> AlignedTo8(BufferPtr bytes);

// Verifies `bytes` as a flatbuffer of root type T with bounded depth and
// table count; Invalid naming `what` and `offset` otherwise.
template <typename T>
Status VerifyFlatbuffer(const uint8_t* bytes, int64_t size, const char* what, int64_t offset);

// The next message of `stream`, verified, with its body; nullopt at an
// end-of-stream marker or where the stream ends before a new message. The
// pre-0.15 form without the continuation marker is read too. The metadata
// is always in memory of the message's own (copied from a zero-copy
// stream); the body is a view where the stream gives views.
Result<std::optional<Message>> ReadMessage(InputStream& stream);
// The same for the message starting at `offset` of `source`.
Result<std::optional<Message>> ReadMessage(InputSource& source, int64_t offset);
// The same, its head handed to `check` before its body is read: check's
// error is returned as it is. A source of views (a mapped file) is read
// once for the whole message, so its size is checked once.
Result<std::optional<Message>> ReadMessage(InputSource& source, int64_t offset,
                                           const std::function<Status(const Message&)>& check);

// The prefix and verified metadata of the next message, its body left
// unread: message.body is null and message.size counts the prefix and the
// metadata (the body's length is message.header->body_length(), checked
// non-negative). nullopt where ReadMessage's is.
Result<std::optional<Message>> ReadMessageHead(InputStream& stream);
Result<std::optional<Message>> ReadMessageHead(InputSource& source, int64_t offset);

using io::StreamOver;

// The one message at `offset` of `source` that a Read<name> call reads,
// which must carry a `kind` header: Invalid otherwise, naming what is
// missing (the source, a message) or what kind of message is there.
Result<Message> ReadMessageOfKind(const std::shared_ptr<InputSource>& source, int64_t offset,
                                  fb::MessageHeader kind, const std::string& name);

// Message bodies (and the buffers in a RecordBatch body) start at
// multiples of this many bytes in the file or stream.
inline constexpr int64_t kBodyAlignment = 64;

// Frames a finished Message flatbuffer. The padding puts the body at a
// multiple of `alignment` when the message starts at `position`.
Result<BufferPtr> FrameMetadata(const flatbuffers::FlatBufferBuilder& builder, int64_t position,
                                int64_t alignment);

// Frames `builder` (a finished Message) at the sink's position with the
// body 64-byte aligned, announces the whole message to the sink (Reserve)
// and writes the framed metadata; the caller writes the body next.
// Returns the framed metadata's length.
Result<int32_t> WriteMessageHead(OutputSink& sink, const flatbuffers::FlatBufferBuilder& builder,
                                 int64_t body_length);

// The end-of-stream marker: continuation + zero length.
Status WriteEndOfStream(OutputSink& sink);

// Zero bytes to pad `size` up to a multiple of `alignment`.
int64_t PaddingFor(int64_t size, int64_t alignment);
Status WritePadding(OutputSink& sink, int64_t bytes);

// Element i of a verified flatbuffer vector of structs (FieldNode, Buffer,
// Block) or scalars, copied out. The verifier checks a vector's own
// alignment, not its elements', so a hostile message can place 8-byte
// elements at 4-byte boundaries: reading them in place would be a
// misaligned load. Precondition: i < v->size().
template <typename T>
T LoadStruct(const flatbuffers::Vector<const T*>* v, flatbuffers::uoffset_t i) {
  T out;
  std::memcpy(static_cast<void*>(&out), v->Data() + static_cast<size_t>(i) * sizeof(T), sizeof(T));
  return out;
}

template <typename T>
T LoadScalar(const flatbuffers::Vector<T>* v, flatbuffers::uoffset_t i) {
  T out;
  std::memcpy(&out, v->Data() + static_cast<size_t>(i) * sizeof(T), sizeof(T));
  return out;
}

// A struct field of a table, copied out for the same reason.
template <typename T>
T LoadStruct(const T* field) {
  T out;
  std::memcpy(static_cast<void*>(&out), static_cast<const void*>(field), sizeof(T));
  return out;
}

// Flatbuffer verification limits: nesting deeper than the schema depth cap
// allows, or more tables than any real message has, is refused.
inline constexpr flatbuffers::uoffset_t kMaxVerifierDepth = 2 * kMaxNestingDepth + 16;
inline constexpr flatbuffers::uoffset_t kMaxVerifierTables = 1u << 22;

}  // namespace quiver::ipc
