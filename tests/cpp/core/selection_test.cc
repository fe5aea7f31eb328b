// Take, Filter and Concatenate of arrays of any type (selection.h): values
// equal to a row-by-row reference, zero-copy single runs, nulls, nested
// children, views, dictionaries, and the errors of bad indices, masks and
// hostile offsets.
#include "quiver/selection.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "quiver/internal/layout.h"
#include "quiver/record_batch.h"
#include "sample_arrays.h"
#include "test_util.h"

namespace quiver {

using test::DictionaryOf;
using test::Primitive;
using test::Utf8;
using test::Views;

namespace {

// A list<int32> array from rows (nullopt = null row).
ArrayDataPtr IntLists(const std::vector<std::optional<std::vector<int32_t>>>& rows) {
  std::vector<int32_t> offsets = {0}, values;
  std::vector<bool> valid;
  for (const auto& row : rows) {
    if (row) values.insert(values.end(), row->begin(), row->end());
    valid.push_back(row.has_value());
    offsets.push_back(static_cast<int32_t>(values.size()));
  }
  auto out = std::make_shared<ArrayData>();
  out->type = list(Field{"item", int32()});
  out->length = static_cast<int64_t>(rows.size());
  out->buffers = {test::Bitmap(valid), test::BufferOf(offsets)};
  out->children = {Primitive<int32_t>(int32(), values)};
  return out;
}

ArrayDataPtr Bools(const std::vector<bool>& values, const std::vector<bool>& valid = {}) {
  BufferPtr bits = *Buffer::Allocate((static_cast<int64_t>(values.size()) + 7) / 8);
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i]) bits->mutable_data()[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
  }
  auto out = std::make_shared<ArrayData>();
  out->type = boolean();
  out->length = static_cast<int64_t>(values.size());
  out->buffers = {valid.empty() ? nullptr : test::Bitmap(valid), bits};
  return out;
}

// The reference: row i of the result equals row indices[i] of the source.
void ExpectRows(const ArrayDataPtr& result, const ArrayDataPtr& source,
                const std::vector<int64_t>& indices) {
  ASSERT_EQ(result->length, static_cast<int64_t>(indices.size()));
  ASSERT_OK(Validate(*result, ValidationLevel::kFull));
  for (size_t i = 0; i < indices.size(); ++i) {
    ArrayDataPtr got = *Slice(result, static_cast<int64_t>(i), 1);
    ArrayDataPtr want = *Slice(source, indices[i], 1);
    EXPECT_TRUE(ArrayEquals(*got, *want)) << "row " << i;
  }
}

}  // namespace

TEST(Take, PrimitiveWithNullsAndRepeats) {
  ArrayDataPtr source = Primitive<int64_t>(int64(), {10, 11, 12, 13, 14}, {1, 0, 1, 1, 0});
  std::vector<int64_t> indices = {4, 0, 0, 3, 1, 2};
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr taken, Take(source, indices));
  ExpectRows(taken, source, indices);
  EXPECT_EQ(taken->ComputeNullCount(), 2);
}

TEST(Take, ConsecutiveRowsOfOneArrayAreASliceWithoutCopy) {
  ArrayDataPtr source = Primitive<int32_t>(int32(), {1, 2, 3, 4, 5});
  std::vector<int64_t> indices = {1, 2, 3};
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr taken, Take(source, indices));
  EXPECT_EQ(taken->buffers[1].get(), source->buffers[1].get());
  EXPECT_EQ(taken->offset, 1);
  ExpectRows(taken, source, indices);
}

// Whether any buffer of `result` or its children is one of `source`'s.
bool SharesABuffer(const ArrayData& result, const ArrayData& source) {
  for (const BufferPtr& mine : result.buffers) {
    for (const BufferPtr& theirs : source.buffers) {
      if (mine && mine == theirs) return true;
    }
  }
  for (size_t i = 0; i < result.children.size() && i < source.children.size(); ++i) {
    if (SharesABuffer(*result.children[i], *source.children[i])) return true;
  }
  return false;
}

