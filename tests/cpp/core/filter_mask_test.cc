// FilterMask (selection.h): boolean and bool8 masks to Filter's bytes, a
// null selecting nothing, offsets and chunks, and the errors of other types
// and of buffers too short for the slots.
#include <algorithm>
#include <limits>
#include <vector>

#include "quiver/record_batch.h"
#include "quiver/selection.h"
#include "sample_arrays.h"
#include "test_util.h"

namespace quiver {

using test::Node;
using test::Primitive;

namespace {

// `bits` packed, always a buffer (test::Bitmap gives none when all are set).
BufferPtr Bits(const std::vector<bool>& bits) {
  BufferPtr buffer = *Buffer::Allocate((static_cast<int64_t>(bits.size()) + 7) / 8);
  std::fill_n(buffer->mutable_data(), buffer->size(), 0);
  for (size_t i = 0; i < bits.size(); ++i) {
    if (bits[i]) buffer->mutable_data()[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
  }
  return buffer;
}

// A boolean array of `values`, null where `valid` says so (empty: none).
ArrayDataPtr Booleans(const std::vector<bool>& values, const std::vector<bool>& valid = {}) {
  return Node(boolean(), static_cast<int64_t>(values.size()),
              {valid.empty() ? nullptr : Bits(valid), Bits(values)});
}

}  // namespace

TEST(FilterMask, NullsSelectNothing) {
  ArrayDataPtr mask = Booleans({true, true, false, true, false}, {true, false, true, true, false});
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> bytes, FilterMask(mask));
  EXPECT_EQ(bytes, (std::vector<uint8_t>{1, 0, 0, 1, 0}));
  // Filtering by it keeps rows 0 and 3.
  ArrayDataPtr values = Primitive<int32_t>(int32(), {10, 11, 12, 13, 14});
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr kept, Filter(values, bytes));
  EXPECT_TRUE(ArrayEquals(*kept, *Primitive<int32_t>(int32(), {10, 13})));
}

TEST(FilterMask, OffsetsChunksAndBool8) {
  ArrayDataPtr mask = Booleans({false, true, true, false, true, true, true, true, false, true},
                               {true, true, false, true, true, true, true, true, true, true});
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr sliced, Slice(mask, 1, 8));
  auto bytes8 = std::make_shared<ArrayData>(
      *Primitive<int8_t>(int8(), {0, 2, 1, 5}, {true, true, false, true}));
  bytes8->type = bool8();
  const std::vector<ArrayDataPtr> chunks = {sliced, Booleans({}), bytes8};
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> flags, FilterMask(chunks));
  EXPECT_EQ(flags, (std::vector<uint8_t>{1, 0, 0, 1, 1, 1, 1, 0, 0, 1, 0, 1}));
}

TEST(FilterMask, OtherTypesAndShortBuffersAreRefused) {
  EXPECT_ERROR(kTypeError, "the mask is int32; a filter mask holds booleans",
               FilterMask(Primitive<int32_t>(int32(), {1, 0})));
  const std::vector<ArrayDataPtr> chunks = {Booleans({true}), Primitive<int8_t>(int8(), {1})};
  EXPECT_ERROR(kTypeError, "mask chunk 1 is int8", FilterMask(chunks));
  auto short_values = std::make_shared<ArrayData>(*Booleans({true, false}));
  short_values->length = 9;  // 9 bits need 2 bytes; the bitmap has 1
  EXPECT_ERROR(kInvalid, "the mask: its values buffer has 1 bytes, 9 slots from offset 0 need 2",
               FilterMask(short_values));
  ArrayDataPtr short_validity = Booleans(std::vector<bool>(16, true), {true});
  EXPECT_ERROR(kInvalid, "its validity bitmap has 1 bytes", FilterMask(short_validity));
  ArrayDataPtr no_values = Node(boolean(), 1, {nullptr});
  EXPECT_ERROR(kInvalid, "the mask has no values buffer", FilterMask(no_values));
  auto far = std::make_shared<ArrayData>(*Booleans({true}));
  far->offset = std::numeric_limits<int64_t>::max();
  EXPECT_ERROR(kInvalid, "the mask", FilterMask(far));
}

}  // namespace quiver
