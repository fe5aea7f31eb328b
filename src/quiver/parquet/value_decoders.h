// The value decoders behind DecodeValues (value_decoder.h), one per
// encoding, each appending `count` values to `out` and naming `what` in
// its errors. value_decoder.cc checks that the encoding suits the physical
// type and restores `out` when one fails.
#pragma once

#include <cstdint>
#include <string>

#include "quiver/parquet/value_decoder.h"

namespace quiver::parquet {

// plain_decoder.cc: PLAIN for every physical type.
Status DecodePlain(const uint8_t* data, int64_t size, int64_t count, ColumnValues* out,
                   const std::string& what);

// dictionary_decoder.cc: PLAIN_DICTIONARY / RLE_DICTIONARY (a bit width
// byte, then hybrid-encoded indices gathered from `dictionary`), and RLE
// booleans (a 4-byte length, then hybrid runs of width 1).
Status DecodeDictionary(const uint8_t* data, int64_t size, int64_t count,
                        const ColumnValues& dictionary, ColumnValues* out, const std::string& what);
Status DecodeRleBoolean(const uint8_t* data, int64_t size, int64_t count, ColumnValues* out,
                        const std::string& what);

// byte_stream_split.cc: BYTE_STREAM_SPLIT for the fixed-width types.
Status DecodeByteStreamSplit(const uint8_t* data, int64_t size, int64_t count, ColumnValues* out,
                             const std::string& what);

// delta_decoders.cc: DELTA_BINARY_PACKED (INT32, INT64),
// DELTA_LENGTH_BYTE_ARRAY (BYTE_ARRAY) and DELTA_BYTE_ARRAY (BYTE_ARRAY,
// FIXED_LEN_BYTE_ARRAY).
Status DecodeDeltaBinaryPacked(const uint8_t* data, int64_t size, int64_t count, ColumnValues* out,
                               const std::string& what);
Status DecodeDeltaLengthByteArray(const uint8_t* data, int64_t size, int64_t count,
                                  ColumnValues* out, const std::string& what);
Status DecodeDeltaByteArray(const uint8_t* data, int64_t size, int64_t count, ColumnValues* out,
                            const std::string& what);

// Appends `count` offsets for values of `lengths` bytes each after the
// last offset in out->offsets: Invalid naming `what` when the column's
// bytes would pass 2^31 - 1 (int32 offsets). `lengths` are not negative.
Status AppendByteArrayOffsets(const int32_t* lengths, int64_t count, ColumnValues* out,
                              const std::string& what);
// The last offset of a BYTE_ARRAY column's values (0 before the first).
int32_t LastOffset(const ColumnValues& values);
// The error for a BYTE_ARRAY column whose bytes pass int32 offsets.
Status ByteArrayTooLarge(const std::string& what, int64_t bytes);

}  // namespace quiver::parquet