TEST(TakeCopy, RunsOfRowsAreCopiedNotSliced) {
  auto fsl = std::make_shared<ArrayData>();
  fsl->type = *fixed_size_list(Field{"item", int16()}, 2);
  fsl->length = 4;
  fsl->buffers = {test::Bitmap({true, false, true, true})};
  fsl->children = {Primitive<int16_t>(int16(), {1, 2, 3, 4, 5, 6, 7, 8})};
  auto st = std::make_shared<ArrayData>();
  st->type = struct_({Field{"v", fsl->type}, Field{"s", utf8()}});
  st->length = 4;
  st->buffers = {nullptr};
  st->children = {fsl, Utf8({"a", "b", std::nullopt, "dd"})};
  const ArrayDataPtr sources[] = {
      Primitive<int64_t>(int64(), {10, 11, 12, 13, 14}, {1, 0, 1, 1, 0}),
      Utf8({"zero", std::nullopt, "", "three"}), fsl, st,
      *Slice(Primitive<int32_t>(int32(), {1, 2, 3, 4, 5}), 1, 4)};
  const std::vector<std::vector<int64_t>> takes = {{1}, {1, 2}, {0, 1, 2, 3}, {3, 1}, {}};
  for (const ArrayDataPtr& source : sources) {
    for (const std::vector<int64_t>& indices : takes) {
      SCOPED_TRACE(source->type->ToString() + ", " + std::to_string(indices.size()) + " rows");
      ASSERT_OK_AND_ASSIGN(ArrayDataPtr taken, TakeCopy(source, indices));
      ExpectRows(taken, source, indices);
      EXPECT_FALSE(SharesABuffer(*taken, *source));
    }
  }
  ArrayDataPtr two = Primitive<int32_t>(int32(), {1, 2});
  EXPECT_ERROR(kIndexError, "index 2 at position 2 is out of range for 2 rows",
               TakeCopy(two, std::vector<int64_t>{0, 1, 2}));
}

TEST(Take, BoolsAtEveryBitOffset) {
  std::vector<bool> values, valid;
  for (int i = 0; i < 37; ++i) {
    values.push_back(i % 3 == 0);
    valid.push_back(i % 5 != 0);
  }
  ArrayDataPtr source = Bools(values, valid);
  for (int64_t start = 0; start < 9; ++start) {
    ArrayDataPtr sliced = *Slice(source, start, 37 - start);
    std::vector<int64_t> indices;
    for (int64_t i = 0; i < sliced->length; i += 2) indices.push_back(i);
    ASSERT_OK_AND_ASSIGN(ArrayDataPtr taken, Take(sliced, indices));
    ExpectRows(taken, sliced, indices);
  }
}

TEST(Take, StringsAndListsWithNullsAndSlices) {
  ArrayDataPtr strings = *Slice(Utf8({"zero", std::nullopt, "", "three", "four!"}), 1, 4);
  std::vector<int64_t> indices = {3, 0, 2, 1, 3};
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr taken, Take(strings, indices));
  ExpectRows(taken, strings, indices);

  ArrayDataPtr lists = *Slice(IntLists({{{1}}, {{2, 3}}, std::nullopt, {{}}, {{4, 5, 6}}}), 1, 4);
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr taken_lists, Take(lists, indices));
  ExpectRows(taken_lists, lists, indices);
  // The child holds only the values of the rows taken.
  EXPECT_EQ(taken_lists->children[0]->length, 3 + 2 + 0 + 0 + 3);
}

