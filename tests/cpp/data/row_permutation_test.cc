// The seeded bijection behind the global and window shuffles: a
// permutation for every size (exhaustively up to a few thousand, then
// sizes up to 10^5, then sampled indices of sizes up to 2^40), the same
// for the same key on every platform (pinned images), different keys
// different orders, and images spread evenly.
#include "quiver/data/row_permutation.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>
#include <vector>

namespace quiver::data {
namespace {

// Whether the images of [0, n) are exactly [0, n).
bool IsPermutation(uint64_t n, uint64_t key) {
  const RowPermutation permutation(n, key);
  std::vector<bool> seen(n, false);
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t image = permutation(i);
    if (image >= n || seen[image]) return false;
    seen[image] = true;
  }
  return true;
}

TEST(RowPermutation, EverySizeUpToAFewThousand) {
  for (uint64_t n = 0; n <= 3000; ++n) ASSERT_TRUE(IsPermutation(n, n * 31 + 7)) << n;
}

TEST(RowPermutation, SizesUpTo100000) {
  for (uint64_t n : {4095u, 4096u, 4097u, 65535u, 65536u, 65537u, 99991u, 100000u}) {
    EXPECT_TRUE(IsPermutation(n, 12345)) << n;
  }
  // Where the network grows by two bits (4^h) and either side of it, each
  // h up to 10^5; then sizes drawn over (3000, 10^5] with keys of their own.
  for (uint64_t power = 4; power <= 4 * uint64_t{100000}; power *= 4) {
    for (uint64_t n : {power - 1, power, power + 1}) {
      if (n <= 100000) {
        EXPECT_TRUE(IsPermutation(n, n ^ 0x9e3779b97f4a7c15)) << n;
      }
    }
  }
  std::mt19937_64 random(11);
  for (int trial = 0; trial < 60; ++trial) {
    const uint64_t n = 3001 + random() % (100000 - 3000);
    const uint64_t key = random();
    EXPECT_TRUE(IsPermutation(n, key)) << n << " key " << key;
  }
}

TEST(RowPermutation, SampledIndicesOfHugeSizesStayDistinctAndInRange) {
  std::mt19937_64 random(3);
  for (int trial = 0; trial < 8; ++trial) {
    const uint64_t n = (uint64_t{1} << 20) + random() % ((uint64_t{1} << 40) - (uint64_t{1} << 20));
    const RowPermutation permutation(n, random());
    // Distinct indices give distinct images (a repeated index, rare at
    // these sizes, is counted).
    std::set<uint64_t> indices, images;
    size_t repeats = 0;
    for (int s = 0; s < 20000; ++s) {
      const uint64_t index = random() % n;
      if (!indices.insert(index).second) ++repeats;
      const uint64_t image = permutation(index);
      ASSERT_LT(image, n);
      images.insert(image);
    }
    EXPECT_EQ(images.size(), 20000u - repeats);
  }
  // The largest sizes work too (64-bit halves).
  const uint64_t n = uint64_t{1} << 62;
  const RowPermutation permutation(n + 5, 9);
  EXPECT_LT(permutation(n + 4), n + 5);
}

TEST(RowPermutation, PinnedImagesAreTheSameOnEveryPlatform) {
  // Integer arithmetic only: these are the images everywhere. A change
  // here changes every shuffled epoch (and breaks saved loader states).
  const RowPermutation permutation(10, 42);
  std::vector<uint64_t> images;
  for (uint64_t i = 0; i < 10; ++i) images.push_back(permutation(i));
  EXPECT_EQ(images, (std::vector<uint64_t>{2, 7, 4, 0, 8, 3, 6, 9, 5, 1}));
}

TEST(RowPermutation, KeysGiveDifferentOrders) {
  auto images = [](uint64_t key) {
    const RowPermutation permutation(1000, key);
    std::vector<uint64_t> out;
    for (uint64_t i = 0; i < 1000; ++i) out.push_back(permutation(i));
    return out;
  };
  EXPECT_EQ(images(1), images(1));
  EXPECT_NE(images(1), images(2));
  EXPECT_NE(images(2), images(3));
}

TEST(RowPermutation, ImagesAreSpreadEvenly) {
  // Where index 0 and index 57 go, over 20,000 keys, by tenths of [0, 100):
  // about 2,000 each (a standard deviation of 42; 300 is seven of them).
  for (uint64_t index : {uint64_t{0}, uint64_t{57}}) {
    std::vector<int> tenths(10, 0);
    for (uint64_t key = 0; key < 20000; ++key) ++tenths[RowPermutation(100, key)(index) / 10];
    for (int count : tenths) EXPECT_NEAR(count, 2000, 300) << "index " << index;
  }
  // Neighbouring indices land far apart: the mean distance between the
  // images of i and i + 1 is about n / 3 for a random permutation.
  const uint64_t n = 1 << 16;
  const RowPermutation permutation(n, 5);
  double total = 0;
  for (uint64_t i = 0; i + 1 < n; ++i) {
    const auto a = static_cast<double>(permutation(i));
    const auto b = static_cast<double>(permutation(i + 1));
    total += a > b ? a - b : b - a;
  }
  EXPECT_NEAR(total / (n - 1), n / 3.0, n / 30.0);
}

}  // namespace
}  // namespace quiver::data
