// The tolerated storage forms of arrow.variable_shape_tensor (large_list
// data as Polars exports it, shape entries of other integer types) rewritten
// into the canonical storage: zero-copy values, checked offsets and shapes,
// nulls, slices, nested types, record batches, and the errors.
#include "quiver/extension/canonical_storage.h"

#include <sys/mman.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "quiver/c_data.h"
#include "quiver/internal/layout.h"
#include "variable_shape_test_util.h"

namespace quiver {

using internal::CanonicalArray;
using test::Bitmap;
using test::BufferOf;
using test::Iota;
using test::Primitive;

namespace {

// Shape entries of `entry_type`, written from int64 values.
ArrayDataPtr Entries(const TypePtr& entry_type, const std::vector<int64_t>& values,
                     const std::vector<bool>& valid = {}) {
  switch (entry_type->id()) {
    case TypeId::kInt8: return Primitive<int8_t>(entry_type, {values.begin(), values.end()}, valid);
    case TypeId::kUInt32:
      return Primitive<uint32_t>(entry_type, {values.begin(), values.end()}, valid);
    case TypeId::kUInt64:
      return Primitive<uint64_t>(entry_type, {values.begin(), values.end()}, valid);
    case TypeId::kInt32:
      return Primitive<int32_t>(entry_type, {values.begin(), values.end()}, valid);
    default: return Primitive<int64_t>(entry_type, values, valid);
  }
}

struct Storage {
  std::vector<int64_t> offsets;
  ArrayDataPtr values;
  std::vector<int64_t> shapes;
  int ndim = 2;
  std::vector<bool> valid = {};        // struct validity
  std::vector<bool> data_valid = {};   // the data list's validity
  std::vector<bool> entry_valid = {};  // the shape entries' validity
  TypePtr entry_type = int64();        // Polars' Array(Int64)
  std::string item_name = "item";      // the data list's value field
  std::string metadata = R"({"dim_names":["H","W"]})";
};

// What Polars exports: large_list data, int64 shapes (by default).
ArrayDataPtr PolarsStorage(const Storage& s) {
  const auto n = static_cast<int64_t>(s.offsets.size()) - 1;
  TypePtr shape_type = *fixed_size_list(ListItem(s.entry_type), s.ndim);
  TypePtr data_type = large_list(Field{s.item_name, s.values->type, true, {}});
  TypePtr storage = struct_({Field{"data", data_type}, Field{"shape", shape_type}});
  auto list = std::make_shared<ArrayData>();
  list->type = data_type;
  list->length = n;
  list->buffers = {Bitmap(s.data_valid), BufferOf(s.offsets)};
  list->children = {s.values};
  auto shape = std::make_shared<ArrayData>();
  shape->type = shape_type;
  shape->length = n;
  shape->buffers = {nullptr};
  shape->children = {Entries(s.entry_type, s.shapes, s.entry_valid)};
  auto out = std::make_shared<ArrayData>();
  out->type = *extension(VariableShapeTensorType::kExtensionName, s.metadata, storage);
  out->length = n;
  out->buffers = {Bitmap(s.valid)};
  out->children = {list, shape};
  return out;
}

// Rows [2, 3] (0..5), null, [0, 4] and [1, 1] (6).
Storage FourRows() {
  Storage s;
  s.offsets = {0, 6, 6, 6, 7};
  s.values = Primitive<float>(float32(), {0, 1, 2, 3, 4, 5, 6});
  s.shapes = {2, 3, 0, 0, 0, 4, 1, 1};
  s.valid = {true, false, true, true};
  return s;
}

const int32_t* Int32s(const ArrayData& node) {
  return reinterpret_cast<const int32_t*>(node.buffers[1]->data()) + node.offset;
}

// Address space that is never read: mapped without access, so a read of
// it would crash the test. Large enough for 2^31 + 16 float32 values.
struct Reserved {
  static constexpr int64_t kBytes = (int64_t{1} << 33) + 64;
  Reserved() {
    data = mmap(nullptr, kBytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  }
  ~Reserved() {
    if (data != MAP_FAILED) munmap(data, kBytes);
  }
  ArrayDataPtr Values() const {
    auto values = std::make_shared<ArrayData>();
    values->type = float32();
    values->length = kBytes / 4;
    values->null_count = 0;
    values->buffers = {nullptr, Buffer::Wrap(data, kBytes, [] {})};
    return values;
  }
  void* data;
};

}  // namespace

TEST(CanonicalStorage, PolarsLargeListAndInt64ShapesBecomeCanonical) {
  Storage s = FourRows();
  ArrayDataPtr polars = PolarsStorage(s);
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr canonical, CanonicalArray(polars));
  const DataType& storage = *canonical->type->storage_type();
  EXPECT_TRUE(internal::IsCanonicalVariableShapeStorage(storage));
  EXPECT_EQ(storage.ToString(),
            "struct<data: list<item: float32>, shape: fixed_size_list<item: int32>[2]>");
  EXPECT_EQ(canonical->type->extension_metadata(), R"({"dim_names":["H","W"]})");
  // The values are the producer's own memory; offsets and shapes are new.
  const ArrayData& list = *canonical->children[0];
  EXPECT_EQ(list.children[0]->buffers[1], s.values->buffers[1]);
  EXPECT_EQ(std::vector<int32_t>(Int32s(list), Int32s(list) + 5),
            (std::vector<int32_t>{0, 6, 6, 6, 7}));
  const ArrayData& entries = *canonical->children[1]->children[0];
  EXPECT_EQ(entries.type->id(), TypeId::kInt32);
  EXPECT_EQ(std::vector<int32_t>(Int32s(entries), Int32s(entries) + 8),
            (std::vector<int32_t>{2, 3, 0, 0, 0, 4, 1, 1}));
  // Every row reads as it was written, the null row included.
  ASSERT_OK_AND_ASSIGN(auto array, VariableShapeTensorArray::Make(canonical));
  EXPECT_TRUE(array.RowTensor(0)->Equals(Iota({2, 3})));
  EXPECT_FALSE(array.IsValid(1));
  EXPECT_EQ(array.RowTensor(2)->shape(), (std::vector<int64_t>{0, 4}));
  EXPECT_TRUE(array.RowTensor(3)->Equals(Iota({1, 1}, 6)));
  EXPECT_EQ(array.type().dim_names(), (std::vector<std::string>{"H", "W"}));
  // Make() takes the Polars form directly too.
  ASSERT_OK_AND_ASSIGN(auto direct, VariableShapeTensorArray::Make(polars));
  EXPECT_TRUE(direct.data()->type->Equals(*canonical->type));
  EXPECT_TRUE(ArrayEquals(*direct.data(), *canonical));
}

// An array of no rows may have an empty offsets buffer (pyarrow writes one
// so): nothing is read from it. Here the empty buffer sits in front of
// bytes that are not offsets, which were once read as row 0's start.
TEST(CanonicalStorage, NoRowsNeedNoOffsets) {
  Storage s;
  s.offsets = {0};
  s.values = Primitive<float>(float32(), {});
  ArrayDataPtr data = PolarsStorage(s);
  ASSERT_OK_AND_ASSIGN(BufferPtr empty_offsets,
                       Buffer::Slice(BufferOf(std::vector<int64_t>{99}), 0, 0));
  auto list = std::make_shared<ArrayData>(*data->children[0]);
  list->buffers[1] = empty_offsets;
  auto empty = std::make_shared<ArrayData>(*data);
  empty->children[0] = list;
  ASSERT_OK(Validate(*empty));
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr canonical, CanonicalArray(empty));
  EXPECT_EQ(canonical->length, 0);
  ASSERT_OK(Validate(*canonical));
}

