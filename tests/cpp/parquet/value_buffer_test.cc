// ValueBuffer: appends that grow the storage, reservations, the finished
// buffer sharing the storage, and an empty buffer.
#include "quiver/parquet/value_buffer.h"

#include <cstring>
#include <string>

#include "test_util.h"

namespace quiver::parquet {
namespace {

TEST(ValueBufferTest, AppendsGrowAndFinishWithoutACopy) {
  ValueBuffer buffer;
  ASSERT_OK(buffer.Reserve(8));
  ASSERT_OK(buffer.Append("abcd", 4));
  const uint8_t* before = buffer.data();
  ASSERT_OK(buffer.Append("efgh", 4));
  EXPECT_EQ(buffer.data(), before);  // within the reservation: no move
  for (int i = 0; i < 100; ++i) ASSERT_OK(buffer.Append("x", 1));
  EXPECT_EQ(buffer.size(), 108);
  ASSERT_OK_AND_ASSIGN(BufferPtr out, buffer.Finish());
  EXPECT_EQ(out->size(), 108);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(out->data()), 8), "abcdefgh");
  EXPECT_EQ(buffer.size(), 0);
}

TEST(ValueBufferTest, ShrinkDropsTheTailAndEmptyBuffersFinish) {
  ValueBuffer buffer;
  ASSERT_OK_AND_ASSIGN(uint8_t * none, buffer.Extend(0));
  (void)none;  // an empty extend of an empty buffer is fine
  ASSERT_OK(buffer.Append("abcdef", 6));
  buffer.Shrink(2);
  ASSERT_OK_AND_ASSIGN(BufferPtr out, buffer.Finish());
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(out->data()), out->size()), "abcd");
  ValueBuffer empty;
  ASSERT_OK_AND_ASSIGN(BufferPtr nothing, empty.Finish());
  EXPECT_EQ(nothing->size(), 0);
  EXPECT_ERROR(kInvalid, "a negative length", empty.Extend(-1));
}

}  // namespace
}  // namespace quiver::parquet
