#include "quiver/buffer.h"

#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <string>

namespace quiver {

namespace {
constexpr int64_t kAlignment = 64;
}  // namespace

Buffer::Buffer(const uint8_t* data, int64_t size, ReleaseHook release, Device device, bool owned)
    : data_(data), size_(size), release_(std::move(release)), device_(device), owned_(owned) {}

Buffer::~Buffer() {
  if (release_) release_();
}

Result<std::shared_ptr<Buffer>> Buffer::Allocate(int64_t size) {
  QUIVER_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> buffer, AllocateUninitialized(size));
  std::memset(buffer->mutable_data(), 0, static_cast<size_t>(size));
  return buffer;
}

Result<std::shared_ptr<Buffer>> Buffer::AllocateUninitialized(int64_t size) {
  if (size < 0) return Status::Invalid("buffer size " + std::to_string(size) + " is negative");
  if (size > std::numeric_limits<int64_t>::max() - kAlignment) {
    return Status::OutOfMemory("could not allocate " + std::to_string(size) + " bytes");
  }
  // Round up so vectorised readers may touch the padding; never allocate 0.
  int64_t padded = (size + kAlignment - 1) / kAlignment * kAlignment;
  if (padded == 0) padded = kAlignment;
  void* memory = std::aligned_alloc(kAlignment, static_cast<size_t>(padded));
  if (memory == nullptr) {
    return Status::OutOfMemory("could not allocate " + std::to_string(size) + " bytes");
  }
  auto* bytes = static_cast<uint8_t*>(memory);
  std::memset(bytes + size, 0, static_cast<size_t>(padded - size));
  return std::shared_ptr<Buffer>(
      new Buffer(bytes, size, [memory] { std::free(memory); }, Device{}, true));
}

std::shared_ptr<Buffer> Buffer::Wrap(const void* data, int64_t size, ReleaseHook release,
                                     Device device) {
  return std::shared_ptr<Buffer>(new Buffer(static_cast<const uint8_t*>(data), size,
                                            std::move(release), device, false));
}

Result<std::shared_ptr<Buffer>> Buffer::Slice(std::shared_ptr<Buffer> parent, int64_t offset,
                                              int64_t length) {
  if (offset < 0 || length < 0 || offset > parent->size() || length > parent->size() - offset) {
    return Status::IndexError("slice [" + std::to_string(offset) + ", +" + std::to_string(length) +
                              ") is outside a buffer of " + std::to_string(parent->size()) +
                              " bytes");
  }
  const uint8_t* start = parent->data() + offset;
  Device device = parent->device();
  return Wrap(start, length, [keep = std::move(parent)]() mutable { keep.reset(); }, device);
}

}  // namespace quiver
