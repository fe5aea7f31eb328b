// Decoding record batch bodies: field nodes and buffers are consumed in
// pre-order over the schema, as the layout table says each type needs them.
#include "quiver/ipc/decoder.h"

#include <atomic>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "quiver/internal/layout.h"
#include "quiver/ipc/codec.h"

namespace quiver::ipc {

Status ParallelFor(int64_t count, int threads, const std::function<Status(int64_t)>& fn) {
  int workers = threads > 0 ? threads : static_cast<int>(std::thread::hardware_concurrency());
  workers = static_cast<int>(std::min<int64_t>(std::max(workers, 1), count));
  if (workers <= 1) {
    for (int64_t i = 0; i < count; ++i) QUIVER_RETURN_NOT_OK(fn(i));
    return Status::OK();
  }
  std::atomic<int64_t> next{0};
  std::mutex mutex;
  Status first_error;
  auto work = [&] {
    for (int64_t i = next++; i < count; i = next++) {
      Status st = fn(i);
      if (!st.ok()) {
        std::lock_guard<std::mutex> lock(mutex);
        if (first_error.ok()) first_error = st;
        next = count;  // stop handing out work
      }
    }
  };
  std::vector<std::thread> pool;
  for (int w = 1; w < workers; ++w) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  return first_error;
}

namespace {

using internal::BufferRole;
using internal::ChildRole;

// The body's buffers, decompressed where the message says so.
Result<std::vector<BufferPtr>> LoadBuffers(const Message& message, const fb::RecordBatch& batch,
                                           const ReadOptions& options) {
  const auto* specs = batch.buffers();
  const int64_t count = specs ? specs->size() : 0;
  std::vector<BufferPtr> out(static_cast<size_t>(count));
  const BufferPtr& body = message.body;
  Compression codec = Compression::kNone;
  if (const fb::BodyCompression* compression = batch.compression()) {
    switch (compression->codec()) {
      case fb::CompressionType::LZ4_FRAME: codec = Compression::kLz4Frame; break;
      case fb::CompressionType::ZSTD: codec = Compression::kZstd; break;
      default:
        return Status::NotImplemented(message.Where() + ": unknown compression codec " +
                                      std::to_string(static_cast<int>(compression->codec())));
    }
    if (compression->method() != fb::BodyCompressionMethod::BUFFER) {
      return Status::NotImplemented(message.Where() + ": unknown body compression method");
    }
  }
  auto load = [&](int64_t i) -> Status {
    const fb::Buffer* spec = specs->Get(static_cast<flatbuffers::uoffset_t>(i));
    const int64_t offset = spec->offset(), length = spec->length();
    const std::string where = message.Where() + ": buffer " + std::to_string(i);
    if (offset < 0 || length < 0 || offset > body->size() || length > body->size() - offset) {
      return Status::Invalid(where + " [" + std::to_string(offset) + ", +" + std::to_string(length) +
                             ") lies outside the " + std::to_string(body->size()) + "-byte body");
    }
    QUIVER_ASSIGN_OR_RETURN(BufferPtr raw, Buffer::Slice(body, offset, length));
    if (codec == Compression::kNone || length == 0) {
      out[static_cast<size_t>(i)] = std::move(raw);
      return Status::OK();
    }
    if (length < 8) return Status::Invalid(where + " is compressed but has no length prefix");
    int64_t claimed;
    std::memcpy(&claimed, raw->data(), 8);
    if (claimed == -1) {  // stored uncompressed after the prefix
      QUIVER_ASSIGN_OR_RETURN(out[static_cast<size_t>(i)], Buffer::Slice(raw, 8, length - 8));
      return Status::OK();
    }
    if (claimed < 0 || claimed > options.max_decompressed_buffer) {
      return Status::Invalid(where + " claims " + std::to_string(claimed) +
                             " decompressed bytes; the limit is " +
                             std::to_string(options.max_decompressed_buffer));
    }
    auto decompressed = Decompress(codec, raw->data() + 8, length - 8, claimed);
    if (!decompressed.ok()) return decompressed.status().WithContext(where);
    out[static_cast<size_t>(i)] = std::move(*decompressed);
    return Status::OK();
  };
  QUIVER_RETURN_NOT_OK(ParallelFor(count, codec == Compression::kNone ? 1 : options.threads, load));
  return out;
}

class ArrayLoader {
 public:
  ArrayLoader(const Message& message, const fb::RecordBatch& batch, std::vector<BufferPtr> buffers)
      : message_(message), nodes_(batch.nodes()), buffers_(std::move(buffers)) {}