TEST(Take, FixedSizeListsAndStructs) {
  auto fsl = std::make_shared<ArrayData>();
  fsl->type = *fixed_size_list(Field{"item", int16()}, 2);
  fsl->length = 3;
  fsl->buffers = {test::Bitmap({true, false, true})};
  fsl->children = {Primitive<int16_t>(int16(), {1, 2, 3, 4, 5, 6})};
  auto st = std::make_shared<ArrayData>();
  st->type = struct_({Field{"v", fsl->type}, Field{"s", utf8()}});
  st->length = 3;
  st->buffers = {nullptr};
  st->children = {fsl, Utf8({"a", "b", std::nullopt})};
  std::vector<int64_t> indices = {2, 2, 0, 1};
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr taken, Take(st, indices));
  ExpectRows(taken, st, indices);
  ArrayDataPtr sliced = *Slice(st, 1, 2);
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr from_slice, Take(sliced, std::vector<int64_t>{1, 0}));
  ExpectRows(from_slice, sliced, {1, 0});
}

TEST(Take, IndexOutOfRangeNamesIndexAndPosition) {
  ArrayDataPtr source = Primitive<int32_t>(int32(), {1, 2});
  EXPECT_ERROR(kIndexError, "index 2 at position 1 is out of range for 2 rows",
               Take(source, std::vector<int64_t>{0, 2}));
  EXPECT_ERROR(kIndexError, "index -1 at position 0", Take(source, std::vector<int64_t>{-1}));
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr none, Take(source, std::vector<int64_t>{}));
  EXPECT_EQ(none->length, 0);
}

TEST(Take, AcrossChunksIntoOneArray) {
  std::vector<ArrayDataPtr> chunks = {Utf8({"a", "b"}), Utf8({}), Utf8({"c", std::nullopt, "e"})};
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr taken, Take(chunks, std::vector<int64_t>{4, 0, 2, 3, 1}));
  EXPECT_TRUE(ArrayEquals(*taken, *Utf8({"e", "a", "c", std::nullopt, "b"})));
  // Rows 2..3 lie in the third chunk: a slice of it.
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr run, Take(chunks, std::vector<int64_t>{2, 3}));
  EXPECT_EQ(run->buffers[2].get(), chunks[2]->buffers[2].get());
  std::vector<ArrayDataPtr> mixed = {Utf8({"a"}), Primitive<int32_t>(int32(), {1})};
  EXPECT_ERROR(kTypeError, "chunk 1 is int32", Take(mixed, std::vector<int64_t>{0}));
}

TEST(Take, FlatRowsGatheredAcrossChunksWithNullsAndOffsets) {
  // Fixed-size lists of int16 (tensor cells): gathered row by row.
  auto cells = [](const std::vector<int16_t>& values, const std::vector<bool>& valid,
                  const std::vector<bool>& child_valid) {
    auto fsl = std::make_shared<ArrayData>();
    fsl->type = *fixed_size_list(Field{"item", int16()}, 2);
    fsl->length = static_cast<int64_t>(values.size() / 2);
    fsl->buffers = {valid.empty() ? nullptr : test::Bitmap(valid)};
    fsl->children = {child_valid.empty() ? Primitive<int16_t>(int16(), values)
                                         : Primitive<int16_t>(int16(), values, child_valid)};
    return ArrayDataPtr(fsl);
  };
  for (bool child_nulls : {false, true}) {  // child nulls: joined piece by piece instead
    const std::vector<bool> child_valid =
        child_nulls ? std::vector<bool>{true, true, true, false, true, true} : std::vector<bool>{};
    // Rows [3, 4] [5, 6] (a slice), then null and [9, 10].
    std::vector<ArrayDataPtr> chunks = {*Slice(cells({1, 2, 3, 4, 5, 6}, {}, child_valid), 1, 2),
                                        cells({7, 8, 9, 10}, {false, true}, {})};
    ASSERT_OK_AND_ASSIGN(ArrayDataPtr joined, Concatenate(chunks));
    std::vector<int64_t> rows = {3, 0, 2, 1, 0};
    ASSERT_OK_AND_ASSIGN(ArrayDataPtr taken, Take(chunks, rows));
    ExpectRows(taken, joined, rows);
    EXPECT_EQ(taken->ComputeNullCount(), 1);
    ASSERT_OK_AND_ASSIGN(ArrayDataPtr kept, Filter(chunks, std::vector<uint8_t>{1, 0, 1, 1}));
    ExpectRows(kept, joined, {0, 2, 3});
  }
  std::vector<ArrayDataPtr> numbers = {
      Primitive<int64_t>(int64(), {1, 2, 3}),
      *Slice(Primitive<int64_t>(int64(), {4, 5, 6}, {1, 0, 1}), 1, 2)};
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr joined, Concatenate(numbers));
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr taken, Take(numbers, std::vector<int64_t>{4, 3, 0}));
  ExpectRows(taken, joined, {4, 3, 0});
  EXPECT_EQ(taken->ComputeNullCount(), 1);
}

