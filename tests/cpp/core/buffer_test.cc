#include "quiver/buffer.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
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
// A request that no kept block fits as it is takes the block nearest in
// size (within 4x) and resizes it: grown, its old pages come along and only
// the added ones are new; cut down, the pages past the request go back to
// the system instead of staying resident in the cache.
TEST(Buffer, AKeptBlockIsResizedForARequestItDoesNotFit) {
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
  // A quarter of it: the block is cut down where it lies.
  const int64_t quarter = size / 4;
  {
    ASSERT_OK_AND_ASSIGN(BufferPtr small, Buffer::AllocateUninitialized(quarter));
    ASSERT_EQ(small->data(), first);
    EXPECT_EQ(small->data()[0], 0xAB);
    unsigned char resident = 0;
    void* past = const_cast<uint8_t*>(first) + size / 2;  // page aligned: the block is
    errno = 0;
    EXPECT_EQ(mincore(past, static_cast<size_t>(sysconf(_SC_PAGESIZE)), &resident), -1);
    EXPECT_EQ(errno, ENOMEM) << "the pages past the request are still mapped";
  }
  // Three times that: the block grows, its written pages with it.
  {
    ASSERT_OK_AND_ASSIGN(BufferPtr grown, Buffer::AllocateUninitialized(3 * quarter));
    EXPECT_EQ(grown->data()[0], 0xAB);
    EXPECT_EQ(grown->data()[quarter - 1], 0xAB);
    std::memset(grown->mutable_data(), 0x11, static_cast<size_t>(3 * quarter));
  }
  // A zeroed request that grows a dirty block still reads zero throughout.
  ASSERT_OK_AND_ASSIGN(BufferPtr zeroed, Buffer::Allocate(size));
  const std::vector<uint8_t> zeros(static_cast<size_t>(size), 0);
  EXPECT_EQ(std::memcmp(zeroed->data(), zeros.data(), zeros.size()), 0);
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
