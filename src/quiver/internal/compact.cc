#include "quiver/internal/compact.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <utility>

#include "quiver/internal/bitmap.h"
#include "quiver/internal/checked_math.h"
#include "quiver/internal/layout.h"

namespace quiver::internal {

namespace {

// Bits [start, start + slots) of a bitmap, starting at bit 0 of the result:
// a slice on a byte boundary, a shifted copy otherwise.
Result<BufferPtr> CompactBitmap(const BufferPtr& bits, int64_t start, int64_t slots) {
  if (!bits || slots == 0) return BufferPtr{};
  if (start % 8 == 0) return Buffer::Slice(bits, start / 8, BitmapBytes(slots));
  int64_t unset = 0;
  return CopyBitmap(bits->data(), start, slots, &unset);
}

// Offsets [start, start + slots] re-based to begin at 0, and the range
// [first, last) of data or child entries they delimit.
Result<BufferPtr> CompactOffsets(const BufferPtr& offsets, int64_t width, int64_t start,
                                 int64_t slots, int64_t* first, int64_t* last) {
  if (slots == 0 || !offsets) {
    *first = *last = 0;
    return Buffer::Allocate(width);  // one zero offset
  }
  const uint8_t* in = offsets->data();
  *first = ReadOffset(in, start, width);
  *last = ReadOffset(in, start + slots, width);
  const int64_t bytes = (slots + 1) * width;
  if (*first == 0) return Buffer::Slice(offsets, start * width, bytes);
  QUIVER_ASSIGN_OR_RETURN(BufferPtr out, Buffer::AllocateUninitialized(bytes));
  for (int64_t i = 0; i <= slots; ++i) {
    const int64_t value = ReadOffset(in, start + i, width) - *first;
    if (width == 8) {
      std::memcpy(out->mutable_data() + i * 8, &value, 8);
    } else {
      const int32_t narrow = static_cast<int32_t>(value);
      std::memcpy(out->mutable_data() + i * 4, &narrow, 4);
    }
  }
  return out;
}

// List view offsets or sizes [start, start + slots): shared when no slot
// is null, else copied with null slots' entries set to 0. Null slots must
// lie inside the child as valid ones do (the format asks it of every
// list-view value), and 0 does for any child.
Result<BufferPtr> CompactViewEntries(const ArrayData& data, const BufferPtr& entries, int64_t width,
                                     int64_t start, int64_t slots) {
  if (!entries || slots == 0) return BufferPtr{};
  if (data.ComputeNullCount() == 0) return Buffer::Slice(entries, start * width, slots * width);
  QUIVER_ASSIGN_OR_RETURN(BufferPtr out, Buffer::Allocate(slots * width));
  for (int64_t i = 0; i < slots; ++i) {
    if (data.IsValid(i)) {
      std::memcpy(out->mutable_data() + i * width, entries->data() + (start + i) * width,
                  static_cast<size_t>(width));
    }
  }
  return out;
}

// A run-end encoded array at offset 0: the runs that cover its rows, their
// ends re-based and the last one cut at the length.
Result<ArrayDataPtr> CompactRunEnds(const ArrayData& data) {
  auto out = std::make_shared<ArrayData>(data);
  out->offset = 0;
  out->null_count = 0;
  const ArrayData& run_ends = *data.children[0];
  if (data.length == 0) {
    QUIVER_ASSIGN_OR_RETURN(out->children[0], quiver::Slice(data.children[0], 0, 0));
    QUIVER_ASSIGN_OR_RETURN(out->children[1], quiver::Slice(data.children[1], 0, 0));
    return ArrayDataPtr(std::move(out));
  }
  const int64_t first = RunEndEncodedIndex(data, 0);
  const int64_t last = RunEndEncodedIndex(data, data.length - 1);
  const int64_t runs = last - first + 1;
  const TypeId id = run_ends.type->storage().id();
  const int64_t width = run_ends.type->byte_width();
  QUIVER_ASSIGN_OR_RETURN(BufferPtr ends, Buffer::Allocate(runs * width));
  for (int64_t r = 0; r < runs; ++r) {
    int64_t end = 0;
    ReadInteger(run_ends.buffers[1]->data(), run_ends.offset + first + r, id, &end);
    end = std::min(end - data.offset, data.length);
    if (width == 2) {
      const auto narrow = static_cast<int16_t>(end);
      std::memcpy(ends->mutable_data() + r * 2, &narrow, 2);
    } else if (width == 4) {
      const auto narrow = static_cast<int32_t>(end);
      std::memcpy(ends->mutable_data() + r * 4, &narrow, 4);
    } else {
      std::memcpy(ends->mutable_data() + r * 8, &end, 8);
    }
  }
  auto new_ends = std::make_shared<ArrayData>();
  new_ends->type = run_ends.type;
  new_ends->length = runs;
  new_ends->null_count = 0;
  new_ends->buffers = {nullptr, std::move(ends)};
  out->children[0] = std::move(new_ends);
  QUIVER_ASSIGN_OR_RETURN(out->children[1], quiver::Slice(data.children[1], first, runs));
  return ArrayDataPtr(std::move(out));
}

}  // namespace

Result<ArrayDataPtr> CompactNode(const ArrayData& data) {
  const Layout layout = LayoutOf(*data.type);
  if (layout.children == ChildRole::kRunEnds) return CompactRunEnds(data);
  const int64_t start = data.offset;
  const int64_t slots = data.length;
  auto out = std::make_shared<ArrayData>();
  out->type = data.type;
  out->length = data.length;
  out->offset = 0;
  out->null_count =
      data.type->storage().id() == TypeId::kNull ? data.length : data.ComputeNullCount();
  out->dictionary = data.dictionary;
  out->buffers.resize(data.buffers.size());
  int64_t first = 0, last = 0;
  for (int b = 0; b < layout.num_buffers && b < static_cast<int>(data.buffers.size()); ++b) {
    const BufferPtr& buffer = data.buffers[b];
    BufferPtr& cut = out->buffers[b];
    switch (layout.roles[b]) {
      case BufferRole::kValidity: {
        if (out->null_count == 0) break;
        QUIVER_ASSIGN_OR_RETURN(cut, CompactBitmap(buffer, start, slots));
        break;
      }
      case BufferRole::kBits: {
        QUIVER_ASSIGN_OR_RETURN(cut, CompactBitmap(buffer, start, slots));
        break;
      }
      case BufferRole::kViewOffsets:
      case BufferRole::kViewSizes: {
        QUIVER_ASSIGN_OR_RETURN(
            cut, CompactViewEntries(data, buffer, layout.value_bits / 8, start, slots));
        break;
      }
      case BufferRole::kValues:
      case BufferRole::kViews:
      case BufferRole::kTypeIds:
      case BufferRole::kUnionOffsets: {
        const int64_t width = layout.roles[b] == BufferRole::kViews     ? kViewBytes
                              : layout.roles[b] == BufferRole::kTypeIds ? 1
                              : layout.roles[b] == BufferRole::kUnionOffsets
                                  ? 4
                                  : layout.value_bits / 8;
        if (!buffer || slots == 0) break;
        QUIVER_ASSIGN_OR_RETURN(cut, Buffer::Slice(buffer, start * width, slots * width));
        break;
      }
      case BufferRole::kOffsets32:
      case BufferRole::kOffsets64: {
        QUIVER_ASSIGN_OR_RETURN(
            cut, CompactOffsets(buffer, layout.offset_width(), start, slots, &first, &last));
        break;
      }
      case BufferRole::kData: {
        // The bytes the offsets (read just before) delimit.
        if (!buffer || last <= first) break;
        QUIVER_ASSIGN_OR_RETURN(cut, Buffer::Slice(buffer, first, last - first));
        break;
      }
    }
  }
  // Views point into the variadic buffers by index: they go whole.
  for (size_t k = static_cast<size_t>(layout.num_buffers); k < data.buffers.size(); ++k) {
    out->buffers[k] = data.buffers[k];
  }
  out->children.reserve(data.children.size());
  for (const ArrayDataPtr& child : data.children) {
    ArrayDataPtr covered;
    switch (layout.children) {
      case ChildRole::kOffsetList: {
        QUIVER_ASSIGN_OR_RETURN(covered, quiver::Slice(child, first, last - first));
        break;
      }
      case ChildRole::kFixedSizeList: {
        QUIVER_ASSIGN_OR_RETURN(
            covered, quiver::Slice(child, start * layout.list_size, slots * layout.list_size));
        break;
      }
      case ChildRole::kStructFields:
      case ChildRole::kSparseUnion:
      case ChildRole::kNone: {
        QUIVER_ASSIGN_OR_RETURN(covered, quiver::Slice(child, start, slots));
        break;
      }
      case ChildRole::kListView:
      case ChildRole::kDenseUnion:
      case ChildRole::kRunEnds: {  // (run ends: handled above) offsets index the whole child
        covered = child;
        break;
      }
    }
    out->children.push_back(std::move(covered));
  }
  return ArrayDataPtr(std::move(out));
}

}  // namespace quiver::internal

