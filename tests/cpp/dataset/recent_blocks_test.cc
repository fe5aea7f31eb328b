// The recently decoded blocks: found by their whole key, the least
// recently used dropped beyond the budget, a block over the budget never
// kept.
#include "quiver/dataset/recent_blocks.h"

#include <gtest/gtest.h>

namespace quiver::dataset {
namespace {

BufferPtr Bytes(int64_t n) { return *Buffer::Allocate(n); }

}  // namespace

TEST(RecentBlocks, KeepsTheMostRecentWithinItsBudget) {
  RecentBlocks recent(300);
  int source = 0;
  const BlockKey a{&source, 1, 2, 0}, b{&source, 1, 2, 100}, c{&source, 1, 3, 0};
  recent.Insert(a, Bytes(100));
  recent.Insert(b, Bytes(100));
  EXPECT_NE(recent.Find(a), nullptr);  // a is now the most recent
  EXPECT_EQ(recent.Find(BlockKey{&source, 2, 2, 0}), nullptr);
  EXPECT_EQ(recent.Find(BlockKey{nullptr, 1, 2, 0}), nullptr);
  recent.Insert(c, Bytes(150));  // over 300: b, the least recent, goes
  EXPECT_EQ(recent.Find(b), nullptr);
  EXPECT_NE(recent.Find(a), nullptr);
  EXPECT_NE(recent.Find(c), nullptr);
  EXPECT_EQ(recent.bytes(), 250);
  recent.Insert(BlockKey{&source, 9, 9, 9}, Bytes(301));  // larger than the budget
  EXPECT_EQ(recent.bytes(), 250);
  EXPECT_EQ(recent.Find(BlockKey{&source, 9, 9, 9}), nullptr);
}

}  // namespace quiver::dataset