TEST(Take, HostileOffsetsAreAnErrorWhenGathered) {
  auto bad = std::make_shared<ArrayData>(*Utf8({"abc", "d", "efg", "h"}));
  bad->buffers[1] = test::BufferOf(std::vector<int32_t>{0, 3, 2, 7, 8});  // row 1 decreasing
  EXPECT_ERROR(kInvalid, "row 1: offsets 3, 2 are not an increasing range inside 0..8",
               Take(bad, std::vector<int64_t>{3, 1}));
  EXPECT_ERROR(kInvalid, "row 1: offsets 3, 2 are not an increasing range inside 0..8",
               Filter(bad, std::vector<uint8_t>{1, 1, 0, 1}));
  auto outside = std::make_shared<ArrayData>(*Utf8({"ab", "c"}));
  outside->buffers[1] = test::BufferOf(std::vector<int32_t>{0, 1000, 1000});
  EXPECT_ERROR(kInvalid, "row 0: offsets 0, 1000 are not an increasing range inside 0..3",
               Take(outside, std::vector<int64_t>{0, 0}));
  // Sound strings with nulls and a slice gather as the pieces join them.
  std::vector<ArrayDataPtr> chunks = {*Slice(Utf8({"x", "yy", std::nullopt, ""}), 1, 3),
                                      Utf8({"last one"})};
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr taken, Take(chunks, std::vector<int64_t>{3, 1, 0, 2}));
  EXPECT_TRUE(ArrayEquals(*taken, *Utf8({"last one", std::nullopt, "yy", ""})));
  ASSERT_OK(Validate(*taken, ValidationLevel::kFull));
}

TEST(Filter, KeepsMarkedRowsAndChecksTheMaskLength) {
  ArrayDataPtr source = IntLists({{{1}}, std::nullopt, {{2, 3}}, {{4}}});
  std::vector<uint8_t> mask = {1, 1, 0, 1};
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr kept, Filter(source, mask));
  ExpectRows(kept, source, {0, 1, 3});
  EXPECT_ERROR(kInvalid, "filter mask has 3 entries for 4 rows",
               Filter(source, std::vector<uint8_t>{1, 0, 1}));
}

