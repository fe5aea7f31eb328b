#include "quiver/buffer.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <new>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace quiver {

std::string DeviceTypeName(int32_t device_type) {
  switch (device_type) {  // DLDeviceType / ArrowDeviceType numbers
    case 1: return "CPU";
    case 2: return "CUDA";
    case 3: return "CUDA_HOST";
    case 4: return "OPENCL";
    case 7: return "VULKAN";
    case 8: return "METAL";
    case 9: return "VPI";
    case 10: return "ROCM";
    case 11: return "ROCM_HOST";
    case 12: return "EXT_DEV";
    case 13: return "CUDA_MANAGED";
    case 14: return "ONEAPI";
    case 15: return "WEBGPU";
    case 16: return "HEXAGON";
    default: return "device type " + std::to_string(device_type);
  }
}

namespace {

constexpr int64_t kAlignment = 64;
constexpr int64_t kLargeBlock = int64_t{256} << 10;
constexpr int64_t kHeapFallbackLimit = int64_t{32} << 20;

// A block of memory and how to give it back.
struct Block {
  void* memory = nullptr;
  // The leading bytes that may hold old data; past them the pages are
  // fresh from the OS and read as zero (and are not touched by clearing).
  int64_t dirty = 0;
  Buffer::ReleaseHook release;
};

Block HeapBlock(int64_t padded) {
  void* memory = std::aligned_alloc(kAlignment, static_cast<size_t>(padded));
  return {memory, padded, [memory] { std::free(memory); }};
}

#if defined(__linux__)
// Freed large blocks kept for reuse. A fresh mapping costs a page fault
// per page (per huge page at best) on first touch, which dominates
// filling it at memory speed: reading compressed IPC batches one after
// another, or scanning dense tensors into sparse ones, would otherwise
// map, fault and unmap the same sizes over and over; and a fault on
// memory marked for huge pages can stall for the kernel to compact memory
// (tens of milliseconds). A cached block is handed out dirty: allocations
// that promise zeroes clear it with a memset, about what the kernel's
// zeroing of fresh pages costs, minus the faults. Blocks from 256 KiB
// are mapped and kept, not only huge ones: below that the C heap serves
// them, but it gives its top back to the OS whenever other code in the
// process frees there (the sparse scans' per-part arrays faulted afresh on
// every call when SciPy ran in between). The cache holds at most
// kCachedBlocks blocks and kCachedBytes bytes, letting the longest kept go
// first; Buffer::ReleaseCache() empties it.
//
// Beside them it keeps one block too big for that budget, whatever its
// size: the last one freed (the spare). A whole-file read or a column
// build of a gigabyte frees such a block and asks for the same size again
// on its next call, and fresh pages can cost as much as the work that
// fills them (reading a 1 GiB LZ4 file again: 60-480 ms of system time
// faulting its 786 MiB image buffer in, on top of 300 ms of decoding; into
// the kept block, none). The spare serves only requests that do not
// promise zeroes (clearing it would touch every page), like the other
// blocks: as it is, or split or grown within 4x. It is marked MADV_FREE,
// so the kernel may take its pages back under memory pressure (a cgroup's
// limit included) without swapping them; where the kernel cannot, it is
// not kept. A request over the budget that it does not serve lets it go
// before a block is mapped for that request, so two blocks over the
// budget are not held at once by a thread's sequence of them; beside
// smaller blocks it stays. It still holds address space and commit charge,
// so a mapping that fails empties the whole cache and is tried again.
class BlockCache {
 public:
  static constexpr size_t kCachedBlocks = 64;
  static constexpr int64_t kCachedBytes = int64_t{512} << 20;

  static BlockCache& Get() {
    static BlockCache* cache = new BlockCache();  // never destroyed: buffers may die at exit
    return *cache;
  }
  BlockCache() {
    blocks_.reserve(kCachedBlocks);
    // Another thread may hold the lock when some thread forks, and in the
    // child nobody would ever release it: fork() waits for the lock
    // instead, and each process releases its copy afterwards.
    pthread_atfork([] { Get().mutex_.lock(); }, [] { Get().mutex_.unlock(); },
                   [] { Get().mutex_.unlock(); });
  }

