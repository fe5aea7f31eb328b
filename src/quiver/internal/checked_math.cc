#include "quiver/internal/checked_math.h"

namespace quiver::internal {

Status MultiplyOverflow(int64_t a, int64_t b, std::string_view what) {
  return Status::Invalid(what, ": ", a, " * ", b, " overflows int64");
}

Status AddOverflow(int64_t a, int64_t b, std::string_view what) {
  return Status::Invalid(what, ": ", a, " + ", b, " overflows int64");
}

Status ShapeProductError(std::span<const int64_t> shape, std::string_view what) {
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0) {
      return Status::Invalid(what, ": dimension ", i, " has negative size ", shape[i]);
    }
  }
  return Status::Invalid(std::string(what), ": product of shape ", FormatShape(shape),
                         " overflows int64");
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
