// ArrayData: the Arrow columnar layout of one array, as plain metadata over
// shared buffers. Buffer order per type follows the Arrow spec (validity
// first; see FORMATS.md section 2). A null validity buffer means no nulls.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "quiver/buffer.h"
#include "quiver/status.h"
#include "quiver/type.h"

namespace quiver {

constexpr int64_t kUnknownNullCount = -1;

// How much Validate checks. Each level includes the ones before it.
enum class ValidationLevel {
  kNone,     // trust the producer
  kMinimal,  // buffer and child counts match the type; lengths non-negative
  kDefault,  // buffer sizes cover length + offset; child lengths suffice;
             // first and last offsets of variable-size types are in bounds
  kFull,     // every offset monotonic and in bounds; utf8 is valid UTF-8;
             // a known null_count matches the validity bitmap
};

struct ArrayData;
using ArrayDataPtr = std::shared_ptr<const ArrayData>;

struct ArrayData {
  TypePtr type;
  int64_t length = 0;
  // Logical start, in elements, into this array's own buffers.
  int64_t offset = 0;
  int64_t null_count = kUnknownNullCount;
  std::vector<BufferPtr> buffers;
  std::vector<ArrayDataPtr> children;

  // Whether slot i (relative to offset) is valid. Precondition: 0 <= i < length.
  bool IsValid(int64_t i) const;
  // null_count, counted from the validity bitmap when unknown.
  int64_t ComputeNullCount() const;
};

// Rows [offset, offset + length) of `data`, sharing its buffers (no copy).
Result<ArrayDataPtr> Slice(const ArrayDataPtr& data, int64_t offset, int64_t length);

// Checks `data` against its type at `level`; errors name the failing path,
// e.g. "child 0 (item): offset 3 (5) < offset 2 (7)".
Status Validate(const ArrayData& data, ValidationLevel level = ValidationLevel::kFull);

// Bit i of an LSB-ordered bitmap.
inline bool GetBit(const uint8_t* bits, int64_t i) { return (bits[i >> 3] >> (i & 7)) & 1; }

}  // namespace quiver
