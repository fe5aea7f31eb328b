// RecordBatch and value equality of arrays.
#include "quiver/record_batch.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>

#include "quiver/internal/bitmap.h"
#include "quiver/internal/layout.h"

namespace quiver {

Result<RecordBatchPtr> RecordBatch::Make(SchemaPtr schema, int64_t num_rows,
                                         std::vector<ArrayDataPtr> columns, ValidationLevel level) {
  if (!schema) return Status::Invalid("record batch has no schema");
  if (num_rows < 0) return Status::Invalid("record batch has ", num_rows, " rows");
  if (columns.size() != schema->fields.size()) {
    return Status::Invalid("record batch has ", columns.size(), " columns for ",
                           schema->fields.size(), " fields");
  }
  for (size_t i = 0; i < columns.size(); ++i) {
    const Field& field = schema->fields[i];
    const std::string where = "column " + std::to_string(i) + " (" + field.name + ")";
    if (!columns[i] || !columns[i]->type || !field.type || !columns[i]->type->Equals(*field.type)) {
      return Status::TypeError(where, " does not have the field's type ",
                               (field.type ? field.type->ToString() : std::string("<none>")));
    }
    if (columns[i]->length < num_rows) {
      return Status::Invalid(where, " has ", columns[i]->length, " rows, ", num_rows, " needed");
    }
    if (columns[i]->length > num_rows) {
      QUIVER_ASSIGN_OR_RETURN(columns[i], quiver::Slice(columns[i], 0, num_rows));
    }
    Status st = Validate(*columns[i], level);
    if (!st.ok()) return st.WithContext(where);
  }
  return RecordBatchPtr(new RecordBatch(std::move(schema), num_rows, std::move(columns)));
}

Result<RecordBatchPtr> RecordBatch::FromStructArray(const Field& field, const ArrayDataPtr& data,
                                                    ValidationLevel level) {
  if (!data || !data->type || data->type->id() != TypeId::kStruct) {
    return Status::TypeError("a record batch comes from a struct array, got ",
                             (data && data->type ? data->type->ToString() : std::string("none")));
  }
  QUIVER_RETURN_NOT_OK(Validate(*data, std::max(level, ValidationLevel::kMinimal)));
  if (data->buffers[0] && data->ComputeNullCount() != 0) {
    return Status::Invalid("the struct array has null rows; record batches cannot hold them");
  }
  auto schema = std::make_shared<Schema>();
  schema->fields = data->type->children();
  schema->metadata = field.metadata;
  std::vector<ArrayDataPtr> columns;
  for (const ArrayDataPtr& child : data->children) {
    QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr column, quiver::Slice(child, data->offset, data->length));
    columns.push_back(std::move(column));
  }
  // The struct was validated above; the columns need no second pass.
  return Make(std::move(schema), data->length, std::move(columns), ValidationLevel::kNone);
}

ArrayDataPtr RecordBatch::ToStructArray() const {
  auto out = std::make_shared<ArrayData>();
  out->type = struct_(schema_->fields);
  out->length = num_rows_;
  out->null_count = 0;
  out->buffers = {nullptr};
  out->children = columns_;
  return out;
}

Field RecordBatch::StructField() const {
  return Field{"", struct_(schema_->fields), false, schema_->metadata};
}

