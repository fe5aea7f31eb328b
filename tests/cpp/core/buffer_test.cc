#include "quiver/buffer.h"

#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "test_util.h"

namespace quiver {

TEST(Buffer, AllocateIsAlignedZeroedAndOwned) {
  ASSERT_OK_AND_ASSIGN(BufferPtr buffer, Buffer::Allocate(100));
  EXPECT_EQ(buffer->size(), 100);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer->data()) % 64, 0u);
  EXPECT_TRUE(buffer->is_owned());
  EXPECT_TRUE(buffer->device().is_cpu());
  for (int i = 0; i < 100; ++i) EXPECT_EQ(buffer->data()[i], 0);
}

TEST(Buffer, AllocateRejectsNegativeSize) {
  EXPECT_ERROR(kInvalid, "negative", Buffer::Allocate(-1));
}

TEST(Buffer, WrapRunsReleaseHookExactlyOnce) {
  int calls = 0;
  uint8_t bytes[4] = {1, 2, 3, 4};
  {
    BufferPtr buffer = Buffer::Wrap(
        bytes, 4, [&calls] { ++calls; }, Device{2, 1});
    BufferPtr copy = buffer;
    EXPECT_FALSE(buffer->is_owned());
    EXPECT_EQ(buffer->device(), (Device{2, 1}));
    EXPECT_EQ(buffer->data()[2], 3);
  }
  EXPECT_EQ(calls, 1);
}

