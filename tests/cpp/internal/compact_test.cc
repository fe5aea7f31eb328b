// Compact (array.h) / internal::CompactNode: arrays cut down to the rows they cover,
// as the IPC writer and pickling send them.
#include <gtest/gtest.h>

#include <numeric>

#include "quiver/internal/compact.h"
#include "quiver/record_batch.h"
#include "sample_arrays.h"
#include "test_util.h"

namespace quiver {
namespace {

using test::Primitive;

std::vector<int32_t> Iota(int n) {
  std::vector<int32_t> out(static_cast<size_t>(n));
  std::iota(out.begin(), out.end(), 0);
  return out;
}

std::vector<bool> EveryThirdNull(int n) {
  std::vector<bool> valid(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) valid[static_cast<size_t>(i)] = i % 3 != 1;
  return valid;
}

// Compacts `sliced` and checks the result is a valid array with the same
// values.
ArrayDataPtr CheckCompact(const ArrayDataPtr& sliced) {
  auto out = Compact(*sliced);
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  if (!out.ok()) return nullptr;
  EXPECT_TRUE(Validate(**out, ValidationLevel::kFull).ok());
  EXPECT_TRUE(ArrayEquals(*sliced, **out));
  EXPECT_EQ((*out)->length, sliced->length);
  return *out;
}

TEST(Compact, PrimitiveSliceOffByteBoundaryStartsAtZero) {
  ArrayDataPtr parent = Primitive(int32(), Iota(40), EveryThirdNull(40));
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr sliced, Slice(parent, 11, 13));
  ArrayDataPtr out = CheckCompact(sliced);
  ASSERT_TRUE(out);
  EXPECT_EQ(out->offset, 0);
  // Values: a zero-copy slice of exactly the 13 rows.
  EXPECT_EQ(out->buffers[1]->size(), 13 * 4);
  EXPECT_EQ(out->buffers[1]->data(), parent->buffers[1]->data() + 11 * 4);
  // Validity: shifted into a fresh 2-byte bitmap (11 is not a multiple of 8).
  ASSERT_TRUE(out->buffers[0]);
  EXPECT_EQ(out->buffers[0]->size(), 2);
  EXPECT_NE(out->buffers[0]->data(), parent->buffers[0]->data() + 1);
  EXPECT_EQ(out->null_count, sliced->ComputeNullCount());
}

TEST(Compact, ValidityDroppedWhenTheRowsHaveNoNulls) {
  ArrayDataPtr parent =
      Primitive(int32(), Iota(10), {true, false, true, true, true, true, true, true, true, true});
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr sliced, Slice(parent, 2, 8));
  ArrayDataPtr out = CheckCompact(sliced);
  ASSERT_TRUE(out);
  EXPECT_EQ(out->buffers[0], nullptr);
  EXPECT_EQ(out->null_count, 0);
}

TEST(Compact, Utf8OffsetsRebasedAndDataCut) {
  ArrayDataPtr parent = test::Utf8({"alpha", "be", std::nullopt, "gamma", "d", "epsilon"});
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr sliced, Slice(parent, 3, 2));
  ArrayDataPtr out = CheckCompact(sliced);
  ASSERT_TRUE(out);
  // "gamma" + "d": 6 bytes, offsets [0, 5, 6] in a fresh buffer.
  EXPECT_EQ(out->buffers[2]->size(), 6);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(out->buffers[2]->data()), 6), "gammad");
  std::vector<int32_t> offsets(3);
  std::memcpy(offsets.data(), out->buffers[1]->data(), 12);
  EXPECT_EQ(offsets, (std::vector<int32_t>{0, 5, 6}));
}

TEST(Compact, OffsetsStartingAtZeroAreSliced) {
  ArrayDataPtr parent = test::Utf8({"ab", "c", "def", "g"});
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr sliced, Slice(parent, 0, 2));
  ArrayDataPtr out = CheckCompact(sliced);
  ASSERT_TRUE(out);
  EXPECT_EQ(out->buffers[1]->data(), parent->buffers[1]->data());
  EXPECT_EQ(out->buffers[1]->size(), 3 * 4);
  EXPECT_EQ(out->buffers[2]->size(), 3);
}

