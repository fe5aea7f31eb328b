// DLPack export of tensor columns: a fixed-shape column as one tensor, a
// variable-shape row as its view.
#include "quiver/dlpack_columns.h"

#include "quiver/extension/null_rows.h"
#include "quiver/internal/bitmap.h"
#include "quiver/internal/checked_math.h"

namespace quiver::dlpack {

namespace {

// Bit-packed Arrow bools as a bool8 tensor of the column's logical shape
// (a copy: one byte per value).
Result<Tensor> UnpackBools(const FixedShapeTensorArray& array, NullPolicy nulls) {
  const ArrayData& data = *array.data();
  const ArrayData& bits = *data.children[0];
  const int64_t cell = array.type().list_size();
  for (int64_t row = 0; row < array.length() && nulls == NullPolicy::kError; ++row) {
    if (!array.IsValid(row)) return internal::NullRowError(row);
  }
  QUIVER_ASSIGN_OR_RETURN(int64_t count,
                          internal::MultiplyChecked(array.length(), cell, "bool tensor"));
  QUIVER_ASSIGN_OR_RETURN(BufferPtr bytes, Buffer::Allocate(count));
  const int64_t first = bits.offset + data.offset * cell;
  if (count > 0) {
    const uint8_t* packed = bits.buffers[1]->data();
    uint8_t* out = bytes->mutable_data();
    for (int64_t e = 0; e < count; ++e) out[e] = internal::GetBit(packed, first + e);
  }
  std::vector<int64_t> shape = array.type().logical_shape();
  std::vector<int64_t> strides = array.type().logical_strides();  // 1 byte per value
  shape.insert(shape.begin(), array.length());
  strides.insert(strides.begin(), cell);
  return Tensor::Make(bool8(), std::move(bytes), std::move(shape), std::move(strides));
}

}  // namespace

Result<Tensor> ColumnTensor(const FixedShapeTensorArray& array, NullPolicy nulls, CopyMode copy,
                            bool* copied) {
  if (copied) *copied = false;
  if (array.type().value_type()->id() != TypeId::kBool) return array.ToTensor(nulls);
  if (copy == CopyMode::kNever) {
    return Status::Invalid(
        "Arrow bools are bit-packed: exporting them to DLPack needs a copy "
        "(one byte per value)");
  }
  if (copied) *copied = true;
  return UnpackBools(array, nulls);
}

Result<DLManagedTensorVersioned*> Export(const FixedShapeTensorArray& array, NullPolicy nulls,
                                         CopyMode copy, bool* copied) {
  bool unpacked = false;
  QUIVER_ASSIGN_OR_RETURN(Tensor tensor, ColumnTensor(array, nulls, copy, &unpacked));
  // Bools were just unpacked into fresh memory: no second copy, ever.
  QUIVER_ASSIGN_OR_RETURN(DLManagedTensorVersioned * out,
                          Export(tensor, unpacked ? CopyMode::kNever : copy, copied));
  if (unpacked) out->flags = kFlagIsCopied;  // the unpacked bytes belong to the consumer
  if (copied) *copied = *copied || unpacked;
  return out;
}

Result<DLManagedTensorVersioned*> ExportRow(const VariableShapeTensorArray& array, int64_t i,
                                            NullPolicy nulls) {
  QUIVER_ASSIGN_OR_RETURN(Tensor tensor, array.RowTensor(i, nulls));
  return Export(tensor);
}

}  // namespace quiver::dlpack