TEST(CanonicalStorage, CanonicalInputIsReturnedAsItIs) {
  VariableShapeTensorArray rows = test::ThreeRows();
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr same, CanonicalArray(rows.data()));
  EXPECT_EQ(same, rows.data());
  ASSERT_OK_AND_ASSIGN(TypePtr type, internal::CanonicalType(rows.data()->type));
  EXPECT_EQ(type, rows.data()->type);
  ArrayDataPtr plain = Primitive<int32_t>(int32(), {1, 2});
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr plain_same, CanonicalArray(plain));
  EXPECT_EQ(plain_same, plain);
}

TEST(CanonicalStorage, ProducerFieldNamesAreKept) {
  Storage s = FourRows();
  s.item_name = "element";
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr canonical, CanonicalArray(PolarsStorage(s)));
  EXPECT_EQ(canonical->type->storage_type()->children()[0].type->ToString(),
            "list<element: float32>");
  ASSERT_OK_AND_ASSIGN(TypePtr type, internal::CanonicalType(PolarsStorage(s)->type));
  EXPECT_TRUE(type->Equals(*canonical->type));
}

TEST(CanonicalStorage, EveryIntegerShapeTypeIsNarrowedChecked) {
  for (TypePtr entry : {int8(), int64(), uint32(), uint64()}) {
    Storage s = FourRows();
    s.entry_type = entry;
    ASSERT_OK_AND_ASSIGN(auto array, VariableShapeTensorArray::Make(PolarsStorage(s)));
    EXPECT_TRUE(array.RowTensor(0)->Equals(Iota({2, 3}))) << entry->ToString();
  }
  Storage big = FourRows();
  big.shapes[1] = int64_t{5'000'000'000};
  EXPECT_ERROR(kInvalid, "row 0: shape entry 1 (5000000000) does not fit int32",
               CanonicalArray(PolarsStorage(big)));
  Storage huge = FourRows();
  huge.entry_type = uint64();
  huge.shapes[6] = -1;  // 2^64 - 1 as uint64
  EXPECT_ERROR(kInvalid, "row 3: shape entry 0 (above 2^63 - 1) does not fit int32",
               CanonicalArray(PolarsStorage(huge)));
  // Negative sizes fit int32: the row checks name them as usual.
  Storage negative = FourRows();
  negative.shapes[0] = -2;
  EXPECT_ERROR(kInvalid, "row 0: shape [-2, 3] has a negative size",
               VariableShapeTensorArray::Make(PolarsStorage(negative)));
}

TEST(CanonicalStorage, NullsAreKeptAndNullRowsNotChecked) {
  Storage s = FourRows();
  s.shapes[2] = int64_t{1} << 40;  // under the null row: never read
  s.data_valid = {true, false, true, true};
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr canonical, CanonicalArray(PolarsStorage(s)));
  EXPECT_EQ(canonical->ComputeNullCount(), 1);
  EXPECT_FALSE(canonical->children[0]->IsValid(1));
  ASSERT_OK(VariableShapeTensorArray::Make(canonical).status());
  // A null entry in a valid row stays null, and the row check says so.
  Storage holes = FourRows();
  holes.entry_valid = {true, true, true, true, true, true, true, false};
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr with_hole, CanonicalArray(PolarsStorage(holes)));
  EXPECT_FALSE(with_hole->children[1]->children[0]->IsValid(7));
  EXPECT_ERROR(kInvalid, "row 3: shape entry 1 is null",
               VariableShapeTensorArray::Make(PolarsStorage(holes)));
  // So does a valid row whose data list is null.
  Storage no_data = FourRows();
  no_data.data_valid = {true, true, false, true};
  EXPECT_ERROR(kInvalid, "row 2: the row is valid but its data list is null",
               VariableShapeTensorArray::Make(PolarsStorage(no_data)));
}

