// arrow.variable_shape_tensor: one tensor per row, each with its own shape
// and a common number of dimensions (see docs/formats.md,
// "arrow.variable_shape_tensor").
//
// Storage: Struct<data: List<value_type>, shape: FixedSizeList<int32>[ndim]>.
// Row i holds its elements in data[i], row-major in its PHYSICAL shape
// shape[i]. `dim_names` and `uniform_shape` describe physical axes; with a
// permutation P, logical axis k is physical axis P[k] (as for the fixed-
// shape type). Shapes handed to or returned by the padded builders and
// Shapes() are LOGICAL; the jagged layout is the storage layout and uses
// PHYSICAL shapes.
//
// Every kernel that reads a row (views, to_padded, take, filter, concat,
// to_fixed, to_jagged) reads its offsets and shape once and checks them
// against the values before touching any element, whatever level the
// array was validated at; so storage shared with a caller (FromJagged)
// that is changed afterwards gives errors or other values, never reads out
// of bounds.
//
// The data list has int32 offsets, so one array holds at most 2^31 - 1
// elements in total. Builders that would exceed it fail with Invalid and
// say so; split the rows over several arrays (record batches) instead.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "quiver/array.h"
#include "quiver/fixed_shape_tensor.h"
#include "quiver/pad_value.h"
#include "quiver/status.h"
#include "quiver/tensor.h"
#include "quiver/type.h"

namespace quiver {

namespace internal {
class VariableShapeStorage;
}  // namespace internal

// One entry per physical axis: the size every row has there, or nullopt
// where sizes vary. An empty UniformShape records nothing.
using UniformShape = std::vector<std::optional<int64_t>>;

class VariableShapeTensorType {
 public:
  static constexpr const char* kExtensionName = "arrow.variable_shape_tensor";

  // value_type must be numeric or bool; ndim >= 0; dim_names empty or one
  // per axis; permutation empty or a permutation of 0..ndim-1;
  // uniform_shape empty or ndim entries, each null or in [0, 2^31 - 1].
  static Result<VariableShapeTensorType> Make(TypePtr value_type, int ndim,
                                              std::vector<std::string> dim_names = {},
                                              std::vector<int64_t> permutation = {},
                                              UniformShape uniform_shape = {});
  // Parses an extension DataType named arrow.variable_shape_tensor. Draft
  // forms are accepted (uint32 shapes; ndim, ragged_dimensions and
  // uniform_dimensions keys), and so are the storage forms other writers
  // produce (large_list data as Polars exports it, shape entries of any
  // integer type); data_type() is always the final form with canonical
  // storage (the producer's field names kept).
  static Result<VariableShapeTensorType> FromDataType(const TypePtr& type);
  // Parses the metadata JSON against a storage type. "" and "{}" both mean
  // no parameters.
  static Result<VariableShapeTensorType> Deserialize(const TypePtr& storage,
                                                     std::string_view metadata);

  // The final-form metadata JSON, e.g. {"uniform_shape":[null,3]}; "{}"
  // when there are no parameters.
  std::string Serialize() const;

  const TypePtr& value_type() const { return value_type_; }
  int ndim() const { return ndim_; }
  const std::vector<std::string>& dim_names() const { return dim_names_; }
  const std::vector<int64_t>& permutation() const { return permutation_; }
  const UniformShape& uniform_shape() const { return uniform_shape_; }
  // The extension DataType in final form.
  const TypePtr& data_type() const { return data_type_; }

  // Logical axis k is physical axis physical_axis(k).
  int physical_axis(int k) const {
    return permutation_.empty() ? k : static_cast<int>(permutation_[k]);
  }
  std::vector<std::string> logical_dim_names() const;
  // uniform_shape in logical axis order (empty when none is recorded).
  UniformShape logical_uniform_shape() const;

  // OK when `physical_shape` agrees with uniform_shape; otherwise Invalid
  // naming the axis.
  Status CheckUniform(std::span<const int32_t> physical_shape) const;

  // The same type with another uniform_shape.
  Result<VariableShapeTensorType> WithUniformShape(UniformShape uniform_shape) const;