  // A cached block for `size` bytes, or nullptr; `mapped` receives its
  // size and `dirty` how many of its leading bytes may hold old data. The
  // most recently freed block of at least `size` bytes and at most half
  // again as many goes first, as it is: its pages are the likeliest to be
  // resident and warm, and a caller that touches only part of each block it
  // takes (a few rows decoded into a batch-long buffer) keeps reusing the
  // same pages instead of making every cached block resident in turn.
  // Failing that, the block nearest in size within 4x either way is made
  // to fit: a smaller one grown (mremap), so that only the added pages are
  // fresh; a larger one split, its tail kept as a block of its own (giving
  // the tail back to the OS would make a cache of one block fault it in
  // again whenever two sizes alternate). Decoded record batches of ragged
  // rows come in every size: a cache that only handed out near fits would
  // map afresh for most of them, and keep the blocks that just missed
  // resident until they aged out (a loader's memory grew by the cache's
  // whole budget).
  void* Take(int64_t size, bool zero, int64_t* mapped, int64_t* dirty) {
    void* memory = nullptr;
    int64_t old_size = 0;
    std::pair<void*, int64_t> dropped{nullptr, 0};  // the spare let go
    {
      std::lock_guard<std::mutex> lock(mutex_);
      const size_t at = Pick(size);
      // Not for a request that promises zeroes: clearing the spare would
      // touch every page of it, where a fresh mapping's untouched pages
      // cost nothing (a padded batch of a gigabyte that is mostly padding).
      const bool has_spare = spare_.first != nullptr && !zero;
      if (has_spare && FitsAsIs(spare_.second, size)) {
        std::tie(memory, old_size) = std::exchange(spare_, {nullptr, 0});
      } else if (at < blocks_.size()) {
        std::tie(memory, old_size) = blocks_[at];
        bytes_ -= old_size;
        blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(at));
      } else if (has_spare && Resizable(spare_.second, size)) {
        std::tie(memory, old_size) = std::exchange(spare_, {nullptr, 0});
      }
      // A request over the budget not served by the spare: the spare goes.
      if (size > kCachedBytes && spare_.first != nullptr)
        dropped = std::exchange(spare_, {nullptr, 0});
    }
    if (dropped.first != nullptr) munmap(dropped.first, static_cast<size_t>(dropped.second));
    if (memory == nullptr) return nullptr;
    *mapped = *dirty = old_size;
    if (FitsAsIs(old_size, size)) return memory;
    if (old_size > size) {
      const int64_t keep = PageAligned(size);
      if (old_size - keep >= kLargeBlock) {
        Put(static_cast<uint8_t*>(memory) + keep, old_size - keep);
        *mapped = *dirty = keep;
      }
      return memory;
    }
    void* grown =
        mremap(memory, static_cast<size_t>(old_size), static_cast<size_t>(size), MREMAP_MAYMOVE);
    if (grown == MAP_FAILED) {  // no room to grow it: keep it for later
      // Unless a block over the budget is mapped next: not beside it.
      if (size > kCachedBytes || old_size > kCachedBytes) {
        munmap(memory, static_cast<size_t>(old_size));
      } else {
        Put(memory, old_size);
      }
      return nullptr;
    }
    *mapped = size;
    *dirty = PageAligned(old_size);
    return grown;
  }