TEST(CanonicalStorage, SlicesStartAtZero) {
  Storage s = FourRows();
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr sliced, Slice(PolarsStorage(s), 1, 3));
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr canonical, CanonicalArray(sliced));
  EXPECT_EQ(canonical->offset, 0);
  EXPECT_EQ(canonical->length, 3);
  EXPECT_EQ(canonical->ComputeNullCount(), 1);
  ASSERT_OK_AND_ASSIGN(auto array, VariableShapeTensorArray::Make(canonical));
  EXPECT_FALSE(array.IsValid(0));
  EXPECT_EQ(array.RowTensor(1)->shape(), (std::vector<int64_t>{0, 4}));
  EXPECT_TRUE(array.RowTensor(2)->Equals(Iota({1, 1}, 6)));
  // A row sliced away may hold a shape that does not fit int32.
  Storage big = FourRows();
  big.shapes[0] = int64_t{1} << 40;
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr rest, Slice(PolarsStorage(big), 2, 2));
  ASSERT_OK(VariableShapeTensorArray::Make(rest).status());
}

TEST(CanonicalStorage, OffsetsPastInt32AreAnErrorNamingTheRow) {
  Reserved reserved;
  ASSERT_NE(reserved.data, MAP_FAILED);
  const int64_t past = (int64_t{1} << 31) + 2;
  Storage s;
  s.values = reserved.Values();
  s.ndim = 1;
  s.metadata = "{}";
  s.offsets = {0, 10, past};
  s.shapes = {10, past - 10};
  EXPECT_ERROR(kInvalid,
               "row 1: its data ends 2147483650 elements after row 0's start, outside the int32 "
               "offsets of a variable_shape_tensor's data list (0 to 2^31 - 1); split the rows",
               CanonicalArray(PolarsStorage(s)));
  // Large offsets are fine where the rows span less: they are re-based, and
  // the values child starts where the first row does (nothing is read).
  s.offsets = {0, past, past + 3};
  s.shapes = {past, 3};
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr tail, Slice(PolarsStorage(s), 1, 1));
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr canonical, CanonicalArray(tail));
  const ArrayData& list = *canonical->children[0];
  EXPECT_EQ(std::vector<int32_t>(Int32s(list), Int32s(list) + 2), (std::vector<int32_t>{0, 3}));
  EXPECT_EQ(list.children[0]->offset, past);
  EXPECT_EQ(list.children[0]->buffers[1]->data(), reserved.data);
}

