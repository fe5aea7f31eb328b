// Exporting arrays, types and fields through the C Data Interface, checked
// by importing them back: values, nulls, offsets, shared memory, extension
// metadata, views and dictionaries, and release of every reference.
#include "quiver/c_data.h"

#include <limits>
#include <string>
#include <vector>
#include "c_data_test_util.h"
#include "quiver/fixed_shape_tensor.h"
#include "quiver/record_batch.h"
#include "sample_arrays.h"

namespace quiver {

using test::CountArrayRelease;
using test::Foreign;
using test::g_releases;
using test::Timestamp;

using test::Primitive;
using test::Utf8;

namespace {

// Exports then imports `data` under `field`, as a consumer would.
ArrayDataPtr RoundTrip(const ArrayDataPtr& data, Field* field_out = nullptr) {
  ArrowSchema schema;
  ArrowArray array;
  EXPECT_TRUE(ExportField(Field{"col", data->type, true, {{"k", "v"}}}, &schema).ok());
  EXPECT_TRUE(ExportArray(data, &array).ok());
  Result<Field> field = ImportField(&schema);
  EXPECT_TRUE(field.ok()) << field.status().ToString();
  EXPECT_EQ(schema.release, nullptr);  // moved out by the import
  if (field_out) *field_out = *field;
  Result<ArrayDataPtr> imported = ImportArray(&array, field->type);
  EXPECT_TRUE(imported.ok()) << imported.status().ToString();
  EXPECT_EQ(array.release, nullptr);
  return *imported;
}

ArrayDataPtr ListOf(TypePtr type, std::vector<int32_t> offsets, ArrayDataPtr child,
                    std::vector<bool> valid = {}) {
  auto data = std::make_shared<ArrayData>();
  data->type = std::move(type);
  data->length = static_cast<int64_t>(offsets.size()) - 1;
  data->buffers = {test::Bitmap(valid), test::BufferOf(offsets)};
  data->children = {std::move(child)};
  return data;
}

}  // namespace

TEST(CData, PrimitiveRoundTripKeepsValuesNullsAndSharesMemory) {
  ArrayDataPtr a = Primitive<double>(float64(), {1.5, 2.5, 3.5}, {true, false, true});
  Field field;
  ArrayDataPtr b = RoundTrip(a, &field);
  EXPECT_EQ(field.name, "col");
  EXPECT_EQ(field.metadata, (KeyValueMetadata{{"k", "v"}}));
  EXPECT_TRUE(b->type->Equals(*float64()));
  EXPECT_EQ(b->length, 3);
  EXPECT_EQ(b->ComputeNullCount(), 1);
  EXPECT_FALSE(b->IsValid(1));
  EXPECT_EQ(b->buffers[1]->data(), a->buffers[1]->data());
}

TEST(CData, EveryTypeRoundTrips) {
  std::vector<ArrayDataPtr> arrays;
  arrays.push_back(Primitive<int8_t>(int8(), {-1, 2}));
  arrays.push_back(Primitive<uint64_t>(uint64(), {1, 1ULL << 63}));
  arrays.push_back(Primitive<uint16_t>(float16(), {0x3C00}));
  arrays.push_back(Primitive<uint8_t>(boolean(), {0b101}));
  arrays.back() = [&] {
    auto d = std::make_shared<ArrayData>(*arrays.back());
    d->length = 3;
    return d;
  }();
  arrays.push_back(Utf8({"héllo", std::nullopt, ""}));
  auto large = std::make_shared<ArrayData>();
  large->type = large_binary();
  large->length = 2;
  large->buffers = {nullptr, test::BufferOf(std::vector<int64_t>{0, 1, 3}),
                    test::BufferFrom("abc", 3)};
  arrays.push_back(large);
  auto fsb = std::make_shared<ArrayData>();
  fsb->type = *fixed_size_binary(2);
  fsb->length = 2;
  fsb->buffers = {nullptr, test::BufferFrom("abcd", 4)};
  arrays.push_back(fsb);
  arrays.push_back(ListOf(list(ListItem(int32())), {0, 2, 2, 3},
                          Primitive<int32_t>(int32(), {1, 2, 3}), {true, false, true}));
  auto st = std::make_shared<ArrayData>();
  st->type = struct_({Field{"a", int32()}, Field{"b", utf8(), false}});
  st->length = 2;
  st->buffers = {nullptr};
  st->children = {Primitive<int32_t>(int32(), {7, 8}), Utf8({"x", "y"})};
  arrays.push_back(st);
  for (const auto& a : arrays) {
    SCOPED_TRACE(a->type->ToString());
    ArrayDataPtr b = RoundTrip(a);
    EXPECT_TRUE(b->type->Equals(*a->type)) << b->type->ToString();
    EXPECT_EQ(b->length, a->length);
    EXPECT_EQ(b->ComputeNullCount(), a->ComputeNullCount());
    ASSERT_OK(Validate(*b));
  }
}

TEST(CData, SlicedArrayKeepsOffset) {
  ArrayDataPtr a = Utf8({"a", "bb", "ccc", "dddd"});
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr s, Slice(a, 1, 2));
  ArrayDataPtr b = RoundTrip(s);
  EXPECT_EQ(b->offset, 1);
  EXPECT_EQ(b->length, 2);
  ASSERT_OK(Validate(*b));
}

