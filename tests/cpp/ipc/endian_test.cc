// Swapping arrays of the other byte order (endian.h): each buffer is
// swapped by its role in the type's layout, into a copy, and children are
// swapped too while dictionaries and bytes are kept.
#include "quiver/ipc/endian.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "test_util.h"

namespace quiver::ipc {

namespace {

using test::BufferFrom;
using test::BufferOf;

std::vector<uint8_t> BytesOf(const BufferPtr& buffer) {
  if (!buffer) return {};
  return std::vector<uint8_t>(buffer->data(), buffer->data() + buffer->size());
}

// `bytes` with each `width`-byte group reversed (the expected swap).
std::vector<uint8_t> Reversed(std::vector<uint8_t> bytes, size_t width) {
  for (size_t at = 0; at + width <= bytes.size(); at += width) {
    std::reverse(bytes.begin() + static_cast<std::ptrdiff_t>(at),
                 bytes.begin() + static_cast<std::ptrdiff_t>(at + width));
  }
  return bytes;
}

template <typename T>
std::vector<uint8_t> RawBytes(const std::vector<T>& values) {
  std::vector<uint8_t> out(values.size() * sizeof(T));
  std::memcpy(out.data(), values.data(), out.size());
  return out;
}

ArrayDataPtr Make(TypePtr type, int64_t length, std::vector<BufferPtr> buffers,
                  std::vector<ArrayDataPtr> children = {}) {
  auto data = std::make_shared<ArrayData>();
  data->type = std::move(type);
  data->length = length;
  data->buffers = std::move(buffers);
  data->children = std::move(children);
  return data;
}

}  // namespace

TEST(Endian, FixedWidthValuesSwapAsWholeNumbersIntoACopy) {
  const std::vector<int32_t> values = {0x11223344, -2, 0x55667788};
  ArrayDataPtr original = test::Primitive<int32_t>(int32(), values, {true, false, true});
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr swapped, SwapByteOrder(original));
  EXPECT_EQ(BytesOf(swapped->buffers[1]), Reversed(RawBytes(values), 4));
  EXPECT_NE(swapped->buffers[1], original->buffers[1]);        // a copy
  EXPECT_EQ(BytesOf(original->buffers[1]), RawBytes(values));  // left as it was
  EXPECT_EQ(swapped->buffers[0], original->buffers[0]);        // bitmaps are kept, shared
  EXPECT_EQ(swapped->length, 3);
  // Swapping twice gives the values back.
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr twice, SwapByteOrder(swapped));
  EXPECT_EQ(BytesOf(twice->buffers[1]), RawBytes(values));

  for (const auto& [type, width] :
       std::vector<std::pair<TypePtr, size_t>>{{int16(), 2},
                                               {uint64(), 8},
                                               {float16(), 2},
                                               {float64(), 8},
                                               {date32(), 4},
                                               {*decimal32(9, 2), 4},
                                               {*decimal64(18, 2), 8},
                                               {*decimal128(38, 2), 16},
                                               {*decimal256(76, 2), 32},
                                               {*interval(IntervalUnit::kYearMonth), 4}}) {
    std::vector<uint8_t> raw(width * 2);
    for (size_t i = 0; i < raw.size(); ++i) raw[i] = static_cast<uint8_t>(i + 1);
    ArrayDataPtr data = Make(type, 2, {nullptr, BufferFrom(raw.data(), raw.size())});
    ASSERT_OK_AND_ASSIGN(ArrayDataPtr out, SwapByteOrder(data));
    EXPECT_EQ(BytesOf(out->buffers[1]), Reversed(raw, width)) << type->ToString();
  }
}

TEST(Endian, LongBuffersWithAShortTail) {
  // Many values of each width plus a few bytes short of one more: every
  // whole value swapped, the tail copied as it is.
  for (const auto& [type, width] : std::vector<std::pair<TypePtr, size_t>>{
           {uint16(), 2}, {int32(), 4}, {float64(), 8}, {*decimal128(38, 0), 16}}) {
    std::vector<uint8_t> raw(width * 37 + width - 1);
    for (size_t i = 0; i < raw.size(); ++i) raw[i] = static_cast<uint8_t>(i * 7 + 3);
    ArrayDataPtr data = Make(type, 37, {nullptr, BufferFrom(raw.data(), raw.size())});
    ASSERT_OK_AND_ASSIGN(ArrayDataPtr out, SwapByteOrder(data));
    EXPECT_EQ(BytesOf(out->buffers[1]), Reversed(raw, width)) << type->ToString();
  }
}

