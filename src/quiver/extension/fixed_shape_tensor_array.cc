// FixedShapeTensorArray: zero-copy views between the column and tensors.
#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>
#include <span>

#include "quiver/extension/null_rows.h"
#include "quiver/extension/tensor_metadata.h"
#include "quiver/fixed_shape_tensor.h"
#include "quiver/internal/builders.h"
#include "quiver/internal/checked_math.h"

namespace quiver {

Result<FixedShapeTensorArray> FixedShapeTensorArray::Make(ArrayDataPtr data,
                                                          ValidationLevel level) {
  if (!data) return Status::Invalid("fixed_shape_tensor array has no data");
  QUIVER_ASSIGN_OR_RETURN(FixedShapeTensorType type,
                          FixedShapeTensorType::FromDataType(data->type));
  QUIVER_RETURN_NOT_OK(Validate(*data, level));
  return FixedShapeTensorArray(std::move(type), std::move(data));
}

namespace {

// Whether `data` may hold nulls: false, without a walk, when it has no
// bitmap or its null count is known to be 0.
bool MayHaveNulls(const ArrayData& data) {
  return data.buffers[0] != nullptr && data.null_count != 0;
}

}  // namespace

Status FixedShapeTensorArray::CheckNulls(int64_t begin, int64_t end) const {
  if (MayHaveNulls(*data_)) {
    for (int64_t row = begin; row < end; ++row) {
      if (!data_->IsValid(row)) return internal::NullRowError(row);
    }
  }
  const ArrayData& child = *data_->children[0];
  if (!MayHaveNulls(child)) return Status::OK();
  const int64_t cell = type_.list_size();
  for (int64_t row = begin; row < end; ++row) {
    for (int64_t e = 0; e < cell; ++e) {
      if (!child.IsValid((data_->offset + row) * cell + e)) {
        return Status::Invalid("row ", row, " element ", e,
                               " is null; tensors cannot hold null elements");
      }
    }
  }
  return Status::OK();
}

Result<Tensor> FixedShapeTensorArray::CellsTensor(int64_t first_row, int64_t rows,
                                                  bool with_row_axis) const {
  const TypePtr& value_type = type_.value_type();
  if (!value_type->is_tensor_value()) {
    return Status::NotImplemented("cannot view ", value_type->ToString(),
                                  " cells as a tensor: Arrow bools are bit-packed");
  }
  const ArrayData& child = *data_->children[0];
  const int64_t width = value_type->byte_width();
  const int64_t cell_bytes = type_.list_size() * width;
  // Validation guaranteed child.length >= (offset + length) * list_size, so
  // these products fit.
  int64_t byte_offset = (child.offset + (data_->offset + first_row) * type_.list_size()) * width;
  BufferPtr values = child.buffers[1];
  if (!values) {  // an empty array may come without a values buffer
    values = internal::BufferOrEmpty(values);
    byte_offset = 0;
  }
  std::vector<int64_t> shape = type_.logical_shape();
  std::vector<int64_t> strides = type_.logical_strides();
  std::vector<std::string> names = type_.logical_dim_names();
  if (with_row_axis) {
    shape.insert(shape.begin(), rows);
    strides.insert(strides.begin(), cell_bytes);
    if (!names.empty()) names.insert(names.begin(), "");
  }
  return Tensor::Make(value_type, std::move(values), std::move(shape), std::move(strides),
                      std::move(names), byte_offset);
}

Result<Tensor> FixedShapeTensorArray::ToTensor(NullPolicy nulls) const {
  if (nulls == NullPolicy::kError) QUIVER_RETURN_NOT_OK(CheckNulls(0, length()));
  return CellsTensor(0, length(), /*with_row_axis=*/true);
}

Result<Tensor> FixedShapeTensorArray::RowTensor(int64_t i, NullPolicy nulls) const {
  if (i < 0 || i >= length()) {
    return Status::IndexError("row ", i, " is out of range for ", length(), " rows");
  }
  if (nulls == NullPolicy::kError) QUIVER_RETURN_NOT_OK(CheckNulls(i, i + 1));
  return CellsTensor(i, 1, /*with_row_axis=*/false);
}

Result<FixedShapeTensorArray> FixedShapeTensorArray::Slice(int64_t offset, int64_t length) const {
  QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr sliced, quiver::Slice(data_, offset, length));
  return FixedShapeTensorArray(type_, std::move(sliced));
}

