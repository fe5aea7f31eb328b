// The LZ4 block size a record batch message declares (block_hint.h).
#include "quiver/ipc/block_hint.h"

#include <gtest/gtest.h>

namespace quiver::ipc {
namespace {

KeyValueMetadata Hint(const std::string& value) {
  return {{std::string(kLz4BlockBytesKey), value}};
}

TEST(BlockHint, APowerOfTwoBlockSizeReadsBack) {
  EXPECT_EQ(Lz4BlockBytesOf(Hint("16384")), 16384);
  EXPECT_EQ(Lz4BlockBytesOf(Hint("4096")), 4096);
  EXPECT_EQ(Lz4BlockBytesOf(Hint("4194304")), 4194304);
  KeyValueMetadata among = {{"other", "1"}, {std::string(kLz4BlockBytesKey), "65536"}};
  EXPECT_EQ(Lz4BlockBytesOf(among), 65536);
}

TEST(BlockHint, AnythingElseIsNoHint) {
  EXPECT_FALSE(Lz4BlockBytesOf({}));
  for (const char* bad : {"", "0", "16000", "2048", "8388608", "-16384", "+16384", "016384",
                          "16384 ", "1e4", "99999999999999999999999"}) {
    SCOPED_TRACE(bad);
    EXPECT_FALSE(Lz4BlockBytesOf(Hint(bad)));
  }
  KeyValueMetadata twice = Hint("16384");
  twice.push_back(twice[0]);
  EXPECT_FALSE(Lz4BlockBytesOf(twice));  // two answers: trust neither
}

}  // namespace
}  // namespace quiver::ipc
