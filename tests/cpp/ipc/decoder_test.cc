// Decoding record batch messages: a batch crafted field by field with the
// generated flatbuffer code reads back as written.
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

TEST(IpcHostile, HonestCraftedBatchReads) {
  ASSERT_OK(ReadAll(CraftStream(Int32Schema(), 2, {{2, 0}}, {{0, 0}, {0, 8}}, Int32Body({1, 2}))));
}

}  // namespace quiver::ipc
