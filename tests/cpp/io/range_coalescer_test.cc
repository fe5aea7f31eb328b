// Coalescing: nearby ranges merged, each asked range sliced back out in
// the order asked.
#include "quiver/io/range_coalescer.h"

#include <gtest/gtest.h>

#include <numeric>

#include "test_util.h"

namespace quiver::io::internal {
namespace {

// Buffers holding byte i % 251 at object offset i, for each merged range.
std::vector<BufferPtr> Fetch(const CoalescedRanges& plan) {
  std::vector<BufferPtr> out;
  for (const ByteRange& r : plan.merged) {
    BufferPtr b = *Buffer::Allocate(r.length);
    for (int64_t i = 0; i < r.length; ++i)
      b->mutable_data()[i] = static_cast<uint8_t>((r.offset + i) % 251);
    out.push_back(b);
  }
  return out;
}

TEST(RangeCoalescerTest, MergesRangesCloserThanTheGap) {
  const std::vector<ByteRange> asked = {{1000, 10}, {0, 10}, {15, 5}, {30, 10}, {1005, 2}};
  ASSERT_OK_AND_ASSIGN(CoalescedRanges plan, CoalesceRanges(asked, 10));
  // 0-10 and 15-20 are 5 apart (merged), 30 is 10 after 20 (not merged);
  // 1005-1007 lies inside 1000-1010.
  ASSERT_EQ(plan.merged.size(), 3u);
  EXPECT_EQ(plan.merged[0].offset, 0);
  EXPECT_EQ(plan.merged[0].length, 20);
  EXPECT_EQ(plan.merged[1].offset, 30);
  EXPECT_EQ(plan.merged[2].offset, 1000);
  EXPECT_EQ(plan.merged[2].length, 10);
  ASSERT_OK_AND_ASSIGN(std::vector<BufferPtr> slices, SliceCoalesced(plan, Fetch(plan)));
  ASSERT_EQ(slices.size(), asked.size());
  for (size_t i = 0; i < asked.size(); ++i) {
    ASSERT_EQ(slices[i]->size(), asked[i].length);
    for (int64_t j = 0; j < asked[i].length; ++j) {
      EXPECT_EQ(slices[i]->data()[j], (asked[i].offset + j) % 251) << i;
    }
  }
}

TEST(RangeCoalescerTest, GapZeroMergesOnlyTouchingOrOverlapping) {
  ASSERT_OK_AND_ASSIGN(CoalescedRanges plan,
                       CoalesceRanges({{0, 10}, {10, 5}, {16, 1}, {3, 20}}, 0));
  ASSERT_EQ(plan.merged.size(), 1u);  // 3-23 overlaps all
  EXPECT_EQ(plan.merged[0].length, 23);
  ASSERT_OK_AND_ASSIGN(plan, CoalesceRanges({{0, 10}, {11, 5}}, 0));
  EXPECT_EQ(plan.merged.size(), 2u);
}

TEST(RangeCoalescerTest, EmptyRangesAndNoRanges) {
  ASSERT_OK_AND_ASSIGN(CoalescedRanges plan, CoalesceRanges({{5, 0}, {100, 4}, {0, 0}}, 64));
  ASSERT_EQ(plan.merged.size(), 1u);
  ASSERT_OK_AND_ASSIGN(std::vector<BufferPtr> slices, SliceCoalesced(plan, Fetch(plan)));
  EXPECT_EQ(slices[0]->size(), 0);
  EXPECT_EQ(slices[1]->size(), 4);
  EXPECT_EQ(slices[2]->size(), 0);
  ASSERT_OK_AND_ASSIGN(plan, CoalesceRanges({}, 64));
  EXPECT_TRUE(plan.merged.empty());
}

TEST(RangeCoalescerTest, RefusesBadRangesAndWrongBuffers) {
  EXPECT_ERROR(kInvalid, "invalid byte range", CoalesceRanges({{-1, 5}}, 0));
  EXPECT_ERROR(kInvalid, "invalid byte range", CoalesceRanges({{0, -5}}, 0));
  EXPECT_ERROR(kInvalid, "invalid byte range", CoalesceRanges({{INT64_MAX, 2}}, 0));
  ASSERT_OK_AND_ASSIGN(CoalescedRanges plan, CoalesceRanges({{0, 10}}, 0));
  EXPECT_ERROR(kInvalid, "got 0 buffers", SliceCoalesced(plan, {}));
  EXPECT_ERROR(kInvalid, "came back with 3 bytes", SliceCoalesced(plan, {*Buffer::Allocate(3)}));
}

TEST(RangeCoalescerTest, ManyRandomRangesSliceBackExactly) {
  std::vector<ByteRange> asked;
  uint64_t state = 12345;
  auto next = [&] {
    return (state = state * 6364136223846793005ull + 1442695040888963407ull) >> 33;
  };
  for (int i = 0; i < 500; ++i) {
    asked.push_back({static_cast<int64_t>(next() % 100000), static_cast<int64_t>(next() % 300)});
  }
  ASSERT_OK_AND_ASSIGN(CoalescedRanges plan, CoalesceRanges(asked, 100));
  for (size_t i = 1; i < plan.merged.size(); ++i) {
    EXPECT_GE(plan.merged[i].offset - (plan.merged[i - 1].offset + plan.merged[i - 1].length), 100);
  }
  ASSERT_OK_AND_ASSIGN(std::vector<BufferPtr> slices, SliceCoalesced(plan, Fetch(plan)));
  for (size_t i = 0; i < asked.size(); ++i) {
    ASSERT_EQ(slices[i]->size(), asked[i].length);
    for (int64_t j = 0; j < asked[i].length; ++j) {
      ASSERT_EQ(slices[i]->data()[j], (asked[i].offset + j) % 251);
    }
  }
}

}  // namespace
}  // namespace quiver::io::internal
