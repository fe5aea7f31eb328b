// Internal: the values of one Parquet leaf turned into the Arrow array of
// the type it reads as, once the assembler (assemble.cc) knows which slots
// hold a value: BOOLEAN bytes packed into bits, INT32 narrowed to 8 and 16
// bits, decimals sign-extended and byte-swapped, INT96 into nanoseconds,
// time units rescaled, byte arrays into offsets (int32 or int64) or views,
// dictionaries from the chunk's dictionary page; and null slots spread in.
// docs/formats.md, "Parquet: levels".
#pragma once

#include <cstdint>
#include <string>

#include "quiver/array.h"
#include "quiver/buffer.h"
#include "quiver/parquet/metadata.h"
#include "quiver/parquet/value_decoder.h"
#include "quiver/status.h"
#include "quiver/type.h"

namespace quiver::parquet {

// Which of a leaf's `slots` receive its values, in order.
struct Placement {
  int64_t slots = 0;
  // One bit per slot, set where a value goes; null when every slot takes
  // one (then slots equals the number of values).
  const uint8_t* present = nullptr;
  // The slots' validity (null: none is null) and its unset bits.
  BufferPtr validity;
  int64_t null_count = 0;
};

// OK when the values' buffers hold `count` values: `count * width` bytes,
// or for BYTE_ARRAY `count + 1` offsets from 0 that never decrease and end
// at the size of the bytes. Invalid naming `what` otherwise.
Status CheckValues(const ColumnValues& values, const std::string& what);

// The array of `type` (a storage type: no extension; a dictionary of a
// fixed-width or binary value type takes the entries of `dictionary_page`,
// the chunk's dictionary page when it has one, in order, then the other
// distinct values as they first appear) over `placement`, from the values of leaf `leaf` (whose
// buffers are moved in where no conversion is needed: no copy; CheckValues must have passed).
// Invalid, naming `what`, for decimals wider than their type and times that overflow their unit;
// NotImplemented for a type the physical type does not read as.
Result<ArrayDataPtr> LeafArray(ColumnValues* values, const SchemaElement& leaf, const TypePtr& type,
                               const Placement& placement, const std::string& what,
                               ColumnValues* dictionary_page = nullptr);

}  // namespace quiver::parquet