int RecordBatch::FieldIndex(std::string_view name) const {
  for (size_t i = 0; i < schema_->fields.size(); ++i) {
    if (schema_->fields[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

Result<RecordBatchPtr> RecordBatch::Slice(int64_t offset, int64_t length) const {
  if (offset < 0 || length < 0 || offset > num_rows_ || length > num_rows_ - offset) {
    return Status::IndexError("slice [", offset, ", ", offset, " + ", length,
                              ") is outside a batch of ", num_rows_, " rows");
  }
  std::vector<ArrayDataPtr> columns;
  for (const ArrayDataPtr& column : columns_) {
    QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr sliced, quiver::Slice(column, offset, length));
    columns.push_back(std::move(sliced));
  }
  return RecordBatchPtr(new RecordBatch(schema_, length, std::move(columns)));
}

bool RecordBatch::Equals(const RecordBatch& other) const {
  if (num_rows_ != other.num_rows_ || !schema_->Equals(*other.schema_)) return false;
  for (size_t i = 0; i < columns_.size(); ++i) {
    if (!ArrayEquals(*columns_[i], *other.columns_[i])) return false;
  }
  return true;
}

namespace {

using internal::BufferRole;
using internal::ChildRole;

bool SlotEquals(const ArrayData& a, int64_t i, const ArrayData& b, int64_t j, int depth);

// The bytes of the binary view at slot `index` (offset applied).
std::string_view ViewValue(const ArrayData& data, int64_t index) {
  const internal::BinaryView view = internal::ReadView(data.buffers[1]->data(), index);
  if (view.is_inline()) {
    return {
        reinterpret_cast<const char*>(data.buffers[1]->data() + index * internal::kViewBytes + 4),
        static_cast<size_t>(view.length)};
  }
  const BufferPtr& buffer = data.buffers[static_cast<size_t>(view.buffer_index) + 2];
  return {reinterpret_cast<const char*>(buffer->data() + view.offset),
          static_cast<size_t>(view.length)};
}

bool ViewEquals(const ArrayData& a, int64_t ai, const ArrayData& b, int64_t bj) {
  return ViewValue(a, ai) == ViewValue(b, bj);
}

// Elements [a_begin, a_begin + count) of `a` equal those of `b` from b_begin.
bool RangeEquals(const ArrayData& a, int64_t a_begin, const ArrayData& b, int64_t b_begin,
                 int64_t count, int depth) {
  for (int64_t k = 0; k < count; ++k) {
    if (!SlotEquals(a, a_begin + k, b, b_begin + k, depth)) return false;
  }
  return true;
}

bool SlotEquals(const ArrayData& a, int64_t i, const ArrayData& b, int64_t j, int depth) {
  if (depth > kMaxNestingDepth) return false;
  const bool a_valid = a.IsValid(i), b_valid = b.IsValid(j);
  if (a_valid != b_valid) return false;
  if (!a_valid) return true;
  const internal::Layout layout = internal::LayoutOf(*a.type);
  const int64_t ai = a.offset + i, bj = b.offset + j;
  if (layout.dictionary) {
    // Equal values, whatever the indices and dictionaries that encode them.
    const TypeId index_id = a.type->storage().index_type()->id();
    int64_t a_index = 0, b_index = 0;
    if (!internal::ReadInteger(a.buffers[1]->data(), ai, index_id, &a_index) ||
        !internal::ReadInteger(b.buffers[1]->data(), bj, index_id, &b_index)) {
      return false;
    }
    return SlotEquals(*a.dictionary, a_index, *b.dictionary, b_index, depth + 1);
  }
  if (layout.variadic) return ViewEquals(a, ai, b, bj);
  switch (layout.children) {
    case ChildRole::kSparseUnion:
    case ChildRole::kDenseUnion: {
      // Equal when both pick the same child and that child's values agree.
      int a_child = 0, b_child = 0;
      int64_t a_at = 0, b_at = 0;
      if (!UnionSlot(a, i, &a_child, &a_at) || !UnionSlot(b, j, &b_child, &b_at) ||
          a_child != b_child) {
        return false;
      }
      const auto c = static_cast<size_t>(a_child);
      return SlotEquals(*a.children[c], a_at, *b.children[c], b_at, depth + 1);
    }
    case ChildRole::kRunEnds:
      return SlotEquals(*a.children[1], RunEndEncodedIndex(a, i), *b.children[1],
                        RunEndEncodedIndex(b, j), depth + 1);
    case ChildRole::kListView: {
      const int64_t w = layout.value_bits / 8;
      const int64_t a0 = internal::ReadOffset(a.buffers[1]->data(), ai, w);
      const int64_t an = internal::ReadOffset(a.buffers[2]->data(), ai, w);
      const int64_t b0 = internal::ReadOffset(b.buffers[1]->data(), bj, w);
      const int64_t bn = internal::ReadOffset(b.buffers[2]->data(), bj, w);
      return an == bn && RangeEquals(*a.children[0], a0, *b.children[0], b0, an, depth + 1);
    }
    default: break;
  }
  for (int k = 1; k < layout.num_buffers; ++k) {
    const BufferRole role = layout.roles[k];
    if (role == BufferRole::kBits) {
      if (internal::GetBit(a.buffers[1]->data(), ai) !=
          internal::GetBit(b.buffers[1]->data(), bj)) {
        return false;
      }
    } else if (role == BufferRole::kValues) {
      const int64_t width = layout.value_bits / 8;
      if (width > 0 && std::memcmp(a.buffers[1]->data() + ai * width,
                                   b.buffers[1]->data() + bj * width, width) != 0) {
        return false;
      }
    }
  }
  if (layout.has_offsets()) {
    const int64_t w = layout.offset_width();
    const int64_t a0 = internal::ReadOffset(a.buffers[1]->data(), ai, w);
    const int64_t a1 = internal::ReadOffset(a.buffers[1]->data(), ai + 1, w);
    const int64_t b0 = internal::ReadOffset(b.buffers[1]->data(), bj, w);
    const int64_t b1 = internal::ReadOffset(b.buffers[1]->data(), bj + 1, w);
    if (a1 - a0 != b1 - b0) return false;
    if (layout.children == ChildRole::kOffsetList) {
      return RangeEquals(*a.children[0], a0, *b.children[0], b0, a1 - a0, depth + 1);
    }
    return a1 == a0 ||
           std::memcmp(a.buffers[2]->data() + a0, b.buffers[2]->data() + b0, a1 - a0) == 0;
  }
  if (layout.children == ChildRole::kFixedSizeList) {
    const int64_t size = layout.list_size;
    return RangeEquals(*a.children[0], ai * size, *b.children[0], bj * size, size, depth + 1);
  }
  if (layout.children == ChildRole::kStructFields) {
    for (size_t c = 0; c < a.children.size(); ++c) {
      if (!SlotEquals(*a.children[c], ai, *b.children[c], bj, depth + 1)) return false;
    }
  }
  return true;
}

}  // namespace

bool ArrayEquals(const ArrayData& a, const ArrayData& b) {
  if (!a.type || !b.type || !a.type->Equals(*b.type) || a.length != b.length) return false;
  if (a.type->nesting_depth() > kMaxNestingDepth) return false;
  return RangeEquals(a, 0, b, 0, a.length, 0);
}

}  // namespace quiver
