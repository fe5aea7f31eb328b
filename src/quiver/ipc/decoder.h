// Internal: a RecordBatch message body as quiver arrays.
#pragma once

#include <functional>

#include "quiver/ipc.h"
#include "quiver/ipc/message.h"

namespace quiver::ipc {

// The record batch `message` holds, for `schema`. Every node and buffer is
// checked against the schema and the body (counts, lengths, offsets,
// overflow), compressed buffers are decompressed (in parallel) within
// options.max_decompressed_buffer, and the columns are validated at
// options.validation before they are returned. Uncompressed buffers point
// into message.body (zero-copy).
Result<RecordBatchPtr> DecodeRecordBatch(const Message& message, const SchemaPtr& schema,
                                         const ReadOptions& options);

// Runs fn(i) for i in [0, count) on up to `threads` threads (0: one per
// core); returns the first error.
Status ParallelFor(int64_t count, int threads, const std::function<Status(int64_t)>& fn);

}  // namespace quiver::ipc
