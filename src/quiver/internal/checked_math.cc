#include "quiver/internal/checked_math.h"

namespace quiver::internal {

Result<int64_t> MultiplyChecked(int64_t a, int64_t b, std::string_view what) {
  int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) {
    return Status::Invalid(std::string(what) + ": " + std::to_string(a) + " * " + std::to_string(b) +
                           " overflows int64");
  }
  return out;
}

Result<int64_t> AddChecked(int64_t a, int64_t b, std::string_view what) {
  int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) {
    return Status::Invalid(std::string(what) + ": " + std::to_string(a) + " + " + std::to_string(b) +
                           " overflows int64");
  }
  return out;
}

Result<int64_t> ShapeProduct(std::span<const int64_t> shape, std::string_view what) {
  int64_t product = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0) {
      return Status::Invalid(std::string(what) + ": dimension " + std::to_string(i) + " has negative size " +
                             std::to_string(shape[i]));
    }
  }
  // A zero anywhere makes the product 0 even if the other sizes would overflow.
  for (int64_t size : shape) {
    if (size == 0) return int64_t{0};
  }
  for (int64_t size : shape) {
    int64_t next = 0;
    if (__builtin_mul_overflow(product, size, &next)) {
      return Status::Invalid(std::string(what) + ": product of shape " + internal::FormatShape(shape) +
                             " overflows int64");
    }
    product = next;
  }
  return product;
}

namespace {

template <typename T>
std::string FormatInts(std::span<const T> shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(shape[i]);
  }
  return out + "]";
}

}  // namespace

std::string FormatShape(std::span<const int64_t> shape) { return FormatInts(shape); }
std::string FormatShape(std::span<const int32_t> shape) { return FormatInts(shape); }

}  // namespace quiver::internal
