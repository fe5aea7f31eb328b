// Record batch messages no honest writer makes, crafted with the generated
// flatbuffer code: buffers outside the body, counts and lengths that do not
// match the schema, UTF-8 offsets past the data, bad compressed buffers.
// Every one must be a specific error, never a crash or a read out of bounds.
#include <cstring>
#include <vector>

#include "ipc_test_util.h"
#include "quiver/ipc.h"
#include "quiver/ipc/encoder.h"
#include "quiver/ipc/message.h"

namespace quiver::ipc {

using test::CraftStream;
using test::Int32Body;
using test::Int32Schema;
using test::ReadAll;

TEST(IpcHostile, BuffersOutsideTheBody) {
  auto body = Int32Body({1, 2});
  EXPECT_ERROR(kInvalid, "buffer 1 [4, +8) lies outside the 8-byte body",
               ReadAll(CraftStream(Int32Schema(), 2, {{2, 0}}, {{0, 0}, {4, 8}}, body)));
  EXPECT_ERROR(kInvalid, "buffer 1 [-8, +8) lies outside",
               ReadAll(CraftStream(Int32Schema(), 2, {{2, 0}}, {{0, 0}, {-8, 8}}, body)));
  // offset + length overflows int64.
  EXPECT_ERROR(kInvalid, "lies outside",
               ReadAll(CraftStream(Int32Schema(), 2, {{2, 0}},
                                   {{0, 0}, {4, std::numeric_limits<int64_t>::max()}}, body)));
}

TEST(IpcHostile, CountsMustMatchTheSchema) {
  auto body = Int32Body({1, 2});
  EXPECT_ERROR(kInvalid, "column 0 (x) needs buffer 1, the record batch has 1",
               ReadAll(CraftStream(Int32Schema(), 2, {{2, 0}}, {{0, 0}}, body)));
  EXPECT_ERROR(kInvalid, "needs field node 0, the record batch has 0",
               ReadAll(CraftStream(Int32Schema(), 2, {}, {{0, 0}, {0, 8}}, body)));
  EXPECT_ERROR(
      kInvalid, "the record batch has 2 field nodes and 3 buffers, the schema uses 1 and 2",
      ReadAll(CraftStream(Int32Schema(), 2, {{2, 0}, {2, 0}}, {{0, 0}, {0, 8}, {0, 0}}, body)));
}

TEST(IpcHostile, LengthsAreChecked) {
  auto body = Int32Body({1, 2});
  EXPECT_ERROR(kInvalid, "field node has length -2",
               ReadAll(CraftStream(Int32Schema(), 2, {{-2, 0}}, {{0, 0}, {0, 8}}, body)));
  EXPECT_ERROR(kInvalid, "null count 3",
               ReadAll(CraftStream(Int32Schema(), 2, {{2, 3}}, {{0, 0}, {0, 8}}, body)));
  EXPECT_ERROR(kInvalid, "has 5 rows, the batch 2",
               ReadAll(CraftStream(Int32Schema(), 2, {{5, 0}}, {{0, 0}, {0, 8}}, body)));
  // A length the values buffer cannot hold: validation names the buffer.
  EXPECT_ERROR(kInvalid, "values buffer has 8 bytes, 400 needed",
               ReadAll(CraftStream(Int32Schema(), 100, {{100, 0}}, {{0, 0}, {0, 8}}, body)));
  EXPECT_ERROR(
      kInvalid, "overflows int64",
      ReadAll(CraftStream(Int32Schema(), std::numeric_limits<int64_t>::max(),
                          {{std::numeric_limits<int64_t>::max(), 0}}, {{0, 0}, {0, 8}}, body)));
  EXPECT_ERROR(kInvalid, "negative row count",
               ReadAll(CraftStream(Int32Schema(), -1, {{2, 0}}, {{0, 0}, {0, 8}}, body)));
  EXPECT_ERROR(kInvalid, "nulls but no validity bitmap",
               ReadAll(CraftStream(Int32Schema(), 2, {{2, 1}}, {{0, 0}, {0, 8}}, body)));
}

TEST(IpcHostile, Utf8OffsetsPastTheData) {
  auto schema = std::make_shared<Schema>();
  schema->fields = {Field{"s", utf8()}};
  std::vector<uint8_t> body = Int32Body({0, 2, 900});
  body.insert(body.end(), {'a', 'b', 'c', 'd', 0, 0, 0, 0});
  EXPECT_ERROR(kInvalid, "offsets [0, 900] are outside [0, data size 4]",
               ReadAll(CraftStream(schema, 2, {{2, 0}}, {{0, 0}, {0, 12}, {12, 4}}, body)));
}

TEST(IpcHostile, CompressedBuffersAreChecked) {
  std::vector<uint8_t> body(24, 0);
  const int64_t claim = int64_t{1} << 40;
  std::memcpy(body.data(), &claim, 8);
  EXPECT_ERROR(kInvalid, "claims 1099511627776 decompressed bytes; the limit is",
               ReadAll(CraftStream(Int32Schema(), 2, {{2, 0}}, {{0, 0}, {0, 24}}, body, true)));
  const int64_t honest = 8;
  std::memcpy(body.data(), &honest, 8);
  EXPECT_ERROR(kInvalid, "corrupt ZSTD frame",
               ReadAll(CraftStream(Int32Schema(), 2, {{2, 0}}, {{0, 0}, {0, 24}}, body, true)));
  EXPECT_ERROR(kInvalid, "is compressed but has no length prefix",
               ReadAll(CraftStream(Int32Schema(), 2, {{2, 0}}, {{0, 0}, {0, 4}}, body, true)));
  // -1: stored uncompressed after the prefix.
  std::vector<uint8_t> stored(16, 0);
  const int64_t raw = -1;
  std::memcpy(stored.data(), &raw, 8);
  ASSERT_OK(ReadAll(CraftStream(Int32Schema(), 2, {{2, 0}}, {{0, 0}, {0, 16}}, stored, true)));
}

}  // namespace quiver::ipc
