// The values of a Parquet leaf column in their physical form, and the
// encodings quiver writes them in: PLAIN for every physical type,
// dictionaries (a dictionary page of the distinct values, RLE_DICTIONARY
// indices with a bit-width byte), BYTE_STREAM_SPLIT for FLOAT and DOUBLE,
// and the column chunk's statistics (min, max, null_count) in the order
// the column's logical type defines. docs/formats.md, "Parquet: encodings".
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "quiver/array.h"
#include "quiver/parquet/metadata.h"
#include "quiver/status.h"

namespace quiver::parquet {

// How an Arrow leaf's values become the physical type's.
enum class Conversion : uint8_t {
  kNone,          // the same bytes (or bits, offsets)
  kSignExtend,    // int8/int16 to INT32
  kZeroExtend,    // uint8/uint16 to INT32
  kTimes1000,     // seconds to milliseconds (time32, timestamp)
  kDate64ToDays,  // milliseconds to days (INT32)
  kLowBytes,      // a decimal's low 4 or 8 bytes (INT32, INT64)
  kBigEndian,     // a decimal as type_length big-endian bytes
};

// How Parquet orders a column's values (its statistics).
enum class SortOrder : uint8_t { kSigned, kUnsigned, kFloat, kFloat16, kBytes, kDecimal, kBool };

struct LeafEncoding {
  PhysicalType physical = PhysicalType::kInt32;
  int32_t type_length = 0;  // FIXED_LEN_BYTE_ARRAY only
  Conversion conversion = Conversion::kNone;
  int arrow_width = 0;  // bytes per Arrow value (fixed-width types)
  SortOrder order = SortOrder::kSigned;
};

// Bytes per value of a physical type (0 for BOOLEAN and BYTE_ARRAY).
int PhysicalWidth(const LeafEncoding& encoding);

// A leaf array's values as the physical type stores them, for the slots
// [begin, end) of `values` (converted when the types differ).
class PhysicalValues {
 public:
  static Result<PhysicalValues> Make(const ArrayDataPtr& values, const LeafEncoding& encoding,
                                     int64_t begin, int64_t end);
  PhysicalType type() const { return encoding_.physical; }
  int width() const { return width_; }
  // Slot j (logical, of the leaf array).
  const uint8_t* Fixed(int64_t j) const { return base_ + (j - begin_) * width_; }
  bool Bool(int64_t j) const;
  std::string_view Bytes(int64_t j) const;

 private:
  LeafEncoding encoding_;
  ArrayDataPtr array_;
  int width_ = 0;
  int64_t begin_ = 0;
  const uint8_t* base_ = nullptr;  // slot begin_ (fixed-width)
  std::vector<uint8_t> owned_;     // converted values
};

using ValueRanges = std::span<const Range>;

// PLAIN: fixed-width values back to back (one copy per range), BOOLEAN
// bit-packed LSB first, BYTE_ARRAY each with a 4-byte length.
void EncodePlain(const PhysicalValues& values, ValueRanges ranges, std::string* out);
// BYTE_STREAM_SPLIT: byte k of every value, then byte k + 1, ...
void EncodeByteStreamSplit(const PhysicalValues& values, ValueRanges ranges, std::string* out);

// A column chunk's dictionary: its page (the distinct values, PLAIN, in the
// order they first appear, after any first entries) and a table from each value to its index, so
// that each data page's indices are looked up when it is written (no
// index is kept for the whole chunk).
struct DictionaryEncoding {
  std::string page;
  int64_t entries = 0;
  // 2-, 4- and 8-byte values: an open-addressing table of their bits
  // (`ids` holds index + 1, 0 for an empty slot); other values by bytes.
  int fixed_width = 0;
  std::vector<uint64_t> keys;
  std::vector<uint32_t> ids;
  std::unordered_map<std::string_view, uint32_t> by_bytes;
  // Other values: the index of each slot from slot_begin on (hashing byte
  // strings twice would cost more than 4 bytes a value).
  int64_t slot_begin = 0;
  std::vector<uint32_t> slot_index;

  size_t Slot(uint64_t key) const;
  // The index of slot j of `values`, which must be in the dictionary.
  uint32_t Index(const PhysicalValues& values, int64_t j) const;
};
// Values that open a dictionary, in order, whether the data uses them or
// not: an Arrow dictionary's entries, so that a file keeps the categories
// no row uses and the order of an ordered dictionary.
struct DictionaryEntries {
  const PhysicalValues* values = nullptr;
  ValueRanges ranges;
};
// The values' dictionary (after `first`'s entries), or false when its PLAIN
// size passes `max_bytes`.
bool BuildDictionary(const PhysicalValues& values, ValueRanges ranges, int64_t max_bytes,
                     DictionaryEncoding* out, const DictionaryEntries& first = {});
// RLE_DICTIONARY data: the bit width (a byte), then the indices as RLE /
// bit-packed runs.
void EncodeDictionaryIndices(const uint32_t* indices, int64_t count, int64_t entries,
                             std::string* out);
// The same for the values of `ranges`, looked up in `dictionary`.
void EncodeDictionaryIndices(const DictionaryEncoding& dictionary, const PhysicalValues& values,
                             ValueRanges ranges, std::string* out);

// min and max (PLAIN, no length prefix) of the values, in `order`; none
// when there are no values other than NaN.
void ComputeMinMax(const PhysicalValues& values, ValueRanges ranges, SortOrder order,
                   std::optional<std::string>* min, std::optional<std::string>* max);

// Whether statistics value `a` orders before `b` (both as ComputeMinMax
// writes them) in `order`, for values of physical type `type`.
bool StatisticsLess(std::string_view a, std::string_view b, SortOrder order, PhysicalType type);

}  // namespace quiver::parquet
