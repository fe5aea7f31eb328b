// Schema metadata: schemas nested deeper than the cap are refused.
#include <cstring>
#include <vector>

#include "quiver/ipc.h"
#include "quiver/ipc/encoder.h"
#include "quiver/ipc/message.h"
#include "test_util.h"

namespace quiver::ipc {

TEST(IpcHostile, DeepSchemasAreRefused) {
  TypePtr type = int8();
  for (int i = 0; i < 70; ++i) type = list(ListItem(type));
  auto schema = std::make_shared<Schema>();
  schema->fields = {Field{"deep", type}};
  BufferSink sink;
  EXPECT_ERROR(kInvalid, "nests more than 64 levels deep", WriteSchemaMessage(sink, *schema));
}

}  // namespace quiver::ipc