TEST(CData, ExtensionTypeTravelsAsMetadata) {
  ASSERT_OK_AND_ASSIGN(auto type, FixedShapeTensorType::Make(float32(), {2}, {"x"}));
  auto data = std::make_shared<ArrayData>();
  data->type = type.data_type();
  data->length = 2;
  data->buffers = {test::Bitmap({true, false})};
  data->children = {Primitive<float>(float32(), {1, 2, 3, 4})};
  ArrowSchema schema;
  ASSERT_OK(ExportType(*type.data_type(), &schema));
  EXPECT_STREQ(schema.format, "+w:2");
  ASSERT_NE(schema.metadata, nullptr);
  ASSERT_OK_AND_ASSIGN(Field exported, ImportField(&schema));
  EXPECT_EQ(exported.type->id(), TypeId::kExtension);
  KeyValueMetadata md = {{exported.type->extension_name(), exported.type->extension_metadata()}};
  EXPECT_EQ(md[0].first, "arrow.fixed_shape_tensor");
  EXPECT_EQ(md[0].second, R"({"dim_names":["x"],"shape":[2]})");
  Field field;
  ArrayDataPtr back = RoundTrip(data, &field);
  EXPECT_EQ(field.metadata, (KeyValueMetadata{{"k", "v"}}));  // extension keys lifted out
  ASSERT_OK_AND_ASSIGN(auto array, FixedShapeTensorArray::Make(back));
  EXPECT_TRUE(array.type().Equals(type));
  EXPECT_FALSE(array.IsValid(1));
}

TEST(CData, ExportedStructsReleaseTheirReferences) {
  int released = 0;
  uint8_t bytes[8] = {};
  auto data = std::make_shared<ArrayData>();
  data->type = int32();
  data->length = 2;
  data->buffers = {nullptr, Buffer::Wrap(bytes, 8, [&released] { ++released; })};
  ArrowArray array;
  ASSERT_OK(ExportArray(data, &array));
  data.reset();
  EXPECT_EQ(released, 0);  // the export holds the buffer
  array.release(&array);
  EXPECT_EQ(array.release, nullptr);
  EXPECT_EQ(released, 1);
}

using test::DictionaryOf;
using test::Views;

