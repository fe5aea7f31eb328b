// Parquet's RLE / bit-packed hybrid encoding: how definition and
// repetition levels, dictionary indices and RLE booleans are stored. A run
// is either a value repeated n times (a varint header n << 1, then the value
// in ceil(width / 8) bytes) or groups of 8 values packed LSB first in
// `width` bits each (a varint header groups << 1 | 1, then groups * width
// bytes). docs/formats.md, "Parquet: RLE / bit-packed hybrid".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "quiver/status.h"

namespace quiver::parquet {

// Reads values of `bit_width` bits (0 to 32) from runs in bytes it does not
// own. Every run header and run is checked against the bytes left; values
// past the last run are an error naming `what`.
class RleHybridDecoder {
 public:
  RleHybridDecoder(const uint8_t* data, int64_t size, int bit_width, std::string what);

  // The next `count` values into `out`.
  Status Decode(uint32_t* out, int64_t count);
  // Whether the next `count` values all equal `value`, consuming them; a
  // run of `value` covering them all is answered without decoding it (the
  // definition levels of a column without nulls).
  Result<bool> NextAllEqual(int64_t count, uint32_t value);
  // Up to `max` values from the current run (the next run when it is
  // used up): for a repeated run, *repeated is true and *value the value
  // (nothing is written to `out`); for a bit-packed run, the values are
  // decoded into `out`, which holds `max`. Returns how many values it
  // consumed (at least 1). For callers that treat runs as runs: a check
  // of repetition levels costs one step per run, not per value.
  Result<int64_t> DecodeRun(int64_t max, uint32_t* out, bool* repeated, uint32_t* value);
  // Values decoded past `count` in the current run are kept for the next
  // call; bytes consumed so far.
  int64_t position() const { return position_; }

 private:
  Status NextRun();
  Status Error(const std::string& message) const;

  const uint8_t* data_;
  int64_t size_;
  int64_t position_ = 0;
  int bit_width_;
  std::string what_;
  // The current run: a repeated value with `left_` repeats, or packed
  // values (`packed_` true) of which `left_` are not yet read, the next at
  // bit `bit_offset_` of data_[packed_start_...].
  bool packed_ = false;
  int64_t left_ = 0;
  uint32_t repeated_ = 0;
  int64_t packed_start_ = 0;
  int64_t packed_index_ = 0;
};

// Encodes values of `bit_width` bits as the hybrid runs (no length prefix):
// a run of 8 or more equal values as a repeated run, the rest bit-packed in
// groups of 8 (the last group padded with zeros).
std::string EncodeRleHybrid(const uint32_t* values, int64_t count, int bit_width);

// The bits needed for values up to `max_value` (0 for 0).
int BitWidthOf(uint32_t max_value);

}  // namespace quiver::parquet
