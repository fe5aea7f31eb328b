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
#include "quiver/ipc/block_hint.h"
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

// One body buffer as it goes on the wire: its bytes (one part, or the
// pieces of a buffer compressed in parts, written one after another), and
// for compressed bodies the int64 prefix (uncompressed length, or -1 for
// stored as is).
struct WireBuffer {
  std::vector<BufferPtr> parts;
  bool has_prefix = false;
  int64_t prefix = 0;
  int64_t size() const {
    int64_t bytes = has_prefix ? 8 : 0;
    for (const BufferPtr& part : parts) bytes += part ? part->size() : 0;
    return bytes;
  }
};

// `packed` (the compressed parts of `raw`) on the wire, or `raw` as it is
// when compressing did not make it smaller.
void Choose(const BufferPtr& raw, std::vector<BufferPtr> packed, WireBuffer* wire) {
  wire->has_prefix = true;
  wire->parts = std::move(packed);
  if (wire->size() - 8 < raw->size()) {
    wire->prefix = raw->size();
  } else {  // not worth it: stored uncompressed
    wire->parts = {raw};
    wire->prefix = -1;
  }
}

// The buffers compressed on options.threads threads. A large buffer is
// compressed in parts (codec.h, PartCompressor) that the threads share
// with the other buffers' work, so that the batch's largest buffer does
// not set its time on one core.
Result<std::vector<WireBuffer>> Compress(const std::vector<BufferPtr>& buffers,
                                         const WriteOptions& options) {
  std::vector<WireBuffer> out(buffers.size());
  if (options.compression == Compression::kNone) {
    for (size_t i = 0; i < buffers.size(); ++i) out[i].parts = {buffers[i]};
    return out;
  }
  struct Task {
    size_t buffer;
    int64_t part;  // -1: the whole buffer
  };
  std::vector<Task> tasks;
  std::vector<std::optional<PartCompressor>> splits(buffers.size());
  std::vector<std::vector<BufferPtr>> packed(buffers.size());
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (!buffers[i] || buffers[i]->size() == 0) continue;  // empty buffers stay empty
    if (!CompressesInParts(buffers[i]->size(), options.compression_block_bytes)) {
      tasks.push_back({i, -1});
      packed[i].resize(1);
      continue;
    }
    QUIVER_ASSIGN_OR_RETURN(
        splits[i],
        PartCompressor::Make(options.compression, options.compression_level, buffers[i]->data(),
                             buffers[i]->size(), options.compression_block_bytes));
    packed[i].resize(static_cast<size_t>(splits[i]->parts()));
    for (int64_t k = 0; k < splits[i]->parts(); ++k) tasks.push_back({i, k});
  }
  QUIVER_RETURN_NOT_OK(internal::ParallelTasks(
      static_cast<int64_t>(tasks.size()), options.threads, [&](int64_t t) -> Status {
        const Task& task = tasks[static_cast<size_t>(t)];
        const BufferPtr& raw = buffers[task.buffer];
        if (task.part < 0) {
          QUIVER_ASSIGN_OR_RETURN(packed[task.buffer][0],
                                  ipc::Compress(options.compression, options.compression_level,
                                                raw->data(), raw->size()));
        } else {
          QUIVER_ASSIGN_OR_RETURN(packed[task.buffer][static_cast<size_t>(task.part)],
                                  splits[task.buffer]->Part(task.part));
        }
        return Status::OK();
      }));
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (packed[i].empty()) continue;
    if (splits[i]) {
      packed[i].insert(packed[i].begin(), splits[i]->Head());
      packed[i].push_back(splits[i]->Tail());
    }
    Choose(buffers[i], std::move(packed[i]), &out[i]);
  }
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
    for (const BufferPtr& part : buffer.parts) {
      if (part && part->size() > 0) QUIVER_RETURN_NOT_OK(sink.Write(part->data(), part->size()));
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
    // Blocks of one size: said in the message, so that a reader of a few
    // rows places them without counting their sequences (block_hint.h).
    KeyValueMetadata hint;
    if (options.compression == Compression::kLz4Frame && options.compression_block_bytes > 0) {
      hint.emplace_back(kLz4BlockBytesKey, std::to_string(options.compression_block_bytes));
    }
    builder.Finish(fb::CreateMessage(builder, fb::MetadataVersion::V5,
                                     fb::MessageHeader::RecordBatch, record_batch.Union(), position,
                                     hint.empty() ? 0 : WriteKeyValues(builder, hint)));
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
