#include "quiver/data/row_permutation.h"

namespace quiver::data {

namespace {

// SplitMix64's output function: every input bit reaches every output bit.
uint64_t Mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

RowPermutation::RowPermutation(uint64_t n, uint64_t key) : n_(n) {
  // The smallest h with 4^h >= n, at least 1 so that both halves exist.
  half_bits_ = 1;
  while (half_bits_ < 32 && (uint64_t{1} << (2 * half_bits_)) < n) ++half_bits_;
  half_mask_ = half_bits_ == 32 ? 0xffffffffULL : (uint64_t{1} << half_bits_) - 1;
  uint64_t state = key;
  for (uint64_t& round_key : keys_) {
    state += 0x9e3779b97f4a7c15ULL;
    round_key = Mix(state);
  }
}

uint64_t RowPermutation::Encrypt(uint64_t x) const {
  uint64_t left = x >> half_bits_;
  uint64_t right = x & half_mask_;
  for (uint64_t round_key : keys_) {
    const uint64_t next = left ^ (Mix(right ^ round_key) & half_mask_);
    left = right;
    right = next;
  }
  return (left << half_bits_) | right;
}

uint64_t RowPermutation::operator()(uint64_t i) const {
  // Encrypt permutes [0, 4^h); walking the cycle from i until it re-enters
  // [0, n) permutes [0, n). The walk ends: the cycle holds i itself.
  uint64_t x = Encrypt(i);
  while (x >= n_) x = Encrypt(x);
  return x;
}

}  // namespace quiver::data
