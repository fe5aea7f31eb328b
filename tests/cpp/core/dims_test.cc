// Dims: the small vector behind Tensor::shape() and strides(), in place up
// to Dims::kInline values and on the heap beyond.
#include "quiver/dims.h"

#include <gtest/gtest.h>

#include <numeric>
#include <utility>
#include <vector>

namespace quiver {

namespace {

std::vector<int64_t> Iota(size_t n) {
  std::vector<int64_t> out(n);
  std::iota(out.begin(), out.end(), int64_t{-3});
  return out;
}

}  // namespace

TEST(Dims, ReadsLikeAVectorInPlaceAndOnTheHeap) {
  for (size_t n : {size_t{0}, size_t{1}, Dims::kInline, Dims::kInline + 1, size_t{40}}) {
    const std::vector<int64_t> values = Iota(n);
    const Dims dims(values);
    EXPECT_EQ(dims.size(), n);
    EXPECT_EQ(dims.empty(), n == 0);
    EXPECT_EQ(dims, values);
    EXPECT_EQ(static_cast<std::vector<int64_t>>(dims), values);
    EXPECT_TRUE(std::equal(dims.begin(), dims.end(), values.begin(), values.end()));
    std::span<const int64_t> view(dims);
    EXPECT_EQ(view.size(), n);
    if (n > 0) {
      EXPECT_EQ(dims.front(), values.front());
      EXPECT_EQ(dims.back(), values.back());
      EXPECT_EQ(dims[n - 1], values[n - 1]);
    }
  }
}

TEST(Dims, CopiesAndMovesKeepTheValuesAndLeaveTheSourceUsable) {
  for (size_t n : {size_t{3}, size_t{12}}) {
    const std::vector<int64_t> values = Iota(n);
    Dims source(values);
    Dims copy(source);
    EXPECT_EQ(copy, source);
    copy[0] = 99;  // a copy is its own storage
    EXPECT_EQ(source[0], values[0]);
    Dims moved(std::move(source));
    EXPECT_EQ(moved, values);
    EXPECT_TRUE(source.empty());  // NOLINT(bugprone-use-after-move): moved-from is empty
    source = Dims{1, 2};          // and can be reused
    EXPECT_EQ(source, (std::vector<int64_t>{1, 2}));
    // Assignments across the in-place/heap boundary, both ways.
    Dims other(Iota(n == 3 ? 12 : 3));
    other = moved;
    EXPECT_EQ(other, values);
    other = Dims(Iota(n == 3 ? 12 : 3));
    EXPECT_EQ(other, Iota(n == 3 ? 12 : 3));
    other = std::move(moved);
    EXPECT_EQ(other, values);
    Dims& self = other;
    other = self;  // self-assignment keeps the values
    EXPECT_EQ(other, values);
  }
}

TEST(Dims, EqualityComparesSizeAndValues) {
  EXPECT_EQ(Dims({1, 2, 3}), Dims({1, 2, 3}));
  EXPECT_NE(Dims({1, 2, 3}), Dims({1, 2}));
  EXPECT_NE(Dims({1, 2, 3}), Dims({1, 2, 4}));
  EXPECT_TRUE((std::vector<int64_t>{5, 6}) == Dims({5, 6}));  // either side
  EXPECT_EQ(Dims(4, 7), (std::vector<int64_t>{7, 7, 7, 7}));
  EXPECT_EQ(Dims(9, 0), std::vector<int64_t>(9, 0));
}

}  // namespace quiver