// Every path the selection takes (a gather, runs of a sparse or clustered
// mask, the branchless copy of a dense one, pieces of nested rows) over
// chunks that are sliced, empty or null-bearing, equal to a row-by-row
// reference; then an index out of range named by its first position.
TEST(Take, EveryPathMatchesRowByRowAcrossSlicedEmptyAndNullChunks) {
  std::vector<int64_t> numbers(3000);
  std::vector<bool> valid(3000);
  std::vector<std::optional<std::vector<int32_t>>> lists;
  for (int64_t i = 0; i < 3000; ++i) {
    numbers[static_cast<size_t>(i)] = i * 7;
    valid[static_cast<size_t>(i)] = i % 5 != 0;
    if (i % 7 == 0) {
      lists.emplace_back(std::nullopt);
    } else {
      lists.emplace_back(std::vector<int32_t>(static_cast<size_t>(i % 4), static_cast<int32_t>(i)));
    }
  }
  const ArrayDataPtr plain = Primitive<int64_t>(int64(), numbers);
  const ArrayDataPtr nullable = Primitive<int64_t>(int64(), numbers, valid);
  const ArrayDataPtr ragged = IntLists(lists);
  for (const ArrayDataPtr& whole : {plain, nullable, ragged}) {
    // Rows 1..2999 in chunks of 0, 1, 999, 0, 1000 and 999 rows.
    std::vector<ArrayDataPtr> chunks;
    for (auto [begin, length] : std::vector<std::pair<int64_t, int64_t>>{
             {1, 0}, {1, 1}, {2, 999}, {1001, 0}, {1001, 1000}, {2001, 999}}) {
      chunks.push_back(*Slice(whole, begin, length));
    }
    ASSERT_OK_AND_ASSIGN(ArrayDataPtr joined, Concatenate(chunks));
    std::vector<int64_t> random, sorted;
    for (int64_t i = 0; i < 4000; ++i) random.push_back((i * 7919) % 2999);
    sorted = random;
    std::sort(sorted.begin(), sorted.end());
    for (const auto& rows : {random, sorted}) {
      ASSERT_OK_AND_ASSIGN(ArrayDataPtr taken, Take(chunks, rows));
      ExpectRows(taken, joined, rows);
    }
    for (int every : {1, 2, 3, 50, 997}) {  // dense to sparse; 1: every row
      std::vector<uint8_t> mask(2999);
      for (size_t i = 0; i < mask.size(); ++i) mask[i] = i % static_cast<size_t>(every) == 0;
      for (size_t i = 1500; i < 1700; ++i) mask[i] = 3;  // a long run across no boundary
      for (size_t i = 995; i < 1010; ++i) mask[i] = 1;   // one across a chunk boundary
      ASSERT_OK_AND_ASSIGN(ArrayDataPtr kept, Filter(chunks, mask));
      ExpectRows(kept, joined, MarkedRows(mask));
    }
    std::vector<int64_t> bad(5000, 1);
    bad[4321] = 2999;
    bad[4999] = -5;
    EXPECT_ERROR(kIndexError, "index 2999 at position 4321 is out of range for 2999 rows",
                 Take(chunks, bad));
  }
}

TEST(Concatenate, ViewsShiftTheirBufferIndices) {
  ArrayDataPtr a = Views({"short", "a value longer than twelve", std::nullopt});
  ArrayDataPtr b = Views({"another long value here", "x", "and one more long value"});
  std::vector<ArrayDataPtr> both = {a, b};
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr joined, Concatenate(both));
  ASSERT_OK(Validate(*joined, ValidationLevel::kFull));
  EXPECT_TRUE(ArrayEquals(*Slice(joined, 0, 3).ValueOr(nullptr), *a));
  EXPECT_TRUE(ArrayEquals(*Slice(joined, 3, 3).ValueOr(nullptr), *b));
}

TEST(Concatenate, HostileViewIsAnError) {
  ArrayDataPtr bad = test::WithView(Views({"a value longer than twelve", "b"}), 0,
                                    test::ViewBytes("a value longer than twelve", 5, 0));
  std::vector<ArrayDataPtr> both = {bad, Views({"c"})};
  EXPECT_ERROR(kInvalid, "row 0: view of 26 bytes at buffer 5", Concatenate(both));
}

TEST(Concatenate, DictionariesJoinedWhenTheyDiffer) {
  ArrayDataPtr a = DictionaryOf({0, 1, std::nullopt}, Utf8({"x", "y"}));
  ArrayDataPtr same = DictionaryOf({1}, Utf8({"x", "y"}));
  ArrayDataPtr other = DictionaryOf({0, 1}, Utf8({"y", "z"}));
  std::vector<ArrayDataPtr> equal_dictionaries = {a, same};
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr kept, Concatenate(equal_dictionaries));
  EXPECT_EQ(kept->dictionary.get(), a->dictionary.get());
  std::vector<ArrayDataPtr> three = {a, same, other};
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr joined, Concatenate(three));
  ASSERT_OK(Validate(*joined, ValidationLevel::kFull));
  // "y" is in both dictionaries and is kept once, as pyarrow unifies them.
  EXPECT_TRUE(ArrayEquals(*joined->dictionary, *Utf8({"x", "y", "z"})));
  ExpectRows(*Slice(joined, 4, 2), other, {0, 1});
  ExpectRows(*Slice(joined, 0, 3), a, {0, 1, 2});
}

