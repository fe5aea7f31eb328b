// Snappy's raw format (Parquet's SNAPPY codec, the one pyarrow writes by
// default), decoded and encoded by quiver itself: the format is a varint
// length then literals and back-references, small enough that a library
// dependency would cost more than it gives. docs/formats.md, "Parquet:
// Snappy".
#pragma once

#include <cstdint>
#include <string>

#include "quiver/status.h"

namespace quiver::parquet {

// The length a compressed block says it holds (its varint preamble).
Result<int64_t> SnappyDecodedLength(const uint8_t* data, int64_t size);

// Decodes a block into `out`, which holds exactly `out_size` bytes: the
// block's preamble must say that length. Every literal and copy is checked
// (within the input, within the output, offsets inside what is decoded);
// errors name `what`.
Status SnappyDecode(const uint8_t* data, int64_t size, uint8_t* out, int64_t out_size,
                    const std::string& what);

// A block holding `bytes` (greedy matching with a hash table of 4-byte
// sequences; any Snappy reader reads it).
std::string SnappyEncode(const uint8_t* bytes, int64_t size);

}  // namespace quiver::parquet
