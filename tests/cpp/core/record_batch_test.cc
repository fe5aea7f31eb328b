// RecordBatch (equal-length columns under a schema: Make, FromStructArray,
// ToStructArray, Slice, FieldIndex, Equals) and ArrayEquals, the value
// equality of arrays.
#include "quiver/record_batch.h"

#include <string>
#include <vector>

#include "sample_arrays.h"
#include "test_util.h"

namespace quiver {

using test::Primitive;
using test::Utf8;

namespace {

SchemaPtr TwoFields(KeyValueMetadata metadata = {}) {
  auto schema = std::make_shared<Schema>();
  schema->fields = {Field{"id", int32()}, Field{"name", utf8()}};
  schema->metadata = std::move(metadata);
  return schema;
}

RecordBatchPtr ThreeRows() {
  auto batch =
      RecordBatch::Make(TwoFields({{"k", "v"}}), 3,
                        {Primitive<int32_t>(int32(), {1, 2, 3}), Utf8({"a", std::nullopt, "ccc"})});
  EXPECT_TRUE(batch.ok()) << batch.status().ToString();
  return *batch;
}

}  // namespace

TEST(RecordBatch, MakeKeepsColumnsAndSlicesLongerOnes) {
  RecordBatchPtr batch = ThreeRows();
  EXPECT_EQ(batch->num_rows(), 3);
  EXPECT_EQ(batch->num_columns(), 2);
  EXPECT_EQ(batch->FieldIndex("name"), 1);
  EXPECT_EQ(batch->FieldIndex("id"), 0);
  EXPECT_EQ(batch->FieldIndex("missing"), -1);
  // A column longer than num_rows is a view of its first rows.
  ASSERT_OK_AND_ASSIGN(
      auto two, RecordBatch::Make(TwoFields(), 2,
                                  {Primitive<int32_t>(int32(), {7, 8, 9}), Utf8({"x", "y"})}));
  EXPECT_EQ(two->column(0)->length, 2);
  EXPECT_EQ(two->column(0)->offset, 0);
  EXPECT_TRUE(ArrayEquals(*two->column(0), *Primitive<int32_t>(int32(), {7, 8})));
}

TEST(RecordBatch, MakeErrorsNameTheColumn) {
  EXPECT_ERROR(kInvalid, "record batch has no schema", RecordBatch::Make(nullptr, 0, {}));
  EXPECT_EQ(test::StatusOf(RecordBatch::Make(TwoFields(), -1, {})).message(),
            "record batch has -1 rows");
  EXPECT_EQ(test::StatusOf(RecordBatch::Make(TwoFields(), 1, {Primitive<int32_t>(int32(), {1})}))
                .message(),
            "record batch has 1 columns for 2 fields");
  auto wrong_type =
      RecordBatch::Make(TwoFields(), 1, {Primitive<int64_t>(int64(), {1}), Utf8({"a"})});
  EXPECT_EQ(test::StatusOf(wrong_type).code(), StatusCode::kTypeError);
  EXPECT_EQ(test::StatusOf(wrong_type).message(),
            "column 0 (id) does not have the field's type int32");
  auto missing = RecordBatch::Make(TwoFields(), 1, {Primitive<int32_t>(int32(), {1}), nullptr});
  EXPECT_EQ(test::StatusOf(missing).message(),
            "column 1 (name) does not have the field's type utf8");
  EXPECT_EQ(test::StatusOf(RecordBatch::Make(TwoFields(), 3,
                                             {Primitive<int32_t>(int32(), {1, 2, 3}), Utf8({"a"})}))
                .message(),
            "column 1 (name) has 1 rows, 3 needed");
  // Validation errors carry the column.
  auto bad = std::make_shared<ArrayData>(*Primitive<int32_t>(int32(), {1, 2}));
  bad->buffers[1] = test::BufferOf(std::vector<int32_t>{1});
  EXPECT_ERROR(kInvalid,
               "column 0 (id): ", RecordBatch::Make(TwoFields(), 2, {bad, Utf8({"a", "b"})}));
}

TEST(RecordBatch, StructArrayRoundTripSharesTheColumns) {
  RecordBatchPtr batch = ThreeRows();
  ArrayDataPtr as_struct = batch->ToStructArray();
  EXPECT_EQ(as_struct->type->ToString(), struct_(batch->schema()->fields)->ToString());
  EXPECT_EQ(as_struct->length, 3);
  EXPECT_EQ(as_struct->null_count, 0);
  EXPECT_EQ(as_struct->children[0], batch->column(0));  // the same array, not a copy
  Field field = batch->StructField();
  EXPECT_EQ(field.metadata, (KeyValueMetadata{{"k", "v"}}));
  EXPECT_FALSE(field.nullable);
  ASSERT_OK_AND_ASSIGN(auto back, RecordBatch::FromStructArray(field, as_struct));
  EXPECT_TRUE(back->Equals(*batch));
  EXPECT_EQ(back->schema()->metadata, (KeyValueMetadata{{"k", "v"}}));
  // A sliced struct gives sliced columns.
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr tail, Slice(as_struct, 1, 2));
  ASSERT_OK_AND_ASSIGN(auto sliced, RecordBatch::FromStructArray(field, tail));
  EXPECT_EQ(sliced->num_rows(), 2);
  EXPECT_TRUE(ArrayEquals(*sliced->column(0), *Primitive<int32_t>(int32(), {2, 3})));
}

