// Internal: mapping a tensor type's physical layout to its logical axes,
// shared by arrow.fixed_shape_tensor and arrow.variable_shape_tensor.
//
// With permutation P, logical axis k is physical axis P[k] (docs/formats.md,
// "Permutation"): logical shape, strides, dim names and uniform sizes are all
// the physical ones picked in the order P. An empty P is the identity.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "quiver/status.h"

namespace quiver::internal {

// out[k] = physical[P[k]] (physical itself when P is empty; an empty
// `physical`, e.g. no dim_names, stays empty).
template <typename T>
std::vector<T> ToLogical(std::span<const T> physical, std::span<const int64_t> permutation) {
  if (permutation.empty() || physical.empty()) return {physical.begin(), physical.end()};
  std::vector<T> out;
  out.reserve(permutation.size());
  for (int64_t axis : permutation) out.push_back(physical[static_cast<size_t>(axis)]);
  return out;
}

template <typename T>
std::vector<T> ToLogical(const std::vector<T>& physical, std::span<const int64_t> permutation) {
  return ToLogical(std::span<const T>(physical), permutation);
}

// OK when `permutation` holds each of 0..ndim-1 once; Invalid otherwise,
// worded the same for every caller ("arrow.fixed_shape_tensor
// permutation", "CSF axis_order"): "<what> has 3 entries for 2
// dimensions", "<what> [0, 0] is not a permutation of 0..1: entry 1
// repeats 0" or "...: entry 1 (5) is outside 0..1". Callers for which an
// empty permutation means the identity check that case first.
Status CheckPermutation(std::span<const int64_t> permutation, int64_t ndim, std::string_view what);

// Whether `permutation` is empty or 0, 1, ..., n-1: both mean "logical
// order is physical order".
inline bool IsIdentityPermutation(std::span<const int64_t> permutation) {
  for (size_t k = 0; k < permutation.size(); ++k) {
    if (permutation[k] != static_cast<int64_t>(k)) return false;
  }
  return true;
}

// Whether two permutations map axes the same way (an explicit identity
// equals no permutation, as writers differ in whether they spell it out).
inline bool SamePermutation(std::span<const int64_t> a, std::span<const int64_t> b) {
  if (IsIdentityPermutation(a) && IsIdentityPermutation(b)) return true;
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

// Row-major byte strides of `physical_shape` with `width`-byte elements,
// in logical axis order. Sizes must be non-negative; products are assumed
// to fit (callers checked the total size).
inline std::vector<int64_t> LogicalStrides(int64_t width, std::span<const int64_t> physical_shape,
                                           std::span<const int64_t> permutation) {
  std::vector<int64_t> strides(physical_shape.size());
  int64_t stride = width;
  for (size_t k = physical_shape.size(); k-- > 0;) {
    strides[k] = stride;
    stride *= physical_shape[k];
  }
  return ToLogical(strides, permutation);
}

}  // namespace quiver::internal