TEST(Compact, FixedSizeListChildCutToTheRows) {
  ASSERT_OK_AND_ASSIGN(TypePtr type, fixed_size_list(Field{"item", float32(), true, {}}, 3));
  std::vector<float> values(30);
  std::iota(values.begin(), values.end(), 0.0f);
  auto parent = std::make_shared<ArrayData>();
  parent->type = type;
  parent->length = 10;
  parent->buffers = {nullptr};
  parent->children = {Primitive(float32(), values)};
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr sliced, Slice(parent, 4, 3));
  ArrayDataPtr out = CheckCompact(sliced);
  ASSERT_TRUE(out);
  const ArrayData& child = *out->children[0];
  EXPECT_EQ(child.offset, 0);
  EXPECT_EQ(child.length, 9);
  EXPECT_EQ(child.buffers[1]->size(), 9 * 4);
  EXPECT_EQ(child.buffers[1]->data(), parent->children[0]->buffers[1]->data() + 12 * 4);
}

TEST(Compact, ListOfStructsCutThroughEveryLevel) {
  TypePtr row = struct_({Field{"x", int32(), true, {}}, Field{"s", utf8(), true, {}}});
  TypePtr type = list(Field{"item", row, true, {}});
  auto structs = std::make_shared<ArrayData>();
  structs->type = row;
  structs->length = 6;
  structs->buffers = {nullptr};
  structs->children = {Primitive(int32(), Iota(6)), test::Utf8({"a", "bb", "ccc", "d", "ee", "f"})};
  auto parent = std::make_shared<ArrayData>();
  parent->type = type;
  parent->length = 3;
  parent->buffers = {nullptr, test::BufferOf(std::vector<int32_t>{0, 2, 5, 6})};
  parent->children = {structs};
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr sliced, Slice(parent, 1, 1));
  ArrayDataPtr out = CheckCompact(sliced);
  ASSERT_TRUE(out);
  const ArrayData& inner = *out->children[0];
  EXPECT_EQ(inner.length, 3);                           // rows 2..4 of the structs
  EXPECT_EQ(inner.children[1]->buffers[2]->size(), 6);  // "ccc" + "d" + "ee"
}

TEST(Compact, DictionaryKeepsEveryValue) {
  ArrayDataPtr values = test::Utf8({"red", "green", "blue"});
  ASSERT_OK_AND_ASSIGN(TypePtr type, dictionary(int8(), utf8()));
  auto parent = std::make_shared<ArrayData>();
  parent->type = type;
  parent->length = 5;
  parent->buffers = {nullptr, test::BufferOf(std::vector<int8_t>{2, 0, 1, 1, 2})};
  parent->dictionary = values;
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr sliced, Slice(parent, 3, 2));
  ArrayDataPtr out = CheckCompact(sliced);
  ASSERT_TRUE(out);
  EXPECT_EQ(out->dictionary->length, 3);
  EXPECT_EQ(out->buffers[1]->size(), 2);
}

TEST(Compact, EmptySliceAndNullType) {
  ArrayDataPtr parent = test::Utf8({"ab", "c"});
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr empty, Slice(parent, 2, 0));
  ArrayDataPtr out = CheckCompact(empty);
  ASSERT_TRUE(out);
  EXPECT_EQ(out->buffers[1]->size(), 4);  // one zero offset
  auto nulls = std::make_shared<ArrayData>();
  nulls->type = null();
  nulls->length = 7;
  nulls->null_count = 7;
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr sliced, Slice(nulls, 2, 3));
  ArrayDataPtr compact_nulls = CheckCompact(sliced);
  ASSERT_TRUE(compact_nulls);
  EXPECT_EQ(compact_nulls->null_count, 3);
}

// --- ReferencedBytes: what a slice's rows reference (pyarrow's nbytes) --------

