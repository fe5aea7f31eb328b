// The C Data Interface for null, temporal, decimal, view and dictionary
// types: format strings both ways, round trips (sliced, with nulls), the
// variadic sizes buffer of views, dictionaries in ArrowSchema / ArrowArray,
// and what hostile producers hand over.
#include <limits>
#include <string>
#include <vector>

#include "core_types_test.h"
#include "quiver/c_data.h"
#include "quiver/record_batch.h"

namespace quiver {

using test::DictionaryOf;
using test::Primitive;
using test::Utf8;
using test::Views;

namespace {

int g_releases = 0;
void CountArrayRelease(ArrowArray* array) {
  ++g_releases;
  array->release = nullptr;
}
void CountSchemaRelease(ArrowSchema* schema) {
  ++g_releases;
  schema->release = nullptr;
}
int g_dictionary_releases = 0;
void CountDictionaryRelease(ArrowArray* array) {
  ++g_dictionary_releases;
  array->release = nullptr;
}

// Exports `data` under a field, imports both back (validated at kFull).
ArrayDataPtr RoundTrip(const ArrayDataPtr& data, Field* field_out = nullptr) {
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

std::string FormatOf(const TypePtr& type) {
  ArrowSchema schema;
  if (!ExportType(*type, &schema).ok()) return "<export failed>";
  std::string format = schema.format;
  schema.release(&schema);
  return format;
}

// A foreign ArrowSchema of `format` with no children.
ArrowSchema Leaf(const char* format) {
  ArrowSchema schema{};
  schema.format = format;
  schema.name = "x";
  schema.flags = ARROW_FLAG_NULLABLE;
  schema.release = CountSchemaRelease;
  return schema;
}

// A foreign ArrowArray over `buffers`.
ArrowArray Foreign(int64_t length, std::vector<const void*>& buffers) {
  ArrowArray array{};
  array.length = length;
  array.n_buffers = static_cast<int64_t>(buffers.size());
  array.buffers = buffers.empty() ? nullptr : buffers.data();
  array.release = CountArrayRelease;
  return array;
}

TypePtr Timestamp(TimeUnit unit, std::string tz = "") { return *timestamp(unit, std::move(tz)); }

// A decimal array from little-endian int64 words (2 or 4 per value).
ArrayDataPtr Decimals(TypePtr type, const std::vector<int64_t>& words,
                      const std::vector<bool>& valid = {}) {
  const int64_t per_value = type->byte_width() / 8;
  auto data = std::make_shared<ArrayData>(*Primitive<int64_t>(std::move(type), words, valid));
  data->length = static_cast<int64_t>(words.size()) / per_value;
  return data;
}

}  // namespace

TEST(CDataCoreTypes, FormatStringsBothWays) {
  struct Row {
    TypePtr type;
    const char* format;
  };
  const std::vector<Row> rows = {
      {null(), "n"},
      {date32(), "tdD"},
      {date64(), "tdm"},
      {*time32(TimeUnit::kSecond), "tts"},
      {*time32(TimeUnit::kMilli), "ttm"},
      {*time64(TimeUnit::kMicro), "ttu"},
      {*time64(TimeUnit::kNano), "ttn"},
      {Timestamp(TimeUnit::kSecond), "tss:"},
      {Timestamp(TimeUnit::kMilli, "UTC"), "tsm:UTC"},
      {Timestamp(TimeUnit::kMicro, "Europe/Paris"), "tsu:Europe/Paris"},
      {Timestamp(TimeUnit::kNano, "+02:00"), "tsn:+02:00"},
      {*duration(TimeUnit::kSecond), "tDs"},
      {*duration(TimeUnit::kMilli), "tDm"},
      {*duration(TimeUnit::kMicro), "tDu"},
      {*duration(TimeUnit::kNano), "tDn"},
      {*decimal128(10, 2), "d:10,2"},
      {*decimal128(38, -5), "d:38,-5"},
      {*decimal256(40, 3), "d:40,3,256"},
      {utf8_view(), "vu"},
      {binary_view(), "vz"},
      {*dictionary(int8(), utf8()), "c"},
      {*dictionary(uint64(), utf8_view()), "L"},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.type->ToString());
    EXPECT_EQ(FormatOf(row.type), row.format);
    ArrowSchema schema;
    ASSERT_OK(ExportType(*row.type, &schema));
    ASSERT_OK_AND_ASSIGN(TypePtr back, ImportType(&schema));
    EXPECT_TRUE(back->Equals(*row.type)) << back->ToString();
  }
  // The explicit 128-bit width reads as decimal128.
  ArrowSchema explicit128 = Leaf("d:9,1,128");
  ASSERT_OK_AND_ASSIGN(TypePtr dec, ImportType(&explicit128));
  EXPECT_TRUE(dec->Equals(**decimal128(9, 1)));
}

TEST(CDataCoreTypes, MalformedAndUnsupportedFormats) {
  struct Case {
    const char* format;
    StatusCode code;
    const char* error;
  };
  const std::vector<Case> cases = {
      {"d:10", StatusCode::kInvalid, "field: format 'd:10' is not a decimal format"},
      {"d:10,", StatusCode::kInvalid, "format 'd:10,' is not a decimal format"},
      {"d:x,1", StatusCode::kInvalid, "is not a decimal format"},
      {"d:10,2,", StatusCode::kInvalid, "is not a decimal format"},
      {"d:10,2,256x", StatusCode::kInvalid, "is not a decimal format"},
      {"d:0,1", StatusCode::kInvalid, "field: decimal128 precision 0 is outside [1, 38]"},
      {"d:39,1", StatusCode::kInvalid, "decimal128 precision 39 is outside [1, 38]"},
      {"d:77,1,256", StatusCode::kInvalid, "decimal256 precision 77 is outside [1, 76]"},
      {"d:10,2,100", StatusCode::kInvalid, "has decimal bit width 100"},
      {"d:9,2,32", StatusCode::kNotImplemented, "format 'd:9,2,32' (decimal32) is not supported"},
      {"d:18,2,64", StatusCode::kNotImplemented, "(decimal64) is not supported"},
      {"tss", StatusCode::kInvalid, "format 'tss' needs ':' and a time zone"},
      {"tsuUTC", StatusCode::kInvalid, "format 'tsuUTC' needs ':'"},
      {"tiM", StatusCode::kNotImplemented, "field: format 'tiM' is not supported by quiver"},
      {"tiD", StatusCode::kNotImplemented, "format 'tiD' is not supported"},
      {"tin", StatusCode::kNotImplemented, "format 'tin' is not supported"},
      {"tdx", StatusCode::kNotImplemented, "format 'tdx' is not supported"},
      {"ttx", StatusCode::kNotImplemented, "format 'ttx' is not supported"},
      {"+r", StatusCode::kNotImplemented, "format '+r' is not supported"},
      {"+vl", StatusCode::kNotImplemented, "format '+vl' is not supported"},
      {"+vL", StatusCode::kNotImplemented, "format '+vL' is not supported"},
      {"+ud:0,1", StatusCode::kNotImplemented, "format '+ud:0,1' is not supported"},
      {"+us:0", StatusCode::kNotImplemented, "format '+us:0' is not supported"},
      {"+m", StatusCode::kNotImplemented, "format '+m' is not supported"},
      {"v", StatusCode::kNotImplemented, "format 'v' is not supported"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.format);
    g_releases = 0;
    ArrowSchema schema = Leaf(c.format);
    Result<Field> field = ImportField(&schema);
    ASSERT_FALSE(field.ok());
    EXPECT_EQ(field.status().code(), c.code) << field.status().ToString();
    EXPECT_NE(field.status().message().find(c.error), std::string::npos)
        << field.status().ToString();
    EXPECT_EQ(g_releases, 1);
  }
  // Nested: the error names the path to the field.
  ArrowSchema map_child = Leaf("+vl");
  ArrowSchema* children[1] = {&map_child};
  ArrowSchema parent = Leaf("+s");
  parent.n_children = 1;
  parent.children = children;
  EXPECT_ERROR(kNotImplemented, "field.child 0: format '+vl' is not supported", ImportField(&parent));
}

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
    ArrayDataPtr b = RoundTrip(a, &field);
    ASSERT_NE(b, nullptr);
    EXPECT_TRUE(field.type->Equals(*a->type));
    EXPECT_TRUE(ArrayEquals(*a, *b));
    EXPECT_EQ(b->ComputeNullCount(), a->ComputeNullCount());
    if (a->type->id() != TypeId::kNull) {
      EXPECT_EQ(b->buffers[1]->data(), a->buffers[1]->data());
    }
    if (a->length > 1) {
      ASSERT_OK_AND_ASSIGN(ArrayDataPtr sliced, Slice(a, 1, a->length - 1));
      ArrayDataPtr c = RoundTrip(sliced);
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
  EXPECT_ERROR(kInvalid, "ArrowArray of type null has 1 buffers, expected 0", ImportArray(&extra, null()));
  EXPECT_EQ(g_releases, 2);
}

TEST(CDataCoreTypes, ViewsExportTheirVariadicSizes) {
  ArrayDataPtr views = Views({"a", std::nullopt, "a string longer than twelve", "thirteen bytes",
                              "and another long one"});
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
    ArrayDataPtr back = RoundTrip(sliced, &field);
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
  ArrayDataPtr back = RoundTrip(inline_only);
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(back->buffers.size(), 2u);
  EXPECT_TRUE(ArrayEquals(*inline_only, *back));
}

TEST(CDataCoreTypes, HostileViewImports) {
  ArrayDataPtr views = Views({"a", "a string longer than twelve"});
  const void* views_buffer = views->buffers[1]->data();
  const void* data = views->buffers[2]->data();
  int64_t size = views->buffers[2]->size();
  struct Case {
    std::vector<const void*> buffers;
    int64_t length;
    const char* error;
  };
  int64_t negative = -3;
  // Never dereferenced: the import refuses it first.
  const void* near_the_end = reinterpret_cast<const void*>(~uintptr_t{0} - 15);
  int64_t too_small = 10;
  const std::vector<Case> cases = {
      {{nullptr, views_buffer}, 2,
       "ArrowArray of type utf8_view has 2 buffers, expected at least 3 (validity, views, "
       "variadic data buffers, then their sizes)"},
      {{nullptr, views_buffer, data, nullptr}, 2,
       "has 1 variadic buffers but no buffer of their sizes"},
      {{nullptr, views_buffer, data, &negative}, 2, "variadic buffer 0 has negative size -3"},
      {{nullptr, views_buffer, nullptr, &size}, 2, "variadic buffer 0 is NULL but has 27 bytes"},
      {{nullptr, views_buffer, near_the_end, &size}, 2,
       "buffer 2 would need 27 bytes from its address, past the end of memory"},
      {{nullptr, views_buffer, data, &too_small}, 2,
       "imported ArrowArray of type utf8_view: row 1: view [0, 27) is outside variadic buffer 0 "
       "of 10 bytes"},
      {{nullptr, views_buffer, &size}, 2,
       "row 1: view points into variadic buffer 0, but the array has 0"},
      {{nullptr, views_buffer, data, &size}, std::numeric_limits<int64_t>::max() / 4,
       "views buffer size"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.error);
    g_releases = 0;
    std::vector<const void*> buffers = c.buffers;
    ArrowArray array = Foreign(c.length, buffers);
    EXPECT_ERROR(kInvalid, c.error, ImportArray(&array, utf8_view()));
    EXPECT_EQ(g_releases, 1);
    EXPECT_EQ(array.release, nullptr);
  }
  // The same buffers, told the truth, import zero-copy.
  g_releases = 0;
  std::vector<const void*> good = {nullptr, views_buffer, data, &size};
  ArrowArray array = Foreign(2, good);
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr imported, ImportArray(&array, utf8_view()));
  EXPECT_TRUE(ArrayEquals(*imported, *views));
  EXPECT_EQ(imported->buffers[2]->data(), data);
  imported.reset();
  EXPECT_EQ(g_releases, 1);
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
    ArrayDataPtr back = RoundTrip(sliced);
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
  ArrayDataPtr back = RoundTrip(ext, &ext_field);
  ASSERT_NE(back, nullptr);
  EXPECT_TRUE(ext_field.type->Equals(*labels)) << ext_field.type->ToString();
  EXPECT_TRUE(ArrayEquals(*ext, *back));
}

