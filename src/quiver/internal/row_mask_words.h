// Internal: the loops behind RowMask::FromBytes, both named so that tests
// run each on any machine.
#pragma once

#include <cstdint>

namespace quiver::internal {

// Packs `full` whole words of 64 bytes into `words` (bit b of word w: byte
// w * 64 + b is not 0) and returns the rows they keep, portably (SSE2
// where the build has it).
int64_t PackMaskWords(const uint8_t* bytes, int64_t full, uint64_t* words);

// The same with AVX2, where the processor has it: false (nothing written)
// where it has not.
bool PackMaskWordsAvx2(const uint8_t* bytes, int64_t full, uint64_t* words, int64_t* kept);

}  // namespace quiver::internal
