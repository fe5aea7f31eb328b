// LSB-ordered validity bitmaps: single bits, counting unset bits over any
// range, and copying a range re-based to bit 0.
#include "quiver/internal/bitmap.h"

#include <random>
#include <vector>

#include "test_util.h"

namespace quiver::internal {
namespace {

// Bit i is slot i: 0b10110101 then 0b00000011 then 0xFF.
const std::vector<uint8_t> kBits = {0xB5, 0x03, 0xFF};

std::vector<bool> BitsOf(const uint8_t* bits, int64_t length) {
  std::vector<bool> out;
  for (int64_t i = 0; i < length; ++i) out.push_back(GetBit(bits, i));
  return out;
}

}  // namespace

TEST(Bitmap, GetAndSetBitAreLsbFirst) {
  EXPECT_EQ(BitsOf(kBits.data(), 10),
            (std::vector<bool>{true, false, true, false, true, true, false, true, true, true}));
  std::vector<uint8_t> bits(2, 0);
  SetBit(bits.data(), 0);
  SetBit(bits.data(), 9);
  SetBit(bits.data(), 9);  // setting twice changes nothing
  EXPECT_EQ(bits, (std::vector<uint8_t>{0x01, 0x02}));
}

TEST(Bitmap, CountUnsetBitsOverEveryRange) {
  // Against a bit-by-bit count for each start and length, so the
  // byte-at-a-time middle and the partial ends all agree.
  for (int64_t offset = 0; offset <= 24; ++offset) {
    for (int64_t length = 0; offset + length <= 24; ++length) {
      int64_t expected = 0;
      for (int64_t i = offset; i < offset + length; ++i)
        expected += GetBit(kBits.data(), i) ? 0 : 1;
      EXPECT_EQ(CountUnsetBits(kBits.data(), offset, length), expected) << offset << "+" << length;
    }
  }
  EXPECT_EQ(CountUnsetBits(kBits.data(), 0, 8), 3);
  EXPECT_EQ(CountUnsetBits(kBits.data(), 8, 8), 6);
  EXPECT_EQ(CountUnsetBits(kBits.data(), 16, 8), 0);
}

TEST(Bitmap, CopyBitmapRebasesToBitZeroAndCounts) {
  int64_t unset = -1;
  ASSERT_OK_AND_ASSIGN(BufferPtr copy, CopyBitmap(kBits.data(), 3, 10, &unset));
  EXPECT_EQ(copy->size(), 2);
  EXPECT_EQ(BitsOf(copy->data(), 10),
            (std::vector<bool>{false, true, true, false, true, true, true, false, false, false}));
  EXPECT_EQ(unset, 5);
  // The bits past the length are zero.
  EXPECT_EQ(copy->data()[1] & 0xFC, 0);
  ASSERT_OK_AND_ASSIGN(BufferPtr empty, CopyBitmap(kBits.data(), 5, 0, &unset));
  EXPECT_EQ(empty->size(), 0);
  EXPECT_EQ(unset, 0);
}

TEST(Bitmap, CopyBitsAndSetBitsAtEveryAlignment) {
  std::vector<uint8_t> src = {0xB5, 0x3C, 0xFF, 0x01, 0x80};
  for (int64_t from = 0; from < 9; ++from) {
    for (int64_t to = 0; to < 9; ++to) {
      for (int64_t count : {0, 1, 7, 8, 9, 20, 31}) {
        std::vector<uint8_t> copy(8, 0), set(8, 0);
        CopyBits(src.data(), from, copy.data(), to, count);
        SetBits(set.data(), to, count);
        for (int64_t i = 0; i < 64; ++i) {
          const bool inside = i >= to && i < to + count;
          ASSERT_EQ(GetBit(copy.data(), i), inside && GetBit(src.data(), from + i - to))
              << from << " " << to << " " << count << " bit " << i;
          ASSERT_EQ(GetBit(set.data(), i), inside);
        }
      }
    }
  }
}

TEST(Bitmap, CountUnsetBitsOverWordsMatchesALoop) {
  std::vector<uint8_t> bits(64);
  for (size_t i = 0; i < bits.size(); ++i) bits[i] = static_cast<uint8_t>(i * 37 + (i >> 2));
  for (int64_t offset = 0; offset < 10; ++offset) {
    for (int64_t length : {0, 1, 63, 64, 65, 127, 128, 200, 400}) {
      int64_t unset = 0;
      for (int64_t i = offset; i < offset + length; ++i) unset += !GetBit(bits.data(), i);
      ASSERT_EQ(CountUnsetBits(bits.data(), offset, length), unset) << offset << " " << length;
    }
  }
}

TEST(Bitmap, CountBitsCountsEveryWord) {
  EXPECT_EQ(CountBits(0), 0);
  EXPECT_EQ(CountBits(~uint64_t{0}), 64);
  EXPECT_EQ(CountBits(uint64_t{1} << 63), 1);
  std::mt19937_64 rng(4);
  for (int i = 0; i < 1000; ++i) {
    const uint64_t word = rng();
    int want = 0;
    for (int b = 0; b < 64; ++b) want += static_cast<int>((word >> b) & 1);
    EXPECT_EQ(CountBits(word), want);
  }
}

}  // namespace quiver::internal
