// Internal: small pieces every kernel that builds arrays or views needs.
#pragma once

#include <cstdint>

#include "quiver/array.h"
#include "quiver/buffer.h"
#include "quiver/type.h"

namespace quiver::internal {

// An owned buffer still being filled, viewed as T.
template <typename T>
T* MutableAs(const BufferPtr& buffer) {
  return reinterpret_cast<T*>(buffer->mutable_data());
}

// An array of `length` values of a fixed-width `type` over `values`,
// without nulls.
ArrayDataPtr MakeFlatArray(TypePtr type, int64_t length, BufferPtr values);

// `buffer`, or a shared empty buffer where an array left it out (arrays
// without elements may omit their values buffer; views still need one).
BufferPtr BufferOrEmpty(const BufferPtr& buffer);

}  // namespace quiver::internal
