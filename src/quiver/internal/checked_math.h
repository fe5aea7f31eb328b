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

// a * b, or Invalid naming `what` when the product leaves int64.
Result<int64_t> MultiplyChecked(int64_t a, int64_t b, std::string_view what);
// a + b, or Invalid naming `what` on overflow.
Result<int64_t> AddChecked(int64_t a, int64_t b, std::string_view what);
// Product of all entries (1 for an empty list); entries must be >= 0.
Result<int64_t> ShapeProduct(std::span<const int64_t> shape, std::string_view what);

// "[3, 4]" for error messages.
std::string FormatShape(std::span<const int64_t> shape);
std::string FormatShape(std::span<const int32_t> shape);

}  // namespace quiver::internal
