// RowMask: a filter's mask packed one bit a row, from bytes of any value
// and any length, read once.
#include "quiver/row_mask.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "quiver/internal/row_mask_words.h"
#include "quiver/selection.h"
#include "test_util.h"

namespace quiver {
namespace {

TEST(RowMask, EveryNonZeroByteKeepsItsRowAtEveryLength) {
  std::mt19937_64 rng(3);
  for (int64_t n : {0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 129, 1000, 4099}) {
    std::vector<uint8_t> bytes(static_cast<size_t>(n));
    for (uint8_t& b : bytes) b = rng() % 3 == 0 ? static_cast<uint8_t>(rng() % 256) : 0;
    const RowMask mask = RowMask::FromBytes(bytes);
    ASSERT_EQ(mask.length(), n);
    ASSERT_EQ(mask.words().size(), static_cast<size_t>((n + 63) / 64));
    int64_t kept = 0;
    for (int64_t i = 0; i < n; ++i) {
      EXPECT_EQ(mask.Keeps(i), bytes[static_cast<size_t>(i)] != 0) << n << " " << i;
      kept += bytes[static_cast<size_t>(i)] != 0;
    }
    EXPECT_EQ(mask.kept(), kept) << n;
    // Bits past the length are 0: counting whole words counts the rows.
    if (n % 64 != 0) {
      EXPECT_EQ(mask.words().back() >> (n % 64), 0u) << n;
    }
  }
  EXPECT_EQ(RowMask::FromBytes({}).length(), 0);
  EXPECT_EQ(RowMask::FromBytes({}).kept(), 0);
}

// Both loops that pack whole words (the portable one and, where this
// processor has AVX2, the wide one) give the words and count of a loop
// over the bytes, whatever this machine would pick.
TEST(RowMask, EveryPackingLoopMatchesAByteLoop) {
  std::mt19937_64 rng(5);
  const int64_t full = 37;
  std::vector<uint8_t> bytes(static_cast<size_t>(full * 64));
  for (uint8_t& b : bytes) b = rng() % 2 ? static_cast<uint8_t>(rng()) : 0;
  for (int64_t i = 64; i < 128; ++i) bytes[static_cast<size_t>(i)] = 255;  // a word all kept
  for (int64_t i = 128; i < 192; ++i) bytes[static_cast<size_t>(i)] = 0;   // one of none
  std::vector<uint64_t> want(static_cast<size_t>(full), 0);
  int64_t want_kept = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (bytes[i] != 0) want[i / 64] |= uint64_t{1} << (i % 64);
    want_kept += bytes[i] != 0;
  }
  std::vector<uint64_t> got(static_cast<size_t>(full), 0);
  EXPECT_EQ(internal::PackMaskWords(bytes.data(), full, got.data()), want_kept);
  EXPECT_EQ(got, want);
  int64_t kept = -1;
  got.assign(got.size(), 0);
  if (internal::PackMaskWordsAvx2(bytes.data(), full, got.data(), &kept)) {
    EXPECT_EQ(kept, want_kept);
    EXPECT_EQ(got, want);
  }
}

// The mask is a snapshot: bytes changed after it was made change nothing.
TEST(RowMask, BytesChangedAfterwardsChangeNothing) {
  std::vector<uint8_t> bytes = {1, 0, 0, 1, 1};
  const RowMask mask = RowMask::FromBytes(bytes);
  bytes.assign(bytes.size(), 0);
  ArrayDataPtr values = test::Primitive<int64_t>(int64(), {10, 11, 12, 13, 14});
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr kept, Filter(values, mask));
  EXPECT_EQ(MarkedRows(mask), (std::vector<int64_t>{0, 3, 4}));
  ASSERT_EQ(kept->length, 3);
  EXPECT_EQ(reinterpret_cast<const int64_t*>(kept->buffers[1]->data())[kept->offset + 1], 13);
}

// A mask written `{}` is the byte span it was before RowMask existed.
TEST(RowMask, AMaskWrittenAsBracesStillCompilesAsBytes) {
  ArrayDataPtr none = test::Primitive<int64_t>(int64(), {});
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr kept, Filter(none, {}));
  EXPECT_EQ(kept->length, 0);
}

TEST(RowMask, AMaskOfAnotherLengthIsInvalid) {
  ArrayDataPtr values = test::Primitive<int64_t>(int64(), {10, 11, 12});
  const std::vector<uint8_t> bytes = {1, 0};
  auto filtered = Filter(values, RowMask::FromBytes(bytes));
  ASSERT_FALSE(filtered.ok());
  EXPECT_EQ(filtered.status().message(), "filter mask has 2 entries for 3 rows");
}

}  // namespace
}  // namespace quiver