  Result<ArrayDataPtr> Load(const Field& field, const std::string& where, int depth) {
    if (depth > kMaxNestingDepth) return Status::Invalid(where + ": nested too deeply");
    QUIVER_ASSIGN_OR_RETURN(const fb::FieldNode* node, NextNode(where));
    if (node->length() < 0 || node->null_count() < 0 || node->null_count() > node->length()) {
      return Status::Invalid(where + ": field node has length " + std::to_string(node->length()) +
                             " and null count " + std::to_string(node->null_count()));
    }
    auto data = std::make_shared<ArrayData>();
    data->type = field.type;
    data->length = node->length();
    data->null_count = node->null_count();
    const internal::Layout layout = internal::LayoutOf(*field.type);
    for (int b = 0; b < layout.num_buffers; ++b) {
      QUIVER_ASSIGN_OR_RETURN(BufferPtr buffer, NextBuffer(where));
      // Writers may leave the validity bitmap empty when nothing is null.
      if (layout.roles[b] == BufferRole::kValidity && (data->null_count == 0 || buffer->size() == 0)) {
        if (data->null_count != 0) {
          return Status::Invalid(where + ": " + std::to_string(data->null_count) +
                                 " nulls but no validity bitmap");
        }
        buffer = nullptr;
      }
      data->buffers.push_back(std::move(buffer));
    }
    const std::vector<Field>& children = field.type->storage().children();
    for (size_t c = 0; c < children.size(); ++c) {
      QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr child,
                              Load(children[c], where + ".child " + std::to_string(c) + " (" +
                                                    children[c].name + ")",
                                   depth + 1));
      data->children.push_back(std::move(child));
    }
    return ArrayDataPtr(std::move(data));
  }

  Status CheckAllConsumed() const {
    const int64_t nodes = nodes_ ? nodes_->size() : 0;
    if (next_node_ != nodes || next_buffer_ != static_cast<int64_t>(buffers_.size())) {
      return Status::Invalid(message_.Where() + ": the record batch has " + std::to_string(nodes) +
                             " field nodes and " + std::to_string(buffers_.size()) +
                             " buffers, the schema uses " + std::to_string(next_node_) + " and " +
                             std::to_string(next_buffer_));
    }
    return Status::OK();
  }

 private:
  Result<const fb::FieldNode*> NextNode(const std::string& where) {
    if (!nodes_ || next_node_ >= static_cast<int64_t>(nodes_->size())) {
      return Status::Invalid(message_.Where() + ": " + where + " needs field node " +
                             std::to_string(next_node_) + ", the record batch has " +
                             std::to_string(nodes_ ? nodes_->size() : 0));
    }
    return nodes_->Get(static_cast<flatbuffers::uoffset_t>(next_node_++));
  }

  Result<BufferPtr> NextBuffer(const std::string& where) {
    if (next_buffer_ >= static_cast<int64_t>(buffers_.size())) {
      return Status::Invalid(message_.Where() + ": " + where + " needs buffer " +
                             std::to_string(next_buffer_) + ", the record batch has " +
                             std::to_string(buffers_.size()));
    }
    return buffers_[static_cast<size_t>(next_buffer_++)];
  }

  const Message& message_;
  const flatbuffers::Vector<const fb::FieldNode*>* nodes_;
  std::vector<BufferPtr> buffers_;
  int64_t next_node_ = 0;
  int64_t next_buffer_ = 0;
};

}  // namespace

Result<RecordBatchPtr> DecodeRecordBatch(const Message& message, const SchemaPtr& schema,
                                         const ReadOptions& options) {
  const fb::RecordBatch* batch = message.header->header_as_RecordBatch();
  if (batch == nullptr) return Status::Invalid(message.Where() + " is not a record batch");
  if (batch->length() < 0) {
    return Status::Invalid(message.Where() + ": negative row count " + std::to_string(batch->length()));
  }
  QUIVER_ASSIGN_OR_RETURN(std::vector<BufferPtr> buffers, LoadBuffers(message, *batch, options));
  ArrayLoader loader(message, *batch, std::move(buffers));
  std::vector<ArrayDataPtr> columns;
  for (size_t i = 0; i < schema->fields.size(); ++i) {
    const Field& field = schema->fields[i];
    QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr column,
                            loader.Load(field, "column " + std::to_string(i) + " (" + field.name + ")", 0));
    if (column->length != batch->length()) {
      return Status::Invalid(message.Where() + ": column " + std::to_string(i) + " (" + field.name +
                             ") has " + std::to_string(column->length) + " rows, the batch " +
                             std::to_string(batch->length()));
    }
    columns.push_back(std::move(column));
  }
  QUIVER_RETURN_NOT_OK(loader.CheckAllConsumed());
  auto made = RecordBatch::Make(schema, batch->length(), std::move(columns), options.validation);
  if (!made.ok()) return made.status().WithContext(message.Where());
  return made;
}

}  // namespace quiver::ipc
