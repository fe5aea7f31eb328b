// Internal: assembling variable_shape_tensor storage from its parts, shared
// by the builders, the selection kernels and the conversions.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "quiver/variable_shape_tensor.h"

namespace quiver::internal {

// Invalid with "row i: " before `message`.
Status RowError(int64_t i, const std::string& message);

// NotImplemented unless the values can be read as dense bytes (numeric or
// bool8; bit-packed bools cannot): "cannot <what> bool tensors: ...".
Status CheckDenseValues(const VariableShapeTensorType& type, const char* what);

// The data list has int32 offsets: OK when `total_elements` fits them.
Status CheckListCapacity(int64_t total_elements);

// Storage of a variable_shape_tensor array with offset 0.
struct VariableShapeParts {
  int64_t length = 0;
  BufferPtr validity;    // row bitmap, nullptr when no row is null
  int64_t null_count = 0;
  BufferPtr offsets;     // length + 1 int32 entries into `values`
  ArrayDataPtr values;   // the data list's child
  BufferPtr shapes;      // length * ndim int32 physical sizes
};

Result<VariableShapeTensorArray> Assemble(const VariableShapeTensorType& type,
                                          VariableShapeParts parts, ValidationLevel level);

// A values child without nulls over `buffer`.
ArrayDataPtr MakeValues(TypePtr value_type, int64_t length, BufferPtr buffer);

// The row bitmap of `data` re-based to offset 0 (nullptr when it has none),
// and the number of null rows in `null_count`.
Result<BufferPtr> CopyValidity(const ArrayData& data, int64_t* null_count);

// The entries of an integer tensor of shape `expected` (rows x cols, or
// just rows for 1-D), row-major as int64. Errors name `what`.
Result<std::vector<int64_t>> ReadIntegers(const Tensor& tensor, std::span<const int64_t> expected,
                                          const char* what);

// OK unless the values child may hold null elements in [begin, end).
Status CheckNoNullElements(const ArrayData& values, int64_t begin, int64_t end);

// A buffer of `size` bytes viewed as T for filling.
template <typename T>
T* MutableAs(const BufferPtr& buffer) {
  return reinterpret_cast<T*>(buffer->mutable_data());
}

}  // namespace quiver::internal
