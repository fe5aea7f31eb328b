// VariableShapeTensorArray: wrapping, row checks, zero-copy row views.
#include <algorithm>
#include <limits>

#include "quiver/extension/canonical_storage.h"
#include "quiver/extension/null_rows.h"
#include "quiver/extension/tensor_metadata.h"
#include "quiver/extension/variable_shape_storage.h"
#include "quiver/internal/checked_math.h"
#include "quiver/internal/permutation.h"
#include "quiver/variable_shape_tensor.h"

namespace quiver {

namespace {

// Offsets of an array without an offsets buffer (length 0).
constexpr int32_t kNoOffsets[1] = {0};

template <typename T>
const T* BufferAs(const BufferPtr& buffer) {
  return buffer ? reinterpret_cast<const T*>(buffer->data()) : nullptr;
}

}  // namespace

VariableShapeTensorArray::VariableShapeTensorArray(VariableShapeTensorType type, ArrayDataPtr data)
    : type_(std::move(type)), data_(std::move(data)) {
  const ArrayData& list = *data_->children[0];
  const ArrayData& shape = *data_->children[1];
  const ArrayData& entries = *shape.children[0];
  const int32_t* offsets = BufferAs<int32_t>(list.buffers[1]);
  offsets_ = offsets ? offsets + list.offset + data_->offset : kNoOffsets;
  const int32_t* shapes = BufferAs<int32_t>(entries.buffers[1]);
  if (shapes) shapes_ = shapes + entries.offset + (shape.offset + data_->offset) * type_.ndim();
  values_offset_ = list.children[0]->offset;
}

Result<VariableShapeTensorArray> VariableShapeTensorArray::Make(ArrayDataPtr data,
                                                                ValidationLevel level) {
  if (!data) return Status::Invalid("variable_shape_tensor array has no data");
  QUIVER_ASSIGN_OR_RETURN(VariableShapeTensorType type,
                          VariableShapeTensorType::FromDataType(data->type));
  // The views below read these children and buffers, whatever the level.
  // At kFull this checks every valid row too (VariableShapeStorage::CheckRows).
  QUIVER_RETURN_NOT_OK(Validate(*data, std::max(level, ValidationLevel::kMinimal)));
  // Tolerated storage forms (large_list data, other integer shapes) become
  // the canonical one: a copy of the offsets and shapes only.
  QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr canonical,
                          internal::CanonicalVariableShapeArray(data, type));
  auto normalized = std::make_shared<ArrayData>(*canonical);
  normalized->type = type.data_type();
  return VariableShapeTensorArray(std::move(type), std::move(normalized));
}

using internal::RowError;

Status VariableShapeTensorArray::CheckRow(int64_t i) const {
  const int64_t child_row = data_->offset + i;
  if (!data_->children[0]->IsValid(child_row)) {
    return RowError(i, "the row is valid but its data list is null");
  }
  const ArrayData& shape = *data_->children[1];
  if (!shape.IsValid(child_row)) return RowError(i, "the row is valid but its shape is null");
  const ArrayData& entries = *shape.children[0];
  for (int k = 0; k < type_.ndim(); ++k) {
    if (!entries.IsValid((shape.offset + child_row) * type_.ndim() + k)) {
      return RowError(i, "shape entry " + std::to_string(k) + " is null");
    }
  }
  std::vector<int64_t> physical(static_cast<size_t>(type_.ndim()));
  QUIVER_RETURN_NOT_OK(internal::VariableShapeStorage(*this).CheckedLayout(i, physical).status());
  Status uniform = type_.CheckUniform(internal::VariableShapeStorage(*this).PhysicalShape(i));
  if (!uniform.ok()) return RowError(i, uniform.message());
  return Status::OK();
}

Status VariableShapeTensorArray::CheckRows() const {
  if (length() > 0 && !shapes_ && type_.ndim() > 0) {
    return Status::Invalid("variable_shape_tensor shape buffer is missing");
  }
  for (int64_t i = 0; i < length(); ++i) {
    if (IsValid(i)) QUIVER_RETURN_NOT_OK(CheckRow(i));
  }
  return Status::OK();
}