namespace {

// Physical axis order Q of a cell with logical shape/strides, or nullopt
// when the cell is not a permuted contiguous block. Q[j] is the logical
// axis stored as physical axis j (Q = stable_argsort(-T); docs/formats.md,
// "Permutation").
std::optional<std::vector<int64_t>> PhysicalOrder(std::span<const int64_t> shape,
                                                  std::span<const int64_t> strides, int64_t width) {
  std::vector<int64_t> order(shape.size());
  std::iota(order.begin(), order.end(), 0);
  std::vector<int64_t> expected = *RowMajorStrides(width, shape);
  bool row_major = true;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] > 1 && strides[i] != expected[i]) row_major = false;
  }
  if (row_major) return order;  // prefer no permutation when it fits
  // Size-1 axes may carry any stride; sort them outermost so they never
  // split a run of real axes.
  auto key = [&](int64_t axis) {
    return shape[axis] == 1 ? std::numeric_limits<int64_t>::max() : strides[axis];
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return key(a) > key(b); });
  std::vector<int64_t> physical(shape.size());
  for (size_t j = 0; j < order.size(); ++j) physical[j] = shape[order[j]];
  std::vector<int64_t> row_strides = *RowMajorStrides(width, physical);
  for (size_t j = 0; j < order.size(); ++j) {
    if (physical[j] > 1 && strides[order[j]] != row_strides[j]) return std::nullopt;
  }
  return order;
}

Result<FixedShapeTensorArray> WrapCells(const Tensor& tensor, BufferPtr values, int64_t byte_offset,
                                        std::vector<int64_t> order) {
  const int64_t rows = tensor.shape()[0];
  std::vector<int64_t> logical(tensor.shape().begin() + 1, tensor.shape().end());
  std::vector<std::string> names;
  if (!tensor.dim_names().empty())
    names.assign(tensor.dim_names().begin() + 1, tensor.dim_names().end());
  std::vector<int64_t> physical(order.size());
  std::vector<std::string> physical_names(names.empty() ? 0 : order.size());
  for (size_t j = 0; j < order.size(); ++j) {
    physical[j] = logical[order[j]];
    if (!names.empty()) physical_names[j] = names[order[j]];
  }
  bool identity = std::is_sorted(order.begin(), order.end());
  std::vector<int64_t> permutation =
      identity ? std::vector<int64_t>{} : internal::InvertPermutation(order);
  QUIVER_ASSIGN_OR_RETURN(
      FixedShapeTensorType type,
      FixedShapeTensorType::Make(tensor.type(), std::move(physical), std::move(physical_names),
                                 std::move(permutation)));
  const int64_t width = tensor.type()->byte_width();
  QUIVER_ASSIGN_OR_RETURN(int64_t child_length,
                          internal::MultiplyChecked(rows, type.list_size(), "rows"));
  QUIVER_ASSIGN_OR_RETURN(BufferPtr sliced,
                          Buffer::Slice(std::move(values), byte_offset, child_length * width));
  auto child = std::make_shared<ArrayData>();
  child->type = tensor.type();
  child->length = child_length;
  child->null_count = 0;
  child->buffers = {nullptr, std::move(sliced)};
  auto data = std::make_shared<ArrayData>();
  data->type = type.data_type();
  data->length = rows;
  data->null_count = 0;
  data->buffers = {nullptr};
  data->children = {std::move(child)};
  return FixedShapeTensorArray::Make(std::move(data), ValidationLevel::kMinimal);
}

}  // namespace

Result<FixedShapeTensorArray> FixedShapeTensorArray::FromTensor(const Tensor& tensor, CopyMode copy,
                                                                bool* copied) {
  if (tensor.ndim() < 1) {
    return Status::Invalid("a fixed_shape_tensor array needs a tensor with a row axis (ndim >= 1)");
  }
  QUIVER_RETURN_NOT_OK(tensor.CheckOnHost());  // columns live in host memory
  const int64_t width = tensor.type()->byte_width();
  std::span<const int64_t> cell_shape(tensor.shape().begin() + 1, tensor.shape().end());
  std::span<const int64_t> cell_strides(tensor.strides().begin() + 1, tensor.strides().end());
  QUIVER_ASSIGN_OR_RETURN(int64_t cell_elems, internal::ShapeProduct(cell_shape, "cell shape"));
  QUIVER_ASSIGN_OR_RETURN(int64_t cell_bytes,
                          internal::MultiplyChecked(cell_elems, width, "cell size"));
  std::optional<std::vector<int64_t>> order;
  if (copy != CopyMode::kAlways) {
    bool rows_adjacent = tensor.shape()[0] <= 1 || tensor.strides()[0] == cell_bytes;
    if (tensor.size() == 0) {
      // No bytes to lay out: any strides will do, so store plain row-major.
      order = PhysicalOrder(cell_shape, *RowMajorStrides(width, cell_shape), width);
    } else if (rows_adjacent || cell_elems == 0) {
      order = PhysicalOrder(cell_shape, cell_strides, width);
    }
  }
  if (copied) *copied = !order.has_value();
  if (order) return WrapCells(tensor, tensor.buffer(), tensor.byte_offset(), std::move(*order));
  if (copy == CopyMode::kNever) {
    return Status::Invalid("tensor with shape ", internal::FormatShape(tensor.shape()),
                           " and strides ", internal::FormatShape(tensor.strides()),
                           " is not a sequence of permuted contiguous cells; a copy is needed");
  }
  QUIVER_ASSIGN_OR_RETURN(Tensor contiguous, tensor.ToContiguous());
  std::vector<int64_t> identity(cell_shape.size());
  std::iota(identity.begin(), identity.end(), 0);
  return WrapCells(contiguous, contiguous.buffer(), 0, std::move(identity));
}

}  // namespace quiver