TEST(Endian, BytesBitmapsAndFixedSizeBinaryAreKept) {
  ArrayDataPtr bools = Make(boolean(), 9, {nullptr, BufferOf(std::vector<uint8_t>{0x35, 0x01})});
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr out, SwapByteOrder(bools));
  EXPECT_EQ(out->buffers[1], bools->buffers[1]);

  ASSERT_OK_AND_ASSIGN(TypePtr fsb, fixed_size_binary(4));
  ArrayDataPtr binary =
      Make(fsb, 2, {nullptr, BufferOf(std::vector<uint8_t>{1, 2, 3, 4, 5, 6, 7, 8})});
  ASSERT_OK_AND_ASSIGN(out, SwapByteOrder(binary));
  EXPECT_EQ(BytesOf(out->buffers[1]), (std::vector<uint8_t>{1, 2, 3, 4, 5, 6, 7, 8}));

  // utf8: offsets swap, the bytes they index do not.
  ArrayDataPtr strings = test::Utf8({"ab", std::nullopt, "cde"});
  ASSERT_OK_AND_ASSIGN(out, SwapByteOrder(strings));
  EXPECT_EQ(BytesOf(out->buffers[1]), Reversed(RawBytes(std::vector<int32_t>{0, 2, 2, 5}), 4));
  EXPECT_EQ(out->buffers[2], strings->buffers[2]);
  EXPECT_EQ(out->buffers[0], strings->buffers[0]);

  ArrayDataPtr large =
      Make(large_utf8(), 1, {nullptr, BufferOf(std::vector<int64_t>{0, 3}), BufferFrom("xyz", 3)});
  ASSERT_OK_AND_ASSIGN(out, SwapByteOrder(large));
  EXPECT_EQ(BytesOf(out->buffers[1]), Reversed(RawBytes(std::vector<int64_t>{0, 3}), 8));
}

TEST(Endian, IntervalsSwapFieldByField) {
  // day-time: int32 days, int32 milliseconds.
  const std::vector<int32_t> day_time = {1, -2, 0x01020304, 5};
  ArrayDataPtr dt = Make(*interval(IntervalUnit::kDayTime), 2, {nullptr, BufferOf(day_time)});
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr out, SwapByteOrder(dt));
  EXPECT_EQ(BytesOf(out->buffers[1]), Reversed(RawBytes(day_time), 4));

  // month-day-nano: int32 months, int32 days, int64 nanoseconds.
  struct MonthDayNano {
    int32_t months;
    int32_t days;
    int64_t nanos;
  };
  const std::vector<MonthDayNano> mdn = {{1, 2, 0x0102030405060708}, {-1, 0, -3}};
  ArrayDataPtr data = Make(*interval(IntervalUnit::kMonthDayNano), 2, {nullptr, BufferOf(mdn)});
  ASSERT_OK_AND_ASSIGN(out, SwapByteOrder(data));
  std::vector<uint8_t> expected = RawBytes(mdn);
  for (size_t row = 0; row < 2; ++row) {
    auto at = expected.begin() + static_cast<std::ptrdiff_t>(row * 16);
    std::reverse(at, at + 4);
    std::reverse(at + 4, at + 8);
    std::reverse(at + 8, at + 16);
  }
  EXPECT_EQ(BytesOf(out->buffers[1]), expected);
}

TEST(Endian, ViewsSwapTheirLengthAndForLongValuesTheirBufferAndOffset) {
  // Views as written in the other byte order: an inline one ("short") and
  // one pointing into variadic buffer 0 at offset 3.
  std::vector<uint8_t> views(32, 0);
  const int32_t short_length = 5;
  std::memcpy(views.data(), &short_length, 4);
  std::memcpy(views.data() + 4, "short", 5);
  const int32_t long_length = 20;
  const int32_t index = 0;
  const int32_t offset = 3;
  std::memcpy(views.data() + 16, &long_length, 4);
  std::memcpy(views.data() + 20, "pref", 4);
  std::memcpy(views.data() + 24, &index, 4);
  std::memcpy(views.data() + 28, &offset, 4);
  std::vector<uint8_t> foreign = views;
  std::reverse(foreign.begin(), foreign.begin() + 4);
  std::reverse(foreign.begin() + 16, foreign.begin() + 20);
  std::reverse(foreign.begin() + 24, foreign.begin() + 28);
  std::reverse(foreign.begin() + 28, foreign.begin() + 32);
  BufferPtr variadic = BufferFrom("xxxprefix and more bytes", 24);
  ArrayDataPtr data =
      Make(utf8_view(), 2, {nullptr, BufferFrom(foreign.data(), foreign.size()), variadic});
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr out, SwapByteOrder(data));
  EXPECT_EQ(BytesOf(out->buffers[1]), views);  // inline bytes and the prefix kept
  EXPECT_EQ(out->buffers[2], variadic);        // variadic buffers are bytes
}

