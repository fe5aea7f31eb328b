// Internal: a RecordBatch body described from its message header alone
// (ipc.h, BatchLayout), and its buffers read one at a time. The decoder
// builds its arrays on the same description, so the checks of node,
// buffer and variadic counts live in one walk.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "quiver/ipc.h"
#include "quiver/ipc/message.h"

namespace quiver::ipc {

// The codec `batch`'s body buffers are compressed with (kNone without a
// BodyCompression table); NotImplemented for a codec or method quiver
// does not know.
Result<Compression> BodyCodec(const Message& message, const fb::RecordBatch& batch);

// The codec, row count, body length and buffer spans of `batch` (carried
// by `message`), each span checked to lie inside the body; `columns` is
// left empty. Enough to read single buffers.
Result<BatchLayout> DescribeBuffers(const Message& message, const fb::RecordBatch& batch);

// DescribeBuffers plus the field nodes for `schema`, with every check
// BatchLayout lists; errors name the message, the column path ("column 2
// (images).child 0 (data)") and the node or buffer index. `ids`: the
// dictionary id of each dictionary-encoded field the body holds, in
// pre-order (nullptr: none may be).
Result<BatchLayout> DescribeBody(const Message& message, const fb::RecordBatch& batch,
                                 const Schema& schema, const std::vector<int64_t>* ids);

// Buffer `index` of `layout` (from DescribeBuffers or DescribeBody of
// `message`): a view of the body (8-byte aligned, copied only where it is
// not) when stored raw, decompressed within options.max_decompressed_buffer
// otherwise. IndexError for an index out of range. A message read head
// only (ReadMessageHead) has its buffer's span read from `body_source`,
// the source it was read from; a message with its body needs none.
Result<BufferPtr> LoadBodyBuffer(const Message& message, const BatchLayout& layout, int64_t index,
                                 const ReadOptions& options, InputSource* body_source = nullptr);

// The 8-byte prefix of a compressed buffer's `length` stored bytes: the
// decompressed size, or -1 for bytes stored raw after it. Invalid, naming
// `where`, when the prefix is cut short or claims a size below -1 or over
// options.max_decompressed_buffer.
Result<int64_t> LengthPrefix(const uint8_t* stored, int64_t length, const std::string& where,
                             const ReadOptions& options);

// One body buffer from its stored bytes alone (a span of a body read in
// pieces): as LoadBodyBuffer, with errors naming `where`.
Result<BufferPtr> DecodeStoredBuffer(BufferPtr stored, Compression compression,
                                     const std::string& where, const ReadOptions& options);

// DecodeStoredBuffer of each of `stored` on up to `threads` threads (0:
// one per core). A large compressed buffer that splits into independent
// pieces (codec.h, SplitCompressed: the buffers quiver compresses in
// parts) is decompressed by every thread at once, piece by piece, straight
// into its output; the others take one thread each, the largest first.
// Errors are the lowest failing buffer's, named `where(i)`, as
// DecodeStoredBuffer names them.
Result<std::vector<BufferPtr>> DecodeStoredBuffers(const std::vector<BufferPtr>& stored,
                                                   Compression compression,
                                                   const std::function<std::string(int64_t)>& where,
                                                   const ReadOptions& options, int threads);

// Every buffer of `layout` (from a message with its body) as
// LoadBodyBuffer loads it, through DecodeStoredBuffers.
Result<std::vector<BufferPtr>> LoadBodyBuffers(const Message& message, const BatchLayout& layout,
                                               const ReadOptions& options, int threads);

// The sizes of that buffer, reading at most its 8-byte prefix (from
// `body_source` for a message read head only, as LoadBodyBuffer).
Result<BodyBufferSize> LoadBodyBufferSize(const Message& message, const BatchLayout& layout,
                                          int64_t index, const ReadOptions& options,
                                          InputSource* body_source = nullptr);

}  // namespace quiver::ipc