TEST(CanonicalStorage, MismatchedLengthsAndSizesAreRefused) {
  Storage s = FourRows();
  ArrayDataPtr polars = PolarsStorage(s);
  auto short_list = std::make_shared<ArrayData>(*polars);
  auto list = std::make_shared<ArrayData>(*polars->children[0]);
  list->length = 2;
  short_list->children[0] = list;
  EXPECT_ERROR(kInvalid, "child 0 (data) has length 2 < 4", CanonicalArray(short_list));
  auto short_offsets = std::make_shared<ArrayData>(*polars);
  auto cut = std::make_shared<ArrayData>(*polars->children[0]);
  cut->buffers[1] = BufferOf(std::vector<int64_t>{0, 6});
  short_offsets->children[0] = cut;
  EXPECT_ERROR(kInvalid, "offsets buffer has 16 bytes, 40 needed", CanonicalArray(short_offsets));
  // Offsets that start past the values (possible below kDefault validation).
  auto far = std::make_shared<ArrayData>(*polars);
  auto moved = std::make_shared<ArrayData>(*polars->children[0]);
  moved->buffers[1] = BufferOf(std::vector<int64_t>{100, 106, 106, 106, 107});
  far->children[0] = moved;
  EXPECT_ERROR(kInvalid, "row 0: data starts at element 100, outside the 7 values",
               CanonicalArray(far));
  // Decreasing offsets below the first: not representable, so refused.
  auto back = std::make_shared<ArrayData>(*polars);
  auto decreasing = std::make_shared<ArrayData>(*polars->children[0]);
  decreasing->buffers[1] = BufferOf(std::vector<int64_t>{3, 6, 1, 6, 7});
  back->children[0] = decreasing;
  EXPECT_ERROR(kInvalid,
               "row 1: its data ends at element 1, before row 0's data starts (element 3)",
               CanonicalArray(back));
}