Status internal::VariableShapeStorage::CheckRows(const ArrayData& data) {
  // A view of `data` for as long as this runs.
  const ArrayDataPtr alias(std::shared_ptr<const ArrayData>{}, &data);
  QUIVER_ASSIGN_OR_RETURN(VariableShapeTensorType type,
                          VariableShapeTensorType::FromDataType(data.type));
  // The tree was checked at kFull, so a tolerated storage form fails to
  // become canonical only where an offset or shape entry does not fit
  // int32: valid Arrow that quiver's canonical form cannot hold. The
  // import or read that rewrites it next refuses it, naming the column.
  auto canonical = CanonicalVariableShapeArray(alias, type);
  if (!canonical.ok()) return Status::OK();
  auto normalized = std::make_shared<ArrayData>(**canonical);
  normalized->type = type.data_type();
  return VariableShapeTensorArray(std::move(type), std::move(normalized)).CheckRows();
}

Status VariableShapeTensorArray::CheckNoNullRows() const {
  if (!data_->buffers[0] || data_->null_count == 0) return Status::OK();
  for (int64_t i = 0; i < length(); ++i) {
    if (!IsValid(i)) return internal::NullRowError(i);
  }
  return Status::OK();
}

Result<Tensor> VariableShapeTensorArray::RowTensor(int64_t i, NullPolicy nulls) const {
  if (i < 0 || i >= length()) {
    return Status::IndexError("row ", i, " is out of range for ", length(), " rows");
  }
  if (nulls == NullPolicy::kError && !IsValid(i)) return internal::NullRowError(i);
  QUIVER_RETURN_NOT_OK(internal::CheckDenseValues(type_, "view"));
  // Checked here, whatever level the array was made at, and used only as
  // read: the view never reaches past the row's data.
  const internal::VariableShapeStorage storage(*this);
  std::vector<int64_t> physical(static_cast<size_t>(type_.ndim()));
  QUIVER_ASSIGN_OR_RETURN(internal::RowRange range, storage.CheckedLayout(i, physical));
  QUIVER_RETURN_NOT_OK(internal::CheckNoNullElements(storage.values(), range.begin, range.end));
  const int64_t width = type_.value_type()->byte_width();
  const BufferPtr& values = storage.values().buffers[1];
  return Tensor::Make(type_.value_type(), internal::BufferOrEmpty(values),
                      internal::ToLogical(physical, type_.permutation()),
                      internal::LogicalStrides(width, physical, type_.permutation()),
                      type_.logical_dim_names(), values ? range.begin * width : 0);
}

Result<std::vector<std::optional<Tensor>>> VariableShapeTensorArray::RowTensors() const {
  std::vector<std::optional<Tensor>> out;
  out.reserve(static_cast<size_t>(length()));
  for (int64_t i = 0; i < length(); ++i) {
    if (!IsValid(i)) {
      out.emplace_back();
      continue;
    }
    QUIVER_ASSIGN_OR_RETURN(Tensor row, RowTensor(i));
    out.emplace_back(std::move(row));
  }
  return out;
}

Result<Tensor> VariableShapeTensorArray::PhysicalShapes() const {
  const int ndim = type_.ndim();
  const BufferPtr& buffer = data_->children[1]->children[0]->buffers[1];
  if (!buffer || length() == 0 || ndim == 0) {
    QUIVER_ASSIGN_OR_RETURN(BufferPtr empty, Buffer::Allocate(0));
    return Tensor::Make(int32(), std::move(empty), {length(), ndim});
  }
  const int64_t byte_offset = reinterpret_cast<const uint8_t*>(shapes_) - buffer->data();
  // Tensor::Make checks that the rows x ndim entries lie inside the buffer.
  return Tensor::Make(int32(), buffer, {length(), ndim}, {}, {}, byte_offset);
}

