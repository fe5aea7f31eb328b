#include "quiver/internal/stream_copy.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace quiver::internal {
namespace {

// Every alignment of both sides and sizes around the 16-byte head and the
// 64-byte body: the bytes land exactly, and nothing around them changes.
TEST(StreamCopy, CopiesExactlyAtEveryAlignment) {
  std::vector<uint8_t> src(8192 + 64);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i * 7 + 3);
  for (size_t n : {0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 200, 4099, 8192}) {
    for (size_t d = 0; d < 16; ++d) {
      for (size_t s = 0; s < 16; s += 5) {
        std::vector<uint8_t> dst(n + 64, 0xEE);
        StreamCopy(dst.data() + d, src.data() + s, n);
        StreamFence();
        for (size_t i = 0; i < dst.size(); ++i) {
          const bool inside = i >= d && i < d + n;
          ASSERT_EQ(dst[i], inside ? src[s + i - d] : 0xEE)
              << "n " << n << " d " << d << " s " << s;
        }
      }
    }
  }
}

}  // namespace
}  // namespace quiver::internal