TEST(RecordBatch, FromStructArrayRefusesOtherTypesAndNullRows) {
  Field field{"", int32()};
  auto not_struct = RecordBatch::FromStructArray(field, Primitive<int32_t>(int32(), {1}));
  EXPECT_EQ(test::StatusOf(not_struct).code(), StatusCode::kTypeError);
  EXPECT_EQ(test::StatusOf(not_struct).message(),
            "a record batch comes from a struct array, got int32");
  EXPECT_EQ(test::StatusOf(RecordBatch::FromStructArray(field, nullptr)).message(),
            "a record batch comes from a struct array, got none");
  auto with_nulls = std::make_shared<ArrayData>(*ThreeRows()->ToStructArray());
  with_nulls->buffers[0] = test::Bitmap({true, false, true});
  with_nulls->null_count = kUnknownNullCount;
  EXPECT_EQ(test::StatusOf(RecordBatch::FromStructArray(field, with_nulls)).message(),
            "the struct array has null rows; record batches cannot hold them");
}

TEST(RecordBatch, SliceSharesBuffersAndChecksTheRange) {
  RecordBatchPtr batch = ThreeRows();
  ASSERT_OK_AND_ASSIGN(auto tail, batch->Slice(1, 2));
  EXPECT_EQ(tail->num_rows(), 2);
  EXPECT_EQ(tail->column(0)->offset, 1);
  EXPECT_EQ(tail->column(0)->buffers[1], batch->column(0)->buffers[1]);
  EXPECT_TRUE(ArrayEquals(*tail->column(1), *Utf8({std::nullopt, "ccc"})));
  ASSERT_OK_AND_ASSIGN(auto empty, batch->Slice(3, 0));
  EXPECT_EQ(empty->num_rows(), 0);
  auto out = batch->Slice(2, 2);
  EXPECT_EQ(test::StatusOf(out).code(), StatusCode::kIndexError);
  EXPECT_EQ(test::StatusOf(out).message(), "slice [2, 2 + 2) is outside a batch of 3 rows");
  EXPECT_ERROR(kIndexError, "slice [-1, -1 + 1)", batch->Slice(-1, 1));
}

TEST(RecordBatch, EqualsComparesSchemaAndValues) {
  RecordBatchPtr batch = ThreeRows();
  EXPECT_TRUE(batch->Equals(*ThreeRows()));
  ASSERT_OK_AND_ASSIGN(auto other_values, RecordBatch::Make(TwoFields({{"k", "v"}}), 3,
                                                            {Primitive<int32_t>(int32(), {1, 2, 4}),
                                                             Utf8({"a", std::nullopt, "ccc"})}));
  EXPECT_FALSE(batch->Equals(*other_values));
  ASSERT_OK_AND_ASSIGN(auto other_metadata,
                       RecordBatch::Make(TwoFields(), 3,
                                         {Primitive<int32_t>(int32(), {1, 2, 3}),
                                          Utf8({"a", std::nullopt, "ccc"})}));
  EXPECT_FALSE(batch->Equals(*other_metadata));
  ASSERT_OK_AND_ASSIGN(auto shorter, batch->Slice(0, 2));
  EXPECT_FALSE(batch->Equals(*shorter));
}

