// Helpers for the variable_shape_tensor tests: hand-built storage (so
// tests can make arrays no builder would), the kernels' view of it, and
// float32 Iota rows and a three-row column built from them.
#pragma once

#include <string>
#include <vector>

#include "quiver/extension/variable_shape_storage.h"
#include "quiver/variable_shape_tensor.h"
#include "test_util.h"

namespace quiver::test {

// Raw storage: list offsets into float values, flat shapes, row validity,
// and the metadata and shape entry type to declare.
inline ArrayDataPtr RawStorage(const std::vector<int32_t>& offsets,
                               const std::vector<float>& values, const std::vector<int32_t>& shapes,
                               int ndim, const std::vector<bool>& valid = {},
                               std::string metadata = "{}", TypePtr shape_entry = int32()) {
  TypePtr shape_type = *fixed_size_list(ListItem(shape_entry), ndim);
  TypePtr storage = struct_({Field{"data", list(ListItem(float32()))}, Field{"shape", shape_type}});
  const int64_t n = static_cast<int64_t>(offsets.size()) - 1;
  auto list_data = std::make_shared<ArrayData>();
  list_data->type = storage->children()[0].type;
  list_data->length = n;
  list_data->null_count = 0;
  list_data->buffers = {nullptr, BufferOf(offsets)};
  list_data->children = {Primitive<float>(float32(), values)};
  auto shape_data = std::make_shared<ArrayData>();
  shape_data->type = shape_type;
  shape_data->length = n;
  shape_data->null_count = 0;
  shape_data->buffers = {nullptr};
  if (shape_entry->id() == TypeId::kUInt32) {
    std::vector<uint32_t> unsigned_shapes(shapes.begin(), shapes.end());
    shape_data->children = {Primitive<uint32_t>(uint32(), unsigned_shapes)};
  } else {
    shape_data->children = {Primitive<int32_t>(int32(), shapes)};
  }
  auto data = std::make_shared<ArrayData>();
  data->type = *extension(VariableShapeTensorType::kExtensionName, std::move(metadata), storage);
  data->length = n;
  data->null_count = valid.empty() ? 0 : kUnknownNullCount;
  data->buffers = {valid.empty() ? nullptr : Bitmap(valid)};
  data->children = {list_data, shape_data};
  return data;
}

// The values child, as the kernels see it.
inline const ArrayData& ValuesOf(const VariableShapeTensorArray& array) {
  return internal::VariableShapeStorage(array).values();
}

// A row-major float32 tensor of `shape` holding start, start + 1, ...
inline Tensor Iota(std::vector<int64_t> shape, float start = 0) {
  return IotaOf<float>(float32(), std::move(shape), start);
}

inline VariableShapeTensorType Float32Type(int ndim, std::vector<int64_t> permutation = {},
                                           UniformShape uniform = {}) {
  return *VariableShapeTensorType::Make(float32(), ndim, {}, std::move(permutation),
                                        std::move(uniform));
}

// Rows of shapes [2, 3] (0..5), [1, 4] (100..103) and [0, 2].
inline VariableShapeTensorArray ThreeRows(std::vector<int64_t> permutation = {}) {
  std::vector<std::optional<Tensor>> rows = {Iota({2, 3}), Iota({1, 4}, 100), Iota({0, 2})};
  return *VariableShapeTensorArray::FromTensors(Float32Type(2, std::move(permutation)), rows);
}

}  // namespace quiver::test
