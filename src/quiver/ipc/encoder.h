// Internal: record batches as IPC messages.
#pragma once

#include <cstdint>
#include <vector>

#include "quiver/ipc.h"
#include "quiver/ipc/message.h"

namespace quiver::ipc {

// Where a written message lies, as the file footer records it.
struct WrittenBlock {
  int64_t offset = 0;
  int32_t metadata_length = 0;  // prefix + flatbuffer + padding
  int64_t body_length = 0;
};

// Body buffers are aligned to this many bytes (in the file or stream).
inline constexpr int64_t kBodyAlignment = 64;

// Writes `batch` as a RecordBatch message at the sink's position: sliced
// arrays compactly (only the rows they cover, offsets re-based to 0),
// buffers 64-byte aligned, compressed (in parallel) when asked.
Result<WrittenBlock> WriteRecordBatchMessage(OutputSink& sink, const RecordBatch& batch,
                                             const WriteOptions& options);

// Writes a Schema message.
Result<WrittenBlock> WriteSchemaMessage(OutputSink& sink, const Schema& schema);

}  // namespace quiver::ipc
