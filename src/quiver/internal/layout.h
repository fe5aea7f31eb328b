// Internal: the physical layout of every storage type, in one table.
//
// Validation, C Data import and export and the IPC decoder all ask this
// table what an array of a type carries (how many buffers, what each one
// holds, how many children) instead of switching on the type themselves,
// so a type added here is handled the same way everywhere.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "quiver/status.h"
#include "quiver/type.h"

namespace quiver::internal {

// What one buffer of an array holds.
enum class BufferRole : uint8_t {
  kValidity,   // LSB-ordered bitmap, one bit per slot; may be absent (no nulls)
  kBits,       // bit-packed values (bool), one bit per slot
  kValues,     // fixed-width values, Layout::value_bits per slot
  kOffsets32,  // length + 1 int32 offsets into the data buffer or the child
  kOffsets64,  // length + 1 int64 offsets
  kData,       // the bytes that the offsets index (utf8 and binary)
};

// How an array's children relate to its slots.
enum class ChildRole : uint8_t {
  kNone,
  kOffsetList,     // one child, indexed by the offsets buffer
  kFixedSizeList,  // one child with list_size entries per slot
  kStructFields,   // one child per field, one entry per slot
};

struct Layout {
  std::array<BufferRole, 3> roles{};
  int num_buffers = 0;
  int64_t value_bits = 0;  // kValues / kBits: bits per slot
  ChildRole children = ChildRole::kNone;
  int64_t list_size = 0;   // kFixedSizeList: entries per slot

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

// The offset at `index` of an offsets buffer of the given width (4 or 8).
// Precondition: the buffer holds index + 1 entries.
int64_t ReadOffset(const uint8_t* offsets, int64_t index, int64_t width);

}  // namespace quiver::internal
