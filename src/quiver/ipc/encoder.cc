// Encoding record batches: each array is cut down to the rows it covers
// (zero-copy where its buffers allow, a re-based copy where they do not),
// then framed, compressed when asked, and written 64-byte aligned.
#include "quiver/ipc/encoder.h"

#include <cstring>
#include <optional>
#include <string>
#include <utility>

#include "quiver/internal/checked_math.h"
#include "quiver/internal/compact.h"
#include "quiver/internal/layout.h"
#include "quiver/internal/threads.h"
#include "quiver/ipc/codec.h"
#include "quiver/ipc/decoder.h"

namespace quiver::ipc {

namespace {

struct EncodedBody {
  std::vector<fb::FieldNode> nodes;
  std::vector<BufferPtr> buffers;        // nullptr: an empty buffer
  std::vector<int64_t> variadic_counts;  // one per view array, in pre-order
};

// Appends the nodes and buffers of `data`, each level cut down to the rows
// it covers, in the pre-order the record batch message lists them.
Status Append(const ArrayData& data, EncodedBody* body) {
  QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr node, internal::CompactNode(data));
  const internal::Layout layout = internal::LayoutOf(*node->type);
  body->nodes.emplace_back(node->length, node->null_count);
  for (int b = 0; b < layout.num_buffers; ++b) body->buffers.push_back(node->buffers[b]);
  if (layout.variadic) {
    const size_t count = node->buffers.size() - static_cast<size_t>(layout.num_buffers);
    body->variadic_counts.push_back(static_cast<int64_t>(count));
    for (size_t k = 0; k < count; ++k)
      body->buffers.push_back(node->buffers[layout.num_buffers + k]);
  }
  for (const ArrayDataPtr& child : node->children) QUIVER_RETURN_NOT_OK(Append(*child, body));
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

// One buffer on the wire: compressed (with `workers` threads inside the
// codec), or stored as it is when that is not smaller.
Status CompressOne(const BufferPtr& raw, const WriteOptions& options, int workers,
                   WireBuffer* wire) {
  if (!raw || raw->size() == 0) return Status::OK();  // empty buffers stay empty
  wire->has_prefix = true;
  QUIVER_ASSIGN_OR_RETURN(BufferPtr packed,
                          ipc::Compress(options.compression, options.compression_level, raw->data(),
                                        raw->size(), workers));
  if (packed->size() < raw->size()) {
    wire->bytes = std::move(packed);
    wire->prefix = raw->size();
  } else {  // not worth it: stored uncompressed
    wire->bytes = raw;
    wire->prefix = -1;
  }
  return Status::OK();
}

// ZSTD buffers of this size and more are compressed one at a time with
// every thread working on each (inside libzstd); the smaller ones, and all
// LZ4 buffers, go one buffer per thread. A batch's time is otherwise set
// by its largest buffer, compressed on one core while the other idles.
constexpr int64_t kSplitBuffer = int64_t{2} << 20;

Result<std::vector<WireBuffer>> Compress(const std::vector<BufferPtr>& buffers,
                                         const WriteOptions& options) {
  std::vector<WireBuffer> out(buffers.size());
  if (options.compression == Compression::kNone) {
    for (size_t i = 0; i < buffers.size(); ++i) out[i].bytes = buffers[i];
    return out;
  }
  const int workers = internal::ThreadCount(options.threads);
  auto large = [&](size_t i) {
    return options.compression == Compression::kZstd && workers > 1 && buffers[i] &&
           buffers[i]->size() >= kSplitBuffer;
  };
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (large(i)) QUIVER_RETURN_NOT_OK(CompressOne(buffers[i], options, workers, &out[i]));
  }
  QUIVER_RETURN_NOT_OK(internal::ParallelTasks(
      static_cast<int64_t>(buffers.size()), options.threads, [&](int64_t i) {
        const size_t k = static_cast<size_t>(i);
        return large(k) ? Status::OK() : CompressOne(buffers[k], options, 1, &out[k]);
      }));
  return out;
}

Result<WrittenBlock> WriteMessage(OutputSink& sink, flatbuffers::FlatBufferBuilder& builder,
                                  const std::vector<WireBuffer>& body, int64_t body_length) {
  WrittenBlock block;
  block.offset = sink.position();
  QUIVER_ASSIGN_OR_RETURN(block.metadata_length, WriteMessageHead(sink, builder, body_length));
  block.body_length = body_length;
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

namespace {

// The body of `columns` as the encoder plans it: every level compacted to
// the rows it covers, nodes and raw buffers in message order. Writing a
// message and measuring one (RecordBatchBodySize) both start here, so a
// measured size is the size written.
Result<EncodedBody> PlanBody(const std::vector<ArrayDataPtr>& columns) {
  EncodedBody body;
  for (const ArrayDataPtr& column : columns) QUIVER_RETURN_NOT_OK(Append(*column, &body));
  return body;
}

// Where buffers of `sizes` bytes go in a body: back to back from 0, each
// padded to kBodyAlignment. Returns the body's length.
template <typename Sizes>
int64_t PlaceBuffers(const Sizes& sizes, std::vector<fb::Buffer>* specs) {
  int64_t position = 0;
  for (const auto& buffer : sizes) {
    const int64_t size = buffer.size();
    if (specs) specs->emplace_back(position, size);
    position += size + PaddingFor(size, kBodyAlignment);
  }
  return position;
}

// A raw buffer's size as PlaceBuffers reads it (nullptr: empty).
struct RawSize {
  BufferPtr bytes;
  int64_t size() const { return bytes ? bytes->size() : 0; }
};

// A RecordBatch or DictionaryBatch message over `columns` (`length` rows).
Result<WrittenBlock> WriteBodyMessage(OutputSink& sink, int64_t length,
                                      const std::vector<ArrayDataPtr>& columns,
                                      const WriteOptions& options,
                                      std::optional<std::pair<int64_t, bool>> dictionary) {
  QUIVER_ASSIGN_OR_RETURN(EncodedBody body, PlanBody(columns));
  QUIVER_ASSIGN_OR_RETURN(std::vector<WireBuffer> wire, Compress(body.buffers, options));
  std::vector<fb::Buffer> specs;
  const int64_t position = PlaceBuffers(wire, &specs);
  flatbuffers::FlatBufferBuilder builder(1024);
  flatbuffers::Offset<fb::BodyCompression> compression = 0;
  if (options.compression != Compression::kNone) {
    compression = fb::CreateBodyCompression(builder, options.compression == Compression::kZstd
                                                         ? fb::CompressionType::ZSTD
                                                         : fb::CompressionType::LZ4_FRAME);
  }
  auto variadic = body.variadic_counts.empty() ? 0 : builder.CreateVector(body.variadic_counts);
  auto record_batch =
      fb::CreateRecordBatch(builder, length, builder.CreateVectorOfStructs(body.nodes),
                            builder.CreateVectorOfStructs(specs), compression, variadic);
  if (dictionary) {
    auto batch =
        fb::CreateDictionaryBatch(builder, dictionary->first, record_batch, dictionary->second);
    builder.Finish(fb::CreateMessage(builder, fb::MetadataVersion::V5,
                                     fb::MessageHeader::DictionaryBatch, batch.Union(), position));
  } else {
    builder.Finish(fb::CreateMessage(builder, fb::MetadataVersion::V5,
                                     fb::MessageHeader::RecordBatch, record_batch.Union(),
                                     position));
  }
  return WriteMessage(sink, builder, wire, position);
}

}  // namespace

Result<WrittenBlock> WriteRecordBatchMessage(OutputSink& sink, const RecordBatch& batch,
                                             const WriteOptions& options) {
  return WriteBodyMessage(sink, batch.num_rows(), batch.columns(), options, std::nullopt);
}

Result<BodySize> RecordBatchBodySize(const RecordBatch& batch) {
  QUIVER_ASSIGN_OR_RETURN(EncodedBody body, PlanBody(batch.columns()));
  std::vector<RawSize> sizes;
  sizes.reserve(body.buffers.size());
  for (const BufferPtr& buffer : body.buffers) sizes.push_back(RawSize{buffer});
  return BodySize{PlaceBuffers(sizes, nullptr), static_cast<int64_t>(sizes.size())};
}

Result<WrittenBlock> WriteDictionaryMessage(OutputSink& sink, int64_t id,
                                            const ArrayDataPtr& values, bool is_delta,
                                            const WriteOptions& options) {
  return WriteBodyMessage(sink, values->length, {values}, options, std::make_pair(id, is_delta));
}

Result<WrittenBlock> WriteSchemaMessage(OutputSink& sink, const Schema& schema) {
  flatbuffers::FlatBufferBuilder builder(1024);
  QUIVER_ASSIGN_OR_RETURN(auto fb_schema, WriteSchema(builder, schema));
  builder.Finish(fb::CreateMessage(builder, fb::MetadataVersion::V5, fb::MessageHeader::Schema,
                                   fb_schema.Union(), 0));
  return WriteMessage(sink, builder, {}, 0);
}

}  // namespace quiver::ipc

namespace quiver::ipc {

namespace {

void CollectDictionaries(const ArrayData& data, int64_t parent, std::vector<DictionaryUse>* out,
                         int depth) {
  if (depth > kMaxNestingDepth) return;
  if (data.type->storage().id() == TypeId::kDictionary) {
    const int64_t id = static_cast<int64_t>(out->size());
    out->push_back({data.dictionary, parent});
    // The dictionaries inside the values, numbered after it (pre-order).
    if (data.dictionary) {
      for (const ArrayDataPtr& child : data.dictionary->children) {
        CollectDictionaries(*child, id, out, depth + 1);
      }
    }
    return;
  }
  for (const ArrayDataPtr& child : data.children)
    CollectDictionaries(*child, parent, out, depth + 1);
}

}  // namespace

std::vector<DictionaryUse> DictionariesOf(const RecordBatch& batch) {
  std::vector<DictionaryUse> out;
  for (const ArrayDataPtr& column : batch.columns()) CollectDictionaries(*column, -1, &out, 0);
  return out;
}

}  // namespace quiver::ipc
