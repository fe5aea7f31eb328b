// Internal: padding rows of different shapes into cells of one shape, the
// kernel VariableShapeTensorArray::ToPadded and the loader's padded
// batches share: the pad value's bits in a value type, a filler that
// writes them, and the copy of one strided row into its cell.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "quiver/pad_value.h"
#include "quiver/status.h"
#include "quiver/type.h"

namespace quiver::internal {

// The bits of `pad_value` in numeric or bool value type `type`, in the low
// byte_width() bytes (little-endian), or Invalid ("pad value 0.1 is not
// exactly representable as float32") when the type cannot hold it exactly.
Result<uint64_t> PadPattern(const PadValue& pad_value, const DataType& type);

// Writes `count` copies of a `width`-byte pattern (width 1, 2, 4 or 8). A
// zero pattern writes nothing unless `write_zeros` (a destination not
// known to be zeroed).
class PadFiller {
 public:
  PadFiller(uint64_t pattern, int64_t width, bool write_zeros);
  void operator()(uint8_t* dst, int64_t count) const;

 private:
  template <typename T>
  void Fill(uint8_t* dst, int64_t count) const;

  uint64_t pattern_;
  int64_t width_;
  bool write_zeros_;
};

// Copies rows into cells of shape `cell` (row-major, `width` bytes per
// element), writing each byte of a cell once: the row's block at the
// origin, padding everywhere else.
class CellCopier {
 public:
  CellCopier(const PadFiller& fill, int64_t width, std::span<const int64_t> cell);
  // Bytes of one cell.
  int64_t cell_bytes() const { return cell_bytes_; }
  // A row of `shape` (cell.size() entries, each <= its cell's) whose
  // elements lie at byte `strides` from `src`, into the cell at `dst`;
  // src null: the whole cell is padding.
  void Copy(const uint8_t* src, const int64_t* shape, const int64_t* strides, uint8_t* dst) const;

 private:
  void CopyAxis(const uint8_t* src, const int64_t* shape, const int64_t* strides, uint8_t* dst,
                size_t axis) const;

  const PadFiller& fill_;
  int64_t width_;
  std::vector<int64_t> cell_;
  std::vector<int64_t> out_strides_;
  int64_t cell_bytes_ = 0;
};

}  // namespace quiver::internal
