// Internal: a RecordBatch message body as quiver arrays.
#pragma once

#include <functional>
#include <map>
#include <vector>

#include "quiver/ipc.h"
#include "quiver/ipc/message.h"

namespace quiver::ipc {

// Dictionaries seen so far, by id, and the id of each dictionary-encoded
// field in field pre-order.
struct DictionaryMemo {
  std::vector<int64_t> ids;
  std::map<int64_t, ArrayDataPtr> values;
  // The value type of each id, from the schema.
  std::map<int64_t, TypePtr> types;
};

// Fills ids and types from the schema (both in field pre-order).
Status InitDictionaryMemo(const fb::Schema* fb_schema, const Schema& schema, DictionaryMemo* memo);

// Decodes a DictionaryBatch message into `memo` (a replacement, or a delta
// appended to the dictionary of that id).
Status DecodeDictionaryBatch(const Message& message, DictionaryMemo* memo,
                             const ReadOptions& options);

// The record batch `message` holds, for `schema`. Every node and buffer is
// checked against the schema and the body (counts, lengths, offsets,
// overflow), compressed buffers are decompressed (in parallel) within
// options.max_decompressed_buffer, and the columns are validated at
// options.validation before they are returned. Uncompressed buffers point
// into message.body (zero-copy).
Result<RecordBatchPtr> DecodeRecordBatch(const Message& message, const SchemaPtr& schema,
                                         const DictionaryMemo& memo, const ReadOptions& options);

}  // namespace quiver::ipc
