// Internal: the storage of arrow.variable_shape_tensor arrays as the
// kernels see it (row offsets, shapes, values), with every row checked on
// read, plus assembling storage from its parts.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "quiver/internal/builders.h"
#include "quiver/variable_shape_tensor.h"

namespace quiver::internal {

// Invalid with "row i: " before `message`.
Status RowError(int64_t i, const std::string& message);

// NotImplemented unless the values can be read as dense bytes (numeric or
// bool8; bit-packed bools cannot): "cannot <what> bool tensors: ...".
Status CheckDenseValues(const VariableShapeTensorType& type, const char* what);

// The data list has int32 offsets: at most this many elements in all.
constexpr int64_t kMaxListElements = std::numeric_limits<int32_t>::max();

// OK when `total_elements` fits the data list's offsets (hot loops compare
// with kMaxListElements themselves and call this for the error).
Status CheckListCapacity(int64_t total_elements);

// Elements [begin, end) of one row, indexes into the values child's
// buffers (the child's offset applied).
struct RowRange {
  int64_t begin = 0;
  int64_t end = 0;
  int64_t size() const { return end - begin; }
};

// Read access to a VariableShapeTensorArray's storage. The raw accessors
// only stay inside buffers that kMinimal validation sized; the checked
// ones also make sure a row's elements lie inside the values, reading each
// offset and shape entry once, so kernels that use what they return never
// read out of bounds even if the storage changes under them.
class VariableShapeStorage {
 public:
  explicit VariableShapeStorage(const VariableShapeTensorArray& array) : array_(array) {}

  // Every valid row of `data`, a variable_shape_tensor array whose tree
  // Validate(kFull) has checked, as VariableShapeTensorArray::Make(kFull)
  // checks them: Validate(kFull) calls this wherever such an array sits,
  // so rows are checked on every import and IPC read.
  static Status CheckRows(const ArrayData& data);

  // PHYSICAL shape of row i as stored. Precondition: 0 <= i < length.
  std::span<const int32_t> PhysicalShape(int64_t i) const {
    const int ndim = array_.type_.ndim();
    return {array_.shapes_ + i * ndim, static_cast<size_t>(ndim)};
  }
  // The list offset where row i starts (relative to the values child).
  // Precondition: 0 <= i <= length.
  int64_t Offset(int64_t i) const { return array_.offsets_[i]; }
  // The values child (numeric or bool, possibly with its own offset).
  const ArrayData& values() const { return *array_.data_->children[0]->children[0]; }
  // Where row i's elements start as a byte pointer into the values buffer.
  const uint8_t* ValueBytes(const RowRange& range) const;

  // The list offsets [from, to] (i.e. to - from + 1 entries) copied into
  // `out`, checked to be non-decreasing and inside the values child;
  // errors name the row. `out` entries are relative to the values child.
  Status CheckedOffsets(int64_t from, int64_t to, std::span<int64_t> out) const;
  // Row i's element range, checked as above.
  Result<RowRange> CheckedRange(int64_t i) const;
  // What a view of row i relies on: its range (checked), its physical shape
  // copied into `physical` (ndim entries), every size >= 0 and the row's
  // length equal to their product.
  Result<RowRange> CheckedLayout(int64_t i, std::span<int64_t> physical) const;
  // Every invariant Make(kFull) checks of valid row i (the layout above,
  // uniform_shape, no null data list, shape or shape entry), for kernels
  // that copy a row as it is stored.
  Status CheckedRow(int64_t i) const { return array_.CheckRow(i); }

 private:
  const VariableShapeTensorArray& array_;
};

// Storage of a variable_shape_tensor array with offset 0.
struct VariableShapeParts {
  int64_t length = 0;
  BufferPtr validity;  // row bitmap, nullptr when no row is null
  int64_t null_count = 0;
  BufferPtr offsets;    // length + 1 int32 entries into `values`
  ArrayDataPtr values;  // the data list's child
  BufferPtr shapes;     // length * ndim int32 physical sizes
};

Result<VariableShapeTensorArray> Assemble(const VariableShapeTensorType& type,
                                          VariableShapeParts parts, ValidationLevel level);

// The entries of an integer tensor of shape `expected` (rows x cols, or
// just rows for 1-D), row-major as int64. Errors name `what`.
Result<std::vector<int64_t>> ReadIntegers(const Tensor& tensor, std::span<const int64_t> expected,
                                          const char* what);

// OK unless the values child may hold null elements in [begin, end).
Status CheckNoNullElements(const ArrayData& values, int64_t begin, int64_t end);

}  // namespace quiver::internal