TEST(ReferencedBytes, BitmapsCountTheWholeBytesTheirBitsTouch) {
  // pyarrow: pa.array(40 int32 with nulls).nbytes == 160 + 5; a slice of
  // rows 11..23 touches bitmap bytes 1..2 and 13 values.
  ArrayDataPtr parent = Primitive(int32(), Iota(40), EveryThirdNull(40));
  EXPECT_EQ(*ReferencedBytes(*parent), 165);
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr sliced, Slice(parent, 11, 13));
  EXPECT_EQ(*ReferencedBytes(*sliced), 2 + 13 * 4);
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr crossing, Slice(parent, 7, 2));  // bits 7 and 8
  EXPECT_EQ(*ReferencedBytes(*crossing), 2 + 8);
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr none, Slice(parent, 5, 0));
  EXPECT_EQ(*ReferencedBytes(*none), 0);
  // No validity buffer: values only.
  EXPECT_EQ(*ReferencedBytes(*Primitive(int64(), std::vector<int64_t>{1, 2, 3})), 24);
}

TEST(ReferencedBytes, OffsetsDelimitDataAndChildren) {
  ArrayDataPtr parent = test::Utf8({"alpha", "be", std::nullopt, "gamma", "d", "epsilon"});
  const int64_t bitmap = parent->buffers[0] ? 1 : 0;
  EXPECT_EQ(*ReferencedBytes(*parent), bitmap + 7 * 4 + 5 + 2 + 5 + 1 + 7);
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr sliced, Slice(parent, 3, 2));
  EXPECT_EQ(*ReferencedBytes(*sliced), bitmap + 3 * 4 + 6);  // "gamma" + "d"
  // A list of structs: rows 2..4 of the structs, whose strings are 6 bytes.
  TypePtr row = struct_({Field{"x", int32(), true, {}}, Field{"s", utf8(), true, {}}});
  auto structs = std::make_shared<ArrayData>();
  structs->type = row;
  structs->length = 6;
  structs->buffers = {nullptr};
  structs->children = {Primitive(int32(), Iota(6)), test::Utf8({"a", "bb", "ccc", "d", "ee", "f"})};
  auto list_data = std::make_shared<ArrayData>();
  list_data->type = list(Field{"item", row, true, {}});
  list_data->length = 3;
  list_data->buffers = {nullptr, test::BufferOf(std::vector<int32_t>{0, 2, 5, 6})};
  list_data->children = {structs};
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr one, Slice(list_data, 1, 1));
  EXPECT_EQ(*ReferencedBytes(*one), 2 * 4 + 3 * 4 + (4 * 4 + 6));
}

TEST(ReferencedBytes, FixedSizeListsAndStructsFollowTheirParentsOffset) {
  ASSERT_OK_AND_ASSIGN(TypePtr type, fixed_size_list(Field{"item", float32(), true, {}}, 3));
  std::vector<float> values(30);
  auto parent = std::make_shared<ArrayData>();
  parent->type = type;
  parent->length = 10;
  parent->buffers = {test::Bitmap(EveryThirdNull(10))};
  parent->children = {Primitive(float32(), values)};
  EXPECT_EQ(*ReferencedBytes(*parent), 2 + 30 * 4);
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr sliced, Slice(parent, 4, 3));
  EXPECT_EQ(*ReferencedBytes(*sliced), 1 + 9 * 4);
  auto fields = std::make_shared<ArrayData>();
  fields->type = struct_({Field{"a", int64(), true, {}}, Field{"b", int8(), true, {}}});
  fields->length = 3;
  fields->buffers = {test::Bitmap({true, false, true})};
  fields->children = {Primitive(int64(), std::vector<int64_t>{1, 2, 3}),
                      Primitive(int8(), std::vector<int8_t>{1, 2, 3}, {true, false, true})};
  EXPECT_EQ(*ReferencedBytes(*fields), 1 + 24 + 1 + 3);
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr tail, Slice(fields, 1, 2));
  EXPECT_EQ(*ReferencedBytes(*tail), 1 + 16 + 1 + 2);
}

