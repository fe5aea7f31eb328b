#include "quiver/internal/compact.h"

#include <cstring>
#include <memory>
#include <utility>

#include "quiver/internal/bitmap.h"
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

}  // namespace

Result<ArrayDataPtr> CompactNode(const ArrayData& data) {
  const Layout layout = LayoutOf(*data.type);
  const int64_t start = data.offset;
  const int64_t slots = data.length;
  auto out = std::make_shared<ArrayData>();
  out->type = data.type;
  out->length = data.length;
  out->offset = 0;
  out->null_count = layout.num_buffers == 0 ? data.length : data.ComputeNullCount();
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
      case BufferRole::kValues:
      case BufferRole::kViews: {
        const int64_t width =
            layout.roles[b] == BufferRole::kViews ? kViewBytes : layout.value_bits / 8;
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
      case ChildRole::kNone: {
        QUIVER_ASSIGN_OR_RETURN(covered, quiver::Slice(child, start, slots));
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
