// The column writer cuts pages at row boundaries.
#include "parquet_writer_test_util.h"

namespace quiver::parquet {
namespace {

TEST(ParquetPages, CutAtRowBoundaries) {
  // Lists of 3 values: a page of 8 bytes takes one row (12 bytes) at a time.
  auto child = Primitive<int32_t>(int32(), {1, 2, 3, 4, 5, 6, 7, 8, 9},
                                  {true, true, true, true, false, true, true, true, true});
  auto a = ListOf(list(ListItem(int32())), {0, 3, 6, 9}, {}, child);
  auto leaf = (*ShredArray(a, true))[0];
  auto values = *PhysicalValues::Make(leaf.values, Int32Encoding(), 0, 9);
  auto pages = CutPages(leaf, values, 32, 8);
  ASSERT_EQ(pages.size(), 3u);
  EXPECT_EQ(pages[1].level_begin, 3);
  EXPECT_EQ(pages[1].value_begin, 3);
  EXPECT_EQ(pages[1].value_end, 5);
  EXPECT_EQ(pages[2].rows, 1);
  auto all = CutPages(leaf, values, 32, 1 << 20);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].rows, 3);
  EXPECT_EQ(all[0].value_end, 8);
}

}  // namespace
}  // namespace quiver::parquet