  // Keeps the block, making room by unmapping the longest kept ones: the
  // sizes in use now are the likeliest to be asked for next. Runs in a
  // buffer's destructor, so it allocates nothing (blocks_ has its room
  // from the start): it cannot throw.
  void Put(void* memory, int64_t mapped) noexcept {
    if (mapped > kCachedBytes) {
      KeepSpare(memory, mapped);
      return;
    }
    std::array<std::pair<void*, int64_t>, kCachedBlocks> evicted;
    size_t drop = 0;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      while (blocks_.size() - drop >= kCachedBlocks || bytes_ + mapped > kCachedBytes) {
        evicted[drop] = blocks_[drop];
        bytes_ -= blocks_[drop++].second;
      }
      blocks_.erase(blocks_.begin(), blocks_.begin() + static_cast<std::ptrdiff_t>(drop));
      blocks_.emplace_back(memory, mapped);
      bytes_ += mapped;
    }
    for (size_t i = 0; i < drop; ++i)
      munmap(evicted[i].first, static_cast<size_t>(evicted[i].second));
  }

  // Returns the bytes let go.
  int64_t Clear() {
    std::vector<std::pair<void*, int64_t>> blocks;
    blocks.reserve(kCachedBlocks + 1);  // and the spare
    {
      std::lock_guard<std::mutex> lock(mutex_);
      blocks.assign(blocks_.begin(), blocks_.end());
      blocks_.clear();  // (keeping its room: Put allocates nothing)
      bytes_ = 0;
      if (spare_.first != nullptr) blocks.push_back(std::exchange(spare_, {nullptr, 0}));
    }
    int64_t released = 0;
    for (const auto& [memory, mapped] : blocks) {
      munmap(memory, static_cast<size_t>(mapped));
      released += mapped;
    }
    return released;
  }

 private:
  // Makes the block the spare, letting the one before go. Its pages are
  // the kernel's to reclaim from now on; until they are, they come back
  // as they were, without a fault.
  void KeepSpare(void* memory, int64_t mapped) noexcept {
#ifdef MADV_FREE
    const bool reclaimable = madvise(memory, static_cast<size_t>(mapped), MADV_FREE) == 0;
#else
    const bool reclaimable = false;
#endif
    if (!reclaimable) {  // a kernel before 4.5: resident for good, so not kept
      munmap(memory, static_cast<size_t>(mapped));
      return;
    }
    std::pair<void*, int64_t> old;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      old = std::exchange(spare_, {memory, mapped});
    }
    if (old.first != nullptr) munmap(old.first, static_cast<size_t>(old.second));
  }

  static int64_t PageAligned(int64_t size) {
    static const int64_t page = sysconf(_SC_PAGESIZE);
    return (size + page - 1) / page * page;
  }
  static bool FitsAsIs(int64_t have, int64_t size) {
    return have >= size && have - size <= size / 2;
  }
  static constexpr double kResizeLimit = 4.0;
  static double SizeRatio(int64_t have, int64_t size) {
    return have > size ? static_cast<double>(have) / static_cast<double>(size)
                       : static_cast<double>(size) / static_cast<double>(have);
  }
  // Whether Take may hand out a block of `have` bytes for `size`: as it
  // is, split or grown.
  static bool Resizable(int64_t have, int64_t size) {
    return FitsAsIs(have, size) || SizeRatio(have, size) <= kResizeLimit;
  }

  // The index of the block Take hands out for `size` bytes (see there), or
  // blocks_.size() for none. The caller holds the lock.
  size_t Pick(int64_t size) const {
    size_t nearest = blocks_.size();
    double nearest_ratio = std::numeric_limits<double>::infinity();
    for (size_t i = blocks_.size(); i-- > 0;) {
      const int64_t have = blocks_[i].second;
      if (FitsAsIs(have, size)) return i;
      const double ratio = SizeRatio(have, size);
      if (ratio <= kResizeLimit && ratio < nearest_ratio) {
        nearest = i;
        nearest_ratio = ratio;
      }
    }
    return nearest;
  }

  std::mutex mutex_;
  std::vector<std::pair<void*, int64_t>> blocks_;
  int64_t bytes_ = 0;
  std::pair<void*, int64_t> spare_{nullptr, 0};  // over kCachedBytes, not counted in bytes_
};

Block LargeBlock(void* memory, int64_t mapped, int64_t dirty) {
  return {memory, dirty, [memory, mapped] { BlockCache::Get().Put(memory, mapped); }};
}

