// Overflow-checked int64 arithmetic for sizes, shapes and byte counts.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "quiver/status.h"

namespace quiver::internal {

// `what` names the quantity in errors; only read when one is made (a
// literal costs nothing on the success path).

// The errors, out of line and cold: the checks below sit on per-call
// paths (every DLPack import, every Tensor::Make), where building and
// destroying a Result through a call costs more than the arithmetic.
[[gnu::cold]] Status MultiplyOverflow(int64_t a, int64_t b, std::string_view what);
[[gnu::cold]] Status AddOverflow(int64_t a, int64_t b, std::string_view what);
[[gnu::cold]] Status ShapeProductError(std::span<const int64_t> shape, std::string_view what);

// a * b, or Invalid naming `what` when the product leaves int64.
inline Result<int64_t> MultiplyChecked(int64_t a, int64_t b, std::string_view what) {
  int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) [[unlikely]]
    return MultiplyOverflow(a, b, what);
  return out;
}

// a + b, or Invalid naming `what` on overflow.
inline Result<int64_t> AddChecked(int64_t a, int64_t b, std::string_view what) {
  int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) [[unlikely]]
    return AddOverflow(a, b, what);
  return out;
}

// Product of all entries (1 for an empty list); entries must be >= 0.
// A zero anywhere makes the product 0 even if the other sizes would
// overflow, so overflow only counts when no entry is zero.
inline Result<int64_t> ShapeProduct(std::span<const int64_t> shape, std::string_view what) {
  int64_t product = 1;
  bool overflow = false, negative = false, zero = false;
  for (int64_t size : shape) {
    negative |= size < 0;
    zero |= size == 0;
    overflow |= __builtin_mul_overflow(product, size, &product);
  }
  if (negative || (overflow && !zero)) [[unlikely]]
    return ShapeProductError(shape, what);
  return zero ? 0 : product;
}

// "[3, 4]" for error messages.
std::string FormatShape(std::span<const int64_t> shape);
std::string FormatShape(std::span<const int32_t> shape);

}  // namespace quiver::internal
