// Internal: checking a sparse tensor (see sparse_tensor.h for what each
// level covers).
#pragma once

#include "quiver/sparse_tensor.h"

namespace quiver::sparse {

// Sizes at every level, index values at kFull. Returns whether a full check
// found the index canonical (sorted, no duplicates); false below kFull.
Result<bool> ValidateSparse(const SparseTensor& tensor, ValidationLevel level);

}  // namespace quiver::sparse
