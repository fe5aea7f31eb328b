// ArrayData: the Arrow columnar layout of one array, as plain metadata over
// shared buffers. Buffer order per type follows the Arrow spec (validity
// first; see docs/formats.md, "Columnar layout"). A null validity buffer
// means no nulls.
//
// Beyond the primitive / binary / nested layouts:
// - null: no buffers at all; every slot is null.
// - date32, time32: int32 values; date64, time64, timestamp, duration:
//   int64; decimal128 / decimal256: 16 / 32 bytes per value.
// - utf8_view, binary_view: buffers = {validity, views, data_0, ...,
//   data_{k-1}}: 16 bytes of view per slot, then the k variadic data
//   buffers that non-inline views index (k may be 0; a null data buffer
//   counts as empty). Their sizes are the buffers' own sizes.
// - decimal32 / decimal64: 4 / 8 bytes per value; interval[year_month]
//   4, interval[day_time] 8, interval[month_day_nano] 16.
// - map: like list (validity, int32 offsets), one child of the entries
//   struct<key, value>; keys are never null.
// - list_view / large_list_view: {validity, offsets, sizes}, int32 / int64
//   per slot, into the one child.
// - sparse_union: {type ids} (int8 per slot; no validity bitmap), one child
//   per field, as long as the union. dense_union: {type ids, int32 offsets
//   into the chosen child}.
// - run_end_encoded: no buffers; children run_ends and values.
// - dictionary: buffers are those of the index type ({validity,
//   indices}); `dictionary` holds the values (an array of the value type,
//   itself possibly sliced or with nulls). Indices refer to slots of the
//   dictionary (relative to its offset).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "quiver/buffer.h"
#include "quiver/status.h"
#include "quiver/type.h"

namespace quiver {

constexpr int64_t kUnknownNullCount = -1;

// How much Validate checks. Each level includes the ones before it; every
// level but kNone refuses types nested deeper than kMaxNestingDepth.
// docs/validation.md lists every check and the error it gives.
enum class ValidationLevel {
  // Trust the producer: for data quiver itself has just built or checked.
  kNone,
  // O(1) per array: lengths, offset and null_count are in range; buffer and
  // child counts and child types match the type; every buffer is as large
  // as offset + length require (bitmaps, values, offsets), and fixed-size
  // list and struct children are long enough. Nothing that passes can be
  // read out of bounds by an O(1) accessor; offsets are not yet trusted.
  kMinimal,
  // Plus the first and last offsets of utf8/binary/list arrays lie inside
  // the data buffer or child.
  kDefault,
  // Plus every offset is monotonic, utf8 is valid UTF-8, a known
  // null_count matches the bitmap, every valid binary view points inside
  // its variadic buffer (and utf8_view data is UTF-8), every valid
  // dictionary index lies inside the dictionary, and canonical extension
  // types (tensor types, bool8) have valid metadata, at every depth. The
  // default, and what every import of foreign data uses.
  kFull,
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
  // Dictionary-encoded types only: the values the indices refer to (not
  // sliced with the indices). Null for every other type.
  ArrayDataPtr dictionary;

