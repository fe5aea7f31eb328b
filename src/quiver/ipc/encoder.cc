// Encoding record batches: each array is cut down to the rows it covers
// (zero-copy where its buffers allow, a re-based copy where they do not),
// then framed, compressed when asked, and written 64-byte aligned.
#include "quiver/ipc/encoder.h"

#include <cstring>
#include <string>

#include "quiver/internal/bitmap.h"
#include "quiver/internal/builders.h"
#include "quiver/internal/checked_math.h"
#include "quiver/internal/layout.h"
#include "quiver/ipc/codec.h"
#include "quiver/ipc/decoder.h"

namespace quiver::ipc {

namespace {

using internal::BufferRole;
using internal::ChildRole;

struct EncodedBody {
  std::vector<fb::FieldNode> nodes;
  std::vector<BufferPtr> buffers;  // nullptr: an empty buffer
};

// Bits [offset, offset + length) of a bitmap, starting at bit 0.
Result<BufferPtr> CompactBitmap(const BufferPtr& bits, int64_t offset, int64_t length) {
  if (length == 0) return BufferPtr{};
  if (offset % 8 == 0) return Buffer::Slice(bits, offset / 8, internal::BitmapBytes(length));
  int64_t unset = 0;
  return internal::CopyBitmap(bits->data(), offset, length, &unset);
}

// Offsets [offset, offset + length] re-based to start at 0, and the range
// [first, last) they delimit.
Result<BufferPtr> CompactOffsets(const ArrayData& data, int64_t width, int64_t* first, int64_t* last) {
  if (data.length == 0) {
    *first = *last = 0;
    return Buffer::Allocate(width);  // one zero offset
  }
  const uint8_t* offsets = data.buffers[1]->data();
  *first = internal::ReadOffset(offsets, data.offset, width);
  *last = internal::ReadOffset(offsets, data.offset + data.length, width);
  const int64_t bytes = (data.length + 1) * width;
  if (*first == 0) return Buffer::Slice(data.buffers[1], data.offset * width, bytes);
  QUIVER_ASSIGN_OR_RETURN(BufferPtr out, Buffer::AllocateUninitialized(bytes));
  for (int64_t i = 0; i <= data.length; ++i) {
    const int64_t value = internal::ReadOffset(offsets, data.offset + i, width) - *first;
    if (width == 8) {
      std::memcpy(out->mutable_data() + i * 8, &value, 8);
    } else {
      const int32_t narrow = static_cast<int32_t>(value);
      std::memcpy(out->mutable_data() + i * 4, &narrow, 4);
    }
  }
  return out;
}

// Buffer b of `data` cut down to the rows it covers (nullptr: empty).
// Offsets set [first, last), the range of data or child they delimit.
Result<BufferPtr> CompactBuffer(const ArrayData& data, const internal::Layout& layout, int b,
                                int64_t null_count, int64_t* first, int64_t* last) {
  const BufferPtr& buffer = data.buffers[b];
  const BufferRole role = layout.roles[b];
  if (role == BufferRole::kValidity) {
    if (null_count == 0) return BufferPtr{};
    return CompactBitmap(buffer, data.offset, data.length);
  }
  if (role == BufferRole::kBits) {
    if (!buffer) return BufferPtr{};
    return CompactBitmap(buffer, data.offset, data.length);
  }
  if (role == BufferRole::kValues) {
    const int64_t width = layout.value_bits / 8;
    if (!buffer || data.length == 0) return BufferPtr{};
    return Buffer::Slice(buffer, data.offset * width, data.length * width);
  }
  if (internal::Layout::IsOffsets(role)) return CompactOffsets(data, layout.offset_width(), first, last);
  // kData: the bytes the (already compacted) offsets delimit.
  if (!buffer || *last <= *first) return BufferPtr{};
  return Buffer::Slice(buffer, *first, *last - *first);
}

// Child c of `data` cut down to what the covered rows use.
Result<ArrayDataPtr> CoveredChild(const ArrayData& data, const internal::Layout& layout, size_t c,
                                  int64_t first, int64_t last) {
  const ArrayDataPtr& child = data.children[c];
  if (layout.children == ChildRole::kOffsetList) return quiver::Slice(child, first, last - first);
  if (layout.children == ChildRole::kFixedSizeList) {
    return quiver::Slice(child, data.offset * layout.list_size, data.length * layout.list_size);
  }
  return quiver::Slice(child, data.offset, data.length);
}

Status Append(const ArrayData& data, EncodedBody* body) {
  const internal::Layout layout = internal::LayoutOf(*data.type);
  const int64_t null_count = data.ComputeNullCount();
  body->nodes.emplace_back(data.length, null_count);
  int64_t first = 0, last = 0;
  for (int b = 0; b < layout.num_buffers; ++b) {
    QUIVER_ASSIGN_OR_RETURN(BufferPtr out, CompactBuffer(data, layout, b, null_count, &first, &last));
    body->buffers.push_back(std::move(out));
  }
  for (size_t c = 0; c < data.children.size(); ++c) {
    QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr covered, CoveredChild(data, layout, c, first, last));
    QUIVER_RETURN_NOT_OK(Append(*covered, body));
  }
  return Status::OK();
}

// One body buffer as it goes on the wire: the bytes, and for compressed
// bodies the int64 prefix (uncompressed length, or -1 for stored as is).
struct WireBuffer {
  BufferPtr bytes;
  bool has_prefix = false;
  int64_t prefix = 0;
  int64_t size() const { return (bytes ? bytes->size() : 0) + (has_prefix ? 8 : 0); }
};

Result<std::vector<WireBuffer>> Compress(const std::vector<BufferPtr>& buffers,
                                         const WriteOptions& options) {
  std::vector<WireBuffer> out(buffers.size());
  if (options.compression == Compression::kNone) {
    for (size_t i = 0; i < buffers.size(); ++i) out[i].bytes = buffers[i];
    return out;
  }
  QUIVER_RETURN_NOT_OK(ParallelFor(static_cast<int64_t>(buffers.size()), options.threads, [&](int64_t i) {
    const BufferPtr& raw = buffers[static_cast<size_t>(i)];
    WireBuffer& wire = out[static_cast<size_t>(i)];
    if (!raw || raw->size() == 0) return Status::OK();  // empty buffers stay empty
    wire.has_prefix = true;
    QUIVER_ASSIGN_OR_RETURN(BufferPtr packed, ipc::Compress(options.compression,
                                                            options.compression_level,
                                                            raw->data(), raw->size()));
    if (packed->size() < raw->size()) {
      wire.bytes = std::move(packed);
      wire.prefix = raw->size();
    } else {  // not worth it: stored uncompressed
      wire.bytes = raw;
      wire.prefix = -1;
    }
    return Status::OK();
  }));
  return out;
}

Result<WrittenBlock> WriteMessage(OutputSink& sink, flatbuffers::FlatBufferBuilder& builder,
                                  const std::vector<WireBuffer>& body, int64_t body_length) {
  WrittenBlock block;
  block.offset = sink.position();
  QUIVER_ASSIGN_OR_RETURN(BufferPtr framed, FrameMetadata(builder, block.offset, kBodyAlignment));
  block.metadata_length = static_cast<int32_t>(framed->size());
  block.body_length = body_length;
  QUIVER_RETURN_NOT_OK(sink.Write(framed->data(), framed->size()));
  for (const WireBuffer& buffer : body) {
    if (buffer.has_prefix) QUIVER_RETURN_NOT_OK(sink.Write(&buffer.prefix, 8));
    if (buffer.bytes && buffer.bytes->size() > 0) {
      QUIVER_RETURN_NOT_OK(sink.Write(buffer.bytes->data(), buffer.bytes->size()));
    }
    QUIVER_RETURN_NOT_OK(WritePadding(sink, PaddingFor(buffer.size(), kBodyAlignment)));
  }
  return block;
}

}  // namespace