TEST(CDataCoreTypes, ForeignDictionariesAreReleasedOnceThroughTheirParent) {
  const char* chars = "ab";
  int32_t offsets[3] = {0, 1, 2};
  std::vector<const void*> value_buffers = {nullptr, offsets, chars};
  int32_t indices[3] = {1, 0, 1};
  int32_t bad_indices[3] = {1, 0, 2};
  std::vector<const void*> index_buffers = {nullptr, indices};
  std::vector<const void*> bad_index_buffers = {nullptr, bad_indices};
  TypePtr type = *dictionary(int32(), utf8());

  // The consumer releases the base struct only; its producer frees the
  // dictionary (here: nothing calls the dictionary's own release).
  auto run = [&](std::vector<const void*>& buffers, bool with_dictionary, const TypePtr& as) {
    g_releases = 0;
    g_dictionary_releases = 0;
    ArrowArray values = Foreign(2, value_buffers);
    values.release = CountDictionaryRelease;
    ArrowArray array = Foreign(3, buffers);
    if (with_dictionary) array.dictionary = &values;
    Result<ArrayDataPtr> imported = ImportArray(&array, as);
    EXPECT_EQ(array.release, nullptr);
    return imported;
  };
  {
    Result<ArrayDataPtr> ok = run(index_buffers, true, type);
    ASSERT_TRUE(ok.ok()) << ok.status().ToString();
    EXPECT_EQ((*ok)->dictionary->length, 2);
    EXPECT_EQ(g_releases, 0);  // still held by the imported array
    ok = Status::Invalid("drop");
    EXPECT_EQ(g_releases, 1);
    EXPECT_EQ(g_dictionary_releases, 0);
  }
  EXPECT_ERROR(kInvalid, "imported ArrowArray of type dictionary<values=utf8, indices=int32, "
                         "ordered=0>: row 2: dictionary index 2 is outside a dictionary of 2 values",
               run(bad_index_buffers, true, type));
  EXPECT_EQ(g_releases, 1);
  EXPECT_ERROR(kInvalid, "has no dictionary", run(index_buffers, false, type));
  EXPECT_EQ(g_releases, 1);
  EXPECT_ERROR(kInvalid, "ArrowArray of type int32 has a dictionary, but its schema is not "
                         "dictionary-encoded",
               run(index_buffers, true, int32()));
  EXPECT_EQ(g_releases, 1);
  EXPECT_EQ(g_dictionary_releases, 0);
  // A dictionary whose struct was released, or whose buffers are wrong.
  g_releases = 0;
  ArrowArray released = Foreign(2, value_buffers);
  released.release = nullptr;
  ArrowArray array = Foreign(3, index_buffers);
  array.dictionary = &released;
  EXPECT_ERROR(kInvalid, "dictionary: ArrowArray is released", ImportArray(&array, type));
  EXPECT_EQ(g_releases, 1);
  std::vector<const void*> two_buffers = {nullptr, offsets};
  ArrowArray short_values = Foreign(2, two_buffers);
  array = Foreign(3, index_buffers);
  array.dictionary = &short_values;
  EXPECT_ERROR(kInvalid, "dictionary: ArrowArray of type utf8 has 2 buffers, expected 3",
               ImportArray(&array, type));
  EXPECT_EQ(g_releases, 2);
}

