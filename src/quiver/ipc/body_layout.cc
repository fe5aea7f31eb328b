// A record batch body described from its header: field nodes and buffers
// are consumed in pre-order over the schema, as the layout table says each
// type needs them. The decoder (decoder.cc) loads arrays from this
// description, so the walk and its count checks exist once.
#include "quiver/ipc/body_layout.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "quiver/internal/layout.h"
#include "quiver/internal/threads.h"
#include "quiver/ipc/codec.h"

namespace quiver::ipc {

Result<Compression> BodyCodec(const Message& message, const fb::RecordBatch& batch) {
  const fb::BodyCompression* compression = batch.compression();
  if (compression == nullptr) return Compression::kNone;
  if (compression->method() != fb::BodyCompressionMethod::BUFFER) {
    return Status::NotImplemented(message.Where(), ": unknown body compression method");
  }
  switch (compression->codec()) {
    case fb::CompressionType::LZ4_FRAME: return Compression::kLz4Frame;
    case fb::CompressionType::ZSTD: return Compression::kZstd;
    default: break;
  }
  return Status::NotImplemented(message.Where(), ": unknown compression codec ",
                                std::to_string(static_cast<int>(compression->codec())));
}

namespace {

// Consumes the header's field nodes, buffers and variadic counts in the
// order the schema's types ask for them.
class NodeWalker {
 public:
  NodeWalker(const Message& message, const fb::RecordBatch& batch, int64_t num_buffers,
             const std::vector<int64_t>* ids)
      : message_(message),
        nodes_(batch.nodes()),
        variadic_(batch.variadic_buffer_counts()),
        num_buffers_(num_buffers),
        ids_(ids),
        pre_v5_(message.header->version() < fb::MetadataVersion::V5) {}

  Result<FieldNodeLayout> Walk(const Field& field, const std::string& where, int depth) {
    if (depth > kMaxNestingDepth) return Status::Invalid(where, ": nested too deeply");
    QUIVER_ASSIGN_OR_RETURN(const fb::FieldNode node, NextNode(where));
    if (node.length() < 0 || node.null_count() < 0 || node.null_count() > node.length()) {
      return Status::Invalid(where, ": field node has length ", std::to_string(node.length()),
                             " and null count ", std::to_string(node.null_count()));
    }
    FieldNodeLayout out;
    out.field = field;
    out.length = node.length();
    out.null_count = node.null_count();
    const internal::Layout layout = internal::LayoutOf(*field.type);
    if (field.type->storage().is_union() && pre_v5_) {
      QUIVER_RETURN_NOT_OK(SkipUnionValidity(where, &out));
    }
    for (int b = 0; b < layout.num_buffers; ++b) {
      QUIVER_ASSIGN_OR_RETURN(const int64_t buffer, NextBuffer(where));
      out.buffers.push_back(buffer);
    }
    if (layout.variadic) QUIVER_RETURN_NOT_OK(WalkVariadic(where, &out));
    if (layout.dictionary) {
      QUIVER_ASSIGN_OR_RETURN(out.dictionary_id, NextDictionaryId(where));
    }
    const std::vector<Field>& children = field.type->storage().children();
    for (size_t c = 0; c < children.size(); ++c) {
      QUIVER_ASSIGN_OR_RETURN(
          FieldNodeLayout child,
          Walk(children[c], where + ".child " + std::to_string(c) + " (" + children[c].name + ")",
               depth + 1));
      out.children.push_back(std::move(child));
    }
    return out;
  }

  Status CheckAllConsumed() const {
    const int64_t nodes = nodes_ ? nodes_->size() : 0;
    const int64_t variadic = variadic_ ? variadic_->size() : 0;
    if (next_variadic_ != variadic) {
      return Status::Invalid(message_.Where(), ": the record batch has ", std::to_string(variadic),
                             " variadic buffer counts, the schema's view columns use ",
                             std::to_string(next_variadic_));
    }
    if (next_node_ != nodes || next_buffer_ != num_buffers_) {
      return Status::Invalid(message_.Where(), ": the record batch has ", std::to_string(nodes),
                             " field nodes and ", std::to_string(num_buffers_),
                             " buffers, the schema uses ", std::to_string(next_node_), " and ",
                             std::to_string(next_buffer_));
    }
    return Status::OK();
  }

