// Internal: a seeded bijection of [0, n) evaluated one index at a time, so
// that a shuffled epoch needs no O(n) table of rows (docs/loader.md,
// "The order of an epoch").
#pragma once

#include <array>
#include <cstdint>

namespace quiver::data {

// A Feistel network over 2h bits (the smallest h with 4^h >= n), six
// rounds whose round function mixes the right half with a round key
// (SplitMix64's finaliser), made a permutation of [0, n) by cycle-walking:
// an image >= n is permuted again until it falls inside. 4^h < 4n, so a
// walk takes fewer than four steps on average. Everything is integer
// arithmetic on uint64_t: the same (n, key) gives the same permutation on
// every platform and compiler.
class RowPermutation {
 public:
  // n >= 0 (a permutation of nothing for n == 0).
  RowPermutation(uint64_t n, uint64_t key);

  uint64_t size() const { return n_; }
  // The image of i, for 0 <= i < size().
  uint64_t operator()(uint64_t i) const;

 private:
  static constexpr int kRounds = 6;
  uint64_t Encrypt(uint64_t x) const;

  uint64_t n_ = 0;
  int half_bits_ = 0;
  uint64_t half_mask_ = 0;
  std::array<uint64_t, kRounds> keys_{};
};

}  // namespace quiver::data
