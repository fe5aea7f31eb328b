#include "quiver/internal/layout.h"

#include <cstring>

#include "quiver/internal/checked_math.h"

namespace quiver::internal {

namespace {

constexpr Layout Fixed(int64_t bits) {
  return Layout{{BufferRole::kValidity, BufferRole::kValues}, 2, bits, ChildRole::kNone, 0};
}

constexpr Layout Binary(BufferRole offsets) {
  return Layout{{BufferRole::kValidity, offsets, BufferRole::kData}, 3, 0, ChildRole::kNone, 0};
}

}  // namespace

Layout LayoutOf(const DataType& type) {
  const DataType& storage = type.storage();
  switch (storage.id()) {
    case TypeId::kNull: return Layout{};
    case TypeId::kUtf8View:
    case TypeId::kBinaryView: {
      Layout views{
          {BufferRole::kValidity, BufferRole::kViews}, 2, kViewBytes * 8, ChildRole::kNone, 0};
      views.variadic = true;
      return views;
    }
    case TypeId::kDictionary: {
      Layout indices = LayoutOf(*storage.index_type());
      indices.dictionary = true;
      return indices;
    }
    case TypeId::kBool:
      return Layout{{BufferRole::kValidity, BufferRole::kBits}, 2, 1, ChildRole::kNone, 0};
    case TypeId::kUtf8:
    case TypeId::kBinary: return Binary(BufferRole::kOffsets32);
    case TypeId::kLargeUtf8:
    case TypeId::kLargeBinary: return Binary(BufferRole::kOffsets64);
    case TypeId::kList:
      return Layout{
          {BufferRole::kValidity, BufferRole::kOffsets32}, 2, 0, ChildRole::kOffsetList, 0};
    case TypeId::kLargeList:
      return Layout{
          {BufferRole::kValidity, BufferRole::kOffsets64}, 2, 0, ChildRole::kOffsetList, 0};
    case TypeId::kFixedSizeList:
      return Layout{{BufferRole::kValidity}, 1, 0, ChildRole::kFixedSizeList, storage.fixed_size()};
    case TypeId::kStruct: return Layout{{BufferRole::kValidity}, 1, 0, ChildRole::kStructFields, 0};
    case TypeId::kMap:
      return Layout{
          {BufferRole::kValidity, BufferRole::kOffsets32}, 2, 0, ChildRole::kOffsetList, 0};
    case TypeId::kListView:
    case TypeId::kLargeListView:
      return Layout{{BufferRole::kValidity, BufferRole::kViewOffsets, BufferRole::kViewSizes},
                    3,
                    storage.id() == TypeId::kListView ? 32 : 64,
                    ChildRole::kListView,
                    0};
    case TypeId::kSparseUnion:
      return Layout{{BufferRole::kTypeIds}, 1, 8, ChildRole::kSparseUnion, 0};
    case TypeId::kDenseUnion:
      return Layout{
          {BufferRole::kTypeIds, BufferRole::kUnionOffsets}, 2, 8, ChildRole::kDenseUnion, 0};
    case TypeId::kRunEndEncoded: return Layout{{}, 0, 0, ChildRole::kRunEnds, 0};
    default:  // int8 .. float64, fixed_size_binary, dates, times, decimals
      return Fixed(storage.bit_width());
  }
}

int ChildCount(const DataType& type) {
  switch (LayoutOf(type).children) {
    case ChildRole::kNone: return 0;
    case ChildRole::kStructFields:
    case ChildRole::kSparseUnion:
    case ChildRole::kDenseUnion: return static_cast<int>(type.storage().children().size());
    case ChildRole::kRunEnds: return 2;
    default: return 1;
  }
}

Result<int64_t> RequiredBufferSize(const Layout& layout, BufferRole role, int64_t end) {
  switch (role) {
    case BufferRole::kValidity:
    case BufferRole::kBits: return BitmapBytes(end);
    case BufferRole::kValues: {
      // Every fixed width is a whole number of bytes (bool is kBits).
      QUIVER_ASSIGN_OR_RETURN(int64_t bytes,
                              MultiplyChecked(end, layout.value_bits / 8, "values buffer size"));
      return bytes;
    }
    case BufferRole::kOffsets32:
    case BufferRole::kOffsets64: {
      if (end == 0) return int64_t{0};
      QUIVER_ASSIGN_OR_RETURN(int64_t entries, AddChecked(end, 1, "offsets count"));
      return MultiplyChecked(entries, layout.offset_width(), "offsets buffer size");
    }
    case BufferRole::kViews: return MultiplyChecked(end, kViewBytes, "views buffer size");
    case BufferRole::kTypeIds: return end;
    case BufferRole::kUnionOffsets: return MultiplyChecked(end, 4, "union offsets buffer size");
    case BufferRole::kViewOffsets:
    case BufferRole::kViewSizes:
      return MultiplyChecked(end, layout.value_bits / 8, "list view buffer size");
    case BufferRole::kData: return int64_t{0};
  }
  return int64_t{0};
}

BinaryView ReadView(const uint8_t* views, int64_t index) {
  const uint8_t* view = views + index * kViewBytes;
  BinaryView out;
  std::memcpy(&out.length, view, 4);
  std::memcpy(out.inline_bytes, view + 4, 12);
  std::memcpy(&out.buffer_index, view + 8, 4);
  std::memcpy(&out.offset, view + 12, 4);
  return out;
}

bool ReadInteger(const uint8_t* values, int64_t index, TypeId id, int64_t* out) {
  auto load = [&](auto tag) {
    decltype(tag) v;
    std::memcpy(&v, values + index * static_cast<int64_t>(sizeof(v)), sizeof(v));
    return v;
  };
  switch (id) {
    case TypeId::kInt8: *out = load(int8_t{}); return true;
    case TypeId::kInt16: *out = load(int16_t{}); return true;
    case TypeId::kInt32: *out = load(int32_t{}); return true;
    case TypeId::kInt64: *out = load(int64_t{}); return true;
    case TypeId::kUInt8: *out = load(uint8_t{}); return true;
    case TypeId::kUInt16: *out = load(uint16_t{}); return true;
    case TypeId::kUInt32: *out = load(uint32_t{}); return true;
    case TypeId::kUInt64: {
      const uint64_t v = load(uint64_t{});
      if (v > static_cast<uint64_t>(INT64_MAX)) return false;
      *out = static_cast<int64_t>(v);
      return true;
    }
    default: return false;
  }
}

}  // namespace quiver::internal
