// Internal: a RecordBatch message body as quiver arrays.
#pragma once

#include <functional>
#include <map>
#include <vector>

#include "quiver/ipc.h"
#include "quiver/ipc/body_layout.h"
#include "quiver/ipc/message.h"

namespace quiver::ipc {

// Dictionaries seen so far, by id. Several fields may share one id when
// their value types are equal; a dictionary's values may themselves hold
// dictionary-encoded fields (nested dictionaries), whose ids the batch of
// the outer id uses.
struct DictionaryMemo {
  // The id of each dictionary-encoded field outside dictionary values, in
  // field pre-order (the order a record batch's loader meets them in).
  std::vector<int64_t> ids;
  // For each id, the ids of the dictionary-encoded fields inside its value
  // type, in pre-order (the order its dictionary batch's loader meets them).
  std::map<int64_t, std::vector<int64_t>> nested_ids;
  std::map<int64_t, ArrayDataPtr> values;
  // The value type of each id, from the schema.
  std::map<int64_t, TypePtr> types;
  // In the file format a dictionary batch for an id that already has one
  // must be a delta (a replacement is refused); in a stream it replaces the
  // dictionary for the record batches after it.
  bool file_format = false;
};

// Fills ids, nested_ids and types from the schema (both in field pre-order).
// An id used for two different value types is Invalid.
Status InitDictionaryMemo(const fb::Schema* fb_schema, const Schema& schema, DictionaryMemo* memo);

// Decodes a DictionaryBatch message into `memo`: the first dictionary of
// its id, a delta appended to it, or (streams only) a replacement.
// `swap_byte_order`: the body is in the other byte order (endian.h).
Status DecodeDictionaryBatch(const Message& message, DictionaryMemo* memo,
                             const ReadOptions& options, bool swap_byte_order = false);

// The record batch `message` holds, for `schema`. Every node and buffer is
// checked against the schema and the body (DescribeBody: counts, lengths,
// offsets, overflow), compressed buffers are decompressed (in parallel) within
// options.max_decompressed_buffer, and the columns are validated at
// options.validation before they are returned. Uncompressed buffers point
// into message.body (zero-copy), except when `swap_byte_order` says the
// body is in the other byte order: each buffer is then swapped into a copy
// before validation (endian.h).
Result<RecordBatchPtr> DecodeRecordBatch(const Message& message, const SchemaPtr& schema,
                                         const DictionaryMemo& memo, const ReadOptions& options,
                                         bool swap_byte_order = false);

// The indexes into BatchLayout::buffers that `node` and its children use,
// appended to `out` in pre-order.
void CollectBuffers(const FieldNodeLayout& node, std::vector<int64_t>* out);

// Column `column` of the record batch `message` carries, `layout` being
// its DescribeBody: built on `buffers`, the decoded body buffers by index
// (DecodeStoredBuffer), of which only those CollectBuffers lists for the
// column are read, so a body can be read column by column. Unvalidated;
// in native order when `swap_byte_order` says the body is not.
Result<ArrayDataPtr> DecodeColumn(const Message& message, const BatchLayout& layout, int column,
                                  const std::vector<BufferPtr>& buffers, const DictionaryMemo& memo,
                                  bool swap_byte_order = false);

}  // namespace quiver::ipc
