#include "quiver/ipc/block_hint.h"

#include "quiver/ipc/codec.h"
#include "quiver/ipc/footer_rows.h"
#include "quiver/ipc/metadata.h"

namespace quiver::ipc {

std::optional<int64_t> Lz4BlockBytesOf(const KeyValueMetadata& metadata) {
  const std::string* value = SoleValue(metadata, kLz4BlockBytesKey);
  if (!value) return std::nullopt;
  // One decimal, as a footer's row counts are written.
  const std::optional<std::vector<int64_t>> parsed = ParseRecordBatchRows(*value, 1);
  if (!parsed || (*parsed)[0] == 0 || !CheckBlockBytes((*parsed)[0]).ok()) return std::nullopt;
  return (*parsed)[0];
}

}  // namespace quiver::ipc