void* MapFresh(int64_t bytes) {
  return mmap(nullptr, static_cast<size_t>(bytes), PROT_READ | PROT_WRITE,
              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}
#endif

// Small blocks come from the heap. Large ones are mapped directly, marked
// for transparent huge pages as NumPy does (first-touch page faults
// otherwise dominate big copies), and arrive zeroed without a memset; or
// come from the cache of freed large blocks (dirty as far as Block::dirty
// says: the caller clears what it promises to be zero).
Block AllocateBlock(int64_t padded, bool zero) {
#if defined(__linux__)
  if (padded >= kLargeBlock) {
    int64_t mapped = padded;
    int64_t dirty = 0;
    if (void* cached = BlockCache::Get().Take(padded, zero, &mapped, &dirty))
      return LargeBlock(cached, mapped, dirty);
    void* memory = MapFresh(padded);
    if (memory == MAP_FAILED) {
      // The kept blocks hold address space and commit charge that the new
      // one may need (RLIMIT_AS, vm.overcommit_memory=2): let them go.
      BlockCache::Get().Clear();
      memory = MapFresh(padded);
    }
    // Out of mappings (vm.max_map_count) rather than memory, perhaps: the
    // heap may still serve a block of moderate size (a bigger one it would
    // map too, and a wild size must fail here as OutOfMemory).
    if (memory == MAP_FAILED) return padded < kHeapFallbackLimit ? HeapBlock(padded) : Block{};
#ifdef MADV_HUGEPAGE
    madvise(memory, static_cast<size_t>(padded), MADV_HUGEPAGE);
#endif
    return LargeBlock(memory, padded, 0);
  }
#endif
  return HeapBlock(padded);
}

}  // namespace

Buffer::Buffer(const uint8_t* data, int64_t size, ReleaseHook release, Device device, bool owned)
    : data_(data), size_(size), release_(std::move(release)), device_(device), owned_(owned) {}

Buffer::~Buffer() {
  if (release_) release_();
}

Result<std::shared_ptr<Buffer>> Buffer::AllocateOwned(int64_t size, bool zero) {
  if (size < 0) return Status::Invalid("buffer size ", size, " is negative");
  if (size > std::numeric_limits<int64_t>::max() - kAlignment) {
    return Status::OutOfMemory("could not allocate ", size, " bytes");
  }
  // Round up so vectorised readers may touch the padding; never allocate 0.
  int64_t padded = (size + kAlignment - 1) / kAlignment * kAlignment;
  if (padded == 0) padded = kAlignment;
  Block block = AllocateBlock(padded, zero);
  if (block.memory == nullptr) {
    return Status::OutOfMemory("could not allocate ", size, " bytes");
  }
  auto* bytes = static_cast<uint8_t*>(block.memory);
  // What must read as zero (all of it, or the padding past `size`), as far
  // as old data may reach: fresh pages are zero already, and writing them
  // would make them resident for nothing.
  const int64_t from = zero ? 0 : size;
  const int64_t to = std::min(padded, block.dirty);
  if (from < to) std::memset(bytes + from, 0, static_cast<size_t>(to - from));
  return std::shared_ptr<Buffer>(new Buffer(bytes, size, std::move(block.release), Device{}, true));
}

Result<std::shared_ptr<Buffer>> Buffer::Allocate(int64_t size) {
  return AllocateOwned(size, /*zero=*/true);
}

Result<std::shared_ptr<Buffer>> Buffer::AllocateUninitialized(int64_t size) {
  return AllocateOwned(size, /*zero=*/false);
}

int64_t Buffer::ReleaseCache() {
#if defined(__linux__)
  return BlockCache::Get().Clear();
#else
  return 0;
#endif
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
    return Status::IndexError("slice [", offset, ", +", length, ") is outside a buffer of ",
                              parent->size(), " bytes");
  }
  const uint8_t* start = parent->data() + offset;
  std::shared_ptr<Buffer> slice = Wrap(start, length, nullptr, parent->device());
  slice->parent_ = std::move(parent);
  return slice;
}

}  // namespace quiver