 private:
  Result<fb::FieldNode> NextNode(const std::string& where) {
    if (!nodes_ || next_node_ >= static_cast<int64_t>(nodes_->size())) {
      return Status::Invalid(message_.Where(), ": ", where, " needs field node ",
                             std::to_string(next_node_), ", the record batch has ",
                             std::to_string(nodes_ ? nodes_->size() : 0));
    }
    return LoadStruct(nodes_, static_cast<flatbuffers::uoffset_t>(next_node_++));
  }

  Result<int64_t> NextBuffer(const std::string& where) {
    if (next_buffer_ >= num_buffers_) {
      return Status::Invalid(message_.Where(), ": ", where, " needs buffer ",
                             std::to_string(next_buffer_), ", the record batch has ",
                             std::to_string(num_buffers_));
    }
    return next_buffer_++;
  }

  // Before metadata V5 a union had a validity bitmap, listed before its
  // type ids. Like Arrow C++, the reader skips it while it marks nothing
  // null; a union with nulls of its own has no V5 form (its children would
  // have to be rewritten), so it is refused.
  Status SkipUnionValidity(const std::string& where, FieldNodeLayout* out) {
    QUIVER_RETURN_NOT_OK(NextBuffer(where).status());
    if (out->null_count != 0) {
      return Status::NotImplemented(
          message_.Where(), ": ", where, " is a union with ", out->null_count,
          " nulls of its own, written with metadata before V5 (a validity bitmap on the union); "
          "only unions without top-level nulls can be read from such files");
    }
    return Status::OK();
  }

  // A view array's data buffers: as many as its variadic count says.
  Status WalkVariadic(const std::string& where, FieldNodeLayout* out) {
    if (!variadic_ || next_variadic_ >= static_cast<int64_t>(variadic_->size())) {
      return Status::Invalid(message_.Where(), ": ", where, " needs variadic buffer count ",
                             std::to_string(next_variadic_), ", the record batch has ",
                             std::to_string(variadic_ ? variadic_->size() : 0));
    }
    const int64_t count =
        LoadScalar(variadic_, static_cast<flatbuffers::uoffset_t>(next_variadic_++));
    const int64_t left = num_buffers_ - next_buffer_;
    if (count < 0 || count > left) {
      return Status::Invalid(message_.Where(), ": ", where, " claims ", std::to_string(count),
                             " variadic buffers, ", std::to_string(left), " buffers are left");
    }
    for (int64_t k = 0; k < count; ++k) out->buffers.push_back(next_buffer_++);
    return Status::OK();
  }

  Result<int64_t> NextDictionaryId(const std::string& where) {
    if (ids_ == nullptr || next_dictionary_ >= static_cast<int64_t>(ids_->size())) {
      return Status::Invalid(message_.Where(), ": ", where,
                             " is dictionary-encoded but the "
                             "schema names no dictionary for it");
    }
    return (*ids_)[static_cast<size_t>(next_dictionary_++)];
  }

