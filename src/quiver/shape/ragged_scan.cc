// One pass over a ragged column's shape buffer for enforce_shape.
//
// The buffer is read in blocks of rows small enough to stay in L1: a
// block is checked against the sizes of the first valid row, then the
// axes that vary copy their entries out, so the buffer comes from memory
// once however many axes there are. Without null rows the check reads a
// block as one contiguous run of int32 entries, which vectorises; loads
// strided by the row width do not vectorise well (the compiler assembles
// such vectors through the stack), so the copy is written as scalar moves.
#include "quiver/shape/ragged_scan.h"

#include <algorithm>
#include <string>
#include <vector>

#include "quiver/extension/variable_shape_storage.h"
#include "quiver/internal/bitmap.h"

namespace quiver::shape {

namespace {

// The shape buffer as the scan reads it.
struct RaggedRows {
  const int32_t* shapes = nullptr;  // `length` rows of `stride` entries, physical order
  size_t stride = 0;
  int64_t length = 0;
  const uint8_t* bits = nullptr;  // row validity; nullptr: every row is valid
  int64_t bit_offset = 0;

  bool valid(int64_t row) const {
    return bits == nullptr || internal::GetBit(bits, bit_offset + row);
  }
  const int32_t* row(int64_t r) const { return shapes + static_cast<size_t>(r) * stride; }
};

RaggedRows RowsOf(const VariableShapeTensorArray& array) {
  RaggedRows rows;
  rows.stride = static_cast<size_t>(array.type().ndim());
  rows.length = array.length();
  if (rows.length > 0) rows.shapes = internal::VariableShapeStorage(array).PhysicalShape(0).data();
  if (array.null_count() > 0) {
    rows.bits = array.data()->buffers[0]->data();
    rows.bit_offset = array.data()->offset;
  }
  return rows;
}

constexpr int64_t kBlockRows = 1024;

// What the check of one block found, per axis (in the order of `axes`).
struct BlockCheck {
  std::vector<int32_t> differ;  // nonzero: a valid row's size is not the axis's size
  std::vector<int32_t> low;     // the least size of a valid row, or 0