TEST(Buffer, SliceKeepsParentAlive) {
  int calls = 0;
  uint8_t bytes[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  BufferPtr slice;
  {
    BufferPtr parent = Buffer::Wrap(bytes, 8, [&calls] { ++calls; });
    ASSERT_OK_AND_ASSIGN(slice, Buffer::Slice(parent, 2, 4));
  }
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(slice->size(), 4);
  EXPECT_EQ(slice->data()[0], 2);
  slice.reset();
  EXPECT_EQ(calls, 1);
}

TEST(Buffer, SliceOutOfRangeIsIndexError) {
  ASSERT_OK_AND_ASSIGN(BufferPtr parent, Buffer::Allocate(8));
  EXPECT_ERROR(kIndexError, "outside a buffer of 8 bytes", Buffer::Slice(parent, 6, 4));
  EXPECT_ERROR(kIndexError, "outside", Buffer::Slice(parent, -1, 2));
}

TEST(Buffer, LargeBlocksAreReusedAndClearedWhereZeroesArePromised) {
  Buffer::ReleaseCache();
  const int64_t size = int64_t{8} << 20;
  const uint8_t* first = nullptr;
  auto dirty = [&](BufferPtr b) {
    std::memset(b->mutable_data(), 0xAB, static_cast<size_t>(b->size()));
    return b->data();
  };
  {
    ASSERT_OK_AND_ASSIGN(BufferPtr scratch, Buffer::AllocateUninitialized(size));
    first = dirty(scratch);
  }
  // A zeroed allocation of a similar size takes the dirty block and clears it.
  {
    ASSERT_OK_AND_ASSIGN(BufferPtr zeroed, Buffer::Allocate(size - 100));
    EXPECT_EQ(zeroed->data(), first);
    for (int64_t at : {int64_t{0}, size / 2, size - 101}) EXPECT_EQ(zeroed->data()[at], 0) << at;
    dirty(zeroed);
  }
  // An uninitialised one takes it as it is, padding past its size zeroed.
  ASSERT_OK_AND_ASSIGN(BufferPtr reused, Buffer::AllocateUninitialized(size - 100));
  EXPECT_EQ(reused->data(), first);
  EXPECT_EQ(reused->data()[size - 100], 0);
  Buffer::ReleaseCache();
  ASSERT_OK_AND_ASSIGN(BufferPtr fresh, Buffer::AllocateUninitialized(size));
  EXPECT_FALSE(fresh->data() == first && fresh->data()[0] == 0xAB);  // the cache let it go
}

#if defined(__linux__)
// Whether any page of [at, at + bytes) is resident.
static bool AnyResident(const uint8_t* at, int64_t bytes) {
  const auto page = static_cast<int64_t>(sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> pages(static_cast<size_t>((bytes + page - 1) / page));
  EXPECT_EQ(mincore(const_cast<uint8_t*>(at), static_cast<size_t>(bytes), pages.data()), 0);
  for (unsigned char p : pages) {
    if (p & 1) return true;
  }
  return false;
}

// A request that no kept block fits as it is takes the block nearest in
// size (within 4x): a larger one is split, its tail kept for later; a
// smaller one grows, its old pages coming along and only the added ones
// fresh (which a zeroed allocation leaves untouched: they read as zero).
TEST(Buffer, AKeptBlockIsSplitOrGrownForARequestItDoesNotFit) {
  Buffer::ReleaseCache();
  const int64_t size = int64_t{8} << 20;
  const uint8_t* first = nullptr;
  {
    ASSERT_OK_AND_ASSIGN(BufferPtr scratch, Buffer::AllocateUninitialized(size));
    std::memset(scratch->mutable_data(), 0xAB, static_cast<size_t>(size));
    first = scratch->data();
  }
  // More than 4x smaller: the block stays kept, a fresh one is mapped
  // (and held, or it would be the nearest block for the next request).
  ASSERT_OK_AND_ASSIGN(BufferPtr tiny, Buffer::AllocateUninitialized(size / 8));
  EXPECT_NE(tiny->data(), first);
  // A quarter of it: the block's head, the rest kept as a block of its own.
  const int64_t quarter = size / 4;
  ASSERT_OK_AND_ASSIGN(BufferPtr head, Buffer::AllocateUninitialized(quarter));
  ASSERT_EQ(head->data(), first);
  EXPECT_EQ(head->data()[0], 0xAB);
  {
    ASSERT_OK_AND_ASSIGN(BufferPtr tail, Buffer::AllocateUninitialized(size - quarter));
    EXPECT_EQ(tail->data(), first + quarter);
    EXPECT_EQ(tail->data()[0], 0xAB);
  }
  head.reset();
  // Twice the tail (kept again, nearest): it grows, its written pages with
  // it; zeroed, it reads zero throughout, and the added pages stay fresh.
  const int64_t grown_size = 2 * (size - quarter);
  ASSERT_OK_AND_ASSIGN(BufferPtr grown, Buffer::Allocate(grown_size));
  const std::vector<uint8_t> zeros(static_cast<size_t>(grown_size), 0);
  EXPECT_EQ(std::memcmp(grown->data(), zeros.data(), zeros.size() / 2), 0);
  EXPECT_FALSE(AnyResident(grown->data() + grown_size / 2 + (int64_t{2} << 20), int64_t{2} << 20))
      << "clearing a grown block touched its fresh pages";
  EXPECT_EQ(std::memcmp(grown->data(), zeros.data(), zeros.size()), 0);
  grown.reset();
  tiny.reset();
  Buffer::ReleaseCache();
}

// Whether [at, at + 1 page) is mapped at all (mincore fails with ENOMEM
// on a range that is not).
static bool Mapped(const uint8_t* at) {
  unsigned char page = 0;
  return mincore(const_cast<uint8_t*>(at), 1, &page) == 0;
}

constexpr int64_t kMiB = int64_t{1} << 20;

// A block over the cache's byte budget (512 MiB) is kept too (the spare):
// the next request of its size that promises no zeroes gets it back, its
// written pages resident and as they were, its padding past the size
// asked cleared; a later such block takes its place.
TEST(Buffer, ABlockOverTheBudgetIsKeptAsTheSpare) {
  Buffer::ReleaseCache();
  const int64_t big = 600 * kMiB;
  const int64_t written = 4 * kMiB;
  const uint8_t* first = nullptr;
  {
    ASSERT_OK_AND_ASSIGN(BufferPtr a, Buffer::AllocateUninitialized(big));
    std::memset(a->mutable_data(), 0xCD, static_cast<size_t>(written));
    std::memset(a->mutable_data() + big - written, 0xCD, static_cast<size_t>(written));
    first = a->data();
  }
  {
    const int64_t size = big - 10;  // its padding: the block's last 10 bytes
    ASSERT_OK_AND_ASSIGN(BufferPtr again, Buffer::AllocateUninitialized(size));
    ASSERT_EQ(again->data(), first);
    // The old pages, not fresh ones at the same address (this can fail
    // only if the kernel took the spare back under memory pressure).
    EXPECT_TRUE(AnyResident(again->data(), 4096));
    EXPECT_EQ(again->data()[0], 0xCD);
    EXPECT_EQ(again->data()[size - 1], 0xCD);
    EXPECT_EQ(again->data()[size], 0) << "the padding was not cleared";
    rusage before{}, after{};
    getrusage(RUSAGE_THREAD, &before);
    std::memset(again->mutable_data(), 0xEF, static_cast<size_t>(written));
    getrusage(RUSAGE_THREAD, &after);
    EXPECT_LT(after.ru_minflt - before.ru_minflt, 32);
  }
  // A second big block freed after it takes its place: the first is unmapped.
  ASSERT_OK_AND_ASSIGN(BufferPtr a, Buffer::AllocateUninitialized(big));
  ASSERT_OK_AND_ASSIGN(BufferPtr b, Buffer::AllocateUninitialized(big + 200 * kMiB));
  first = a->data();
  const uint8_t* second = b->data();
  a.reset();
  EXPECT_TRUE(Mapped(first));
  b.reset();
  EXPECT_FALSE(Mapped(first)) << "two blocks over the budget were kept";
  EXPECT_TRUE(Mapped(second));
  Buffer::ReleaseCache();
  EXPECT_FALSE(Mapped(second)) << "ReleaseCache kept the spare";
}

// A request that promises zeroes never takes the spare (clearing it would
// touch every page); over the budget, it lets the spare go first. A tail
// split off the spare into the budget's cache is cleared like any block.
TEST(Buffer, TheSpareServesNoZeroedRequestAndItsTailIsCleared) {
  Buffer::ReleaseCache();
  const int64_t big = 600 * kMiB;
  const uint8_t* spare = nullptr;
  {
    ASSERT_OK_AND_ASSIGN(BufferPtr a, Buffer::AllocateUninitialized(big));
    std::memset(a->mutable_data(), 0xAB, static_cast<size_t>(4 * kMiB));
    spare = a->data();
  }
  {
    ASSERT_OK_AND_ASSIGN(BufferPtr zeroed, Buffer::Allocate(big));
    for (int64_t at : {int64_t{0}, 4 * kMiB - 1, big - 1}) EXPECT_EQ(zeroed->data()[at], 0) << at;
    // Fresh pages, untouched where nothing was read: not a cleared spare.
    EXPECT_FALSE(AnyResident(zeroed->data() + 100 * kMiB, 4096));
    EXPECT_TRUE(!Mapped(spare) ||
                (spare >= zeroed->data() && spare < zeroed->data() + zeroed->size()))
        << "the spare was kept beside a new block over the budget";
  }
  // The zeroed block is the spare now. Split: 340 MiB of a 520 MiB spare
  // (its head) for an uninitialised request, its 180 MiB tail into the
  // cache, then taken by a zeroed request of that size and cleared.
  Buffer::ReleaseCache();
  {
    ASSERT_OK_AND_ASSIGN(BufferPtr a, Buffer::AllocateUninitialized(520 * kMiB));
    std::memset(a->mutable_data() + 340 * kMiB, 0xAB, static_cast<size_t>(4 * kMiB));
    spare = a->data();
  }
  ASSERT_OK_AND_ASSIGN(BufferPtr head, Buffer::AllocateUninitialized(340 * kMiB));
  ASSERT_EQ(head->data(), spare);
  ASSERT_OK_AND_ASSIGN(BufferPtr tail, Buffer::Allocate(180 * kMiB));
  ASSERT_EQ(tail->data(), spare + 340 * kMiB);
  for (int64_t at : {int64_t{0}, 4 * kMiB - 1, 180 * kMiB - 1})
    EXPECT_EQ(tail->data()[at], 0) << at;
  head.reset();
  tail.reset();
  Buffer::ReleaseCache();
}

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define QUIVER_SANITIZED_TEST_BUILD 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define QUIVER_SANITIZED_TEST_BUILD 1
#endif
#ifndef QUIVER_SANITIZED_TEST_BUILD
// Bytes of address space the process maps now.
static int64_t MappedBytes() {
  std::FILE* status = std::fopen("/proc/self/status", "r");
  if (status == nullptr) return -1;
  char line[256];
  int64_t kib = -1;
  while (std::fgets(line, sizeof line, status) != nullptr) {
    if (std::sscanf(line, "VmSize: %" SCNd64, &kib) == 1) break;
  }
  std::fclose(status);
  return kib < 0 ? -1 : kib * 1024;
}

// Kept blocks hold address space: under a limit on it (ulimit -v), a
// mapping that fails lets them go and is tried again, rather than failing
// for room the cache holds. (Not under the sanitizers: their shadow
// memory is address space too.)
TEST(Buffer, AFailedMappingLetsTheKeptBlocksGoAndTriesAgain) {
  Buffer::ReleaseCache();
  const int64_t now = MappedBytes();
  ASSERT_GT(now, 0);
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_AS, &saved), 0);
  rlimit limited = saved;
  limited.rlim_cur = static_cast<rlim_t>(now + 1200 * kMiB);
  if (saved.rlim_cur != RLIM_INFINITY && saved.rlim_cur < limited.rlim_cur) {
    GTEST_SKIP() << "an address space limit is set already";
  }
  ASSERT_EQ(setrlimit(RLIMIT_AS, &limited), 0);
  Status result;
  {
    auto kept = Buffer::AllocateUninitialized(1000 * kMiB);  // then the spare
    result = kept.status();
  }
  if (result.ok()) {
    // 1000 MiB kept and 400 MiB more (zeroed: the spare does not serve
    // it) would pass the limit.
    auto more = Buffer::Allocate(400 * kMiB);
    result = more.status();
  }
  ASSERT_EQ(setrlimit(RLIMIT_AS, &saved), 0);
  EXPECT_TRUE(result.ok()) << result.ToString();
  Buffer::ReleaseCache();
}
#endif