  const Message& message_;
  const flatbuffers::Vector<const fb::FieldNode*>* nodes_;
  const flatbuffers::Vector<int64_t>* variadic_;
  const int64_t num_buffers_;
  const std::vector<int64_t>* ids_;
  int64_t next_node_ = 0;
  int64_t next_buffer_ = 0;
  int64_t next_variadic_ = 0;
  int64_t next_dictionary_ = 0;
  const bool pre_v5_;  // unions carry a validity buffer (see SkipUnionValidity)
};

// The span of buffer `index` and where errors about it point.
Result<BodyBufferSpan> SpanOf(const Message& message, const BatchLayout& layout, int64_t index,
                              std::string* where) {
  const int64_t count = static_cast<int64_t>(layout.buffers.size());
  if (index < 0 || index >= count) {
    return Status::IndexError(message.Where(), ": buffer ", index, " is out of range for the ",
                              count, " buffers of the record batch");
  }
  *where = message.Where() + ": buffer " + std::to_string(index);
  return layout.buffers[static_cast<size_t>(index)];
}

// `length` bytes from `offset` of `message`'s body: a slice of the body
// it carries, or read from `body_source` after its head.
Result<BufferPtr> BodyBytes(const Message& message, InputSource* body_source, int64_t offset,
                            int64_t length) {
  if (message.body) return Buffer::Slice(message.body, offset, length);
  if (body_source == nullptr) {
    return Status::Invalid(message.Where(), ": the body was not read and no source was given");
  }
  // message.size counts the prefix and the metadata of a head-only read.
  QUIVER_ASSIGN_OR_RETURN(BufferPtr bytes,
                          body_source->ReadAt(message.offset + message.size + offset, length));
  if (bytes->size() != length) {
    return Status::Invalid(message.Where(), ": the source ends inside the body (", bytes->size(),
                           " of ", length, " bytes at body offset ", offset, ")");
  }
  return bytes;
}

}  // namespace

Result<int64_t> LengthPrefix(const uint8_t* stored, int64_t length, const std::string& where,
                             const ReadOptions& options) {
  if (length < 8) return Status::Invalid(where, " is compressed but has no length prefix");
  int64_t claimed;
  std::memcpy(&claimed, stored, 8);
  if (claimed != -1 && (claimed < 0 || claimed > options.max_decompressed_buffer)) {
    return Status::Invalid(where, " claims ", std::to_string(claimed),
                           " decompressed bytes; the limit is ",
                           std::to_string(options.max_decompressed_buffer));
  }
  return claimed;
}

Result<BatchLayout> DescribeBuffers(const Message& message, const fb::RecordBatch& batch) {
  if (batch.length() < 0) {
    return Status::Invalid(message.Where(), ": negative row count ",
                           std::to_string(batch.length()));
  }
  BatchLayout out;
  out.num_rows = batch.length();
  QUIVER_ASSIGN_OR_RETURN(out.compression, BodyCodec(message, batch));
  // A message read head only (ReadMessageHead) has no body yet.
  out.body_length = message.body ? message.body->size() : message.header->body_length();
  const auto* specs = batch.buffers();
  const int64_t count = specs ? specs->size() : 0;
  out.buffers.reserve(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    const fb::Buffer spec = LoadStruct(specs, static_cast<flatbuffers::uoffset_t>(i));
    const int64_t offset = spec.offset(), length = spec.length();
    if (offset < 0 || length < 0 || offset > out.body_length || length > out.body_length - offset) {
      return Status::Invalid(message.Where(), ": buffer ", std::to_string(i), " [",
                             std::to_string(offset), ", +", std::to_string(length),
                             ") lies outside the ", std::to_string(out.body_length), "-byte body");
    }
    out.buffers.push_back({offset, length});
  }
  return out;
}

Result<BatchLayout> DescribeBody(const Message& message, const fb::RecordBatch& batch,
                                 const Schema& schema, const std::vector<int64_t>* ids) {
  QUIVER_ASSIGN_OR_RETURN(BatchLayout out, DescribeBuffers(message, batch));
  NodeWalker walker(message, batch, static_cast<int64_t>(out.buffers.size()), ids);
  out.columns.reserve(schema.fields.size());
  for (size_t i = 0; i < schema.fields.size(); ++i) {
    const Field& field = schema.fields[i];
    const std::string where = "column " + std::to_string(i) + " (" + field.name + ")";
    QUIVER_ASSIGN_OR_RETURN(FieldNodeLayout column, walker.Walk(field, where, 0));
    if (column.length != out.num_rows) {
      return Status::Invalid(message.Where(), ": ", where, " has ", std::to_string(column.length),
                             " rows, the batch ", std::to_string(out.num_rows));
    }
    out.columns.push_back(std::move(column));
  }
  QUIVER_RETURN_NOT_OK(walker.CheckAllConsumed());
  return out;
}

Result<BufferPtr> LoadBodyBuffer(const Message& message, const BatchLayout& layout, int64_t index,
                                 const ReadOptions& options, InputSource* body_source) {
  std::string where;
  QUIVER_ASSIGN_OR_RETURN(const BodyBufferSpan span, SpanOf(message, layout, index, &where));
  QUIVER_ASSIGN_OR_RETURN(BufferPtr raw, BodyBytes(message, body_source, span.offset, span.length));
  return DecodeStoredBuffer(std::move(raw), layout.compression, where, options);
}

Result<BufferPtr> DecodeStoredBuffer(BufferPtr stored, Compression compression,
                                     const std::string& where, const ReadOptions& options) {
  const int64_t length = stored->size();
  if (compression == Compression::kNone || length == 0) return AlignedTo8(std::move(stored));
  QUIVER_ASSIGN_OR_RETURN(const int64_t claimed,
                          LengthPrefix(stored->data(), length, where, options));
  if (claimed == -1) {  // stored uncompressed after the prefix
    QUIVER_ASSIGN_OR_RETURN(BufferPtr raw, Buffer::Slice(stored, 8, length - 8));
    return AlignedTo8(std::move(raw));
  }
  auto decompressed = Decompress(compression, stored->data() + 8, length - 8, claimed);
  if (!decompressed.ok()) return decompressed.status().WithContext(where);
  return decompressed;
}

namespace {

// A whole buffer of this size or more, decompressed on one thread (a
// single frame), has its output's pages mapped by the other threads
// meanwhile, kPrefaultStep at a time from its end.
constexpr int64_t kPrefaultBytes = int64_t{32} << 20;
constexpr int64_t kPrefaultStep = int64_t{16} << 20;

// Maps the pages of [data, data + size) writable (MADV_POPULATE_WRITE,
// Linux 5.14), so that the thread decompressing into them does not stop
// at a page fault per page of fresh memory. The contents do not change
// (pages already there are left as they are), so it may run while another
// thread writes the same pages; a kernel without it does nothing.
void Prefault(uint8_t* data, int64_t size) {
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
  static const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + page - 1) & ~(page - 1);
  const uintptr_t end =
      (reinterpret_cast<uintptr_t>(data) + static_cast<uintptr_t>(size)) & ~(page - 1);
  if (begin < end) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE);
#else
  (void)data, (void)size;
#endif
}

}  // namespace

