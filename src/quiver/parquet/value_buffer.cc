#include "quiver/parquet/value_buffer.h"

#include <algorithm>

namespace quiver::parquet {

Status ValueBuffer::Reserve(int64_t bytes) {
  const int64_t capacity = storage_ ? storage_->size() : 0;
  if (bytes <= capacity) return Status::OK();
  QUIVER_ASSIGN_OR_RETURN(BufferPtr grown, Buffer::AllocateUninitialized(bytes));
  if (size_ > 0) std::memcpy(grown->mutable_data(), storage_->data(), static_cast<size_t>(size_));
  storage_ = std::move(grown);
  return Status::OK();
}

Result<uint8_t*> ValueBuffer::Extend(int64_t bytes) {
  if (bytes < 0) return Status::Invalid("a negative length (", bytes, ") to append");
  // Nothing to add: an empty buffer has no storage to point into yet.
  if (bytes == 0) return storage_ ? storage_->mutable_data() + size_ : nullptr;
  int64_t needed = 0;
  if (__builtin_add_overflow(size_, bytes, &needed)) {
    return Status::Invalid("values of more than 2^63 bytes");
  }
  const int64_t capacity = storage_ ? storage_->size() : 0;
  if (needed > capacity) {
    // Doubling keeps appends amortised O(1) when a chunk's metadata
    // undercounted; the common case reserved the exact size up front.
    int64_t grown = std::max<int64_t>(needed, std::max<int64_t>(capacity, 32) * 2);
    QUIVER_RETURN_NOT_OK(Reserve(grown));
  }
  uint8_t* out = storage_->mutable_data() + size_;
  size_ = needed;
  return out;
}

Result<BufferPtr> ValueBuffer::Finish() {
  if (!storage_) {
    QUIVER_ASSIGN_OR_RETURN(storage_, Buffer::Allocate(0));
  }
  BufferPtr out = storage_->size() == size_ ? storage_ : nullptr;
  if (!out) {
    QUIVER_ASSIGN_OR_RETURN(out, Buffer::Slice(storage_, 0, size_));
  }
  storage_.reset();
  size_ = 0;
  return out;
}

}  // namespace quiver::parquet
