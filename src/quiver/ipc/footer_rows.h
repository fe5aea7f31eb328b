// Internal: the row counts a quiver IPC file lists in its footer's
// custom_metadata, so that a reader can plan over a file's rows (which
// batch holds row r) without reading every record batch's header.
//
// The value is written by quiver and read back from bytes anyone may have
// written: it is a hint. A reader that uses it still checks each batch
// header's row count when it reads the batch.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "quiver/type.h"

namespace quiver::ipc {

// The footer key; its value is the decimal row counts of the record
// batches in file order, comma-separated ("1024,1024,17"; "" for none).
inline constexpr std::string_view kRecordBatchRowsKey = "quiver:record_batch_rows";

std::string FormatRecordBatchRows(const std::vector<int64_t>& rows);

// `text` as `batches` row counts; nullopt unless it is exactly that many
// non-negative decimals without signs, blanks or leading zeros, separated
// by single commas, each and their sum within int64 (so callers may add
// them up).
std::optional<std::vector<int64_t>> ParseRecordBatchRows(std::string_view text, int64_t batches);

// The row counts `metadata` (a footer's custom_metadata) gives for a file
// of `batches` record batches: nullopt where the key is absent, present
// more than once, or its value does not parse.
std::optional<std::vector<int64_t>> RecordBatchRowsOf(const KeyValueMetadata& metadata,
                                                      int64_t batches);

}  // namespace quiver::ipc