Result<Tensor> VariableShapeTensorArray::Shapes() const {
  if (type_.permutation().empty()) return PhysicalShapes();
  const int ndim = type_.ndim();
  QUIVER_ASSIGN_OR_RETURN(BufferPtr buffer, Buffer::Allocate(length() * ndim * 4));
  int32_t* out = internal::MutableAs<int32_t>(buffer);
  const internal::VariableShapeStorage storage(*this);
  for (int64_t i = 0; i < length(); ++i) {
    std::span<const int32_t> dims = storage.PhysicalShape(i);
    for (int k = 0; k < ndim; ++k) out[i * ndim + k] = dims[type_.physical_axis(k)];
  }
  return Tensor::Make(int32(), std::move(buffer), {length(), ndim});
}

UniformShape VariableShapeTensorArray::InferUniformShape() const {
  const int ndim = type_.ndim();
  UniformShape out(ndim);
  bool first = true;
  const internal::VariableShapeStorage storage(*this);
  for (int64_t i = 0; i < length(); ++i) {
    if (!IsValid(i)) continue;
    std::span<const int32_t> dims = storage.PhysicalShape(i);
    for (int k = 0; k < ndim; ++k) {
      if (first) {
        out[k] = dims[k];
      } else if (out[k] != dims[k]) {
        out[k].reset();  // once an axis varies it stays null
      }
    }
    first = false;
  }
  return out;
}

Result<VariableShapeTensorArray> VariableShapeTensorArray::WithUniformShape(
    UniformShape uniform_shape) const {
  QUIVER_ASSIGN_OR_RETURN(VariableShapeTensorType type,
                          type_.WithUniformShape(std::move(uniform_shape)));
  auto data = std::make_shared<ArrayData>(*data_);
  data->type = type.data_type();
  VariableShapeTensorArray out(std::move(type), std::move(data));
  const internal::VariableShapeStorage storage(out);
  for (int64_t i = 0; i < length(); ++i) {
    if (!IsValid(i)) continue;
    Status fits = out.type_.CheckUniform(storage.PhysicalShape(i));
    if (!fits.ok()) return RowError(i, fits.message());
  }
  return out;
}

Result<VariableShapeTensorArray> VariableShapeTensorArray::Slice(int64_t offset,
                                                                 int64_t length) const {
  QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr sliced, quiver::Slice(data_, offset, length));
  return VariableShapeTensorArray(type_, std::move(sliced));
}

Result<VariableShapeTensorArray::Jagged> VariableShapeTensorArray::ToJagged(
    NullPolicy nulls) const {
  if (nulls == NullPolicy::kError) QUIVER_RETURN_NOT_OK(CheckNoNullRows());
  QUIVER_RETURN_NOT_OK(internal::CheckDenseValues(type_, "lay out"));
  const int64_t n = length();
  const internal::VariableShapeStorage storage(*this);
  // The offsets, read once and checked, are both the output and the range
  // of values the flat view covers.
  QUIVER_ASSIGN_OR_RETURN(BufferPtr offsets, Buffer::Allocate((n + 1) * 8));
  std::span<int64_t> out(internal::MutableAs<int64_t>(offsets), static_cast<size_t>(n + 1));
  QUIVER_RETURN_NOT_OK(storage.CheckedOffsets(0, n, out));
  const int64_t start = out[0];
  const int64_t first = storage.values().offset + start;
  const int64_t last = storage.values().offset + out[static_cast<size_t>(n)];
  for (int64_t& offset : out) offset -= start;
  QUIVER_RETURN_NOT_OK(internal::CheckNoNullElements(storage.values(), first, last));
  const int64_t width = type_.value_type()->byte_width();
  const BufferPtr& values = storage.values().buffers[1];
  QUIVER_ASSIGN_OR_RETURN(
      Tensor flat, Tensor::Make(type_.value_type(), internal::BufferOrEmpty(values), {last - first},
                                {}, {}, values ? first * width : 0));
  QUIVER_ASSIGN_OR_RETURN(Tensor offsets_tensor,
                          Tensor::Make(int64(), std::move(offsets), {n + 1}));
  QUIVER_ASSIGN_OR_RETURN(Tensor shapes, PhysicalShapes());
  return Jagged{std::move(flat), std::move(offsets_tensor), std::move(shapes)};
}

}  // namespace quiver
