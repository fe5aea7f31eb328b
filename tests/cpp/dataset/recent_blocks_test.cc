// The recently decoded blocks and block indexes: found by their whole key,
// the least recently used dropped beyond each budget, a value over its
// budget never kept.
#include "quiver/dataset/recent_blocks.h"

#include <gtest/gtest.h>

namespace quiver::dataset {
namespace {

BufferPtr Bytes(int64_t n) { return *Buffer::Allocate(n); }

}  // namespace

TEST(RecentBlocks, KeepsTheMostRecentBlocksWithinTheirBudget) {
  RecentBlocks recent(300, 0);
  int source = 0;
  const BlockKey a{&source, 1, 2, 0}, b{&source, 1, 2, 100}, c{&source, 1, 3, 0};
  recent.InsertBlock(a, Bytes(100));
  recent.InsertBlock(b, Bytes(100));
  EXPECT_NE(recent.FindBlock(a), nullptr);  // a is now the most recent
  EXPECT_EQ(recent.FindBlock(BlockKey{&source, 2, 2, 0}), nullptr);
  EXPECT_EQ(recent.FindBlock(BlockKey{nullptr, 1, 2, 0}), nullptr);
  recent.InsertBlock(c, Bytes(150));  // over 300: b, the least recent, goes
  EXPECT_EQ(recent.FindBlock(b), nullptr);
  EXPECT_NE(recent.FindBlock(a), nullptr);
  EXPECT_NE(recent.FindBlock(c), nullptr);
  EXPECT_EQ(recent.block_bytes(), 250);
  recent.InsertBlock(BlockKey{&source, 9, 9, 9}, Bytes(301));  // larger than the budget
  EXPECT_EQ(recent.block_bytes(), 250);
  EXPECT_EQ(recent.FindBlock(BlockKey{&source, 9, 9, 9}), nullptr);
}

TEST(RecentBlocks, IndexesHaveABudgetOfTheirOwn) {
  RecentBlocks recent(0, 10 * 1024);
  int source = 0;
  auto index = std::make_shared<BufferBlocks>();
  index->blocks.resize(10);
  for (int64_t k = 0; k < 100; ++k) recent.InsertIndex(BlockKey{&source, k, 0, -1}, index);
  EXPECT_LE(recent.index_bytes(), 10 * 1024);
  EXPECT_GT(recent.index_bytes(), 0);
  EXPECT_NE(recent.FindIndex(BlockKey{&source, 99, 0, -1}), nullptr);
  EXPECT_EQ(recent.FindIndex(BlockKey{&source, 0, 0, -1}), nullptr);  // dropped
  recent.InsertBlock(BlockKey{&source, 0, 0, 0}, Bytes(1));           // no budget for blocks
  EXPECT_EQ(recent.FindBlock(BlockKey{&source, 0, 0, 0}), nullptr);
}

}  // namespace quiver::dataset
