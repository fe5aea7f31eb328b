// The decoded-column cache: hits and misses counted, least recently used
// dropped first, never above its bytes, an entry larger than the budget
// not kept.
#include "quiver/dataset/column_cache.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace quiver::dataset {
namespace {

std::shared_ptr<ArrayData> Column(int64_t bytes) {
  auto data = std::make_shared<ArrayData>();
  data->type = uint8();
  data->length = bytes;
  data->buffers = {nullptr, *Buffer::Allocate(bytes)};
  return data;
}

TEST(ColumnCache, KeepsTheRecentlyUsedWithinItsBytes) {
  ColumnCache cache(300);
  cache.Insert({0, 0}, Column(100), 100);
  cache.Insert({1, 0}, Column(100), 100);
  cache.Insert({2, 0}, Column(100), 100);
  ASSERT_TRUE(cache.Find({0, 0}).has_value());  // now the most recent
  cache.Insert({3, 0}, Column(100), 100);       // drops {1, 0}
  EXPECT_FALSE(cache.Find({1, 0}).has_value());
  EXPECT_TRUE(cache.Find({0, 0}).has_value());
  EXPECT_TRUE(cache.Find({3, 0}).has_value());
  const ColumnCacheCounts counts = cache.counts();
  EXPECT_EQ(counts.hits, 3);
  EXPECT_EQ(counts.misses, 1);
  EXPECT_EQ(counts.evictions, 1);
  EXPECT_EQ(counts.bytes, 300);
}

TEST(ColumnCache, AnEntryLargerThanTheBudgetIsNotKept) {
  ColumnCache cache(50);
  cache.Insert({0, 0}, Column(100), 100);
  EXPECT_FALSE(cache.Find({0, 0}).has_value());
  EXPECT_EQ(cache.counts().bytes, 0);
  ColumnCache none(0);
  none.Insert({0, 0}, Column(1), 1);
  EXPECT_FALSE(none.Find({0, 0}).has_value());
}

// Full: within a sixteenth of the budget, or once room ran out (a dataset
// then reads a few rows of a compressed batch alone rather than decode the
// batch into it).
TEST(ColumnCache, FullWithinASixteenthOfItsBudget) {
  ColumnCache cache(1600);
  EXPECT_FALSE(cache.Full());
  cache.Insert({0, 0}, Column(1400), 1400);
  EXPECT_FALSE(cache.Full());  // 1,400 of 1,600: 200 left, more than 100
  cache.Insert({1, 0}, Column(101), 101);
  EXPECT_TRUE(cache.Full());  // 99 left
  EXPECT_TRUE(ColumnCache(0).Full());
  // An entry refused for its size, or one dropped for room: full from then
  // on, however little it holds.
  ColumnCache refused(1000);
  refused.Insert({0, 0}, Column(1001), 1001);
  EXPECT_TRUE(refused.Full());
  ColumnCache dropped(1000);
  dropped.Insert({0, 0}, Column(600), 600);
  dropped.Insert({1, 0}, Column(600), 600);  // drops {0, 0}
  EXPECT_EQ(dropped.counts().bytes, 600);
  EXPECT_TRUE(dropped.Full());
}

TEST(ColumnCache, ArrayBytesCountsChildrenAndDictionaries) {
  std::shared_ptr<ArrayData> parent = Column(10);
  parent->children = {Column(20)};
  parent->dictionary = Column(5);
  EXPECT_EQ(ArrayBytes(*parent), 35);
}

}  // namespace
}  // namespace quiver::dataset
