// Internal: the physical layout of every storage type, in one table.
//
// Validation, C Data import and export and the IPC decoder all ask this
// table what an array of a type carries (how many buffers, what each one
// holds, how many children) instead of switching on the type themselves,
// so a type added here is handled the same way everywhere.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <span>

#include "quiver/status.h"
#include "quiver/type.h"

namespace quiver::internal {

// What one buffer of an array holds.
enum class BufferRole : uint8_t {
  kValidity,      // LSB-ordered bitmap, one bit per slot; may be absent (no nulls)
  kBits,          // bit-packed values (bool), one bit per slot
  kValues,        // fixed-width values, Layout::value_bits per slot
  kOffsets32,     // length + 1 int32 offsets into the data buffer or the child
  kOffsets64,     // length + 1 int64 offsets
  kData,          // the bytes that the offsets index (utf8 and binary)
  kViews,         // 16-byte binary views, one per slot (utf8_view, binary_view)
  kTypeIds,       // unions: one int8 type id per slot
  kUnionOffsets,  // dense unions: one int32 offset per slot into the chosen child
  kViewOffsets,   // list views: one offset per slot (Layout::value_bits wide)
  kViewSizes,     // list views: one size per slot (Layout::value_bits wide)
};

// Bytes per binary view, and the longest value a view holds inline.
inline constexpr int64_t kViewBytes = 16;
inline constexpr int32_t kMaxInlineViewBytes = 12;

// How an array's children relate to its slots.
enum class ChildRole : uint8_t {
  kNone,
  kOffsetList,     // one child, indexed by the offsets buffer
  kFixedSizeList,  // one child with list_size entries per slot
  kStructFields,   // one child per field, one entry per slot
  kListView,       // one child, indexed by the offsets and sizes buffers
  kSparseUnion,    // one child per field, one entry per slot; type ids pick one
  kDenseUnion,     // one child per field; type ids pick one, offsets index it
  kRunEnds,        // children run_ends and values, one entry per run
};

// The buffers listed in `roles` come first, in that order (null arrays
// have none). Views then carry any number of variadic data buffers: in
// ArrayData they follow the views buffer (buffers[2 ..]), each holding the
// bytes that non-inline views point into; in the C Data Interface one more
// buffer follows them, the int64 byte size of each variadic buffer.
// Dictionary arrays have their indices' layout and carry the values in
// ArrayData::dictionary. Unions and run-end encoded arrays have no validity
// buffer (in ArrayData, IPC and the C Data Interface alike): their
// buffers start with the type ids, or there are none.
struct Layout {
  std::array<BufferRole, 3> roles{};
  int num_buffers = 0;
  int64_t value_bits = 0;  // kValues / kBits / kViewOffsets / kViewSizes: bits per slot
  ChildRole children = ChildRole::kNone;
  int64_t list_size = 0;    // kFixedSizeList: entries per slot
  bool variadic = false;    // any number of data buffers after the fixed ones
  bool dictionary = false;  // the array carries a dictionary of values

  std::span<const BufferRole> buffers() const {
    return {roles.data(), static_cast<size_t>(num_buffers)};
  }
  // The offsets role of this layout (kOffsets32/64), if it has offsets.
  bool has_offsets() const { return num_buffers > 1 && IsOffsets(roles[1]); }
  static bool IsOffsets(BufferRole role) {
    return role == BufferRole::kOffsets32 || role == BufferRole::kOffsets64;
  }
  // Bytes per offset: 4 or 8 (0 without offsets).
  int64_t offset_width() const {
    if (!has_offsets()) return 0;
    return roles[1] == BufferRole::kOffsets64 ? 8 : 4;
  }
};

// The layout of `type` (of its storage, for extension types).
Layout LayoutOf(const DataType& type);

// Whether arrays of the layout carry a validity bitmap as buffer 0.
inline bool HasValidity(const Layout& layout) {
  return layout.num_buffers > 0 && layout.roles[0] == BufferRole::kValidity;
}

// Number of children an array of `type` has.
int ChildCount(const DataType& type);

// Bytes a bitmap of `bits` bits needs; never overflows for bits >= 0.
constexpr int64_t BitmapBytes(int64_t bits) { return bits / 8 + (bits % 8 != 0 ? 1 : 0); }

// The bytes buffer `role` needs to cover slots [0, end) (end = offset +
// length), computed with overflow checks: validity and bits end/8 rounded
// up, values end * value_bits / 8, offsets (end + 1) * width (0 when end
// is 0: empty arrays may omit their offsets). kData depends on the offsets
// and gives 0 here.
Result<int64_t> RequiredBufferSize(const Layout& layout, BufferRole role, int64_t end);

// One binary view as stored (16 bytes, little-endian fields): the length,
// then for length <= 12 the inline bytes, else a 4-byte prefix, the index
// of the variadic buffer and the offset of the value inside it.
struct BinaryView {
  int32_t length = 0;
  uint8_t inline_bytes[12] = {};  // inline values; else bytes 0-3 are the prefix
  int32_t buffer_index = 0;       // non-inline only
  int32_t offset = 0;             // non-inline only
  bool is_inline() const { return length <= kMaxInlineViewBytes; }
};

// The view at slot `index` of a views buffer. Precondition: the buffer
// holds index + 1 views.
BinaryView ReadView(const uint8_t* views, int64_t index);

// The integer at slot `index` of a values buffer of integer type `id`,
// widened to int64. False when it does not fit (a uint64 above INT64_MAX).
// Precondition: the buffer holds index + 1 values of that type.
bool ReadInteger(const uint8_t* values, int64_t index, TypeId id, int64_t* out);

// The offset at `index` of an offsets buffer of the given width (4 or 8).
// Precondition: the buffer holds index + 1 entries. Inline: validation and
// the gathers call it once per row.
inline int64_t ReadOffset(const uint8_t* offsets, int64_t index, int64_t width) {
  if (width == 8) {
    int64_t v;
    std::memcpy(&v, offsets + index * 8, 8);
    return v;
  }
  int32_t v;
  std::memcpy(&v, offsets + index * 4, 4);
  return v;
}

}  // namespace quiver::internal
