// Helpers for the fixed_shape_tensor tests: float32 columns of numbered
// cells, with or without a permutation and null rows.
#pragma once

#include <numeric>
#include <vector>

#include "quiver/fixed_shape_tensor.h"
#include "test_util.h"

namespace quiver::test {

// `rows` rows of physical cells of `shape`, values 0, 1, 2, ...; `valid`
// empty = no nulls.
inline FixedShapeTensorArray FixedShapeRows(int64_t rows, std::vector<int64_t> shape,
                                            std::vector<int64_t> permutation = {},
                                            std::vector<bool> valid = {}) {
  FixedShapeTensorType type = *FixedShapeTensorType::Make(float32(), shape, {}, permutation);
  std::vector<float> values(rows * type.list_size());
  std::iota(values.begin(), values.end(), 0.0f);
  auto data = std::make_shared<ArrayData>();
  data->type = type.data_type();
  data->length = rows;
  data->buffers = {valid.empty() ? nullptr : Bitmap(valid)};
  data->children = {Primitive<float>(float32(), values)};
  return *FixedShapeTensorArray::Make(data);
}

}  // namespace quiver::test
