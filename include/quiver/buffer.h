// Immutable, reference-counted byte buffers.
//
// A Buffer is either owned (allocated by quiver, 64-byte aligned, zero
// padded up to a multiple of 64 bytes) or borrowed: it points at memory
// someone else owns and runs a release hook (C Data `release`, a DLPack
// deleter, a Python decref) exactly once when the last reference goes.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "quiver/status.h"

namespace quiver {

// Where the bytes live. Numbers follow DLPack's DLDeviceType (CPU = 1).
struct Device {
  int32_t type = 1;
  int32_t id = 0;
  bool is_cpu() const { return type == 1; }
  bool operator==(const Device&) const = default;
};

// "CPU", "CUDA", "CUDA_HOST", ... for messages; "device type N" for a
// number neither DLPack nor the C Device Interface defines (the two share
// their numbers).
std::string DeviceTypeName(int32_t device_type);

// A half-open range [begin, end) of positions: the bytes of a buffer a
// tensor covers (Tensor::ByteSpan), or the bytes or child slots one value
// of an array spans (ValueRange in quiver/array.h).
struct Range {
  int64_t begin = 0;
  int64_t end = 0;
  int64_t length() const { return end - begin; }
  bool operator==(const Range&) const = default;
};

class Buffer {
 public:
  using ReleaseHook = std::function<void()>;

  // A new zero-filled owned buffer of `size` bytes, 64-byte aligned.
  static Result<std::shared_ptr<Buffer>> Allocate(int64_t size);
  // Like Allocate, but only the padding past `size` is guaranteed zero: for
  // callers that write every byte themselves (large copies), saving a pass.
  static Result<std::shared_ptr<Buffer>> AllocateUninitialized(int64_t size);
  // Blocks of 256 KiB and more are reused: when such a buffer dies its
  // memory is kept (up to 64 blocks and 512 MiB in all, the longest kept
  // let go first) for a later allocation, which then skips the page faults
  // of fresh memory (Allocate clears a reused block). A kept block of at
  // least the size asked and at most half again as large is handed out as
  // it is; failing that, the kept block nearest in size (within 4x) is
  // made to fit: a smaller one grown, only its added pages fresh (and left
  // untouched by Allocate's clearing: they read as zero); a larger one
  // split, its tail kept as a block of its own. Besides, the last block
  // over 512 MiB that died is kept (the spare, marked MADV_FREE: the kernel
  // reclaims it under memory pressure) for AllocateUninitialized only, and
  // let go when a block over 512 MiB that it does not serve is mapped. A
  // mapping that fails empties the cache and is tried once more.
  // ReleaseCache returns the kept blocks and the spare to the OS, and the
  // bytes they held (quiver.release_unused_memory() in Python).
  static int64_t ReleaseCache();
  // Borrows [data, data + size); `release` runs once when the buffer dies.
  static std::shared_ptr<Buffer> Wrap(const void* data, int64_t size, ReleaseHook release,
                                      Device device = {});
  // A view of bytes [offset, offset + length) of `parent`, keeping it alive.
  static Result<std::shared_ptr<Buffer>> Slice(std::shared_ptr<Buffer> parent, int64_t offset,
                                               int64_t length);

  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer();

  const uint8_t* data() const { return data_; }
  // Writable access, only meaningful for owned buffers still being filled.
  uint8_t* mutable_data() { return const_cast<uint8_t*>(data_); }
  int64_t size() const { return size_; }
  const Device& device() const { return device_; }
  bool is_owned() const { return owned_; }

 private:
  // Owned, 64-byte aligned, padding zeroed; the rest zeroed when `zero`.
  static Result<std::shared_ptr<Buffer>> AllocateOwned(int64_t size, bool zero);
  Buffer(const uint8_t* data, int64_t size, ReleaseHook release, Device device, bool owned);

  const uint8_t* data_;
  int64_t size_;
  ReleaseHook release_;
  // What a slice keeps alive: held directly rather than captured by a
  // release hook, which would cost an allocation per slice (IPC readers
  // slice every buffer of every batch).
  std::shared_ptr<Buffer> parent_;
  Device device_;
  bool owned_;
};

using BufferPtr = std::shared_ptr<Buffer>;

}  // namespace quiver