namespace {

// Exports `data` under a field without metadata, imports both back
// (validated at kFull).
ArrayDataPtr ExportImport(const ArrayDataPtr& data, Field* field_out = nullptr) {
  ArrowSchema schema;
  ArrowArray array;
  EXPECT_TRUE(ExportField(Field{"col", data->type, true, {}}, &schema).ok());
  EXPECT_TRUE(ExportArray(data, &array).ok());
  Result<Field> field = ImportField(&schema);
  EXPECT_TRUE(field.ok()) << field.status().ToString();
  if (!field.ok()) return nullptr;
  if (field_out) *field_out = *field;
  Result<ArrayDataPtr> imported = ImportArray(&array, field->type);
  EXPECT_TRUE(imported.ok()) << imported.status().ToString();
  EXPECT_EQ(array.release, nullptr);
  return imported.ok() ? *imported : nullptr;
}

// A decimal array from little-endian int64 words (2 or 4 per value).
ArrayDataPtr Decimals(TypePtr type, const std::vector<int64_t>& words,
                      const std::vector<bool>& valid = {}) {
  const int64_t per_value = type->byte_width() / 8;
  auto data = std::make_shared<ArrayData>(*Primitive<int64_t>(std::move(type), words, valid));
  data->length = static_cast<int64_t>(words.size()) / per_value;
  return data;
}

}  // namespace

TEST(CDataCoreTypes, FixedWidthAndNullRoundTrips) {
  std::vector<ArrayDataPtr> arrays = {
      Primitive<int32_t>(date32(), {0, 19000, -1}, {true, false, true}),
      Primitive<int64_t>(date64(), {86400000}),
      Primitive<int32_t>(*time32(TimeUnit::kMilli), {1000, 2000}),
      Primitive<int64_t>(*time64(TimeUnit::kNano), {1, 2, 3}, {false, true, true}),
      Primitive<int64_t>(Timestamp(TimeUnit::kMicro, "Europe/Paris"), {1700000000000000, 0},
                         {true, false}),
      Primitive<int64_t>(*duration(TimeUnit::kSecond), {-5, 5}),
      Decimals(*decimal128(10, 2), {12345, 0, -1, -1}, {true, false}),
      Decimals(*decimal128(10, 2), {12345, 0, -1, -1, 7, 0}),
      Decimals(*decimal256(40, 2), {1, 0, 0, 0, 2, 0, 0, 0}),
  };
  auto nulls = std::make_shared<ArrayData>();
  nulls->type = null();
  nulls->length = 4;
  nulls->null_count = 4;
  arrays.push_back(nulls);
  for (const ArrayDataPtr& a : arrays) {
    SCOPED_TRACE(a->type->ToString());
    Field field;
    ArrayDataPtr b = ExportImport(a, &field);
    ASSERT_NE(b, nullptr);
    EXPECT_TRUE(field.type->Equals(*a->type));
    EXPECT_TRUE(ArrayEquals(*a, *b));
    EXPECT_EQ(b->ComputeNullCount(), a->ComputeNullCount());
    if (a->type->id() != TypeId::kNull) {
      EXPECT_EQ(b->buffers[1]->data(), a->buffers[1]->data());
    }
    if (a->length > 1) {
      ASSERT_OK_AND_ASSIGN(ArrayDataPtr sliced, Slice(a, 1, a->length - 1));
      ArrayDataPtr c = ExportImport(sliced);
      ASSERT_NE(c, nullptr);
      EXPECT_EQ(c->offset, 1);
      EXPECT_TRUE(ArrayEquals(*sliced, *c));
    }
  }
}