TEST(Endian, ListViewsUnionsAndChildrenSwap) {
  ArrayDataPtr child = test::Primitive<int16_t>(int16(), {0x0102, 0x0304, 0x0506});
  const std::vector<int32_t> offsets = {0, 1}, sizes = {1, 2};
  ArrayDataPtr view = Make(list_view(Field{"item", int16()}), 2,
                           {nullptr, BufferOf(offsets), BufferOf(sizes)}, {child});
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr out, SwapByteOrder(view));
  EXPECT_EQ(BytesOf(out->buffers[1]), Reversed(RawBytes(offsets), 4));
  EXPECT_EQ(BytesOf(out->buffers[2]), Reversed(RawBytes(sizes), 4));
  EXPECT_EQ(BytesOf(out->children[0]->buffers[1]),
            Reversed(RawBytes(std::vector<int16_t>{0x0102, 0x0304, 0x0506}), 2));

  const std::vector<int64_t> large_offsets = {0, 2}, large_sizes = {2, 1};
  ArrayDataPtr large = Make(large_list_view(Field{"item", int16()}), 2,
                            {nullptr, BufferOf(large_offsets), BufferOf(large_sizes)}, {child});
  ASSERT_OK_AND_ASSIGN(out, SwapByteOrder(large));
  EXPECT_EQ(BytesOf(out->buffers[1]), Reversed(RawBytes(large_offsets), 8));
  EXPECT_EQ(BytesOf(out->buffers[2]), Reversed(RawBytes(large_sizes), 8));

  // Dense union: type ids (int8) kept, offsets swapped, children swapped.
  ASSERT_OK_AND_ASSIGN(TypePtr dense, dense_union({Field{"i", int16()}, Field{"s", utf8()}}));
  const std::vector<int8_t> type_ids = {0, 1, 0};
  const std::vector<int32_t> union_offsets = {0, 0, 1};
  ArrayDataPtr strings = test::Utf8({"x"});
  ArrayDataPtr du = Make(dense, 3, {BufferOf(type_ids), BufferOf(union_offsets)}, {child, strings});
  ASSERT_OK_AND_ASSIGN(out, SwapByteOrder(du));
  EXPECT_EQ(out->buffers[0], du->buffers[0]);
  EXPECT_EQ(BytesOf(out->buffers[1]), Reversed(RawBytes(union_offsets), 4));
  EXPECT_EQ(BytesOf(out->children[1]->buffers[1]),
            Reversed(RawBytes(std::vector<int32_t>{0, 1}), 4));

  // Run-end encoded: no buffers of its own; run ends and values swap.
  ASSERT_OK_AND_ASSIGN(TypePtr ree, run_end_encoded(int32(), int16()));
  ArrayDataPtr run_ends = test::Primitive<int32_t>(int32(), {2, 3, 7});
  ArrayDataPtr runs = Make(ree, 7, {}, {run_ends, child});
  ASSERT_OK_AND_ASSIGN(out, SwapByteOrder(runs));
  EXPECT_TRUE(out->buffers.empty());
  EXPECT_EQ(BytesOf(out->children[0]->buffers[1]),
            Reversed(RawBytes(std::vector<int32_t>{2, 3, 7}), 4));
}

TEST(Endian, DictionaryIndicesSwapButNotTheDictionary) {
  // The dictionary comes from its own dictionary batch, swapped there.
  ASSERT_OK_AND_ASSIGN(TypePtr type, dictionary(int16(), utf8()));
  ArrayDataPtr values = test::Utf8({"a", "b"});
  auto data = std::make_shared<ArrayData>();
  data->type = type;
  data->length = 3;
  data->buffers = {nullptr, BufferOf(std::vector<int16_t>{1, 0, 1})};
  data->dictionary = values;
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr out, SwapByteOrder(data));
  EXPECT_EQ(BytesOf(out->buffers[1]), Reversed(RawBytes(std::vector<int16_t>{1, 0, 1}), 2));
  EXPECT_EQ(out->dictionary, values);
}

TEST(Endian, ShortAndEmptyBuffersAndDeepNesting) {
  // A trailing part shorter than one value is copied as it is (validation
  // reports the short buffer); an absent or empty buffer stays so.
  const std::vector<uint8_t> raw = {1, 2, 3, 4, 5, 6};
  ArrayDataPtr data = Make(int32(), 2, {nullptr, BufferFrom(raw.data(), raw.size())});
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr out, SwapByteOrder(data));
  EXPECT_EQ(BytesOf(out->buffers[1]), (std::vector<uint8_t>{4, 3, 2, 1, 5, 6}));
  ArrayDataPtr empty = Make(int64(), 0, {nullptr, nullptr});
  ASSERT_OK_AND_ASSIGN(out, SwapByteOrder(empty));
  EXPECT_EQ(out->buffers[1], nullptr);
  // Fewer buffers than the layout names (a hostile node): nothing read past them.
  ArrayDataPtr missing = Make(utf8(), 1, {nullptr});
  ASSERT_OK(SwapByteOrder(missing).status());

  // Nesting past kMaxNestingDepth is refused, not recursed into.
  ArrayDataPtr nested = test::Primitive<int32_t>(int32(), {1});
  TypePtr type = int32();
  for (int level = 0; level <= kMaxNestingDepth + 1; ++level) {
    type = struct_({Field{"f", type}});
    nested = Make(type, 1, {nullptr}, {nested});
  }
  EXPECT_ERROR(kInvalid, "the array nests too deeply", SwapByteOrder(nested));
}

}  // namespace quiver::ipc
