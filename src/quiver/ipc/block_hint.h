// Internal: the size of the LZ4 blocks of a record batch body, as quiver's
// writer declares it in the message's custom_metadata when it compresses
// in blocks (WriteOptions::compression_block_bytes), so that a reader of
// a few rows can place every block of a buffer without counting the LZ4
// sequences of each (a pass that costs about what decoding them does).
//
// Like the footer's row counts (footer_rows.h), the value is read back
// from bytes anyone may have written: a hint. A reader uses it only where
// a frame's block count agrees with it, holds every block it decodes to
// the end to its size, and never reads or writes outside the buffer; a
// file whose hint lies decodes to wrong bytes or fails, as a file with
// flipped bytes does.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "quiver/type.h"

namespace quiver::ipc {

// The message key; its value is the decimal byte size that every block of
// every LZ4 frame of independent blocks in the body decodes to, but the
// last block of each frame (which holds the rest: 1 to that size).
inline constexpr std::string_view kLz4BlockBytesKey = "quiver:lz4_block_bytes";

// The block size `metadata` (a record batch message's custom_metadata)
// declares: nullopt where the key is absent, present more than once, or
// its value is not a block size the writer accepts (CheckBlockBytes).
std::optional<int64_t> Lz4BlockBytesOf(const KeyValueMetadata& metadata);

}  // namespace quiver::ipc