Result<std::vector<BufferPtr>> DecodeStoredBuffers(const std::vector<BufferPtr>& stored,
                                                   Compression compression,
                                                   const std::function<std::string(int64_t)>& where,
                                                   const ReadOptions& options, int threads) {
  const size_t count = stored.size();
  std::vector<BufferPtr> out(count);
  if (compression == Compression::kNone) {  // views: nothing to share out
    for (size_t i = 0; i < count; ++i) {
      QUIVER_ASSIGN_OR_RETURN(out[i], DecodeStoredBuffer(stored[i], compression, "", options));
    }
    return out;
  }
  enum class Kind {
    kStored,    // DecodeStoredBuffer, whatever the buffer holds
    kWhole,     // one frame, into out[buffer]
    kPiece,     // piece `index` of a split buffer, into out[buffer]
    kPrefault,  // step `index` (from the end) of out[buffer]'s pages
  };
  struct Task {
    Kind kind;
    size_t buffer;
    int64_t index;
    int64_t bytes;  // output bytes: the largest go first
  };
  std::vector<Task> tasks;
  std::vector<std::vector<DecompressPiece>> pieces(count);
  const bool shared = internal::ThreadCount(threads) > 1;
  for (size_t i = 0; i < count; ++i) {
    const int64_t length = stored[i] ? stored[i]->size() : 0;
    int64_t claimed = -1;
    if (shared && length > 8) std::memcpy(&claimed, stored[i]->data(), 8);
    // Sizes the limit refuses are left to DecodeStoredBuffer, which says so.
    const bool large = claimed > 0 && claimed <= options.max_decompressed_buffer &&
                       (claimed >= kPrefaultBytes || claimed >= 2 * kPartBytes);
    if (large) {
      pieces[i] =
          SplitCompressed(compression, stored[i]->data() + 8, length - 8, claimed, kPartBytes);
      if (!pieces[i].empty() || claimed >= kPrefaultBytes) {
        auto allocated = Buffer::AllocateUninitialized(claimed);
        if (allocated.ok()) out[i] = std::move(*allocated);
      }
    }
    if (!out[i]) {
      tasks.push_back({Kind::kStored, i, 0, claimed > 0 ? claimed : length});
    } else if (!pieces[i].empty()) {
      for (size_t k = 0; k < pieces[i].size(); ++k) {
        tasks.push_back({Kind::kPiece, i, static_cast<int64_t>(k), pieces[i][k].dst_length});
      }
    } else {
      tasks.push_back({Kind::kWhole, i, 0, claimed});
    }
  }
  std::stable_sort(tasks.begin(), tasks.end(),
                   [](const Task& a, const Task& b) { return a.bytes > b.bytes; });
  // The pages of a whole frame's output are mapped by the threads that are
  // free right after it started, from the end back towards the decoder.
  for (size_t t = tasks.size(); t-- > 0;) {
    if (tasks[t].kind != Kind::kWhole) continue;
    const size_t i = tasks[t].buffer;
    const int64_t steps = (out[i]->size() + kPrefaultStep - 1) / kPrefaultStep;
    std::vector<Task> prefault;
    for (int64_t k = 0; k < steps; ++k) prefault.push_back({Kind::kPrefault, i, k, 0});
    tasks.insert(tasks.begin() + static_cast<std::ptrdiff_t>(t) + 1, prefault.begin(),
                 prefault.end());
  }
  // Written by several threads at once: one flag per buffer, set, never cleared.
  std::unique_ptr<std::atomic<bool>[]> failed(new std::atomic<bool>[count]);
  for (size_t i = 0; i < count; ++i) failed[i] = false;
  std::vector<Status> failures(count);
  // Buffer i decoded on its own into out[i], or its failure recorded: for
  // a stored buffer, and again for one whose frame or piece failed.
  auto decode_alone = [&](size_t i) {
    auto decoded =
        DecodeStoredBuffer(stored[i], compression, where(static_cast<int64_t>(i)), options);
    if (decoded.ok()) {
      out[i] = std::move(*decoded);
    } else {
      failures[i] = decoded.status();
    }
  };
  QUIVER_RETURN_NOT_OK(internal::ParallelTasks(
      static_cast<int64_t>(tasks.size()), threads, [&](int64_t t) -> Status {
        const Task& task = tasks[static_cast<size_t>(t)];
        const size_t i = task.buffer;
        switch (task.kind) {
          case Kind::kStored: decode_alone(i); break;
          case Kind::kWhole:
            if (!DecompressInto(compression, stored[i]->data() + 8, stored[i]->size() - 8,
                                out[i]->size(), out[i]->mutable_data())
                     .ok()) {
              failed[i] = true;
            }
            break;
          case Kind::kPiece:
            if (!DecompressPieceInto(compression, stored[i]->data() + 8,
                                     pieces[i][static_cast<size_t>(task.index)],
                                     out[i]->mutable_data())
                     .ok()) {
              failed[i] = true;
            }
            break;
          case Kind::kPrefault: {
            const int64_t end = out[i]->size() - task.index * kPrefaultStep;
            const int64_t begin = std::max<int64_t>(0, end - kPrefaultStep);
            Prefault(out[i]->mutable_data() + begin, end - begin);
            break;
          }
        }
        return Status::OK();
      }));
  for (size_t i = 0; i < count; ++i) {
    // A frame or piece that failed: the buffer again through
    // DecodeStoredBuffer, which decodes what liblz4 or libzstd accept and
    // names what they refuse, as a read of that buffer alone would.
    if (failed[i]) decode_alone(i);
    if (!failures[i].ok()) return failures[i];
  }
  return out;
}