TEST(ArrayEquals, ValuesNotOffsetsOrPlacement) {
  // The same values at different offsets, and nulls over different bytes.
  ArrayDataPtr a = Primitive<int32_t>(int32(), {9, 1, 2, 3}, {true, true, false, true});
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr tail, Slice(a, 1, 3));
  ArrayDataPtr b = Primitive<int32_t>(int32(), {1, 77, 3}, {true, false, true});
  EXPECT_TRUE(ArrayEquals(*tail, *b));
  EXPECT_FALSE(ArrayEquals(*tail, *Primitive<int32_t>(int32(), {1, 77, 3})));
  EXPECT_FALSE(ArrayEquals(*b, *Primitive<int64_t>(int64(), {1, 77, 3}, {true, false, true})));
  EXPECT_FALSE(ArrayEquals(*b, *Primitive<int32_t>(int32(), {1, 77}, {true, false})));
  // Strings compare the ranges the offsets delimit.
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr words, Slice(Utf8({"zz", "ab", "c"}), 1, 2));
  EXPECT_TRUE(ArrayEquals(*words, *Utf8({"ab", "c"})));
  EXPECT_FALSE(ArrayEquals(*words, *Utf8({"a", "bc"})));
}

using test::DictionaryOf;
using test::Views;

// --- validation: views ------------------------------------------------------

TEST(CoreTypes, ViewEqualityComparesValuesNotPlacement) {
  ArrayDataPtr one =
      Views({"a", "a string longer than twelve", "another long value here", std::nullopt},
            utf8_view(), 1);
  ArrayDataPtr two =
      Views({"a", "a string longer than twelve", "another long value here", std::nullopt},
            utf8_view(), 5);
  ASSERT_NE(one->buffers.size(), two->buffers.size());
  EXPECT_TRUE(ArrayEquals(*one, *two));
  EXPECT_FALSE(ArrayEquals(
      *one, *Views({"a", "a string longer than twelve", "another long value HERE", std::nullopt})));
  EXPECT_FALSE(ArrayEquals(
      *one, *Views({"b", "a string longer than twelve", "another long value here", std::nullopt})));
}

// --- validation: dictionaries -----------------------------------------------

TEST(CoreTypes, DictionaryEqualityComparesDecodedValues) {
  ArrayDataPtr a = DictionaryOf({0, 1, std::nullopt, 0}, Utf8({"a", "b"}));
  ArrayDataPtr b = DictionaryOf({1, 0, 1, 1}, Utf8({"b", "a"}));
  auto b_with_null = std::make_shared<ArrayData>(*b);
  b_with_null->buffers[0] = test::Bitmap({true, true, false, true});
  EXPECT_TRUE(ArrayEquals(*a, *b_with_null));
  EXPECT_FALSE(ArrayEquals(*a, *b));  // slot 2 is null in one only
  EXPECT_FALSE(ArrayEquals(*a, *DictionaryOf({0, 0, std::nullopt, 0}, Utf8({"a", "b"}))));
}

TEST(ArrayEquals, NewTypesCompareByLogicalValues) {
  for (const auto& [name, data] : test::AllNewTypeSamples()) {
    SCOPED_TRACE(name);
    EXPECT_TRUE(ArrayEquals(*data, *data));
    ASSERT_OK_AND_ASSIGN(ArrayDataPtr head, Slice(data, 0, 2));
    ASSERT_OK_AND_ASSIGN(ArrayDataPtr tail, Slice(data, 1, 2));
    EXPECT_FALSE(ArrayEquals(*head, *tail));
  }
  // Equal values under different physical layouts.
  ArrayDataPtr runs = test::RunEndSample();  // [10, 10, null, 30, 30, 30]
  auto more_runs = std::make_shared<ArrayData>(*runs);
  more_runs->children = {
      Primitive<int32_t>(int32(), {1, 2, 3, 4, 6}),
      Primitive<int64_t>(int64(), {10, 10, 0, 30, 30}, {true, true, false, true, true})};
  EXPECT_TRUE(ArrayEquals(*runs, *more_runs));
  ArrayDataPtr dense = test::DenseUnionSample();
  auto other = std::make_shared<ArrayData>(*dense);
  other->buffers[1] = test::BufferOf<int32_t>({0, 1, 1, 2, 0});  // swaps "x" and "y"
  EXPECT_FALSE(ArrayEquals(*dense, *other));
  ArrayDataPtr views = test::ListViewSample();
  auto moved = std::make_shared<ArrayData>(*views);
  moved->children = {Primitive<int16_t>(int16(), {9, 4, 5, 1, 2, 3, 4})};
  moved->buffers[1] = test::BufferOf<int32_t>({1, 0, 3, 4});
  EXPECT_TRUE(ArrayEquals(*views, *moved));
}

}  // namespace quiver
