#include "quiver/buffer.h"

#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <string>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace quiver {

namespace {

constexpr int64_t kAlignment = 64;
constexpr int64_t kLargeBlock = int64_t{4} << 20;

// A block of memory and how to give it back.
struct Block {
  void* memory = nullptr;
  bool zeroed = false;  // fresh pages from the OS read as zero
  Buffer::ReleaseHook release;
};

// Small blocks come from the heap. Large ones are mapped directly, marked
// for transparent huge pages as NumPy does (first-touch page faults
// otherwise dominate big copies), and arrive zeroed without a memset.
Block AllocateBlock(int64_t padded) {
#if defined(__linux__)
  if (padded >= kLargeBlock) {
    void* memory = mmap(nullptr, static_cast<size_t>(padded), PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) return {};
#ifdef MADV_HUGEPAGE
    madvise(memory, static_cast<size_t>(padded), MADV_HUGEPAGE);
#endif
    return {memory, true, [memory, padded] { munmap(memory, static_cast<size_t>(padded)); }};
  }
#endif
  void* memory = std::aligned_alloc(kAlignment, static_cast<size_t>(padded));
  return {memory, false, [memory] { std::free(memory); }};
}

}  // namespace

Buffer::Buffer(const uint8_t* data, int64_t size, ReleaseHook release, Device device, bool owned)
    : data_(data), size_(size), release_(std::move(release)), device_(device), owned_(owned) {}

Buffer::~Buffer() {
  if (release_) release_();
}

Result<std::shared_ptr<Buffer>> Buffer::AllocateOwned(int64_t size, bool zero) {
  if (size < 0) return Status::Invalid("buffer size " + std::to_string(size) + " is negative");
  if (size > std::numeric_limits<int64_t>::max() - kAlignment) {
    return Status::OutOfMemory("could not allocate " + std::to_string(size) + " bytes");
  }
  // Round up so vectorised readers may touch the padding; never allocate 0.
  int64_t padded = (size + kAlignment - 1) / kAlignment * kAlignment;
  if (padded == 0) padded = kAlignment;
  Block block = AllocateBlock(padded);
  if (block.memory == nullptr) {
    return Status::OutOfMemory("could not allocate " + std::to_string(size) + " bytes");
  }
  auto* bytes = static_cast<uint8_t*>(block.memory);
  if (!block.zeroed) {
    const int64_t from = zero ? 0 : size;
    std::memset(bytes + from, 0, static_cast<size_t>(padded - from));
  }
  return std::shared_ptr<Buffer>(new Buffer(bytes, size, std::move(block.release), Device{}, true));
}

Result<std::shared_ptr<Buffer>> Buffer::Allocate(int64_t size) {
  return AllocateOwned(size, /*zero=*/true);
}

Result<std::shared_ptr<Buffer>> Buffer::AllocateUninitialized(int64_t size) {
  return AllocateOwned(size, /*zero=*/false);
}

std::shared_ptr<Buffer> Buffer::Wrap(const void* data, int64_t size, ReleaseHook release,
                                     Device device) {
  // One allocation for the buffer and its reference count (Wrap runs once
  // per imported buffer, DLPack tensor and NumPy view).
  struct Shared : Buffer {
    Shared(const uint8_t* data, int64_t size, ReleaseHook release, Device device)
        : Buffer(data, size, std::move(release), device, false) {}
  };
  return std::make_shared<Shared>(static_cast<const uint8_t*>(data), size, std::move(release),
                                  device);
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