TEST(CDataCoreTypes, NullArraysHaveNoBuffers) {
  auto nulls = std::make_shared<ArrayData>();
  nulls->type = null();
  nulls->length = 3;
  ArrowArray array;
  ASSERT_OK(ExportArray(nulls, &array));
  EXPECT_EQ(array.n_buffers, 0);
  EXPECT_EQ(array.null_count, 3);
  array.release(&array);
  // A producer that writes null_count 0 (arrow-rs does) still means all null.
  g_releases = 0;
  std::vector<const void*> none;
  ArrowArray foreign = Foreign(5, none);
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr imported, ImportArray(&foreign, null()));
  EXPECT_EQ(imported->ComputeNullCount(), 5);
  EXPECT_FALSE(imported->IsValid(4));
  imported.reset();
  EXPECT_EQ(g_releases, 1);
  std::vector<const void*> one = {nullptr};
  ArrowArray extra = Foreign(5, one);
  EXPECT_ERROR(kInvalid, "ArrowArray of type null has 1 buffers, expected 0",
               ImportArray(&extra, null()));
  EXPECT_EQ(g_releases, 2);
}

TEST(CDataCoreTypes, ViewsExportTheirVariadicSizes) {
  ArrayDataPtr views = Views(
      {"a", std::nullopt, "a string longer than twelve", "thirteen bytes", "and another long one"});
  ASSERT_EQ(views->buffers.size(), 4u);
  ArrowArray array;
  ASSERT_OK(ExportArray(views, &array));
  ASSERT_EQ(array.n_buffers, 5);  // validity, views, 2 data buffers, sizes
  const auto* sizes = static_cast<const int64_t*>(array.buffers[4]);
  EXPECT_EQ(sizes[0], views->buffers[2]->size());
  EXPECT_EQ(sizes[1], views->buffers[3]->size());
  EXPECT_EQ(array.buffers[2], views->buffers[2]->data());
  array.release(&array);

  for (int64_t offset : {0, 1, 2}) {
    SCOPED_TRACE(offset);
    ASSERT_OK_AND_ASSIGN(ArrayDataPtr sliced, Slice(views, offset, views->length - offset));
    Field field;
    ArrayDataPtr back = ExportImport(sliced, &field);
    ASSERT_NE(back, nullptr);
    EXPECT_TRUE(field.type->Equals(*utf8_view()));
    ASSERT_EQ(back->buffers.size(), 4u);  // the sizes buffer is not kept
    EXPECT_EQ(back->buffers[3]->size(), views->buffers[3]->size());
    EXPECT_EQ(back->buffers[3]->data(), views->buffers[3]->data());
    EXPECT_TRUE(ArrayEquals(*sliced, *back));
  }
  // Inline values only: no variadic buffers, the sizes buffer is empty.
  auto inline_only = std::make_shared<ArrayData>(*Views({"x", "", "twelve bytes"}, binary_view()));
  inline_only->buffers.resize(2);
  ASSERT_OK(ExportArray(inline_only, &array));
  EXPECT_EQ(array.n_buffers, 3);
  EXPECT_NE(array.buffers[2], nullptr);
  array.release(&array);
  ArrayDataPtr back = ExportImport(inline_only);
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(back->buffers.size(), 2u);
  EXPECT_TRUE(ArrayEquals(*inline_only, *back));
}

