// VariableShapeTensorArray: wrapping, row checks, zero-copy row views.
#include <algorithm>
#include <limits>

#include "quiver/internal/checked_math.h"
#include "quiver/internal/tensor_metadata.h"
#include "quiver/variable_shape_tensor.h"
#include "quiver/internal/variable_shape_storage.h"

namespace quiver {

namespace {

// Offsets of an array without an offsets buffer (length 0).
constexpr int32_t kNoOffsets[1] = {0};

template <typename T>
const T* BufferAs(const BufferPtr& buffer) {
  return buffer ? reinterpret_cast<const T*>(buffer->data()) : nullptr;
}

// The draft form's uint32 shapes as int32 (the final form), same layout.
Result<ArrayDataPtr> ConvertDraftShapes(const ArrayData& shape, const TypePtr& final_type) {
  const ArrayData& entries = *shape.children[0];
  const int64_t count = entries.offset + entries.length;
  QUIVER_ASSIGN_OR_RETURN(BufferPtr converted, Buffer::Allocate(count * 4));
  const uint32_t* in = BufferAs<uint32_t>(entries.buffers[1]);
  int32_t* out = internal::MutableAs<int32_t>(converted);
  for (int64_t e = 0; e < count && in; ++e) {
    if (in[e] > static_cast<uint32_t>(std::numeric_limits<int32_t>::max())) {
      return Status::Invalid("shape entry " + std::to_string(e - entries.offset) + " (" +
                             std::to_string(in[e]) + ") does not fit int32");
    }
    out[e] = static_cast<int32_t>(in[e]);
  }
  auto new_entries = std::make_shared<ArrayData>(entries);
  new_entries->type = int32();
  new_entries->buffers[1] = std::move(converted);
  auto new_shape = std::make_shared<ArrayData>(shape);
  new_shape->type = final_type;
  new_shape->children = {std::move(new_entries)};
  return ArrayDataPtr(std::move(new_shape));
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
  QUIVER_RETURN_NOT_OK(Validate(*data, std::max(level, ValidationLevel::kMinimal)));
  auto normalized = std::make_shared<ArrayData>(*data);
  normalized->type = type.data_type();
  const TypePtr& final_shape_type = type.data_type()->storage_type()->children()[1].type;
  if (data->children[1]->children[0]->type->id() == TypeId::kUInt32) {
    QUIVER_ASSIGN_OR_RETURN(normalized->children[1],
                            ConvertDraftShapes(*data->children[1], final_shape_type));
  }
  VariableShapeTensorArray out(std::move(type), std::move(normalized));
  if (level == ValidationLevel::kFull) QUIVER_RETURN_NOT_OK(out.CheckRows());
  return out;
}

using internal::RowError;

Status VariableShapeTensorArray::CheckRowLayout(int64_t i) const {
  std::span<const int32_t> dims = PhysicalShape(i);
  // Sizes fit int32; the product saturates past kCap (far above any data
  // length an int32-offset list can hold) instead of overflowing.
  constexpr int64_t kCap = int64_t{1} << 40;
  int64_t product = 1;
  for (int32_t size : dims) {
    if (size < 0) return RowError(i, "shape " + internal::FormatShape(dims) + " has a negative size");
    product = (size != 0 && product > kCap / size) ? kCap + 1 : product * size;
  }
  const int64_t length = RowEnd(i) - RowBegin(i);
  if (length != product) {
    std::string product_text = product <= kCap ? std::to_string(product) : "more than 2^40";
    return RowError(i, "data length " + std::to_string(length) + " != product of shape " +
                           internal::FormatShape(dims) + " (" + product_text + ")");
  }
  return Status::OK();
}

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
  QUIVER_RETURN_NOT_OK(CheckRowLayout(i));
  Status uniform = type_.CheckUniform(PhysicalShape(i));
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

Status VariableShapeTensorArray::CheckNoNullRows() const {
  if (!data_->buffers[0] || data_->null_count == 0) return Status::OK();
  for (int64_t i = 0; i < length(); ++i) {
    if (!IsValid(i)) {
      return Status::Invalid("row " + std::to_string(i) +
                             " is null; pass NullPolicy::kAllow (allow_nulls=True) to accept "
                             "null rows");
    }
  }
  return Status::OK();
}

Result<Tensor> VariableShapeTensorArray::RowTensor(int64_t i, NullPolicy nulls) const {
  if (i < 0 || i >= length()) {
    return Status::IndexError("row " + std::to_string(i) + " is out of range for " +
                              std::to_string(length()) + " rows");
  }
  if (nulls == NullPolicy::kError && !IsValid(i)) {
    return Status::Invalid("row " + std::to_string(i) +
                           " is null (pass NullPolicy::kAllow to view what the slot holds)");
  }
  QUIVER_RETURN_NOT_OK(internal::CheckDenseValues(type_, "view"));
  // Checked again here so that arrays made at a lower validation level
  // still never produce a view past the row's data.
  QUIVER_RETURN_NOT_OK(CheckRowLayout(i));
  QUIVER_RETURN_NOT_OK(internal::CheckNoNullElements(values(), RowBegin(i), RowEnd(i)));
  const int ndim = type_.ndim();
  const int64_t width = type_.value_type()->byte_width();
  std::span<const int32_t> dims = PhysicalShape(i);
  std::vector<int64_t> physical(dims.begin(), dims.end());
  QUIVER_ASSIGN_OR_RETURN(std::vector<int64_t> strides, RowMajorStrides(width, physical));
  std::vector<int64_t> shape(ndim), logical_strides(ndim);
  for (int k = 0; k < ndim; ++k) {
    shape[k] = physical[type_.physical_axis(k)];
    logical_strides[k] = strides[type_.physical_axis(k)];
  }
  BufferPtr buffer = values().buffers[1];
  int64_t byte_offset = RowBegin(i) * width;
  if (!buffer) {  // rows without elements may come without a values buffer
    QUIVER_ASSIGN_OR_RETURN(buffer, Buffer::Allocate(0));
    byte_offset = 0;
  }
  return Tensor::Make(type_.value_type(), std::move(buffer), std::move(shape),
                      std::move(logical_strides), type_.logical_dim_names(), byte_offset);
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
  return Tensor::Make(int32(), buffer, {length(), ndim}, {}, {}, byte_offset);
}

Result<Tensor> VariableShapeTensorArray::Shapes() const {
  if (type_.permutation().empty()) return PhysicalShapes();
  const int ndim = type_.ndim();
  QUIVER_ASSIGN_OR_RETURN(BufferPtr buffer, Buffer::Allocate(length() * ndim * 4));
  int32_t* out = internal::MutableAs<int32_t>(buffer);
  for (int64_t i = 0; i < length(); ++i) {
    std::span<const int32_t> dims = PhysicalShape(i);
    for (int k = 0; k < ndim; ++k) out[i * ndim + k] = dims[type_.physical_axis(k)];
  }
  return Tensor::Make(int32(), std::move(buffer), {length(), ndim});
}

UniformShape VariableShapeTensorArray::InferUniformShape() const {
  const int ndim = type_.ndim();
  UniformShape out(ndim);
  bool first = true;
  for (int64_t i = 0; i < length(); ++i) {
    if (!IsValid(i)) continue;
    std::span<const int32_t> dims = PhysicalShape(i);
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
  for (int64_t i = 0; i < length(); ++i) {
    if (!IsValid(i)) continue;
    Status fits = out.type_.CheckUniform(PhysicalShape(i));
    if (!fits.ok()) return RowError(i, fits.message());
  }
  return out;
}

Result<VariableShapeTensorArray> VariableShapeTensorArray::Slice(int64_t offset,
                                                                 int64_t length) const {
  QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr sliced, quiver::Slice(data_, offset, length));
  return VariableShapeTensorArray(type_, std::move(sliced));
}

Result<VariableShapeTensorArray::Jagged> VariableShapeTensorArray::ToJagged(NullPolicy nulls) const {
  if (nulls == NullPolicy::kError) QUIVER_RETURN_NOT_OK(CheckNoNullRows());
  QUIVER_RETURN_NOT_OK(internal::CheckDenseValues(type_, "lay out"));
  const int64_t n = length();
  const int64_t first = n > 0 ? RowBegin(0) : 0;
  const int64_t last = n > 0 ? RowEnd(n - 1) : 0;
  QUIVER_RETURN_NOT_OK(internal::CheckNoNullElements(values(), first, last));
  const int64_t width = type_.value_type()->byte_width();
  BufferPtr buffer = values().buffers[1];
  int64_t byte_offset = first * width;
  if (!buffer) {
    QUIVER_ASSIGN_OR_RETURN(buffer, Buffer::Allocate(0));
    byte_offset = 0;
  }
  QUIVER_ASSIGN_OR_RETURN(Tensor flat, Tensor::Make(type_.value_type(), std::move(buffer),
                                                    {last - first}, {}, {}, byte_offset));
  QUIVER_ASSIGN_OR_RETURN(BufferPtr offsets, Buffer::Allocate((n + 1) * 8));
  int64_t* out = internal::MutableAs<int64_t>(offsets);
  for (int64_t i = 0; i <= n; ++i) out[i] = offsets_[i] - offsets_[0];
  QUIVER_ASSIGN_OR_RETURN(Tensor offsets_tensor, Tensor::Make(int64(), std::move(offsets), {n + 1}));
  QUIVER_ASSIGN_OR_RETURN(Tensor shapes, PhysicalShapes());
  return Jagged{std::move(flat), std::move(offsets_tensor), std::move(shapes)};
}

}  // namespace quiver
