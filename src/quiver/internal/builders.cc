#include "quiver/internal/builders.h"

namespace quiver::internal {

ArrayDataPtr MakeFlatArray(TypePtr type, int64_t length, BufferPtr values) {
  auto out = std::make_shared<ArrayData>();
  out->type = std::move(type);
  out->length = length;
  out->null_count = 0;
  out->buffers = {nullptr, std::move(values)};
  return out;
}

BufferPtr BufferOrEmpty(const BufferPtr& buffer) {
  if (buffer) return buffer;
  static const BufferPtr empty = *Buffer::Allocate(0);
  return empty;
}

}  // namespace quiver::internal