TEST(CDataCoreTypes, ForeignDictionarySchemas) {
  ArrowSchema values = Leaf("u");
  ArrowSchema schema = Leaf("s");
  schema.dictionary = &values;
  schema.flags |= ARROW_FLAG_DICTIONARY_ORDERED;
  g_releases = 0;
  ASSERT_OK_AND_ASSIGN(Field field, ImportField(&schema));
  EXPECT_EQ(g_releases, 1);  // the base only
  EXPECT_EQ(field.type->ToString(), "dictionary<values=utf8, indices=int16, ordered=1>");
  EXPECT_TRUE(field.nullable);

  values = Leaf("u");
  schema = Leaf("f");
  schema.dictionary = &values;
  EXPECT_ERROR(kTypeError, "field: dictionary index type must be a signed or unsigned integer, got float32",
               ImportField(&schema));
  values = Leaf("+m");
  schema = Leaf("i");
  schema.dictionary = &values;
  EXPECT_ERROR(kNotImplemented, "field.dictionary: format '+m' is not supported", ImportField(&schema));
  values = Leaf("u");
  values.release = nullptr;
  schema = Leaf("i");
  schema.dictionary = &values;
  EXPECT_ERROR(kInvalid, "field.dictionary: ArrowSchema is released", ImportField(&schema));
  // Dictionaries nested in dictionaries count towards the depth limit.
  std::vector<ArrowSchema> chain(100);
  for (size_t i = 0; i < chain.size(); ++i) {
    chain[i] = Leaf(i + 1 == chain.size() ? "u" : "i");
    if (i + 1 < chain.size()) chain[i].dictionary = &chain[i + 1];
  }
  EXPECT_ERROR(kInvalid, "ArrowSchema nests more than 64 levels deep", ImportField(&chain[0]));
}

}  // namespace quiver