  bool Equals(const VariableShapeTensorType& other) const;
  // "variable_shape_tensor<float32, ndim=3> uniform_shape=[null, null, 3]"
  std::string ToString() const;

 private:
  TypePtr value_type_;
  int ndim_ = 0;
  std::vector<std::string> dim_names_;
  std::vector<int64_t> permutation_;
  UniformShape uniform_shape_;
  TypePtr data_type_;
};

class VariableShapeTensorArray {
 public:
  // Wraps array data whose type is arrow.variable_shape_tensor. The storage
  // is validated at `level` (at least kMinimal: buffer and child counts are
  // always checked); at kFull every row is checked too (shapes >= 0,
  // data length == product of shape, uniform_shape holds, a non-null row
  // has non-null data and shape). Tolerated storage (large_list data,
  // shapes of another integer type) is rewritten into the canonical form,
  // copying the offsets and shapes but never the values; offsets the rows
  // span beyond 2^31 - 1, and shape entries beyond int32, are Invalid
  // naming the row.
  static Result<VariableShapeTensorArray> Make(ArrayDataPtr data,
                                               ValidationLevel level = ValidationLevel::kFull);

  // --- Builders ---------------------------------------------------------
  // Rows from LOGICAL tensors (nullopt = null row), copied once into one
  // values buffer, each laid out in its physical order. Every tensor must
  // have type.ndim() axes, the value type, and fit type.uniform_shape().
  static Result<VariableShapeTensorArray> FromTensors(
      const VariableShapeTensorType& type, std::span<const std::optional<Tensor>> tensors);
  // One row of FromRowViews: host memory the caller keeps alive and
  // unchanged for the call, holding type.value_type() values. `shape` (in
  // elements) and `strides` (in bytes, any sign) are logical and must
  // describe memory the caller owns (data may be nullptr for an empty row).
  struct RowView {
    bool null = false;  // a null row: the rest is ignored
    const uint8_t* data = nullptr;
    std::span<const int64_t> shape;
    std::span<const int64_t> strides;
  };
  // FromTensors without a Tensor per row (the Python binding reads NumPy
  // arrays this way): the same checks of every row's ndim, sizes and
  // uniform_shape, then one copy, on two threads when it is large.
  static Result<VariableShapeTensorArray> FromRowViews(const VariableShapeTensorType& type,
                                                       std::span<const RowView> rows);
  // Rows from the storage layout: `values` (1-D, contiguous) holds each
  // row's elements back to back, `shapes` (N x ndim, int32 or int64) the
  // PHYSICAL shape of each row, `offsets` (N + 1 entries, int32 or int64)
  // where each row starts in `values`, or nullopt to derive them from the
  // shapes. Zero-copy for values, and for int32 offsets and shapes.
  static Result<VariableShapeTensorArray> FromJagged(const VariableShapeTensorType& type,
                                                     const Tensor& values, const Tensor& shapes,
                                                     const std::optional<Tensor>& offsets = {});
  // Rows cut from a padded batch of LOGICAL shape (N, *max_shape): row i is
  // padded[i, :shapes[i, 0], :shapes[i, 1], ...]. Copies.
  static Result<VariableShapeTensorArray> FromPadded(const VariableShapeTensorType& type,
                                                     const Tensor& padded, const Tensor& shapes);
  // Every row of `fixed`, zero-copy for the values (offsets and shapes are
  // written); uniform_shape is the fixed shape.
  static Result<VariableShapeTensorArray> FromFixed(const FixedShapeTensorArray& fixed);

  // --- Outputs ----------------------------------------------------------
  // Row i as a LOGICAL strided view, zero-copy. Null rows are an error
  // unless allowed.
  Result<Tensor> RowTensor(int64_t i, NullPolicy nulls = NullPolicy::kError) const;
  // Every row as a view; nullopt for null rows.
  Result<std::vector<std::optional<Tensor>>> RowTensors() const;
  // LOGICAL shapes as an N x ndim int32 tensor: a view of the storage when
  // there is no permutation, a copy otherwise. Null rows read as stored.
  Result<Tensor> Shapes() const;

