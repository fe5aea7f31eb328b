// Internal: the errors for nulls met where a tensor needs values, one
// wording everywhere (C++ and Python users both read them).
#pragma once

#include <cstdint>

#include "quiver/status.h"

namespace quiver::internal {

// Invalid: "row 3 is null; a tensor cannot represent a null row ...",
// saying how to allow null rows in C++ and in Python.
Status NullRowError(int64_t row);

// Invalid: "element 7 of the data is null; tensors cannot hold null
// elements" (`element` counted from the start of the values child).
Status NullElementError(int64_t element);

}  // namespace quiver::internal
