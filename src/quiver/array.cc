#include "quiver/array.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <string>

#include "quiver/extension/canonical_extensions.h"
#include "quiver/internal/bitmap.h"
#include "quiver/internal/checked_math.h"
#include "quiver/internal/layout.h"
#include "quiver/internal/utf8.h"

namespace quiver {

bool ArrayData::IsValid(int64_t i) const {
  // Only the null type has no buffers at all.
  if (buffers.empty()) return !(type && type->storage().id() == TypeId::kNull);
  if (!buffers[0]) return true;
  // Unions have no bitmap: buffer 0 holds their type ids.
  if (type && type->storage().is_union()) return true;
  return internal::GetBit(buffers[0]->data(), offset + i);
}

int64_t ArrayData::ComputeNullCount() const {
  if (type && type->storage().id() == TypeId::kNull) return length;
  if (null_count != kUnknownNullCount) return null_count;
  if (buffers.empty() || !buffers[0] || (type && type->storage().is_union())) return 0;
  return internal::CountUnsetBits(buffers[0]->data(), offset, length);
}

Result<ArrayDataPtr> Slice(const ArrayDataPtr& data, int64_t offset, int64_t length) {
  if (offset < 0 || length < 0 || offset > data->length || length > data->length - offset) {
    return Status::IndexError("slice [", offset, ", ", offset, " + ", length,
                              ") is outside an array of length ", data->length);
  }
  auto out = std::make_shared<ArrayData>(*data);
  out->offset = data->offset + offset;
  out->length = length;
  bool all_valid = data->null_count == 0 || data->buffers.empty() || !data->buffers[0];
  out->null_count = all_valid ? 0 : kUnknownNullCount;
  if (data->type && data->type->storage().id() == TypeId::kNull) out->null_count = length;
  return ArrayDataPtr(out);
}

namespace {

using internal::BufferRole;
using internal::ChildRole;
using internal::Layout;

Status CheckHeader(const ArrayData& data) {
  if (!data.type) return Status::Invalid("array has no type");
  if (data.length < 0) return Status::Invalid("negative length ", data.length);
  if (data.offset < 0) return Status::Invalid("negative offset ", data.offset);
  QUIVER_RETURN_NOT_OK(internal::AddChecked(data.offset, data.length, "offset + length").status());
  if (data.null_count < kUnknownNullCount || data.null_count > data.length) {
    return Status::Invalid("null_count ", data.null_count, " is outside [0, length ", data.length,
                           "]");
  }
  return Status::OK();
}

Status CheckCounts(const ArrayData& data, const Layout& layout) {
  const auto buffers = static_cast<int64_t>(data.buffers.size());
  if (layout.variadic ? buffers < layout.num_buffers : buffers != layout.num_buffers) {
    return Status::Invalid("type ", data.type->ToString(), " needs ",
                           (layout.variadic ? "at least " : ""), layout.num_buffers,
                           " buffers, got ", data.buffers.size());
  }
  const DataType& storage = data.type->storage();
  if (!internal::HasValidity(layout) && storage.id() != TypeId::kNull && data.null_count > 0) {
    return Status::Invalid("type ", data.type->ToString(),
                           " has no nulls of its own (no validity bitmap), but null_count is ",
                           data.null_count);
  }
  if (layout.dictionary) {
    if (!data.dictionary) {
      return Status::Invalid("array of type ", data.type->ToString(), " has no dictionary");
    }
    if (!data.dictionary->type || !data.dictionary->type->Equals(*storage.value_type())) {
      return Status::TypeError(
          "dictionary does not have type ", storage.value_type()->ToString(), " (it has ",
          (data.dictionary->type ? data.dictionary->type->ToString() : std::string("no type")),
          ")");
    }
  } else if (data.dictionary) {
    return Status::Invalid("array of type ", data.type->ToString(),
                           " carries a dictionary; only dictionary types do");
  }
  const int expected_children = internal::ChildCount(storage);
  if (static_cast<int>(data.children.size()) != expected_children) {
    return Status::Invalid("type ", data.type->ToString(), " needs ", expected_children,
                           " children, got ", data.children.size());
  }
  for (int i = 0; i < expected_children; ++i) {
    const Field& field = storage.children()[i];
    if (!field.type) {
      return Status::TypeError("field ", i, " (", field.name, ") has no type");
    }
    if (!data.children[i] || !data.children[i]->type ||
        !data.children[i]->type->Equals(*field.type)) {
      return Status::TypeError("child ", i, " (", field.name, ") does not have type ",
                               field.type->ToString());
    }
  }
  return Status::OK();
}

const char* RoleName(BufferRole role) {
  switch (role) {
    case BufferRole::kValidity: return "validity";
    case BufferRole::kBits:
    case BufferRole::kValues: return "values";
    case BufferRole::kOffsets32:
    case BufferRole::kOffsets64: return "offsets";
    case BufferRole::kData: return "data";
    case BufferRole::kViews: return "views";
    case BufferRole::kTypeIds: return "type ids";
    case BufferRole::kUnionOffsets:
    case BufferRole::kViewOffsets: return "offsets";
    case BufferRole::kViewSizes: return "sizes";
  }
  return "buffer";
}

// Every buffer is at least as large as offset + length requires; a missing
// validity buffer means no nulls, other buffers may be missing only when
// they would be empty.
Status CheckBufferSizes(const ArrayData& data, const Layout& layout) {
  const int64_t end = data.offset + data.length;
  for (int b = 0; b < layout.num_buffers; ++b) {
    const BufferRole role = layout.roles[b];
    const BufferPtr& buffer = data.buffers[b];
    if (role == BufferRole::kValidity && !buffer) continue;
    QUIVER_ASSIGN_OR_RETURN(int64_t needed, internal::RequiredBufferSize(layout, role, end));
    if (needed == 0) continue;
    if (!buffer) {
      return Status::Invalid(RoleName(role), " buffer is missing (", needed, " bytes needed)");
    }
    if (buffer->size() < needed) {
      return Status::Invalid(RoleName(role), " buffer has ", buffer->size(), " bytes, ", needed,
                             " needed for offset ", data.offset, " + length ", data.length);
    }
  }
  return Status::OK();
}

// Children whose length follows from this array's length alone.
Status CheckChildLengths(const ArrayData& data, const Layout& layout) {
  const int64_t end = data.offset + data.length;
  if (layout.children == ChildRole::kFixedSizeList) {
    QUIVER_ASSIGN_OR_RETURN(int64_t needed,
                            internal::MultiplyChecked(end, layout.list_size, "fixed_size_list"));
    if (data.children[0]->length < needed) {
      return Status::Invalid("child has length ", data.children[0]->length, ", ", needed,
                             " needed for ", end, " lists of ", layout.list_size);
    }
  } else if (layout.children == ChildRole::kRunEnds) {
    if (data.children[0]->length != data.children[1]->length) {
      return Status::Invalid("run_ends has length ", data.children[0]->length, " but values ",
                             data.children[1]->length, " (one value per run)");
    }
  } else if (layout.children == ChildRole::kStructFields ||
             layout.children == ChildRole::kSparseUnion) {
    for (size_t i = 0; i < data.children.size(); ++i) {
      if (data.children[i]->length < end) {
        return Status::Invalid("child ", i, " (", data.type->storage().children()[i].name,
                               ") has length ", data.children[i]->length, " < ", end);
      }
    }
  }
  return Status::OK();
}

// The largest offset the offsets may hold: the data size or child length.
int64_t OffsetLimit(const ArrayData& data, const Layout& layout, const char** name) {
  if (layout.children == ChildRole::kOffsetList) {
    *name = "child length";
    return data.children[0]->length;
  }
  *name = "data size";
  return data.buffers[2] ? data.buffers[2]->size() : 0;
}

// kDefault: the first and last offsets lie in [0, limit]; kFull: every
// offset in between is monotonic too (and so in bounds).
Status CheckOffsets(const ArrayData& data, const Layout& layout, bool full) {
  const int64_t end = data.offset + data.length;
  if (end == 0) return Status::OK();  // offsets may be absent; nothing to index
  const int64_t width = layout.offset_width();
  const uint8_t* offsets = data.buffers[1]->data();
  const char* limit_name = "";
  const int64_t limit = OffsetLimit(data, layout, &limit_name);
  const int64_t first = internal::ReadOffset(offsets, data.offset, width);
  const int64_t last = internal::ReadOffset(offsets, end, width);
  if (first < 0 || first > last || last > limit) {
    return Status::Invalid("offsets [", first, ", ", last, "] are outside [0, ", limit_name, " ",
                           limit, "]");
  }
  if (!full) return Status::OK();
  int64_t previous = first;
  for (int64_t i = data.offset + 1; i <= end; ++i) {
    const int64_t current = internal::ReadOffset(offsets, i, width);
    if (current < previous) {
      return Status::Invalid("offset ", i, " (", current, ") < offset ", i - 1, " (", previous,
                             ")");
    }
    previous = current;
  }
  return Status::OK();
}

// Whether every row of a utf8 array is valid, checked in one pass: the
// rows' bytes are contiguous from the first offset to the last, and each
// row is valid UTF-8 exactly when that whole range is and no row starts
// inside a character (on a continuation byte).
bool AllRowsUtf8(const ArrayData& data, int64_t width, const uint8_t* bytes) {
  const uint8_t* offsets = data.buffers[1]->data();
  const int64_t first = internal::ReadOffset(offsets, data.offset, width);
  const int64_t last = internal::ReadOffset(offsets, data.offset + data.length, width);
  if (last > first && !internal::IsValidUtf8(bytes + first, last - first)) return false;
  for (int64_t i = 1; i < data.length; ++i) {
    const int64_t start = internal::ReadOffset(offsets, data.offset + i, width);
    if (start < last && (bytes[start] & 0xC0) == 0x80) return false;
  }
  return true;
}

// Precondition: CheckOffsets(full) passed.
Status CheckUtf8(const ArrayData& data, const Layout& layout) {
  const int64_t width = layout.offset_width();
  const uint8_t* bytes = data.buffers[2] ? data.buffers[2]->data() : nullptr;
  if (data.length == 0 || AllRowsUtf8(data, width, bytes)) return Status::OK();
  for (int64_t i = 0; i < data.length; ++i) {  // find the row to name
    const int64_t begin = internal::ReadOffset(data.buffers[1]->data(), data.offset + i, width);
    const int64_t end = internal::ReadOffset(data.buffers[1]->data(), data.offset + i + 1, width);
    if (end > begin && !internal::IsValidUtf8(bytes + begin, end - begin)) {
      return Status::Invalid("row ", i, " is not valid UTF-8");
    }
  }
  return Status::Invalid("a row is not valid UTF-8");  // unreachable: one row fails above
}

Status CheckNullCount(const ArrayData& data) {
  // The null type has no bitmap: every slot is null whatever the count says
  // (some producers write 0 there); ComputeNullCount gives the length.
  if (data.null_count == kUnknownNullCount || data.buffers.empty()) return Status::OK();
  const bool bitmap = data.buffers[0] && internal::HasValidity(internal::LayoutOf(*data.type));
  const int64_t counted =
      bitmap ? internal::CountUnsetBits(data.buffers[0]->data(), data.offset, data.length) : 0;
  if (counted != data.null_count) {
    return Status::Invalid("null_count is ", data.null_count, " but the validity bitmap has ",
                           counted, " nulls");
  }
  return Status::OK();
}

// Every valid slot's view: a non-negative length; inline up to 12 bytes
// (zeros after the value), else a buffer index that exists and offset +
// length inside that buffer (computed in 64 bits, so no int32 sum can
// wrap), a prefix equal to the value's first 4 bytes, and for utf8_view
// valid UTF-8. Null slots are not read: the format leaves their views
// undefined.
Status CheckViews(const ArrayData& data, bool utf8) {
  const uint8_t* views = data.buffers[1] ? data.buffers[1]->data() : nullptr;
  const int64_t variadic = static_cast<int64_t>(data.buffers.size()) - 2;
  for (int64_t i = 0; i < data.length; ++i) {
    if (!data.IsValid(i)) continue;
    const internal::BinaryView view = internal::ReadView(views, data.offset + i);
    auto row = [i] { return "row " + std::to_string(i) + ": "; };
    if (view.length < 0) {
      return Status::Invalid(row(), "view length ", view.length, " is negative");
    }
    const uint8_t* bytes = view.inline_bytes;
    if (view.is_inline()) {
      // The format pads an inline value with zeros; views that compare or
      // hash 16 bytes at a time rely on it.
      const uint8_t* pad = view.inline_bytes + view.length;
      const uint8_t* pad_end = view.inline_bytes + internal::kMaxInlineViewBytes;
      if (std::any_of(pad, pad_end, [](uint8_t b) { return b != 0; })) {
        return Status::Invalid(row(), "view is inline with ", view.length,
                               " bytes, but the padding after them is not all zero");
      }
    } else {
      if (view.buffer_index < 0 || view.buffer_index >= variadic) {
        return Status::Invalid(row(), "view points into variadic buffer ", view.buffer_index,
                               ", but the array has ", variadic);
      }
      const BufferPtr& buffer = data.buffers[static_cast<size_t>(view.buffer_index) + 2];
      const int64_t size = buffer ? buffer->size() : 0;
      const int64_t end = int64_t{view.offset} + int64_t{view.length};
      if (view.offset < 0 || end > size) {
        return Status::Invalid(row(), "view [", view.offset, ", ", end,
                               ") is outside variadic buffer ", view.buffer_index, " of ", size,
                               " bytes");
      }
      bytes = buffer->data() + view.offset;
      if (std::memcmp(bytes, view.inline_bytes, 4) != 0) {
        return Status::Invalid(row(), "view prefix differs from the first 4 bytes of its value");
      }
    }
    if (utf8 && !internal::IsValidUtf8(bytes, view.length)) {
      return Status::Invalid("row ", i, " is not valid UTF-8");
    }
  }
  return Status::OK();
}

// The first valid row whose index of type T lies outside [0, size), or -1.
template <typename T>
int64_t FirstBadIndex(const ArrayData& data, const uint8_t* indices, int64_t size) {
  const bool all_valid = data.buffers[0] == nullptr;
  for (int64_t i = 0; i < data.length; ++i) {
    T index;
    std::memcpy(&index, indices + (data.offset + i) * static_cast<int64_t>(sizeof(T)), sizeof(T));
    // One unsigned comparison: a negative index converts to one above
    // INT64_MAX, as large unsigned indices are, and size is not negative.
    const bool inside = static_cast<uint64_t>(index) < static_cast<uint64_t>(size);
    if (!inside && (all_valid || data.IsValid(i))) return i;
  }
  return -1;
}

// Every valid index lies in [0, dictionary length).
Status CheckDictionaryIndices(const ArrayData& data) {
  const TypeId index_id = data.type->storage().index_type()->id();
  const int64_t size = data.dictionary->length;
  const uint8_t* indices = data.buffers[1] ? data.buffers[1]->data() : nullptr;
  int64_t bad = -1;
  switch (index_id) {
    case TypeId::kInt8: bad = FirstBadIndex<int8_t>(data, indices, size); break;
    case TypeId::kInt16: bad = FirstBadIndex<int16_t>(data, indices, size); break;
    case TypeId::kInt32: bad = FirstBadIndex<int32_t>(data, indices, size); break;
    case TypeId::kInt64: bad = FirstBadIndex<int64_t>(data, indices, size); break;
    case TypeId::kUInt8: bad = FirstBadIndex<uint8_t>(data, indices, size); break;
    case TypeId::kUInt16: bad = FirstBadIndex<uint16_t>(data, indices, size); break;
    case TypeId::kUInt32: bad = FirstBadIndex<uint32_t>(data, indices, size); break;
    case TypeId::kUInt64: bad = FirstBadIndex<uint64_t>(data, indices, size); break;
    default:
      return Status::Invalid("dictionary index type ",
                             data.type->storage().index_type()->ToString(),
                             " is not an integer type");
  }
  if (bad < 0) return Status::OK();
  int64_t index = 0;
  const bool fits = internal::ReadInteger(indices, data.offset + bad, index_id, &index);
  return Status::Invalid("row ", bad, ": dictionary index ",
                         (fits ? std::to_string(index) : std::string("above 2^63 - 1")),
                         " is outside a dictionary of ", size, " values");
}

Status ValidateTree(const ArrayData& data, ValidationLevel level);

// The index of the child a union type id selects, or -1.
int UnionChild(const DataType& storage, int8_t code) {
  const std::vector<int8_t>& codes = storage.type_codes();
  for (size_t c = 0; c < codes.size(); ++c) {
    if (codes[c] == code) return static_cast<int>(c);
  }
  return -1;
}

// kFull: every type id names a child; dense offsets lie inside it.
Status CheckUnion(const ArrayData& data, const Layout& layout) {
  const DataType& storage = data.type->storage();
  const auto* ids =
      reinterpret_cast<const int8_t*>(data.buffers[0] ? data.buffers[0]->data() : nullptr);
  const bool dense = layout.children == ChildRole::kDenseUnion;
  const uint8_t* offsets = dense && data.buffers[1] ? data.buffers[1]->data() : nullptr;
  std::array<int, 256> child_of;  // by type id + 128: one lookup per row
  for (int code = -128; code < 128; ++code) {
    child_of[static_cast<size_t>(code + 128)] = UnionChild(storage, static_cast<int8_t>(code));
  }
  for (int64_t i = 0; i < data.length; ++i) {
    const int8_t code = ids[data.offset + i];
    const int child = child_of[static_cast<size_t>(code + 128)];
    if (child < 0) {
      return Status::Invalid("row ", i, ": union type id ", int{code}, " names no child");
    }
    if (!dense) continue;
    int32_t offset = 0;
    std::memcpy(&offset, offsets + (data.offset + i) * 4, 4);
    const int64_t size = data.children[static_cast<size_t>(child)]->length;
    if (offset < 0 || offset >= size) {
      return Status::Invalid("row ", i, ": union offset ", offset, " is outside child ", child,
                             " (", storage.children()[static_cast<size_t>(child)].name, ") of ",
                             size, " values");
    }
  }
  return Status::OK();
}

// kFull: each slot's [offset, offset + size) lies inside the child, null
// slots included: the format requires it of every list-view value.
Status CheckListViews(const ArrayData& data, const Layout& layout) {
  const int64_t width = layout.value_bits / 8;
  const int64_t limit = data.children[0]->length;
  for (int64_t i = 0; i < data.length; ++i) {
    const int64_t offset = internal::ReadOffset(data.buffers[1]->data(), data.offset + i, width);
    const int64_t size = internal::ReadOffset(data.buffers[2]->data(), data.offset + i, width);
    if (offset < 0 || size < 0 || offset > limit || size > limit - offset) {
      return Status::Invalid("row ", i, (data.IsValid(i) ? "" : " (null)"), ": list view offset ",
                             offset, " and size ", size, " are outside a child of ", limit,
                             " values");
    }
  }
  return Status::OK();
}

// kFull: no key of an entry the map's rows use is null.
Status CheckMapKeys(const ArrayData& data) {
  const int64_t end = data.offset + data.length;
  if (end == 0 || data.length == 0) return Status::OK();
  const int64_t first = internal::ReadOffset(data.buffers[1]->data(), data.offset, 4);
  const int64_t last = internal::ReadOffset(data.buffers[1]->data(), end, 4);
  // A struct's offset applies to its fields.
  const ArrayData& entries = *data.children[0];
  const ArrayData& keys = *entries.children[0];
  // No bitmap: no nulls (as IsValid reads it; the null type has no buffers).
  if (!keys.buffers.empty() && keys.buffers[0] == nullptr) return Status::OK();
  for (int64_t k = first; k < last; ++k) {
    if (!keys.IsValid(entries.offset + k)) {
      return Status::Invalid("map entry ", k, " has a null key");
    }
  }
  return Status::OK();
}

// The run end at index `run` of a run_ends child (validated, no nulls).
int64_t RunEnd(const ArrayData& run_ends, int64_t run) {
  int64_t value = 0;
  internal::ReadInteger(run_ends.buffers[1]->data(), run_ends.offset + run,
                        run_ends.type->storage().id(), &value);
  return value;
}

// kDefault: the last run ends at or after offset + length; kFull: run
// ends are positive and strictly increasing, and never null.
Status CheckRunEnds(const ArrayData& data, bool full) {
  const ArrayData& run_ends = *data.children[0];
  const int64_t end = data.offset + data.length;
  if (data.length > 0) {
    const int64_t runs = run_ends.length;
    const int64_t last = runs > 0 ? RunEnd(run_ends, runs - 1) : 0;
    if (runs == 0 || last < end) {
      return Status::Invalid("run ends cover ", last, " rows, ", end, " needed for offset ",
                             data.offset, " + length ", data.length);
    }
  }
  if (!full) return Status::OK();
  if (run_ends.ComputeNullCount() != 0) return Status::Invalid("run_ends has nulls");
  int64_t previous = 0;
  for (int64_t r = 0; r < run_ends.length; ++r) {
    const int64_t current = RunEnd(run_ends, r);
    if (current <= previous) {
      return Status::Invalid("run end ", r, " (", current, ") is not greater than ",
                             (r == 0 ? std::string("0") : "run end " + std::to_string(previous)));
    }
    previous = current;
  }
  return Status::OK();
}

// Checks that read the children's contents: after the children validated.
Status ValidateAfterChildren(const ArrayData& data, ValidationLevel level) {
  if (level == ValidationLevel::kMinimal) return Status::OK();
  const Layout layout = internal::LayoutOf(*data.type);
  const bool full = level == ValidationLevel::kFull;
  switch (layout.children) {
    case ChildRole::kRunEnds: return CheckRunEnds(data, full);
    case ChildRole::kSparseUnion:
    case ChildRole::kDenseUnion: return full ? CheckUnion(data, layout) : Status::OK();
    case ChildRole::kListView: return full ? CheckListViews(data, layout) : Status::OK();
    default: break;
  }
  if (full && data.type->storage().id() == TypeId::kMap) return CheckMapKeys(data);
  return internal::CheckCanonicalExtensionData(data, level);
}

Status ValidateNode(const ArrayData& data, ValidationLevel level) {
  QUIVER_RETURN_NOT_OK(CheckHeader(data));
  const Layout layout = internal::LayoutOf(*data.type);
  QUIVER_RETURN_NOT_OK(CheckCounts(data, layout));
  if (data.dictionary) {
    // First, so that the index checks below see a sound dictionary.
    Status st = ValidateTree(*data.dictionary, level);
    if (!st.ok()) return st.WithContext("dictionary");
  }
  QUIVER_RETURN_NOT_OK(CheckBufferSizes(data, layout));
  QUIVER_RETURN_NOT_OK(CheckChildLengths(data, layout));
  if (level == ValidationLevel::kMinimal) return Status::OK();
  const bool full = level == ValidationLevel::kFull;
  if (layout.has_offsets()) QUIVER_RETURN_NOT_OK(CheckOffsets(data, layout, full));
  if (!full) return Status::OK();
  const TypeId id = data.type->storage().id();
  if (id == TypeId::kUtf8 || id == TypeId::kLargeUtf8) {
    QUIVER_RETURN_NOT_OK(CheckUtf8(data, layout));
  }
  if (layout.variadic) QUIVER_RETURN_NOT_OK(CheckViews(data, id == TypeId::kUtf8View));
  if (layout.dictionary) QUIVER_RETURN_NOT_OK(CheckDictionaryIndices(data));
  QUIVER_RETURN_NOT_OK(CheckNullCount(data));
  if (data.type->id() == TypeId::kExtension) {
    QUIVER_RETURN_NOT_OK(internal::CheckCanonicalExtension(*data.type));
  }
  return Status::OK();
}

// Recursion is bounded: the depth is checked once against the type, and
// CheckCounts makes every child's type its field's (and a dictionary's its
// value type), one level shallower.
Status ValidateTree(const ArrayData& data, ValidationLevel level) {
  QUIVER_RETURN_NOT_OK(ValidateNode(data, level));
  const DataType& storage = data.type->storage();
  for (size_t i = 0; i < data.children.size(); ++i) {
    Status st = ValidateTree(*data.children[i], level);
    if (!st.ok()) {
      return st.WithContext("child " + std::to_string(i) + " (" + storage.children()[i].name + ")");
    }
  }
  return ValidateAfterChildren(data, level);
}

}  // namespace

Range ValueRange(const ArrayData& data, int64_t i) {
  const DataType& type = data.type->storage();
  const internal::Layout layout = internal::LayoutOf(type);
  const int64_t slot = data.offset + i;
  switch (layout.children) {
    case internal::ChildRole::kFixedSizeList:
      return {slot * layout.list_size, (slot + 1) * layout.list_size};
    case internal::ChildRole::kListView: {
      const int64_t width = layout.value_bits / 8;
      const int64_t begin = internal::ReadOffset(data.buffers[1]->data(), slot, width);
      return {begin, begin + internal::ReadOffset(data.buffers[2]->data(), slot, width)};
    }
    default: break;
  }
  if (!layout.has_offsets()) return {};
  const uint8_t* offsets = data.buffers[1]->data();
  const int64_t width = layout.offset_width();
  return {internal::ReadOffset(offsets, slot, width),
          internal::ReadOffset(offsets, slot + 1, width)};
}

bool GetBool(const ArrayData& data, int64_t i) {
  const int64_t slot = data.offset + i;
  if (data.type->storage().id() == TypeId::kBool)
    return internal::GetBit(data.buffers[1]->data(), slot);
  if (data.type->is_bool8()) return data.buffers[1]->data()[slot] != 0;
  return false;
}

int64_t DictionaryIndex(const ArrayData& data, int64_t i) {
  const TypePtr& index_type = data.type->storage().index_type();
  int64_t index = -1;
  if (!index_type ||
      !internal::ReadInteger(data.buffers[1]->data(), data.offset + i, index_type->id(), &index)) {
    return -1;
  }
  return index;
}

int64_t RunEndEncodedIndex(const ArrayData& data, int64_t i) {
  const ArrayData& run_ends = *data.children[0];
  const TypeId id = run_ends.type->storage().id();
  const int64_t row = data.offset + i;
  int64_t low = 0, high = run_ends.length - 1;  // the answer lies in [low, high]
  while (low < high) {
    const int64_t mid = low + (high - low) / 2;
    int64_t end = 0;
    internal::ReadInteger(run_ends.buffers[1]->data(), run_ends.offset + mid, id, &end);
    if (end > row) {
      high = mid;
    } else {
      low = mid + 1;
    }
  }
  return low;
}

bool UnionSlot(const ArrayData& data, int64_t i, int* child, int64_t* index) {
  const DataType& storage = data.type->storage();
  const auto code = static_cast<int8_t>(data.buffers[0]->data()[data.offset + i]);
  *child = UnionChild(storage, code);
  if (*child < 0) return false;
  if (storage.id() == TypeId::kSparseUnion) {
    *index = data.offset + i;
    return true;
  }
  int32_t offset = 0;
  std::memcpy(&offset, data.buffers[1]->data() + (data.offset + i) * 4, 4);
  *index = offset;
  return offset >= 0 && offset < data.children[static_cast<size_t>(*child)]->length;
}

Status CheckNestingDepth(const DataType& type) {
  if (type.nesting_depth() <= kMaxNestingDepth) return Status::OK();
  return Status::Invalid("type nests ", type.nesting_depth(),
                         " levels deep, more than the limit of ", kMaxNestingDepth);
}

Status Validate(const ArrayData& data, ValidationLevel level) {
  if (level == ValidationLevel::kNone) return Status::OK();
  if (data.type) QUIVER_RETURN_NOT_OK(CheckNestingDepth(*data.type));
  return ValidateTree(data, level);
}

}  // namespace quiver
