#include "quiver/array.h"

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
  return internal::GetBit(buffers[0]->data(), offset + i);
}

int64_t ArrayData::ComputeNullCount() const {
  if (type && type->storage().id() == TypeId::kNull) return length;
  if (null_count != kUnknownNullCount) return null_count;
  if (buffers.empty() || !buffers[0]) return 0;
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
  if (layout.dictionary) {
    if (!data.dictionary) {
      return Status::Invalid("array of type " + data.type->ToString() + " has no dictionary");
    }
    if (!data.dictionary->type || !data.dictionary->type->Equals(*storage.value_type())) {
      return Status::TypeError(
          "dictionary does not have type " + storage.value_type()->ToString() + " (it has " +
          (data.dictionary->type ? data.dictionary->type->ToString() : std::string("no type")) +
          ")");
    }
  } else if (data.dictionary) {
    return Status::Invalid("array of type " + data.type->ToString() +
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
  } else if (layout.children == ChildRole::kStructFields) {
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

// Precondition: CheckOffsets(full) passed.
Status CheckUtf8(const ArrayData& data, const Layout& layout) {
  const int64_t width = layout.offset_width();
  const uint8_t* bytes = data.buffers[2] ? data.buffers[2]->data() : nullptr;
  for (int64_t i = 0; i < data.length; ++i) {
    const int64_t begin = internal::ReadOffset(data.buffers[1]->data(), data.offset + i, width);
    const int64_t end = internal::ReadOffset(data.buffers[1]->data(), data.offset + i + 1, width);
    if (end > begin && !internal::IsValidUtf8(bytes + begin, end - begin)) {
      return Status::Invalid("row ", i, " is not valid UTF-8");
    }
  }
  return Status::OK();
}

Status CheckNullCount(const ArrayData& data) {
  // The null type has no bitmap: every slot is null whatever the count says
  // (some producers write 0 there); ComputeNullCount gives the length.
  if (data.null_count == kUnknownNullCount || data.buffers.empty()) return Status::OK();
  const int64_t counted =
      data.buffers[0] ? internal::CountUnsetBits(data.buffers[0]->data(), data.offset, data.length)
                      : 0;
  if (counted != data.null_count) {
    return Status::Invalid("null_count is ", data.null_count, " but the validity bitmap has ",
                           counted, " nulls");
  }
  return Status::OK();
}

// Every valid slot's view: a non-negative length; inline up to 12 bytes,
// else a buffer index that exists and offset + length inside that buffer
// (computed in 64 bits, so no int32 sum can wrap), a prefix equal to the
// value's first 4 bytes, and for utf8_view valid UTF-8. Null slots are
// not read: the format leaves their views undefined.
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
    if (!view.is_inline()) {
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
        return Status::Invalid(row() + "view prefix differs from the first 4 bytes of its value");
      }
    }
    if (utf8 && !internal::IsValidUtf8(bytes, view.length)) {
      return Status::Invalid("row ", i, " is not valid UTF-8");
    }
  }
  return Status::OK();
}

// Every valid index lies in [0, dictionary length).
Status CheckDictionaryIndices(const ArrayData& data) {
  const TypeId index_id = data.type->storage().index_type()->id();
  const int64_t size = data.dictionary->length;
  const uint8_t* indices = data.buffers[1] ? data.buffers[1]->data() : nullptr;
  for (int64_t i = 0; i < data.length; ++i) {
    if (!data.IsValid(i)) continue;
    int64_t index = 0;
    const bool fits = internal::ReadInteger(indices, data.offset + i, index_id, &index);
    if (!fits || index < 0 || index >= size) {
      return Status::Invalid("row ", i, ": dictionary index ",
                             (fits ? std::to_string(index) : std::string("above 2^63 - 1")),
                             " is outside a dictionary of ", size, " values");
    }
  }
  return Status::OK();
}

Status ValidateTree(const ArrayData& data, ValidationLevel level);

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
  return Status::OK();
}

}  // namespace

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
