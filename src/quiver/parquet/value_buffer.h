// A growable owned buffer that decoders append to and that becomes an
// array's buffer without a copy: a column chunk's values are decoded
// straight into the memory the array keeps (reserved once from the
// chunk's metadata, grown by doubling when a writer's counts were short).
#pragma once

#include <cstdint>
#include <cstring>

#include "quiver/buffer.h"
#include "quiver/status.h"

namespace quiver::parquet {

class ValueBuffer {
 public:
  // Capacity for at least `bytes` bytes in all (size() included).
  Status Reserve(int64_t bytes);
  // Room for `bytes` more bytes at the end: the pointer to write them to.
  // size() grows by `bytes`; the bytes are uninitialised until written.
  Result<uint8_t*> Extend(int64_t bytes);
  Status Append(const void* data, int64_t bytes) {
    QUIVER_ASSIGN_OR_RETURN(uint8_t * out, Extend(bytes));
    if (bytes > 0) std::memcpy(out, data, static_cast<size_t>(bytes));
    return Status::OK();
  }
  // Drops the last `bytes` bytes (a decoder that extended before decoding
  // and failed).
  void Shrink(int64_t bytes) { size_ -= bytes; }

  int64_t size() const { return size_; }
  const uint8_t* data() const { return storage_ ? storage_->data() : nullptr; }
  uint8_t* mutable_data() { return storage_ ? storage_->mutable_data() : nullptr; }

  // The bytes written as a buffer (a view of the storage, no copy); the
  // ValueBuffer is empty afterwards.
  Result<BufferPtr> Finish();

 private:
  BufferPtr storage_;
  int64_t size_ = 0;
};

}  // namespace quiver::parquet