TEST(CDataCoreTypes, DictionaryRoundTrips) {
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr values, Slice(Utf8({"zz", "a", std::nullopt, "b"}), 1, 3));
  ArrayDataPtr dict = DictionaryOf({0, 2, std::nullopt, 0, 1}, values);
  ArrowSchema schema;
  ASSERT_OK(ExportField(Field{"labels", dict->type, true, {{"k", "v"}}}, &schema));
  EXPECT_STREQ(schema.format, "i");
  ASSERT_NE(schema.dictionary, nullptr);
  EXPECT_STREQ(schema.dictionary->format, "u");
  EXPECT_EQ(schema.flags & ARROW_FLAG_DICTIONARY_ORDERED, 0);
  ASSERT_OK_AND_ASSIGN(Field field, ImportField(&schema));
  EXPECT_TRUE(field.type->Equals(*dict->type));
  EXPECT_EQ(field.name, "labels");
  EXPECT_EQ(field.metadata, (KeyValueMetadata{{"k", "v"}}));

  for (int64_t offset : {0, 1, 3}) {
    SCOPED_TRACE(offset);
    ASSERT_OK_AND_ASSIGN(ArrayDataPtr sliced, Slice(dict, offset, dict->length - offset));
    ArrayDataPtr back = ExportImport(sliced);
    ASSERT_NE(back, nullptr);
    ASSERT_NE(back->dictionary, nullptr);
    EXPECT_EQ(back->dictionary->offset, 1);
    EXPECT_EQ(back->dictionary->buffers[2]->data(), values->buffers[2]->data());
    EXPECT_TRUE(ArrayEquals(*sliced, *back));
  }
  // Ordered dictionaries keep the flag; extension types over a dictionary
  // and dictionaries of views travel too.
  ASSERT_OK_AND_ASSIGN(TypePtr ordered, dictionary(int8(), utf8_view(), true));
  ASSERT_OK_AND_ASSIGN(TypePtr labels, extension("my.labels", "{}", ordered));
  auto ext = std::make_shared<ArrayData>();
  ext->type = labels;
  ext->length = 3;
  ext->buffers = {nullptr, test::BufferOf(std::vector<int8_t>{1, 0, 1})};
  ext->dictionary = Views({"short", "a string longer than twelve"});
  ASSERT_OK(Validate(*ext));
  ASSERT_OK(ExportType(*labels, &schema));
  EXPECT_NE(schema.flags & ARROW_FLAG_DICTIONARY_ORDERED, 0);
  schema.release(&schema);
  Field ext_field;
  ArrayDataPtr back = ExportImport(ext, &ext_field);
  ASSERT_NE(back, nullptr);
  EXPECT_TRUE(ext_field.type->Equals(*labels)) << ext_field.type->ToString();
  EXPECT_TRUE(ArrayEquals(*ext, *back));
}

TEST(CData, NewTypesRoundTripWholeAndSliced) {
  for (const auto& [name, data] : test::AllNewTypeSamples()) {
    SCOPED_TRACE(name);
    ArrayDataPtr back = RoundTrip(data);
    EXPECT_TRUE(back->type->Equals(*data->type)) << back->type->ToString();
    EXPECT_TRUE(ArrayEquals(*back, *data));
    ASSERT_OK_AND_ASSIGN(ArrayDataPtr part, Slice(data, 1, data->length - 2));
    EXPECT_TRUE(ArrayEquals(*RoundTrip(part), *part));
  }
}

TEST(CData, UnionsAndRunEndsExportNoValidityBuffer) {
  ArrowArray array;
  ASSERT_OK(ExportArray(test::DenseUnionSample(), &array));
  EXPECT_EQ(array.n_buffers, 2);
  EXPECT_EQ(array.null_count, 0);
  array.release(&array);
  ASSERT_OK(ExportArray(test::SparseUnionSample(), &array));
  EXPECT_EQ(array.n_buffers, 1);
  array.release(&array);
  ASSERT_OK(ExportArray(test::RunEndSample(), &array));
  EXPECT_EQ(array.n_buffers, 0);
  EXPECT_EQ(array.n_children, 2);
  array.release(&array);
  ASSERT_OK(ExportArray(test::ListViewSample(), &array));
  EXPECT_EQ(array.n_buffers, 3);
  array.release(&array);
}

TEST(CData, ImportedUnionsAreFullyValidated) {
  auto bad = std::make_shared<ArrayData>(*test::SparseUnionSample());
  bad->buffers[0] = test::BufferOf<int8_t>({0, 1, 9, 1});
  ArrowSchema schema;
  ArrowArray array;
  ASSERT_OK(ExportField(Field{"u", bad->type}, &schema));
  ASSERT_OK(ExportArray(bad, &array));
  ASSERT_OK_AND_ASSIGN(Field field, ImportField(&schema));
  EXPECT_ERROR(kInvalid, "row 2: union type id 9 names no child", ImportArray(&array, field.type));
}

}  // namespace quiver