  // Whether slot i (relative to offset) is valid: its validity bit (for a
  // dictionary array, the index's), always false for the null type.
  // Precondition: 0 <= i < length.
  bool IsValid(int64_t i) const;
  // null_count, counted from the validity bitmap when unknown; always the
  // length for the null type (whose stored null_count some producers leave 0).
  int64_t ComputeNullCount() const;
};

// Rows [offset, offset + length) of `data`, sharing its buffers (no copy).
Result<ArrayDataPtr> Slice(const ArrayDataPtr& data, int64_t offset, int64_t length);

// `data` cut down to exactly the bytes its rows use, at offset 0, with
// every child and dictionary the same: what a writer sends elsewhere (IPC,
// pickling) instead of a slice that keeps its parent's whole buffers.
// Values, offsets that already start at 0, variable-size data and bitmaps
// of slices that start on a byte are shared (no copy); offsets are
// re-based and bitmaps shifted in copies otherwise. Views keep their
// variadic buffers and dictionaries all their values. `data` must be valid
// at ValidationLevel::kDefault or above.
Result<ArrayDataPtr> Compact(const ArrayData& data);

// The bytes of buffer memory the rows of `data` reference (what pyarrow
// reports as nbytes): for each bitmap, the whole bytes holding bits
// [offset, offset + length); fixed-width values and views, length * width;
// offsets, length + 1 entries (none for an empty array); utf8 / binary
// data and list children, the range the first and last offset delimit;
// fixed_size_list children, length * list_size entries; struct children,
// the same rows; dictionaries and the variadic buffers of views, whole.
// Buffers shared by several nodes are counted once per reference. `data`
// must be valid at ValidationLevel::kMinimal or above; offsets that run
// backwards or out of their child are Invalid, offsets in device memory
// (the only values read) NotImplemented.
Result<int64_t> ReferencedBytes(const ArrayData& data);

// Slot readers: O(1) reads of one slot, for code that walks values (the
// Python bindings, the `quiver` tool) without reading buffers by hand.
// Slot i is relative to data.offset. Precondition for each: `data` has the
// type named, is valid at ValidationLevel::kMinimal or above (its buffers
// hold every slot) with host buffers, and 0 <= i < length. They read one
// slot as stored and do not look at validity: a null slot reads whatever
// its bytes hold.

// The range one variable-size value spans, as its offsets (or offset and
// size) store it:
// - utf8, binary, large_utf8, large_binary: bytes of the data buffer
//   (buffers[2]);
// - list, large_list, map: slots of the child, relative to its offset;
// - list_view, large_list_view: slots of the child, [offset, offset + size);
// - fixed_size_list: slots of the child, [slot * list_size, (slot + 1) *
//   list_size) with slot = data.offset + i.
// Offsets of either width read as int64. {0, 0} for every other type. The
// range is known to be ordered and inside the data buffer or child only at
// ValidationLevel::kFull (kDefault checks the first and last offsets only);
// callers that accept less check it.
Range ValueRange(const ArrayData& data, int64_t i);

// The value of slot i of a bool array (bit-packed) or of a bool8 extension
// array (int8 storage, nonzero is true); false for every other type.
bool GetBool(const ArrayData& data, int64_t i);

// The index stored at slot i of a dictionary array, widened to int64
// whatever its integer type (signed or unsigned, 8 to 64 bits); -1 for a
// uint64 index above INT64_MAX. It refers to a slot of data.dictionary
// (relative to the dictionary's offset) and lies in [0, dictionary length)
// for valid slots of arrays valid at ValidationLevel::kFull; callers that
// accept less check it.
int64_t DictionaryIndex(const ArrayData& data, int64_t i);

// Run-end encoded arrays: the index in the values child (relative to its
// offset) of the run holding slot i (relative to data.offset), found by
// binary search. Precondition: `data` valid at ValidationLevel::kDefault
// or above (the runs cover every slot) and 0 <= i < length.
int64_t RunEndEncodedIndex(const ArrayData& data, int64_t i);

// Sparse and dense unions: the child slot i selects (*child, an index into
// children) and the slot in that child (*index, relative to its offset:
// the union's offset + i for sparse unions, the offset buffer's entry for
// dense ones). False when the type id names no child (arrays valid at
// ValidationLevel::kFull never give false). Precondition: `data` valid at
// kMinimal or above and 0 <= i < length.
bool UnionSlot(const ArrayData& data, int64_t i, int* child, int64_t* index);

// Checks `data` against its type at `level`; errors name the failing path,
// e.g. "child 0 (item): offset 3 (5) < offset 2 (7)".
Status Validate(const ArrayData& data, ValidationLevel level = ValidationLevel::kFull);

// OK unless `type` nests deeper than kMaxNestingDepth (Invalid naming the
// depth). Readers call it before recursing over a type they did not build.
Status CheckNestingDepth(const DataType& type);

}  // namespace quiver