  explicit BlockCheck(size_t axes) : differ(axes), low(axes) {}
  void Reset() {
    std::fill(differ.begin(), differ.end(), 0);
    std::fill(low.begin(), low.end(), 0);
  }
};

// The first valid row of [begin, end) gives every axis its size.
bool TakeFirstValidRow(const RaggedRows& rows, std::span<RaggedAxis> axes, int64_t begin,
                       int64_t end) {
  for (int64_t r = begin; r < end; ++r) {
    if (!rows.valid(r)) continue;
    for (RaggedAxis& axis : axes) axis.size = rows.row(r)[axis.physical];
    return true;
  }
  return false;
}

// A block without null rows as one run of count * kStride entries, in
// groups of kLanes (a multiple of kStride): lane k of a group is physical
// axis k % kStride. True when every constant axis has its size in every
// row and no scanned axis a negative one: the usual answer, found at about
// the speed of reading the block. Scalar bitwise accumulators (a negative
// size sets the sign bit; SSE2 has no 32-bit min) over 16 groups of lanes
// per pass is the form the compiler vectorises: fewer lanes are unrolled
// into scalar code, per-lane accumulators make it interchange the loops.
// False: RowCheck says which axis and row.
template <int kStride>
bool LaneCheck(const RaggedRows& rows, std::span<const RaggedAxis> axes, int64_t begin,
               int64_t count) {
  constexpr int kLanes = 16 * kStride;
  int32_t size[kStride] = {}, compared[kStride] = {}, scanned[kStride] = {};
  for (const RaggedAxis& axis : axes) {
    size[axis.physical] = axis.size;
    compared[axis.physical] = axis.varies ? 0 : -1;
    scanned[axis.physical] = -1;
  }
  int32_t expected[kLanes], compare[kLanes], sign[kLanes];
  for (int k = 0; k < kLanes; ++k) {
    expected[k] = size[k % kStride];
    compare[k] = compared[k % kStride];
    sign[k] = scanned[k % kStride];
  }
  const int32_t* entries = rows.row(begin);
  const int64_t n = count * kStride;
  int32_t differ = 0, negative = 0;
  int64_t base = 0;
  for (; base + kLanes <= n; base += kLanes) {
    for (int k = 0; k < kLanes; ++k) {
      differ |= (entries[base + k] ^ expected[k]) & compare[k];
      negative |= entries[base + k] & sign[k];
    }
  }
  for (int k = 0; base + k < n; ++k) {
    differ |= (entries[base + k] ^ expected[k]) & compare[k];
    negative |= entries[base + k] & sign[k];
  }
  return differ == 0 && negative >= 0;
}

// Any block, row by row: null rows are skipped.
void RowCheck(const RaggedRows& rows, std::span<const RaggedAxis> axes, int64_t begin,
              int64_t count, BlockCheck& check) {
  for (int64_t r = begin; r < begin + count; ++r) {
    if (!rows.valid(r)) continue;
    const int32_t* row = rows.row(r);
    for (size_t j = 0; j < axes.size(); ++j) {
      check.differ[j] |= row[axes[j].physical] ^ axes[j].size;
      check.low[j] = std::min(check.low[j], row[axes[j].physical]);
    }
  }
}

// The first valid row of [begin, end) with a negative size (in row order,
// then axis order): a negative size is never reported as a size.
Status FirstNegative(const RaggedRows& rows, std::span<const RaggedAxis> axes, int64_t begin,
                     int64_t end) {
  for (int64_t r = begin; r < end; ++r) {
    if (!rows.valid(r)) continue;
    for (const RaggedAxis& axis : axes) {
      if (rows.row(r)[axis.physical] < 0) {
        return internal::RowError(
            r, "shape has a negative size on axis " + std::to_string(axis.physical));
      }
    }
  }
  return Status::Invalid("the shape buffer changed while enforce_shape read it");
}

// An axis that starts varying at row `end`: rows before it all had its
// size (or are null). Room for every row is allocated at once.
void StartVarying(const RaggedRows& rows, int64_t end, RaggedAxis& axis) {
  axis.varies = true;
  axis.per_row = std::make_unique_for_overwrite<int32_t[]>(static_cast<size_t>(rows.length));
  axis.filled = static_cast<size_t>(end);
  std::fill_n(axis.per_row.get(), end, axis.size);
  for (int64_t r = 0; rows.bits != nullptr && r < end; ++r) {
    if (!rows.valid(r)) axis.per_row[static_cast<size_t>(r)] = -1;
  }
}

// A block checked row by row: negative sizes refused, constant axes
// whose rows differ here made varying.
Status SettleBlock(const RaggedRows& rows, std::span<RaggedAxis> axes, int64_t begin, int64_t count,
                   BlockCheck& check) {
  check.Reset();
  RowCheck(rows, axes, begin, count, check);
  for (size_t j = 0; j < axes.size(); ++j) {
    if (check.low[j] < 0) return FirstNegative(rows, axes, begin, begin + count);
  }
  for (size_t j = 0; j < axes.size(); ++j) {
    if (!axes[j].varies && check.differ[j] != 0) StartVarying(rows, begin, axes[j]);
  }
  return Status::OK();
}

// One axis's entries of `count` rows, `step` entries apart, into `out`.
// Four rows at a time, loads before stores: left to itself, the compiler
// vectorises this strided loop by assembling vectors through the stack,
// five times slower than these scalar moves.
template <int kStride>
void CopyEntries(const int32_t* entries, size_t stride, int64_t count, int32_t* out) {
  const auto step = kStride > 0 ? int64_t{kStride} : static_cast<int64_t>(stride);
  int64_t i = 0;
  for (; i + 4 <= count; i += 4) {
    const int32_t a = entries[i * step], b = entries[(i + 1) * step];
    const int32_t c = entries[(i + 2) * step], d = entries[(i + 3) * step];
    out[i] = a, out[i + 1] = b, out[i + 2] = c, out[i + 3] = d;
  }
  for (; i < count; ++i) out[i] = entries[i * step];
}

// Appends the block's sizes of every varying axis, -1 in null rows.
template <int kStride>
void CopyVarying(const RaggedRows& rows, std::span<RaggedAxis> axes, int64_t begin, int64_t count) {
  for (RaggedAxis& axis : axes) {
    if (!axis.varies) continue;
    int32_t* out = axis.per_row.get() + axis.filled;
    axis.filled += static_cast<size_t>(count);
    CopyEntries<kStride>(rows.row(begin) + axis.physical, rows.stride, count, out);
    for (int64_t i = 0; rows.bits != nullptr && i < count; ++i) {
      if (!rows.valid(begin + i)) out[i] = -1;
    }
  }
}

// One block: checked (as one run when it can be), varying axes copied.
template <int kStride>
Status ScanBlock(const RaggedRows& rows, std::span<RaggedAxis> axes, int64_t begin, int64_t count,
                 BlockCheck& check) {
  bool clean = false;
  if constexpr (kStride > 0)
    clean = rows.bits == nullptr && LaneCheck<kStride>(rows, axes, begin, count);
  if (!clean) QUIVER_RETURN_NOT_OK(SettleBlock(rows, axes, begin, count, check));
  CopyVarying<kStride>(rows, axes, begin, count);
  return Status::OK();
}

// kStride > 0: the row width known at compile time (ndim 1 to 4, nearly
// every column), so that the check vectorises; 0: any width.
template <int kStride>
Status ScanBlocks(const RaggedRows& rows, std::span<RaggedAxis> axes) {
  BlockCheck check(axes.size());
  bool seen = false;  // a valid row was seen: every axis has its size
  for (int64_t begin = 0; begin < rows.length; begin += kBlockRows) {
    const int64_t count = std::min(kBlockRows, rows.length - begin);
    if (!seen) seen = TakeFirstValidRow(rows, axes, begin, begin + count);
    if (!seen) continue;  // only null rows so far: nothing to check or copy
    QUIVER_RETURN_NOT_OK(ScanBlock<kStride>(rows, axes, begin, count, check));
  }
  if (!seen) {  // no valid row: every row reads -1
    for (RaggedAxis& axis : axes) {
      StartVarying(rows, 0, axis);
      std::fill_n(axis.per_row.get(), rows.length, -1);
      axis.filled = static_cast<size_t>(rows.length);
    }
  }
  return Status::OK();
}

}  // namespace

Status ScanRaggedAxes(const VariableShapeTensorArray& array, std::span<RaggedAxis> axes) {
  const RaggedRows rows = RowsOf(array);
  switch (rows.stride) {
    case 1: return ScanBlocks<1>(rows, axes);
    case 2: return ScanBlocks<2>(rows, axes);
    case 3: return ScanBlocks<3>(rows, axes);
    case 4: return ScanBlocks<4>(rows, axes);
    default: return ScanBlocks<0>(rows, axes);
  }
}

}  // namespace quiver::shape