namespace quiver {

Result<ArrayDataPtr> Compact(const ArrayData& data) {
  QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr node, internal::CompactNode(data));
  auto out = std::make_shared<ArrayData>(*node);
  for (ArrayDataPtr& child : out->children) {
    QUIVER_ASSIGN_OR_RETURN(child, Compact(*child));
  }
  if (out->dictionary) {
    QUIVER_ASSIGN_OR_RETURN(out->dictionary, Compact(*out->dictionary));
  }
  return ArrayDataPtr(std::move(out));
}

}  // namespace quiver

namespace quiver {

namespace {

// ReferencedBytes of rows [start, start + slots) of `data` (start counts
// from the beginning of its buffers, the node's own offset included).
Result<int64_t> ReferencedRange(const ArrayData& data, int64_t start, int64_t slots) {
  using internal::AddChecked;
  const internal::Layout layout = internal::LayoutOf(*data.type);
  int64_t total = 0, first = 0, last = 0;
  for (int b = 0; b < layout.num_buffers && b < static_cast<int>(data.buffers.size()); ++b) {
    if (!data.buffers[b] || slots == 0) continue;
    int64_t bytes = 0;
    switch (layout.roles[b]) {
      case internal::BufferRole::kValidity:
      case internal::BufferRole::kBits:
        bytes = internal::BitmapBytes(start + slots) - start / 8;
        break;
      case internal::BufferRole::kValues:
      case internal::BufferRole::kViews:
      case internal::BufferRole::kTypeIds:
      case internal::BufferRole::kUnionOffsets:
      case internal::BufferRole::kViewOffsets:
      case internal::BufferRole::kViewSizes: {
        const internal::BufferRole role = layout.roles[b];
        const int64_t width = role == internal::BufferRole::kViews          ? internal::kViewBytes
                              : role == internal::BufferRole::kTypeIds      ? 1
                              : role == internal::BufferRole::kUnionOffsets ? 4
                                                                            : layout.value_bits / 8;
        QUIVER_ASSIGN_OR_RETURN(bytes, internal::MultiplyChecked(slots, width, "referenced bytes"));
        break;
      }
      case internal::BufferRole::kOffsets32:
      case internal::BufferRole::kOffsets64: {
        if (!data.buffers[b]->device().is_cpu()) {  // the one read: never of device memory
          return Status::NotImplemented("the offsets of a ", data.type->ToString(),
                                        " array live in device memory; quiver reads only CPU "
                                        "memory");
        }
        const int64_t width = layout.offset_width();
        first = internal::ReadOffset(data.buffers[b]->data(), start, width);
        last = internal::ReadOffset(data.buffers[b]->data(), start + slots, width);
        if (first < 0 || last < first) {
          return Status::Invalid("offsets ", first, " .. ", last, " of rows [", start, ", ",
                                 start + slots, ") do not delimit a range");
        }
        bytes = (slots + 1) * width;  // inside the buffer: minimal validation checked its size
        break;
      }
      case internal::BufferRole::kData: {
        if (last > data.buffers[b]->size()) {  // (first <= last: checked with the offsets)
          return Status::Invalid("offset ", last, " is past a data buffer of ",
                                 data.buffers[b]->size(), " bytes");
        }
        bytes = last - first;
        break;
      }
    }
    QUIVER_ASSIGN_OR_RETURN(total, AddChecked(total, bytes, "referenced bytes"));
  }
  for (size_t k = static_cast<size_t>(layout.num_buffers); k < data.buffers.size(); ++k) {
    if (data.buffers[k]) {
      QUIVER_ASSIGN_OR_RETURN(total,
                              AddChecked(total, data.buffers[k]->size(), "referenced bytes"));
    }
  }
  for (const ArrayDataPtr& child : data.children) {
    int64_t child_start = 0, child_slots = 0;
    switch (layout.children) {
      case internal::ChildRole::kOffsetList:
        if (slots == 0) continue;
        if (last > child->length) {
          return Status::Invalid("offset ", last, " is past a child of ", child->length, " rows");
        }
        child_start = first;
        child_slots = last - first;
        break;
      case internal::ChildRole::kFixedSizeList:
        child_start = start * layout.list_size;  // within the child: minimal validation
        child_slots = slots * layout.list_size;
        break;
      case internal::ChildRole::kStructFields:  // a struct's offset applies to its fields
      case internal::ChildRole::kSparseUnion:
      case internal::ChildRole::kNone:
        child_start = start;
        child_slots = slots;
        break;
      case internal::ChildRole::kDenseUnion:  // offsets or runs reach anywhere: counted whole
      case internal::ChildRole::kListView:
      case internal::ChildRole::kRunEnds:
        child_start = 0;
        child_slots = child->length;
        break;
    }
    QUIVER_ASSIGN_OR_RETURN(int64_t bytes,
                            ReferencedRange(*child, child->offset + child_start, child_slots));
    QUIVER_ASSIGN_OR_RETURN(total, AddChecked(total, bytes, "referenced bytes"));
  }
  if (data.dictionary) {
    QUIVER_ASSIGN_OR_RETURN(
        int64_t bytes,
        ReferencedRange(*data.dictionary, data.dictionary->offset, data.dictionary->length));
    QUIVER_ASSIGN_OR_RETURN(total, AddChecked(total, bytes, "referenced bytes"));
  }
  return total;
}

}  // namespace

Result<int64_t> ReferencedBytes(const ArrayData& data) {
  QUIVER_RETURN_NOT_OK(CheckNestingDepth(*data.type));  // bounds the recursion
  return ReferencedRange(data, data.offset, data.length);
}

}  // namespace quiver