  struct Padded {
    Tensor values;  // (N, *max_shape), LOGICAL axes, row-major, a copy
    Tensor shapes;  // N x ndim int32, LOGICAL
  };
  // The rows padded to the largest logical shape with `pad_value`, which
  // must be exactly representable in the value type. With kAllow, null
  // rows come out all padding with shape zeros. Large batches are copied
  // by two threads.
  Result<Padded> ToPadded(PadValue pad_value = 0, NullPolicy nulls = NullPolicy::kError) const;
  // The padded batch written into caller memory: `out` is writable,
  // row-major (C-contiguous) memory of `out_shape` elements of the value
  // type, and `out_shape` must be (N, *cell) with every cell size at least
  // the padded shape's (N, *max_shape), else Invalid naming both: a larger
  // cell pads the rows further. Every byte of `out` is written (padding
  // included); nothing is allocated but the returned shapes (N x ndim int32).
  Result<Tensor> ToPaddedInto(uint8_t* out, std::span<const int64_t> out_shape,
                              PadValue pad_value = 0, NullPolicy nulls = NullPolicy::kError) const;

  struct Jagged {
    Tensor values;   // 1-D, every row's elements back to back (zero-copy)
    Tensor offsets;  // N + 1 int64 element offsets into values, from 0
    Tensor shapes;   // N x ndim int32, PHYSICAL shapes
  };
  Result<Jagged> ToJagged(NullPolicy nulls = NullPolicy::kError) const;

  // Every row of the same shape: a fixed_shape_tensor array with the same
  // dim_names and permutation, zero-copy when the rows' data is evenly
  // spaced, else copied if `copy` allows. An empty array needs a complete
  // uniform_shape to know its shape.
  Result<FixedShapeTensorArray> ToFixed(CopyMode copy = CopyMode::kIfNeeded,
                                        bool* copied = nullptr) const;

  // --- uniform_shape ----------------------------------------------------
  // Per physical axis, the size shared by every non-null row (nullopt where
  // rows differ). An array without non-null rows gives all nullopt.
  UniformShape InferUniformShape() const;
  // The same data under a type recording `uniform_shape`, checked on every
  // non-null row (empty clears it).
  Result<VariableShapeTensorArray> WithUniformShape(UniformShape uniform_shape) const;

  // --- Selection (copies except Slice) -----------------------------------
  Result<VariableShapeTensorArray> Slice(int64_t offset, int64_t length) const;
  // Rows at `indices` (negative indices are errors), in that order.
  Result<VariableShapeTensorArray> Take(std::span<const int64_t> indices) const;
  // Rows whose mask entry is non-zero; mask.size() must equal length().
  Result<VariableShapeTensorArray> Filter(std::span<const uint8_t> mask) const;
  // The rows of every array in order. The arrays must agree on value type,
  // ndim, dim_names and permutation; uniform_shape keeps an axis only where
  // every input records the same size there.
  static Result<VariableShapeTensorArray> Concat(std::span<const VariableShapeTensorArray> arrays);

  // --- Accessors --------------------------------------------------------
  const VariableShapeTensorType& type() const { return type_; }
  const ArrayDataPtr& data() const { return data_; }
  int64_t length() const { return data_->length; }
  int64_t null_count() const { return data_->ComputeNullCount(); }
  bool IsValid(int64_t i) const { return data_->IsValid(i); }

 private:
  // Reads the storage (offsets, shapes, values) for the kernels.
  friend class internal::VariableShapeStorage;

  VariableShapeTensorArray(VariableShapeTensorType type, ArrayDataPtr data);
  Status CheckRows() const;
  // Every invariant of a non-null row.
  Status CheckRow(int64_t i) const;
  // N x ndim int32 physical shapes, a view of the storage.
  Result<Tensor> PhysicalShapes() const;
  Status CheckNoNullRows() const;

  VariableShapeTensorType type_;
  ArrayDataPtr data_;
  // Row 0's list offset and shape, with every array offset applied.
  const int32_t* offsets_ = nullptr;
  const int32_t* shapes_ = nullptr;
  int64_t values_offset_ = 0;
};

}  // namespace quiver