TEST(ReferencedBytes, DictionariesCountWholeAndBadOffsetsAreErrors) {
  ASSERT_OK_AND_ASSIGN(TypePtr type, dictionary(int8(), utf8()));
  auto parent = std::make_shared<ArrayData>();
  parent->type = type;
  parent->length = 5;
  parent->buffers = {nullptr, test::BufferOf(std::vector<int8_t>{2, 0, 1, 1, 2})};
  parent->dictionary = test::Utf8({"red", "green", "blue"});
  const int64_t dictionary = *ReferencedBytes(*parent->dictionary);
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr sliced, Slice(parent, 3, 2));
  EXPECT_EQ(*ReferencedBytes(*sliced), 2 + dictionary);
  auto backwards = std::make_shared<ArrayData>(*test::Utf8({"ab", "c"}));
  backwards->buffers[1] = test::BufferOf(std::vector<int32_t>{2, 3, 1});
  EXPECT_ERROR(kInvalid, "offsets 2 .. 1 of rows [0, 2)", ReferencedBytes(*backwards));
  auto past = std::make_shared<ArrayData>(*test::Utf8({"ab", "c"}));
  past->buffers[1] = test::BufferOf(std::vector<int32_t>{0, 2, 9});
  EXPECT_ERROR(kInvalid, "offset 9 is past a data buffer of 3 bytes", ReferencedBytes(*past));
}

TEST(ReferencedBytes, ReadsNoDeviceMemory) {
  // A list whose offsets "live on a GPU" at an address the host must not
  // read; fixed-width values there are only counted.
  auto on_device = std::make_shared<ArrayData>(*test::Utf8({"ab", "c"}));
  on_device->buffers[1] =
      Buffer::Wrap(reinterpret_cast<const void*>(uintptr_t{1} << 40), 12, nullptr, Device{2, 0});
  EXPECT_ERROR(kNotImplemented, "offsets of a utf8 array live in device memory",
               ReferencedBytes(*on_device));
  auto values = std::make_shared<ArrayData>(*Primitive(int32(), Iota(4)));
  values->buffers[1] =
      Buffer::Wrap(reinterpret_cast<const void*>(uintptr_t{1} << 40), 16, nullptr, Device{2, 0});
  EXPECT_EQ(*ReferencedBytes(*values), 16);
}

TEST(Compact, NewTypesKeepTheirRowsAtOffsetZero) {
  for (const auto& [name, data] : test::AllNewTypeSamples()) {
    SCOPED_TRACE(name);
    for (int64_t start = 0; start < data->length; ++start) {
      ASSERT_OK_AND_ASSIGN(ArrayDataPtr part, Slice(data, start, data->length - start));
      ASSERT_OK_AND_ASSIGN(ArrayDataPtr compact, Compact(*part));
      EXPECT_EQ(compact->offset, 0);
      EXPECT_TRUE(Validate(*compact).ok()) << Validate(*compact).ToString();
      EXPECT_TRUE(ArrayEquals(*compact, *part));
    }
  }
}

TEST(Compact, ListViewNullSlotsGetEmptyViews) {
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr compact, Compact(*test::ListViewSample()));
  const auto* offsets = reinterpret_cast<const int32_t*>(compact->buffers[1]->data());
  const auto* sizes = reinterpret_cast<const int32_t*>(compact->buffers[2]->data());
  EXPECT_EQ(offsets[1], 0);  // was 99: outside the child
  EXPECT_EQ(sizes[1], 0);
  EXPECT_EQ(offsets[3], 1);
  EXPECT_EQ(sizes[3], 3);
}

TEST(Compact, RunEndsKeepOnlyTheRunsOfTheRows) {
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr part, Slice(test::RunEndSample(), 3, 2));  // [30, 30]
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr compact, Compact(*part));
  ASSERT_EQ(compact->children[0]->length, 1);
  EXPECT_EQ(reinterpret_cast<const int32_t*>(compact->children[0]->buffers[1]->data())[0], 2);
  EXPECT_EQ(compact->children[1]->length, 1);
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr empty, Slice(test::RunEndSample(), 6, 0));
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr none, Compact(*empty));
  EXPECT_EQ(none->children[0]->length, 0);
  EXPECT_TRUE(Validate(*none).ok());
}

}  // namespace
}  // namespace quiver
