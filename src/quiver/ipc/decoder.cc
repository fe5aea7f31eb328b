// Decoding record batch bodies: field nodes and buffers are consumed in
// pre-order over the schema, as the layout table says each type needs them.
#include "quiver/ipc/decoder.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <mutex>
#include <string>
#include <vector>

#include "quiver/internal/bitmap.h"
#include "quiver/internal/layout.h"
#include "quiver/internal/threads.h"
#include "quiver/ipc/codec.h"
#include "quiver/ipc/endian.h"
#include "quiver/selection.h"

namespace quiver::ipc {

Result<Compression> BodyCodec(const Message& message, const fb::RecordBatch& batch) {
  const fb::BodyCompression* compression = batch.compression();
  if (compression == nullptr) return Compression::kNone;
  if (compression->method() != fb::BodyCompressionMethod::BUFFER) {
    return Status::NotImplemented(message.Where() + ": unknown body compression method");
  }
  switch (compression->codec()) {
    case fb::CompressionType::LZ4_FRAME: return Compression::kLz4Frame;
    case fb::CompressionType::ZSTD: return Compression::kZstd;
    default: break;
  }
  return Status::NotImplemented(message.Where() + ": unknown compression codec " +
                                std::to_string(static_cast<int>(compression->codec())));
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
  QUIVER_ASSIGN_OR_RETURN(const Compression codec, BodyCodec(message, batch));
  auto load = [&](int64_t i) -> Status {
    const fb::Buffer spec = LoadStruct(specs, static_cast<flatbuffers::uoffset_t>(i));
    const int64_t offset = spec.offset(), length = spec.length();
    const std::string where = message.Where() + ": buffer " + std::to_string(i);
    if (offset < 0 || length < 0 || offset > body->size() || length > body->size() - offset) {
      return Status::Invalid(where + " [" + std::to_string(offset) + ", +" +
                             std::to_string(length) + ") lies outside the " +
                             std::to_string(body->size()) + "-byte body");
    }
    QUIVER_ASSIGN_OR_RETURN(BufferPtr raw, Buffer::Slice(body, offset, length));
    if (codec == Compression::kNone || length == 0) {
      QUIVER_ASSIGN_OR_RETURN(out[static_cast<size_t>(i)], AlignedTo8(std::move(raw)));
      return Status::OK();
    }
    if (length < 8) return Status::Invalid(where + " is compressed but has no length prefix");
    int64_t claimed;
    std::memcpy(&claimed, raw->data(), 8);
    if (claimed == -1) {  // stored uncompressed after the prefix
      QUIVER_ASSIGN_OR_RETURN(BufferPtr stored, Buffer::Slice(raw, 8, length - 8));
      QUIVER_ASSIGN_OR_RETURN(out[static_cast<size_t>(i)], AlignedTo8(std::move(stored)));
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
  QUIVER_RETURN_NOT_OK(
      internal::ParallelTasks(count, codec == Compression::kNone ? 1 : options.threads, load));
  return out;
}

class ArrayLoader {
 public:
  // `ids`: the dictionary id of each dictionary-encoded field the body
  // holds, in pre-order (nullptr: none).
  ArrayLoader(const Message& message, const fb::RecordBatch& batch, std::vector<BufferPtr> buffers,
              const DictionaryMemo* memo, const std::vector<int64_t>* ids)
      : message_(message),
        nodes_(batch.nodes()),
        variadic_(batch.variadic_buffer_counts()),
        buffers_(std::move(buffers)),
        memo_(memo),
        ids_(ids) {}

  Result<ArrayDataPtr> Load(const Field& field, const std::string& where, int depth) {
    if (depth > kMaxNestingDepth) return Status::Invalid(where + ": nested too deeply");
    QUIVER_ASSIGN_OR_RETURN(const fb::FieldNode node, NextNode(where));
    if (node.length() < 0 || node.null_count() < 0 || node.null_count() > node.length()) {
      return Status::Invalid(where + ": field node has length " + std::to_string(node.length()) +
                             " and null count " + std::to_string(node.null_count()));
    }
    auto data = std::make_shared<ArrayData>();
    data->type = field.type;
    data->length = node.length();
    data->null_count = node.null_count();
    const internal::Layout layout = internal::LayoutOf(*field.type);
    for (int b = 0; b < layout.num_buffers; ++b) {
      QUIVER_ASSIGN_OR_RETURN(BufferPtr buffer, NextBuffer(where));
      // Writers may leave the validity bitmap empty when nothing is null.
      if (layout.roles[b] == BufferRole::kValidity &&
          (data->null_count == 0 || buffer->size() == 0)) {
        if (data->null_count != 0) {
          return Status::Invalid(where + ": " + std::to_string(data->null_count) +
                                 " nulls but no validity bitmap");
        }
        buffer = nullptr;
      }
      data->buffers.push_back(std::move(buffer));
    }
    if (layout.variadic) QUIVER_RETURN_NOT_OK(LoadVariadic(where, data.get()));
    if (layout.dictionary) {
      QUIVER_ASSIGN_OR_RETURN(data->dictionary, NextDictionary(where));
    }
    if (field.type->storage().id() == TypeId::kNull) {
      data->null_count = data->length;  // null arrays: all null
    }
    const std::vector<Field>& children = field.type->storage().children();
    for (size_t c = 0; c < children.size(); ++c) {
      QUIVER_ASSIGN_OR_RETURN(
          ArrayDataPtr child,
          Load(children[c], where + ".child " + std::to_string(c) + " (" + children[c].name + ")",
               depth + 1));
      data->children.push_back(std::move(child));
    }
    return ArrayDataPtr(std::move(data));
  }

  Status CheckAllConsumed() const {
    const int64_t nodes = nodes_ ? nodes_->size() : 0;
    const int64_t variadic = variadic_ ? variadic_->size() : 0;
    if (next_variadic_ != variadic) {
      return Status::Invalid(message_.Where() + ": the record batch has " +
                             std::to_string(variadic) +
                             " variadic buffer counts, the schema's view columns use " +
                             std::to_string(next_variadic_));
    }
    if (next_node_ != nodes || next_buffer_ != static_cast<int64_t>(buffers_.size())) {
      return Status::Invalid(message_.Where() + ": the record batch has " + std::to_string(nodes) +
                             " field nodes and " + std::to_string(buffers_.size()) +
                             " buffers, the schema uses " + std::to_string(next_node_) + " and " +
                             std::to_string(next_buffer_));
    }
    return Status::OK();
  }

 private:
  Result<fb::FieldNode> NextNode(const std::string& where) {
    if (!nodes_ || next_node_ >= static_cast<int64_t>(nodes_->size())) {
      return Status::Invalid(message_.Where() + ": " + where + " needs field node " +
                             std::to_string(next_node_) + ", the record batch has " +
                             std::to_string(nodes_ ? nodes_->size() : 0));
    }
    return LoadStruct(nodes_, static_cast<flatbuffers::uoffset_t>(next_node_++));
  }

  Result<BufferPtr> NextBuffer(const std::string& where) {
    if (next_buffer_ >= static_cast<int64_t>(buffers_.size())) {
      return Status::Invalid(message_.Where() + ": " + where + " needs buffer " +
                             std::to_string(next_buffer_) + ", the record batch has " +
                             std::to_string(buffers_.size()));
    }
    return buffers_[static_cast<size_t>(next_buffer_++)];
  }

  // A view array's data buffers: as many as its variadic count says.
  Status LoadVariadic(const std::string& where, ArrayData* data) {
    if (!variadic_ || next_variadic_ >= static_cast<int64_t>(variadic_->size())) {
      return Status::Invalid(message_.Where() + ": " + where + " needs variadic buffer count " +
                             std::to_string(next_variadic_) + ", the record batch has " +
                             std::to_string(variadic_ ? variadic_->size() : 0));
    }
    const int64_t count =
        LoadScalar(variadic_, static_cast<flatbuffers::uoffset_t>(next_variadic_++));
    const int64_t left = static_cast<int64_t>(buffers_.size()) - next_buffer_;
    if (count < 0 || count > left) {
      return Status::Invalid(message_.Where() + ": " + where + " claims " + std::to_string(count) +
                             " variadic buffers, " + std::to_string(left) + " buffers are left");
    }
    for (int64_t k = 0; k < count; ++k) {
      QUIVER_ASSIGN_OR_RETURN(BufferPtr buffer, NextBuffer(where));
      data->buffers.push_back(std::move(buffer));
    }
    return Status::OK();
  }

  Result<ArrayDataPtr> NextDictionary(const std::string& where) {
    if (memo_ == nullptr || ids_ == nullptr ||
        next_dictionary_ >= static_cast<int64_t>(ids_->size())) {
      return Status::Invalid(message_.Where() + ": " + where +
                             " is dictionary-encoded but the "
                             "schema names no dictionary for it");
    }
    const int64_t id = (*ids_)[static_cast<size_t>(next_dictionary_++)];
    auto found = memo_->values.find(id);
    if (found == memo_->values.end()) {
      return Status::Invalid(message_.Where() + ": " + where + " uses dictionary id " +
                             std::to_string(id) + ", which no dictionary batch before it defined");
    }
    return found->second;
  }

  const Message& message_;
  const flatbuffers::Vector<const fb::FieldNode*>* nodes_;
  const flatbuffers::Vector<int64_t>* variadic_;
  std::vector<BufferPtr> buffers_;
  const DictionaryMemo* memo_;
  const std::vector<int64_t>* ids_;
  int64_t next_node_ = 0;
  int64_t next_buffer_ = 0;
  int64_t next_variadic_ = 0;
  int64_t next_dictionary_ = 0;
};

// The arrays of one record batch body (a record batch, or the data of a
// dictionary batch), unvalidated.
Result<std::vector<ArrayDataPtr>> LoadColumns(const Message& message, const fb::RecordBatch& batch,
                                              const Schema& schema, const DictionaryMemo* memo,
                                              const std::vector<int64_t>* ids,
                                              const ReadOptions& options) {
  if (batch.length() < 0) {
    return Status::Invalid(message.Where() + ": negative row count " +
                           std::to_string(batch.length()));
  }
  QUIVER_ASSIGN_OR_RETURN(std::vector<BufferPtr> buffers, LoadBuffers(message, batch, options));
  ArrayLoader loader(message, batch, std::move(buffers), memo, ids);
  std::vector<ArrayDataPtr> columns;
  for (size_t i = 0; i < schema.fields.size(); ++i) {
    const Field& field = schema.fields[i];
    QUIVER_ASSIGN_OR_RETURN(
        ArrayDataPtr column,
        loader.Load(field, "column " + std::to_string(i) + " (" + field.name + ")", 0));
    if (column->length != batch.length()) {
      return Status::Invalid(message.Where() + ": column " + std::to_string(i) + " (" + field.name +
                             ") has " + std::to_string(column->length) + " rows, the batch " +
                             std::to_string(batch.length()));
    }
    columns.push_back(std::move(column));
  }
  QUIVER_RETURN_NOT_OK(loader.CheckAllConsumed());
  return columns;
}

// Walks `type` in pre-order beside the schema's flatbuffer ids (`flat`,
// which lists a dictionary field's id before the ids inside its values):
// each dictionary-encoded field outside dictionary values gets its id in
// `out`; each id gets its value type and the ids inside its values.
Status AssignDictionaryIds(const DataType& type, const std::vector<int64_t>& flat, size_t* next,
                           std::vector<int64_t>* out, DictionaryMemo* memo, int depth) {
  if (depth > kMaxNestingDepth) return Status::Invalid("the schema nests too deeply");
  const DataType& storage = type.storage();
  if (storage.id() != TypeId::kDictionary) {
    for (const Field& child : storage.children()) {
      if (child.type) {
        QUIVER_RETURN_NOT_OK(AssignDictionaryIds(*child.type, flat, next, out, memo, depth + 1));
      }
    }
    return Status::OK();
  }
  if (*next >= flat.size()) {
    return Status::Invalid("the schema's dictionary encodings do not match its fields");
  }
  const int64_t id = flat[(*next)++];
  out->push_back(id);
  const TypePtr& value_type = storage.value_type();
  std::vector<int64_t> inner;
  for (const Field& child : value_type->storage().children()) {
    if (child.type) {
      QUIVER_RETURN_NOT_OK(AssignDictionaryIds(*child.type, flat, next, &inner, memo, depth + 1));
    }
  }
  // Fields may share an id (and so one dictionary) only where their
  // values have the same type (docs/formats.md, "Dictionaries").
  auto [known, added] = memo->types.emplace(id, value_type);
  if (!added && !known->second->Equals(*value_type)) {
    return Status::Invalid("the schema uses dictionary id ", id, " for values of type ",
                           known->second->ToString(), " and of type ", value_type->ToString(),
                           "; fields sharing a dictionary id must have equal value types");
  }
  auto [nested, fresh] = memo->nested_ids.emplace(id, inner);
  if (!fresh && nested->second != inner) {
    return Status::Invalid("the schema uses dictionary id ", id,
                           " for values whose nested dictionaries have different ids");
  }
  return Status::OK();
}

}  // namespace

Status InitDictionaryMemo(const fb::Schema* fb_schema, const Schema& schema, DictionaryMemo* memo) {
  const std::vector<int64_t> flat = DictionaryIds(fb_schema);
  size_t next = 0;
  for (const Field& field : schema.fields) {
    QUIVER_RETURN_NOT_OK(AssignDictionaryIds(*field.type, flat, &next, &memo->ids, memo, 0));
  }
  if (next != flat.size()) {
    return Status::Invalid("the schema's dictionary encodings do not match its fields");
  }
  // No id can reach itself through nested values: every use of an id has
  // the same value type and nested ids (checked above), so a use inside its
  // own values would repeat without end, which a finite schema cannot do.
  return Status::OK();
}

namespace {

// `base` followed by `delta` (same type). Flat values (fixed-width,
// utf8/binary) are joined here; nested and dictionary-encoded values by
// Concatenate, which checks every offset and index it reads.
Result<ArrayDataPtr> AppendDelta(const ArrayDataPtr& base, const ArrayDataPtr& delta) {
  const internal::Layout layout = internal::LayoutOf(*base->type);
  const bool flat = !layout.dictionary && !layout.variadic && base->children.empty();
  const bool fixed = flat && layout.num_buffers == 2 && layout.roles[1] == BufferRole::kValues;
  const bool binary = flat && layout.num_buffers == 3 && layout.roles[2] == BufferRole::kData;
  if (!fixed && !binary) {
    const ArrayDataPtr both[] = {base, delta};
    return Concatenate(both);
  }
  const int64_t length = base->length + delta->length;
  auto out = std::make_shared<ArrayData>();
  out->type = base->type;
  out->length = length;
  // Validity: every slot of both, re-based.
  const int64_t nulls = base->ComputeNullCount() + delta->ComputeNullCount();
  out->null_count = nulls;
  BufferPtr validity;
  if (nulls > 0) {
    QUIVER_ASSIGN_OR_RETURN(validity, Buffer::Allocate(internal::BitmapBytes(length)));
    for (int64_t i = 0; i < length; ++i) {
      const bool valid = i < base->length ? base->IsValid(i) : delta->IsValid(i - base->length);
      if (valid) internal::SetBit(validity->mutable_data(), i);
    }
  }
  out->buffers.push_back(std::move(validity));
  if (fixed) {
    const int64_t width = layout.value_bits / 8;
    QUIVER_ASSIGN_OR_RETURN(BufferPtr values, Buffer::Allocate(length * width));
    if (base->length > 0)
      std::memcpy(values->mutable_data(), base->buffers[1]->data() + base->offset * width,
                  static_cast<size_t>(base->length * width));
    if (delta->length > 0)
      std::memcpy(values->mutable_data() + base->length * width,
                  delta->buffers[1]->data() + delta->offset * width,
                  static_cast<size_t>(delta->length * width));
    out->buffers.push_back(std::move(values));
    return ArrayDataPtr(std::move(out));
  }
  const int64_t w = layout.offset_width();
  auto range = [&](const ArrayDataPtr& a, int64_t* first, int64_t* last) {
    *first = a->length ? internal::ReadOffset(a->buffers[1]->data(), a->offset, w) : 0;
    *last = a->length ? internal::ReadOffset(a->buffers[1]->data(), a->offset + a->length, w) : 0;
  };
  int64_t b0, b1, d0, d1;
  range(base, &b0, &b1);
  range(delta, &d0, &d1);
  QUIVER_ASSIGN_OR_RETURN(BufferPtr offsets, Buffer::Allocate((length + 1) * w));
  QUIVER_ASSIGN_OR_RETURN(BufferPtr bytes, Buffer::Allocate((b1 - b0) + (d1 - d0)));
  for (int64_t i = 0; i <= length; ++i) {
    int64_t value;
    if (i <= base->length) {
      value = base->length
                  ? internal::ReadOffset(base->buffers[1]->data(), base->offset + i, w) - b0
                  : 0;
    } else {
      value = (b1 - b0) +
              internal::ReadOffset(delta->buffers[1]->data(), delta->offset + i - base->length, w) -
              d0;
    }
    if (w == 8) {
      std::memcpy(offsets->mutable_data() + i * 8, &value, 8);
    } else {
      const int32_t narrow = static_cast<int32_t>(value);
      std::memcpy(offsets->mutable_data() + i * 4, &narrow, 4);
    }
  }
  if (b1 > b0)
    std::memcpy(bytes->mutable_data(), base->buffers[2]->data() + b0, static_cast<size_t>(b1 - b0));
  if (d1 > d0)
    std::memcpy(bytes->mutable_data() + (b1 - b0), delta->buffers[2]->data() + d0,
                static_cast<size_t>(d1 - d0));
  if (w == 4 && (b1 - b0) + (d1 - d0) > std::numeric_limits<int32_t>::max()) {
    return Status::Invalid("the delta dictionary overflows 32-bit offsets");
  }
  out->buffers.push_back(std::move(offsets));
  out->buffers.push_back(std::move(bytes));
  return ArrayDataPtr(std::move(out));
}

}  // namespace

Status DecodeDictionaryBatch(const Message& message, DictionaryMemo* memo,
                             const ReadOptions& options, bool swap_byte_order) {
  const fb::DictionaryBatch* batch = message.header->header_as_DictionaryBatch();
  if (batch == nullptr || batch->data() == nullptr) {
    return Status::Invalid(message.Where() + " is not a dictionary batch with data");
  }
  const int64_t id = batch->id();
  auto type = memo->types.find(id);
  if (type == memo->types.end()) {
    return Status::Invalid(message.Where() + ": dictionary id " + std::to_string(id) +
                           " does not exist in the schema");
  }
  Schema values_schema;
  values_schema.fields = {Field{"dictionary", type->second, true, {}}};
  auto existing = memo->values.find(id);
  if (existing != memo->values.end() && !batch->is_delta() && memo->file_format) {
    return Status::Invalid(message.Where(), ": a second dictionary for id ", id,
                           " that is not a delta; the IPC file format allows one dictionary per "
                           "id, extended only by deltas (replacements need the stream format)");
  }
  QUIVER_ASSIGN_OR_RETURN(
      std::vector<ArrayDataPtr> columns,
      LoadColumns(message, *batch->data(), values_schema, memo, &memo->nested_ids[id], options));
  if (swap_byte_order) {
    QUIVER_ASSIGN_OR_RETURN(columns[0], SwapByteOrder(columns[0]));
  }
  Status st = Validate(*columns[0], options.validation);
  if (!st.ok()) return st.WithContext(message.Where() + ": dictionary " + std::to_string(id));
  ArrayDataPtr values = columns[0];
  if (batch->is_delta()) {
    if (existing == memo->values.end()) {
      return Status::Invalid(message.Where() + ": a delta for dictionary id " + std::to_string(id) +
                             ", which has no dictionary yet");
    }
    QUIVER_ASSIGN_OR_RETURN(values, AppendDelta(existing->second, values));
  }
  // A replacement (streams) is seen by the record batches after it; those
  // decoded before keep the dictionary they were given.
  memo->values[id] = std::move(values);
  return Status::OK();
}

Result<RecordBatchPtr> DecodeRecordBatch(const Message& message, const SchemaPtr& schema,
                                         const DictionaryMemo& memo, const ReadOptions& options,
                                         bool swap_byte_order) {
  const fb::RecordBatch* batch = message.header->header_as_RecordBatch();
  if (batch == nullptr) return Status::Invalid(message.Where() + " is not a record batch");
  QUIVER_ASSIGN_OR_RETURN(std::vector<ArrayDataPtr> columns,
                          LoadColumns(message, *batch, *schema, &memo, &memo.ids, options));
  if (swap_byte_order) {
    for (ArrayDataPtr& column : columns) {
      QUIVER_ASSIGN_OR_RETURN(column, SwapByteOrder(column));
    }
  }
  auto made = RecordBatch::Make(schema, batch->length(), std::move(columns), options.validation);
  if (!made.ok()) return made.status().WithContext(message.Where());
  return made;
}

}  // namespace quiver::ipc