TEST(CanonicalStorage, DeviceOffsetsAreNotRead) {
  Storage s = FourRows();
  ArrayDataPtr polars = PolarsStorage(s);
  auto on_device = std::make_shared<ArrayData>(*polars);
  auto list = std::make_shared<ArrayData>(*polars->children[0]);
  const BufferPtr& host = list->buffers[1];
  list->buffers[1] = Buffer::Wrap(
      host->data(), host->size(), [host] {}, Device{2, 0});
  on_device->children[0] = list;
  EXPECT_ERROR(kNotImplemented, "data offsets in device memory", CanonicalArray(on_device));
}

TEST(CanonicalStorage, NestedTypesAndBatches) {
  Storage s = FourRows();
  ArrayDataPtr polars = PolarsStorage(s);
  // A struct holding the column, as a C stream carries a record batch.
  TypePtr outer = struct_({Field{"id", int32()}, Field{"x", polars->type}});
  auto batch_array = std::make_shared<ArrayData>();
  batch_array->type = outer;
  batch_array->length = 4;
  batch_array->buffers = {nullptr};
  batch_array->children = {Primitive<int32_t>(int32(), {1, 2, 3, 4}), polars};
  ASSERT_OK_AND_ASSIGN(TypePtr canonical_type, internal::CanonicalType(outer));
  EXPECT_EQ(canonical_type->children()[1].type->storage_type()->children()[0].type->id(),
            TypeId::kList);
  EXPECT_EQ(canonical_type->children()[0].type, outer->children()[0].type);
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr canonical, CanonicalArray(batch_array));
  EXPECT_TRUE(canonical->type->Equals(*canonical_type));
  EXPECT_EQ(canonical->children[0], batch_array->children[0]);  // untouched column
  // Errors name the field.
  Storage big = FourRows();
  big.shapes[1] = int64_t{1} << 40;
  batch_array->children[1] = PolarsStorage(big);
  EXPECT_ERROR(kInvalid, "field 1 (x): row 0: shape entry 1", CanonicalArray(batch_array));
  // Record batches: the schema and every column; errors name the column.
  auto schema = std::make_shared<Schema>();
  schema->fields = {Field{"id", int32()}, Field{"x", polars->type}};
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch,
                       RecordBatch::Make(schema, 4, {batch_array->children[0], polars}));
  ASSERT_OK_AND_ASSIGN(SchemaPtr canonical_schema, internal::CanonicalSchema(schema));
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr rewritten, internal::CanonicalBatch(batch, canonical_schema));
  EXPECT_TRUE(rewritten->schema()->Equals(*canonical_schema));
  EXPECT_TRUE(rewritten->column(1)->type->Equals(*canonical_schema->fields[1].type));
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr bad,
                       RecordBatch::Make(schema, 4, {batch_array->children[0], PolarsStorage(big)},
                                         ValidationLevel::kDefault));
  EXPECT_ERROR(kInvalid, "column 1 (x): row 0: shape entry 1",
               internal::CanonicalBatch(bad, canonical_schema));
}

TEST(CanonicalStorage, ImportArrayReturnsCanonicalStorage) {
  Storage s = FourRows();
  ArrayDataPtr polars = PolarsStorage(s);
  ArrowSchema schema{};
  ArrowArray array{};
  ASSERT_OK(ExportType(*polars->type, &schema));
  ASSERT_OK(ExportArray(polars, &array));
  ASSERT_OK_AND_ASSIGN(Field field, ImportField(&schema));
  EXPECT_EQ(field.type->storage_type()->children()[0].type->id(), TypeId::kLargeList);
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr imported, ImportArray(&array, field.type));
  ASSERT_OK_AND_ASSIGN(TypePtr expected, quiver::CanonicalType(field.type));
  EXPECT_TRUE(imported->type->Equals(*expected));
  EXPECT_EQ(imported->children[0]->children[0]->buffers[1]->data(),
            s.values->buffers[1]->data());  // zero-copy values
  ASSERT_OK_AND_ASSIGN(auto tensor_array, VariableShapeTensorArray::Make(imported));
  EXPECT_TRUE(tensor_array.RowTensor(0)->Equals(Iota({2, 3})));
}

}  // namespace quiver
