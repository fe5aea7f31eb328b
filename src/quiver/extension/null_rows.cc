#include "quiver/extension/null_rows.h"

#include <string>

namespace quiver::internal {

Status NullRowError(int64_t row) {
  return Status::Invalid("row ", row,
                         " is null; a tensor cannot represent a null row (to view the bytes the "
                         "slot holds, allow null rows)");
}

Status NullElementError(int64_t element) {
  return Status::Invalid("element ", element,
                         " of the data is null; tensors cannot hold null elements");
}

}  // namespace quiver::internal