Result<std::vector<BufferPtr>> LoadBodyBuffers(const Message& message, const BatchLayout& layout,
                                               const ReadOptions& options, int threads) {
  const int64_t count = static_cast<int64_t>(layout.buffers.size());
  std::vector<BufferPtr> stored(static_cast<size_t>(count));
  std::string where;
  for (int64_t i = 0; i < count; ++i) {
    QUIVER_ASSIGN_OR_RETURN(const BodyBufferSpan span, SpanOf(message, layout, i, &where));
    QUIVER_ASSIGN_OR_RETURN(stored[static_cast<size_t>(i)],
                            BodyBytes(message, nullptr, span.offset, span.length));
  }
  return DecodeStoredBuffers(
      stored, layout.compression,
      [&](int64_t i) { return message.Where() + ": buffer " + std::to_string(i); }, options,
      threads);
}

Result<BodyBufferSize> LoadBodyBufferSize(const Message& message, const BatchLayout& layout,
                                          int64_t index, const ReadOptions& options,
                                          InputSource* body_source) {
  std::string where;
  QUIVER_ASSIGN_OR_RETURN(const BodyBufferSpan span, SpanOf(message, layout, index, &where));
  BodyBufferSize out{span.length, span.length, false};
  if (layout.compression == Compression::kNone || span.length == 0) return out;
  // A codec this build lacks is reported as reading the buffer would.
  QUIVER_RETURN_NOT_OK(CheckCodec(layout.compression));
  QUIVER_ASSIGN_OR_RETURN(BufferPtr prefix, BodyBytes(message, body_source, span.offset,
                                                      std::min<int64_t>(span.length, 8)));
  QUIVER_ASSIGN_OR_RETURN(const int64_t claimed,
                          LengthPrefix(prefix->data(), span.length, where, options));
  out.decoded = claimed == -1 ? span.length - 8 : claimed;
  out.compressed = claimed != -1;
  return out;
}

}  // namespace quiver::ipc
