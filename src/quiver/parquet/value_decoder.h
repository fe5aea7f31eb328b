// The values of a data page (or a dictionary page) decoded from any of
// Parquet's value encodings into ColumnValues: PLAIN, PLAIN_DICTIONARY /
// RLE_DICTIONARY (indices into the chunk's dictionary page),
// RLE (booleans), BYTE_STREAM_SPLIT, DELTA_BINARY_PACKED,
// DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY. docs/formats.md,
// "Parquet: encodings".
#pragma once

#include <cstdint>
#include <string>

#include "quiver/parquet/metadata.h"
#include "quiver/parquet/value_buffer.h"
#include "quiver/status.h"

namespace quiver::parquet {

// The non-null values of one leaf column, as its pages decode them, in
// the layout the Arrow array keeps:
// - fixed-width types (INT32, INT64, INT96, FLOAT, DOUBLE,
//   FIXED_LEN_BYTE_ARRAY): `count * width` bytes in `fixed`, little endian;
// - BOOLEAN: one byte per value (0 or 1) in `fixed` (width 1); the
//   assembler packs them into bits;
// - BYTE_ARRAY: `count + 1` int32 offsets in `offsets` (the first 0) and
//   the bytes in `bytes`; a column chunk over 2 GiB of bytes is an error
//   naming it.
struct ColumnValues {
  ColumnValues() = default;
  // Sets the type and width and, for BYTE_ARRAY, writes the first offset.
  static Result<ColumnValues> Make(PhysicalType type, int32_t type_length);

  PhysicalType type = PhysicalType::kInt32;
  int32_t width = 4;  // bytes per value; 0 for BYTE_ARRAY
  int64_t count = 0;
  ValueBuffer fixed;
  ValueBuffer offsets;
  ValueBuffer bytes;
};

// Decodes `count` values in `encoding` from [data, data + size) and appends
// them to `out` (whose type says how to read them). `dictionary` holds the
// chunk's dictionary page, decoded PLAIN (nullptr when the chunk has none);
// the dictionary encodings gather from it. Errors are Invalid and name
// `what` (the column, row group and page) and what is wrong: a value or
// run past the page's end, a dictionary index out of range, a dictionary
// encoding without a dictionary page, a bit width over 32 (64 for deltas),
// an encoding the physical type does not take (NotImplemented for an
// encoding unknown to quiver).
Status DecodeValues(Encoding encoding, const uint8_t* data, int64_t size, int64_t count,
                    const ColumnValues* dictionary, ColumnValues* out, const std::string& what);

}  // namespace quiver::parquet