Result<WrittenBlock> WriteRecordBatchMessage(OutputSink& sink, const RecordBatch& batch,
                                             const WriteOptions& options) {
  EncodedBody body;
  for (const ArrayDataPtr& column : batch.columns()) QUIVER_RETURN_NOT_OK(Append(*column, &body));
  QUIVER_ASSIGN_OR_RETURN(std::vector<WireBuffer> wire, Compress(body.buffers, options));
  std::vector<fb::Buffer> specs;
  int64_t position = 0;
  for (const WireBuffer& buffer : wire) {
    specs.emplace_back(position, buffer.size());
    position += buffer.size() + PaddingFor(buffer.size(), kBodyAlignment);
  }
  flatbuffers::FlatBufferBuilder builder(1024);
  flatbuffers::Offset<fb::BodyCompression> compression = 0;
  if (options.compression != Compression::kNone) {
    compression = fb::CreateBodyCompression(builder, options.compression == Compression::kZstd
                                                         ? fb::CompressionType::ZSTD
                                                         : fb::CompressionType::LZ4_FRAME);
  }
  auto record_batch = fb::CreateRecordBatch(builder, batch.num_rows(), builder.CreateVectorOfStructs(body.nodes),
                                            builder.CreateVectorOfStructs(specs), compression);
  builder.Finish(fb::CreateMessage(builder, fb::MetadataVersion::V5, fb::MessageHeader::RecordBatch,
                                   record_batch.Union(), position));
  return WriteMessage(sink, builder, wire, position);
}

Result<WrittenBlock> WriteSchemaMessage(OutputSink& sink, const Schema& schema) {
  flatbuffers::FlatBufferBuilder builder(1024);
  QUIVER_ASSIGN_OR_RETURN(auto fb_schema, WriteSchema(builder, schema));
  builder.Finish(fb::CreateMessage(builder, fb::MetadataVersion::V5, fb::MessageHeader::Schema,
                                   fb_schema.Union(), 0));
  return WriteMessage(sink, builder, {}, 0);
}

}  // namespace quiver::ipc