// Two sizes asked for in turn, each freed before the next: after the first
// rounds both have a kept block, and neither is resized again (a cache that
// gave a split block's tail back to the OS faulted it in on every round).
TEST(Buffer, AlternatingSizesSettleOnKeptBlocks) {
  Buffer::ReleaseCache();
  const int64_t big = int64_t{4} << 20;
  const int64_t small = int64_t{1} << 20;
  auto rounds = [&](int count) {
    for (int round = 0; round < count; ++round) {
      for (int64_t bytes : {big, small}) {
        ASSERT_OK_AND_ASSIGN(BufferPtr b, Buffer::AllocateUninitialized(bytes));
        std::memset(b->mutable_data(), 1, static_cast<size_t>(bytes));
      }
    }
  };
  rounds(3);
  rusage before{}, after{};
  getrusage(RUSAGE_THREAD, &before);
  rounds(3);
  getrusage(RUSAGE_THREAD, &after);
  // Each round that resized a block faulted in at least 3 MiB (768 pages).
  EXPECT_LT(after.ru_minflt - before.ru_minflt, 32);
  Buffer::ReleaseCache();
}
#endif

// Blocks from 256 KiB are kept too (the scratch arrays of sparse scans are
// that size), a full cache makes room by letting the longest kept blocks
// go, and the block handed out next is the one freed last (its pages are
// the warm ones).
TEST(Buffer, FullCacheLetsTheOldestBlocksGo) {
  Buffer::ReleaseCache();
  const int64_t size = int64_t{512} << 10;
  std::vector<BufferPtr> held;
  std::vector<const uint8_t*> addresses;
  for (int i = 0; i < 70; ++i) {
    ASSERT_OK_AND_ASSIGN(BufferPtr b, Buffer::AllocateUninitialized(size));
    addresses.push_back(b->data());
    held.push_back(std::move(b));
  }
  for (BufferPtr& b : held) b.reset();  // freed in order: the first 6 make room for the last 6
  // The 64 kept come back, the last freed first; the first 6 were let go.
  std::vector<BufferPtr> again;
  for (int i = 69; i >= 6; --i) {
    ASSERT_OK_AND_ASSIGN(BufferPtr b, Buffer::AllocateUninitialized(size));
    EXPECT_EQ(b->data(), addresses[static_cast<size_t>(i)]) << "block " << i;
    again.push_back(std::move(b));
  }
  again.clear();
  Buffer::ReleaseCache();
}

}  // namespace quiver
