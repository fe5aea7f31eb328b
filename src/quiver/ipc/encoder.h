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

// Writes `batch` as a RecordBatch message at the sink's position: sliced
// arrays compactly (only the rows they cover, offsets re-based to 0),
// buffers 64-byte aligned, compressed (in parallel) when asked.
Result<WrittenBlock> WriteRecordBatchMessage(OutputSink& sink, const RecordBatch& batch,
                                             const WriteOptions& options);

// The body WriteRecordBatchMessage would write for `batch` uncompressed,
// measured without writing it: the same compaction plans it (sliced
// arrays count only the rows they cover), so `bytes` is the body_length
// of the message it writes without compression.
struct BodySize {
  int64_t bytes = 0;    // every buffer, each padded to kBodyAlignment
  int64_t buffers = 0;  // body buffers, empty ones included
};
Result<BodySize> RecordBatchBodySize(const RecordBatch& batch);

// Writes the values of dictionary `id` as a DictionaryBatch message (a
// replacement, or a delta to append).
Result<WrittenBlock> WriteDictionaryMessage(OutputSink& sink, int64_t id,
                                            const ArrayDataPtr& values, bool is_delta,
                                            const WriteOptions& options);

// One dictionary a batch uses: its values, and the id of the dictionary
// whose values hold it (-1 for a field outside dictionary values).
struct DictionaryUse {
  ArrayDataPtr values;
  int64_t parent = -1;
};

// The dictionaries of a batch's dictionary-encoded fields, indexed by id:
// field pre-order, a dictionary before those nested in its values (the
// order the schema numbers dictionary ids in).
std::vector<DictionaryUse> DictionariesOf(const RecordBatch& batch);

// Writes a Schema message.
Result<WrittenBlock> WriteSchemaMessage(OutputSink& sink, const Schema& schema);

}  // namespace quiver::ipc
