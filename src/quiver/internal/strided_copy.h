// Internal: walking strided element layouts.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace quiver::internal {

// Calls fn(a_element, b_element) for every index of `shape`, in row-major
// order, with byte strides per side. Precondition: no axis of size 0.
// The walk only ever forms addresses of elements that exist (it steps to
// the next index before moving, and rewinds an axis in one step), so
// huge strides on axes of size 1 never produce a pointer past the data.
template <typename Fn>
void ForEachElementPair(const uint8_t* a, std::span<const int64_t> a_strides, const uint8_t* b,
                        std::span<const int64_t> b_strides, std::span<const int64_t> shape,
                        Fn&& fn) {
  const int ndim = static_cast<int>(shape.size());
  std::vector<int64_t> index(ndim, 0);
  while (true) {
    fn(a, b);
    int axis = ndim - 1;
    for (; axis >= 0; --axis) {
      if (++index[axis] < shape[axis]) {
        a += a_strides[axis];
        b += b_strides[axis];
        break;
      }
      // Back to index 0 on this axis: (shape - 1) steps, each of which
      // was taken, so the product stays inside the data's extent.
      a -= a_strides[axis] * (shape[axis] - 1);
      b -= b_strides[axis] * (shape[axis] - 1);
      index[axis] = 0;
    }
    if (axis < 0) return;
  }
}

// Copies a strided tensor into another layout, element by element, with a
// memcpy per innermost run when both sides are contiguous there.
inline void CopyStrided(const uint8_t* src, std::span<const int64_t> src_strides, uint8_t* dst,
                        std::span<const int64_t> dst_strides, std::span<const int64_t> shape,
                        int64_t width) {
  for (int64_t size : shape) {
    if (size == 0) return;
  }
  const size_t ndim = shape.size();
  if (ndim > 0 && src_strides[ndim - 1] == width && dst_strides[ndim - 1] == width) {
    const int64_t run = shape[ndim - 1] * width;
    internal::ForEachElementPair(
        src, src_strides.first(ndim - 1), dst, dst_strides.first(ndim - 1), shape.first(ndim - 1),
        [&](const uint8_t* s, const uint8_t* d) { std::memcpy(const_cast<uint8_t*>(d), s, run); });
    return;
  }
  internal::ForEachElementPair(
      src, src_strides, dst, dst_strides, shape,
      [&](const uint8_t* s, const uint8_t* d) { std::memcpy(const_cast<uint8_t*>(d), s, width); });
}

}  // namespace quiver::internal
