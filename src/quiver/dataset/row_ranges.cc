// Row byte ranges of fixed-width columns (row_ranges.h).
#include "quiver/dataset/row_ranges.h"

#include <algorithm>

#include "quiver/internal/layout.h"

namespace quiver::dataset {

namespace {

using internal::BufferRole;
using internal::ChildRole;

// Appends the bytes of bits [row * bits_per_row, (row + 1) * bits_per_row)
// for each row, clipped to the buffer's `size`, merging touching pieces.
// False where a product overflows (a wild header).
bool AppendRowBytes(int64_t buffer, int64_t size, int64_t bits_per_row,
                    std::span<const int64_t> rows, std::vector<BufferPiece>* out) {
  for (const int64_t row : rows) {
    int64_t begin_bit = 0, end_bit = 0;
    if (__builtin_mul_overflow(row, bits_per_row, &begin_bit) ||
        __builtin_add_overflow(begin_bit, bits_per_row, &end_bit)) {
      return false;
    }
    const int64_t begin = std::min(begin_bit / 8, size);
    const int64_t end = std::min(end_bit / 8 + (end_bit % 8 != 0 ? 1 : 0), size);
    if (end <= begin) continue;
    BufferPiece* last = out->empty() ? nullptr : &out->back();
    if (last != nullptr && last->buffer == buffer && last->offset + last->length >= begin) {
      last->length = std::max(last->length, end - last->offset);
    } else {
      out->push_back({buffer, begin, end - begin});
    }
  }
  return true;
}

// `node` and its children, `slots` slots of each per row.
bool NodePieces(const ipc::BatchLayout& layout, std::span<const int64_t> lengths,
                const ipc::FieldNodeLayout& node, int64_t slots, std::span<const int64_t> rows,
                std::vector<BufferPiece>* out) {
  const internal::Layout kind = internal::LayoutOf(*node.field.type);
  if (kind.dictionary || kind.variadic) return false;
  if (node.buffers.size() != static_cast<size_t>(kind.num_buffers)) return false;
  for (size_t i = 0; i < node.buffers.size(); ++i) {
    const int64_t buffer = node.buffers[i];
    const int64_t size = lengths.empty() ? layout.buffers[static_cast<size_t>(buffer)].length
                                         : lengths[static_cast<size_t>(buffer)];
    if (size == 0) continue;  // absent (no nulls), or no slots
    int64_t bits = 0;
    switch (kind.roles[i]) {
      case BufferRole::kValidity: out->push_back({buffer, 0, size}); continue;
      case BufferRole::kBits: bits = 1; break;
      case BufferRole::kValues: bits = kind.value_bits; break;
      default: return false;
    }
    int64_t bits_per_row = 0;
    if (__builtin_mul_overflow(bits, slots, &bits_per_row)) return false;
    if (!AppendRowBytes(buffer, size, bits_per_row, rows, out)) return false;
  }
  int64_t child_slots = slots;
  switch (kind.children) {
    case ChildRole::kNone:
    case ChildRole::kStructFields: break;
    case ChildRole::kFixedSizeList:
      if (__builtin_mul_overflow(slots, kind.list_size, &child_slots)) return false;
      break;
    default: return false;
  }
  for (const ipc::FieldNodeLayout& child : node.children) {
    if (!NodePieces(layout, lengths, child, child_slots, rows, out)) return false;
  }
  return true;
}

}  // namespace

bool RowPieces(const ipc::BatchLayout& layout, const ipc::FieldNodeLayout& column,
               std::span<const int64_t> rows, std::vector<BufferPiece>* out,
               std::span<const int64_t> lengths) {
  const size_t before = out->size();
  if (NodePieces(layout, lengths, column, 1, rows, out)) return true;
  out->resize(before);
  return false;
}

}  // namespace quiver::dataset
