// Decoding record batch bodies: arrays built on the body's described
// layout (body_layout.h), and dictionary batches.
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

namespace {

using internal::BufferRole;

// The body's buffers, decompressed where the message says so (in parallel).
Result<std::vector<BufferPtr>> LoadBuffers(const Message& message, const BatchLayout& layout,
                                           const ReadOptions& options) {
  return LoadBodyBuffers(message, layout, options,
                         layout.compression == Compression::kNone ? 1 : options.threads);
}

// Arrays from a described body and its loaded buffers.
class ArrayLoader {
 public:
  ArrayLoader(const Message& message, const std::vector<BufferPtr>& buffers,
              const DictionaryMemo* memo)
      : message_(message), buffers_(buffers), memo_(memo) {}

  // `node` was checked by DescribeBody: its buffer indexes are in range and
  // as many as its type needs, and its nesting is bounded.
  Result<ArrayDataPtr> Load(const FieldNodeLayout& node, const std::string& where) {
    auto data = std::make_shared<ArrayData>();
    data->type = node.field.type;
    data->length = node.length;
    data->null_count = node.null_count;
    const internal::Layout layout = internal::LayoutOf(*node.field.type);
    for (size_t b = 0; b < node.buffers.size(); ++b) {
      BufferPtr buffer = buffers_[static_cast<size_t>(node.buffers[b])];
      // Writers may leave the validity bitmap empty when nothing is null.
      if (static_cast<int>(b) < layout.num_buffers && layout.roles[b] == BufferRole::kValidity &&
          (data->null_count == 0 || buffer->size() == 0)) {
        if (data->null_count != 0) {
          return Status::Invalid(where, ": ", std::to_string(data->null_count),
                                 " nulls but no validity bitmap");
        }
        buffer = nullptr;
      }
      data->buffers.push_back(std::move(buffer));
    }
    if (layout.dictionary) {
      QUIVER_ASSIGN_OR_RETURN(data->dictionary, Dictionary(node.dictionary_id, where));
    }
    if (node.field.type->storage().id() == TypeId::kNull) {
      data->null_count = data->length;  // null arrays: all null
    }
    for (size_t c = 0; c < node.children.size(); ++c) {
      const FieldNodeLayout& child = node.children[c];
      QUIVER_ASSIGN_OR_RETURN(
          ArrayDataPtr loaded,
          Load(child, where + ".child " + std::to_string(c) + " (" + child.field.name + ")"));
      data->children.push_back(std::move(loaded));
    }
    return ArrayDataPtr(std::move(data));
  }

 private:
  Result<ArrayDataPtr> Dictionary(int64_t id, const std::string& where) {
    if (memo_ != nullptr) {
      auto found = memo_->values.find(id);
      if (found != memo_->values.end()) return found->second;
    }
    return Status::Invalid(message_.Where(), ": ", where, " uses dictionary id ",
                           std::to_string(id), ", which no dictionary batch before it defined");
  }

  const Message& message_;
  const std::vector<BufferPtr>& buffers_;
  const DictionaryMemo* memo_;
};

// The arrays of one record batch body (a record batch, or the data of a
// dictionary batch), unvalidated.
Result<std::vector<ArrayDataPtr>> LoadColumns(const Message& message, const fb::RecordBatch& batch,
                                              const Schema& schema, const DictionaryMemo* memo,
                                              const std::vector<int64_t>* ids,
                                              const ReadOptions& options) {
  QUIVER_ASSIGN_OR_RETURN(const BatchLayout layout, DescribeBody(message, batch, schema, ids));
  QUIVER_ASSIGN_OR_RETURN(const std::vector<BufferPtr> buffers,
                          LoadBuffers(message, layout, options));
  ArrayLoader loader(message, buffers, memo);
  std::vector<ArrayDataPtr> columns;
  columns.reserve(layout.columns.size());
  for (size_t i = 0; i < layout.columns.size(); ++i) {
    const FieldNodeLayout& column = layout.columns[i];
    QUIVER_ASSIGN_OR_RETURN(
        ArrayDataPtr loaded,
        loader.Load(column, "column " + std::to_string(i) + " (" + column.field.name + ")"));
    columns.push_back(std::move(loaded));
  }
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
  // Both were validated when read, but their bytes may be the caller's
  // (a bytearray, a mapped file) and may have changed since: every offset
  // read here is checked again before it is used.
  const auto changed = [] {
    return Status::Invalid(
        "a dictionary's offsets changed after they were checked (was the input modified while "
        "it was read?)");
  };
  auto span_ok = [](const ArrayDataPtr& a, int64_t first, int64_t last) {
    return first >= 0 && first <= last && (a->buffers[2] ? a->buffers[2]->size() : 0) >= last;
  };
  if (!span_ok(base, b0, b1) || !span_ok(delta, d0, d1)) return changed();
  const int64_t total = (b1 - b0) + (d1 - d0);
  QUIVER_ASSIGN_OR_RETURN(BufferPtr offsets, Buffer::Allocate((length + 1) * w));
  QUIVER_ASSIGN_OR_RETURN(BufferPtr bytes, Buffer::Allocate(total));
  int64_t previous = 0;
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
    if (value < previous || value > total) return changed();
    previous = value;
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
    return Status::Invalid(message.Where(), " is not a dictionary batch with data");
  }
  const int64_t id = batch->id();
  auto type = memo->types.find(id);
  if (type == memo->types.end()) {
    return Status::Invalid(message.Where(), ": dictionary id ", std::to_string(id),
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
      return Status::Invalid(message.Where(), ": a delta for dictionary id ", std::to_string(id),
                             ", which has no dictionary yet");
    }
    QUIVER_ASSIGN_OR_RETURN(values, AppendDelta(existing->second, values));
  }
  // A replacement (streams) is seen by the record batches after it; those
  // decoded before keep the dictionary they were given.
  memo->values[id] = std::move(values);
  return Status::OK();
}

void CollectBuffers(const FieldNodeLayout& node, std::vector<int64_t>* out) {
  out->insert(out->end(), node.buffers.begin(), node.buffers.end());
  for (const FieldNodeLayout& child : node.children) CollectBuffers(child, out);
}

Result<ArrayDataPtr> DecodeColumn(const Message& message, const BatchLayout& layout, int column,
                                  const std::vector<BufferPtr>& buffers, const DictionaryMemo& memo,
                                  bool swap_byte_order) {
  const FieldNodeLayout& node = layout.columns[static_cast<size_t>(column)];
  ArrayLoader loader(message, buffers, &memo);
  QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr data, loader.Load(node, "column " + std::to_string(column) +
                                                                   " (" + node.field.name + ")"));
  if (swap_byte_order) return SwapByteOrder(data);
  return data;
}

Result<RecordBatchPtr> DecodeRecordBatch(const Message& message, const SchemaPtr& schema,
                                         const DictionaryMemo& memo, const ReadOptions& options,
                                         bool swap_byte_order) {
  const fb::RecordBatch* batch = message.header->header_as_RecordBatch();
  if (batch == nullptr) return Status::Invalid(message.Where(), " is not a record batch");
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
