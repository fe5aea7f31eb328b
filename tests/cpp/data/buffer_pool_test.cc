// The batch buffer ring: a buffer is handed out again only once nobody
// else holds it, sizes must fit, and a custom allocator is used.
#include "quiver/data/buffer_pool.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace quiver::data {
namespace {

constexpr int64_t kBig = 1 << 20;

TEST(BufferPool, ReusesABufferOnlyWhenReleased) {
  BufferPool pool(4, nullptr);
  ASSERT_OK_AND_ASSIGN(BufferPtr first, pool.Acquire(kBig));
  const uint8_t* address = first->data();
  ASSERT_OK_AND_ASSIGN(BufferPtr second, pool.Acquire(kBig));
  EXPECT_NE(second->data(), address);  // first is still held
  first.reset();
  ASSERT_OK_AND_ASSIGN(BufferPtr third, pool.Acquire(kBig - 100));
  EXPECT_EQ(third->data(), address);  // released, so reused
  EXPECT_EQ(pool.allocations(), 2);
  EXPECT_EQ(pool.kept(), 2);
}

TEST(BufferPool, SizesMustFitAndNotWasteHalf) {
  BufferPool pool(4, nullptr);
  { ASSERT_OK_AND_ASSIGN(BufferPtr small, pool.Acquire(kBig)); }
  ASSERT_OK_AND_ASSIGN(BufferPtr larger, pool.Acquire(2 * kBig));  // too small to reuse
  ASSERT_OK_AND_ASSIGN(BufferPtr tiny, pool.Acquire(kBig / 4));    // would waste 3/4
  EXPECT_EQ(pool.allocations(), 3);
  EXPECT_GE(larger->size(), 2 * kBig);
}

TEST(BufferPool, FullPoolReplacesItsSmallestIdleBuffer) {
  BufferPool pool(1, nullptr);
  { ASSERT_OK_AND_ASSIGN(BufferPtr a, pool.Acquire(kBig)); }
  ASSERT_OK_AND_ASSIGN(BufferPtr b, pool.Acquire(4 * kBig));
  const uint8_t* address = b->data();
  b.reset();
  ASSERT_OK_AND_ASSIGN(BufferPtr c, pool.Acquire(4 * kBig));
  EXPECT_EQ(c->data(), address);
  EXPECT_EQ(pool.kept(), 1);
}

// Each array of a batch has a ring of its own: the buffers of a large
// array do not take the places of another array's, nor does one array's
// ring grow past `capacity` while another's is empty.
TEST(BufferPool, EachArrayKeepsARingOfItsOwn) {
  BufferPool pool(1, nullptr);
  const uint8_t* small_address = nullptr;
  {
    ASSERT_OK_AND_ASSIGN(BufferPtr small, pool.Acquire(kBig, 0));
    small_address = small->data();
  }
  {
    ASSERT_OK_AND_ASSIGN(BufferPtr big, pool.Acquire(4 * kBig, 1));
    ASSERT_OK_AND_ASSIGN(BufferPtr big2, pool.Acquire(4 * kBig, 1));  // beyond array 1's ring
  }
  EXPECT_EQ(pool.kept(), 2);
  ASSERT_OK_AND_ASSIGN(BufferPtr again, pool.Acquire(kBig, 0));
  EXPECT_EQ(again->data(), small_address);
  EXPECT_EQ(pool.allocations(), 3);
  EXPECT_ERROR(kInvalid, "array number -1 is negative", pool.Acquire(kBig, -1));
}

TEST(BufferPool, KeepsSmallBuffersOnlyFromACustomAllocator) {
  BufferPool plain(4, nullptr);
  { ASSERT_OK_AND_ASSIGN(BufferPtr small, plain.Acquire(100)); }
  EXPECT_EQ(plain.kept(), 0);  // malloc of 100 bytes is cheaper than keeping it
  int calls = 0;
  BufferPool pinned(4, [&](int64_t bytes) -> Result<BufferPtr> {
    ++calls;
    return Buffer::Allocate(bytes);
  });
  for (int i = 0; i < 10; ++i) {
    ASSERT_OK_AND_ASSIGN(BufferPtr small, pinned.Acquire(100));
  }
  EXPECT_EQ(calls, 1);  // pinning again would cost far more than the bytes
  EXPECT_EQ(pinned.kept(), 1);
}

TEST(BufferPool, UsesTheAllocatorAndChecksWhatItReturns) {
  int calls = 0;
  BufferPool pool(2, [&](int64_t bytes) -> Result<BufferPtr> {
    ++calls;
    return Buffer::Allocate(bytes);
  });
  ASSERT_OK_AND_ASSIGN(BufferPtr buffer, pool.Acquire(kBig));
  EXPECT_EQ(calls, 1);
  BufferPool short_pool(2, [](int64_t bytes) { return Buffer::Allocate(bytes / 2); });
  EXPECT_ERROR(kInvalid, "fewer than", short_pool.Acquire(kBig));
  BufferPool failing(2, [](int64_t) -> Result<BufferPtr> { return Status::OutOfMemory("no"); });
  EXPECT_ERROR(kOutOfMemory, "no", failing.Acquire(kBig));
  EXPECT_ERROR(kInvalid, "cannot allocate -1 bytes", pool.Acquire(-1));
}

TEST(BufferPool, RunsTheReuseHookBeforeAKeptBufferOnly) {
  int syncs = 0;
  Status outcome = Status::OK();
  BufferPool pool(
      2, [](int64_t bytes) { return Buffer::Allocate(bytes); },
      [&] {
        ++syncs;
        return outcome;
      });
  { ASSERT_OK_AND_ASSIGN(BufferPtr fresh, pool.Acquire(kBig)); }
  EXPECT_EQ(syncs, 0);  // a new buffer no one has read yet
  ASSERT_OK_AND_ASSIGN(BufferPtr reused, pool.Acquire(kBig));
  EXPECT_EQ(syncs, 1);
  reused.reset();
  outcome = Status::IOError("the device is gone");
  EXPECT_ERROR(kIOError, "the device is gone", pool.Acquire(kBig));
  EXPECT_EQ(pool.allocations(), 1);
  // The refused buffer went back to the pool: a working hook reuses it.
  outcome = Status::OK();
  ASSERT_OK_AND_ASSIGN(BufferPtr again, pool.Acquire(kBig));
  EXPECT_EQ(syncs, 3);
  EXPECT_EQ(pool.allocations(), 1);
}

}  // namespace
}  // namespace quiver::data
