#include "quiver/internal/permutation.h"

#include <string>

#include "quiver/internal/checked_math.h"

namespace quiver::internal {

Status CheckPermutation(std::span<const int64_t> permutation, int64_t ndim, std::string_view what) {
  if (static_cast<int64_t>(permutation.size()) != ndim) {
    return Status::Invalid(std::string(what), " has ", std::to_string(permutation.size()),
                           " entries for ", std::to_string(ndim), " dimensions");
  }
  std::vector<bool> seen(static_cast<size_t>(ndim), false);
  for (size_t k = 0; k < permutation.size(); ++k) {
    const int64_t axis = permutation[k];
    const bool outside = axis < 0 || axis >= ndim;
    if (outside || seen[static_cast<size_t>(axis)]) {
      const std::string entry = "entry " + std::to_string(k);
      return Status::Invalid(std::string(what), " ", FormatShape(permutation),
                             " is not a permutation of 0..", std::to_string(ndim - 1), ": ",
                             (outside ? entry + " (" + std::to_string(axis) + ") is outside 0.." +
                                            std::to_string(ndim - 1)
                                      : entry + " repeats " + std::to_string(axis)));
    }
    seen[static_cast<size_t>(axis)] = true;
  }
  return Status::OK();
}

}  // namespace quiver::internal
