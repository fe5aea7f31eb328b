// arrow.fixed_shape_tensor: one tensor of the same shape per row, stored as
// FixedSizeList<value_type>[product(shape)] (see docs/formats.md,
// "arrow.fixed_shape_tensor").
//
// `shape` and `dim_names` describe the PHYSICAL layout of each cell (row-
// major). With permutation P, logical axis i is physical axis P[i]: the
// logical view is physical.reshape(shape).transpose(P), as NumPy would say.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "quiver/array.h"
#include "quiver/conversion.h"
#include "quiver/status.h"
#include "quiver/tensor.h"
#include "quiver/type.h"

namespace quiver {

class FixedShapeTensorType {
 public:
  static constexpr const char* kExtensionName = "arrow.fixed_shape_tensor";

  // value_type must be numeric or bool; shape entries >= 0 with a product
  // that fits int32; dim_names empty or one per axis; permutation empty or
  // a permutation of 0..ndim-1.
  static Result<FixedShapeTensorType> Make(TypePtr value_type, std::vector<int64_t> shape,
                                           std::vector<std::string> dim_names = {},
                                           std::vector<int64_t> permutation = {});
  // Parses an extension DataType named arrow.fixed_shape_tensor, keeping its
  // storage type exactly as given (field names included).
  static Result<FixedShapeTensorType> FromDataType(const TypePtr& type);
  // Parses the metadata JSON against a storage type.
  static Result<FixedShapeTensorType> Deserialize(const TypePtr& storage,
                                                  std::string_view metadata);

  // The metadata JSON, e.g. {"shape":[2,3],"dim_names":["H","W"]}.
  std::string Serialize() const;

  const TypePtr& value_type() const { return value_type_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  const std::vector<std::string>& dim_names() const { return dim_names_; }
  const std::vector<int64_t>& permutation() const { return permutation_; }
  int ndim() const { return static_cast<int>(shape_.size()); }
  // Elements per cell: product(shape).
  int32_t list_size() const { return list_size_; }
  // The extension DataType (storage + serialized metadata).
  const TypePtr& data_type() const { return data_type_; }

  // Shape, dim_names and byte strides of one cell in logical order.
  std::vector<int64_t> logical_shape() const;
  std::vector<std::string> logical_dim_names() const;
  std::vector<int64_t> logical_strides() const;

  bool Equals(const FixedShapeTensorType& other) const;
  // "fixed_shape_tensor<float32>[2, 3] dim_names=[H, W] permutation=[1, 0]"
  std::string ToString() const;

 private:
  TypePtr value_type_;
  std::vector<int64_t> shape_;
  std::vector<std::string> dim_names_;
  std::vector<int64_t> permutation_;
  int32_t list_size_ = 0;
  TypePtr data_type_;
};

class FixedShapeTensorArray {
 public:
  // Wraps array data whose type is arrow.fixed_shape_tensor, validating the
  // storage at `level`.
  static Result<FixedShapeTensorArray> Make(ArrayDataPtr data,
                                            ValidationLevel level = ValidationLevel::kFull);

  // Rows from axis 0 of `tensor`; the remaining axes are the cell's logical
  // axes and tensor.dim_names()[1:] their names. Zero-copy when each cell
  // is a permuted contiguous block and rows follow each other (the type
  // then records the permutation); otherwise copies into row-major cells
  // if `copy` allows it. `copied`, when given, says which happened.
  static Result<FixedShapeTensorArray> FromTensor(const Tensor& tensor,
                                                  CopyMode copy = CopyMode::kNever,
                                                  bool* copied = nullptr);

  // The whole array as one tensor of logical shape [length] + cell shape,
  // zero-copy (row offset honoured). Null rows are an error unless allowed.
  Result<Tensor> ToTensor(NullPolicy nulls = NullPolicy::kError) const;
  // The logical tensor of row i, zero-copy.
  Result<Tensor> RowTensor(int64_t i, NullPolicy nulls = NullPolicy::kError) const;

  Result<FixedShapeTensorArray> Slice(int64_t offset, int64_t length) const;

  // --- Selection (copies: each selected cell once, null rows kept) ------
  // Rows at `indices` (0 <= index < length, else IndexError), in order.
  Result<FixedShapeTensorArray> Take(std::span<const int64_t> indices) const;
  // Rows whose mask entry is non-zero; mask.size() must equal length().
  Result<FixedShapeTensorArray> Filter(std::span<const uint8_t> mask) const;
  // The rows of every array in order; their types must be equal (an
  // explicit identity permutation equals none). The result has the first
  // array's type.
  static Result<FixedShapeTensorArray> Concat(std::span<const FixedShapeTensorArray> arrays);
  // The same cells (zero-copy) with the rows whose `null_rows` entry is
  // non-zero made null, on top of the rows already null; null_rows.size()
  // must equal length(). Only the validity bitmap is written.
  Result<FixedShapeTensorArray> WithNullRows(std::span<const uint8_t> null_rows) const;

  const FixedShapeTensorType& type() const { return type_; }
  const ArrayDataPtr& data() const { return data_; }
  int64_t length() const { return data_->length; }
  int64_t null_count() const { return data_->ComputeNullCount(); }
  bool IsValid(int64_t i) const { return data_->IsValid(i); }

 private:
  FixedShapeTensorArray(FixedShapeTensorType type, ArrayDataPtr data)
      : type_(std::move(type)), data_(std::move(data)) {}
  Status CheckNulls(int64_t begin, int64_t end) const;
  Result<Tensor> CellsTensor(int64_t first_row, int64_t rows, bool with_row_axis) const;

  FixedShapeTensorType type_;
  ArrayDataPtr data_;
};

}  // namespace quiver