TEST(Take, DictionariesOfNumbersKeepEachValueOnce) {
  ArrayDataPtr a = DictionaryOf({0, 1, 1}, Primitive<int64_t>(int64(), {5, 7}));
  ArrayDataPtr b = DictionaryOf({2, 0, std::nullopt}, Primitive<int64_t>(int64(), {7, 9, 5}));
  std::vector<ArrayDataPtr> chunks = {a, b};
  std::vector<int64_t> rows = {3, 0, 4, 1, 5};
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr taken, Take(chunks, rows));
  // b's dictionary comes first (row 3 is taken first), a's adds nothing new.
  EXPECT_TRUE(ArrayEquals(*taken->dictionary, *Primitive<int64_t>(int64(), {7, 9, 5})));
  ExpectRows(*Slice(taken, 0, 2), a, {0, 0});     // 5 from b, then 5 from a
  ExpectRows(*Slice(taken, 2, 3), b, {1, 1, 2});  // 7, 7, null
  EXPECT_EQ(taken->ComputeNullCount(), 1);
}

// Lists of structs of dictionaries whose rows taken are all empty: the
// dictionary column below the struct gets no piece at all to join, and
// still needs a dictionary (found by array_types_validation_fuzz, which
// saw the join read the first of no pieces).
TEST(Take, EmptyListsOfDictionariesKeepADictionary) {
  ArrayDataPtr words = DictionaryOf({0, 1}, Utf8({"x", "y"}));
  auto rows = std::make_shared<ArrayData>();
  rows->type = struct_({Field{"word", words->type}});
  rows->length = 2;
  rows->buffers = {nullptr};
  rows->children = {words};
  auto lists = std::make_shared<ArrayData>();
  lists->type = list(Field{"item", rows->type});
  lists->length = 3;
  lists->buffers = {nullptr, test::BufferOf(std::vector<int32_t>{0, 0, 2, 2})};
  lists->children = {rows};
  ASSERT_OK(Validate(*lists));
  for (const std::vector<int64_t>& indices : {std::vector<int64_t>{0, 2}, std::vector<int64_t>{}}) {
    ASSERT_OK_AND_ASSIGN(ArrayDataPtr taken, Take(lists, indices));
    ASSERT_OK(Validate(*taken));
    EXPECT_EQ(taken->length, static_cast<int64_t>(indices.size()));
  }
  ArrayDataPtr empty_rows = *Slice(lists, 0, 1);
  const ArrayDataPtr twice[] = {empty_rows, empty_rows};
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr joined, Concatenate(twice));
  ASSERT_OK(Validate(*joined));
  EXPECT_EQ(joined->length, 2);
  const ArrayData& word = *joined->children[0]->children[0];
  EXPECT_EQ(word.length, 0);
  ASSERT_NE(word.dictionary, nullptr);
}

TEST(Concatenate, DictionaryIndicesThatNoLongerFitAreAnError) {
  auto make = [&](const std::string& prefix) {
    std::vector<std::optional<std::string>> values;
    for (int i = 0; i < 100; ++i) values.push_back(prefix + std::to_string(i));
    auto out = std::make_shared<ArrayData>();
    out->type = *dictionary(int8(), utf8());
    out->length = 1;
    out->buffers = {nullptr, test::BufferOf(std::vector<int8_t>{99})};
    out->dictionary = Utf8(values);
    return ArrayDataPtr(out);
  };
  std::vector<ArrayDataPtr> two = {make("a"), make("b")};
  EXPECT_ERROR(kInvalid, "more than int8 indices address", Concatenate(two));
}

TEST(Concatenate, TypesMustMatchAndOffsetsMustBeSound) {
  std::vector<ArrayDataPtr> mixed = {Utf8({"a"}), Primitive<int32_t>(int32(), {1})};
  EXPECT_ERROR(kTypeError, "array 1 is int32, array 0 is utf8", Concatenate(mixed));
  EXPECT_ERROR(kInvalid, "at least one", Concatenate(std::vector<ArrayDataPtr>{}));

  auto bad = std::make_shared<ArrayData>(*Utf8({"ab", "cd"}));
  bad->buffers[1] = test::BufferOf(std::vector<int32_t>{0, 3, 2});  // decreasing
  std::vector<ArrayDataPtr> with_bad = {Utf8({"x"}), bad};
  EXPECT_ERROR(kInvalid, "row 1: offsets 3, 2 are not an increasing range", Concatenate(with_bad));
  auto outside = std::make_shared<ArrayData>(*Utf8({"ab"}));
  outside->buffers[1] = test::BufferOf(std::vector<int32_t>{0, 1000});
  std::vector<ArrayDataPtr> with_outside = {Utf8({"x"}), outside};
  EXPECT_ERROR(kInvalid, "inside 0..2", Concatenate(with_outside));
}

TEST(Concatenate, ThirtyTwoBitOffsetsThatOverflowNameTheLargeType) {
  // list<null> rows of 2^30 entries each: no bytes behind them.
  auto child = std::make_shared<ArrayData>();
  child->type = null();
  child->length = int64_t{1} << 30;
  child->null_count = child->length;
  auto lists = std::make_shared<ArrayData>();
  lists->type = list(Field{"item", null()});
  lists->length = 1;
  lists->buffers = {nullptr, test::BufferOf(std::vector<int32_t>{0, 1 << 30})};
  lists->children = {child};
  std::vector<ArrayDataPtr> two = {lists, lists};
  EXPECT_ERROR(kInvalid, "use the large_ type", Concatenate(two));
}

TEST(Concatenate, OneArrayComesBackAsItIs) {
  ArrayDataPtr a = Utf8({"a"});
  std::vector<ArrayDataPtr> one = {a};
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr same, Concatenate(one));
  EXPECT_EQ(same.get(), a.get());
}

}  // namespace quiver

namespace quiver {

TEST(MakeEmptyArray, ValidForEveryLayout) {
  std::vector<TypePtr> types = {int32(),
                                boolean(),
                                utf8(),
                                large_list(Field{"item", utf8()}),
                                *fixed_size_list(Field{"item", float32()}, 3),
                                struct_({Field{"a", int8()}, Field{"b", utf8_view()}}),
                                *dictionary(int16(), utf8()),
                                null()};
  for (const TypePtr& type : types) {
    ASSERT_OK_AND_ASSIGN(ArrayDataPtr empty, MakeEmptyArray(type));
    EXPECT_EQ(empty->length, 0) << type->ToString();
    ASSERT_OK(Validate(*empty, ValidationLevel::kFull));
  }
  EXPECT_ERROR(kInvalid, "needs a type", MakeEmptyArray(nullptr));
}

TEST(Concatenate, NewTypesJoinOrSayWhichTypeIsNotImplemented) {
  for (const auto& [name, data] : test::AllNewTypeSamples()) {
    SCOPED_TRACE(name);
    std::vector<ArrayDataPtr> two = {data, data};
    Result<ArrayDataPtr> joined = Concatenate(two);
    const internal::Layout layout = internal::LayoutOf(*data->type);
    const bool joins = layout.children == internal::ChildRole::kNone ||
                       layout.children == internal::ChildRole::kOffsetList;
    if (joins) {  // decimals, intervals, maps
      ASSERT_TRUE(joined.ok()) << joined.status().ToString();
      EXPECT_TRUE(Validate(**joined).ok());
      ASSERT_OK_AND_ASSIGN(ArrayDataPtr second, Slice(*joined, data->length, data->length));
      EXPECT_TRUE(ArrayEquals(*second, *data));
    } else {
      EXPECT_ERROR(kNotImplemented, "joining rows of " + data->type->ToString(), joined);
    }
  }
}

}  // namespace quiver
