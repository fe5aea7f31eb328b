// Importing foreign C Data structs: released structs, wrong buffer and
// child counts, validation, hostile views and foreign dictionaries (each
// released once, whatever happens).
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
using test::CountDictionaryRelease;
using test::CountSchemaRelease;
using test::Foreign;
using test::g_dictionary_releases;
using test::g_releases;
using test::Leaf;

TEST(CData, ImportRejectsReleasedStructs) {
  ArrowSchema schema{};
  EXPECT_ERROR(kInvalid, "ArrowSchema is already released", ImportField(&schema));
  ArrowArray array{};
  EXPECT_ERROR(kInvalid, "ArrowArray is already released", ImportArray(&array, int32()));
  ArrowArrayStream stream{};
  EXPECT_ERROR(kInvalid, "already released", ImportArrayStream(&stream));
}

TEST(CData, WrongBufferCountIsRejectedAndStillReleased) {
  g_releases = 0;
  int32_t values[2] = {1, 2};
  std::vector<const void*> buffers = {nullptr, values, values};
  ArrowArray array = Foreign(2, buffers);
  EXPECT_ERROR(kInvalid, "ArrowArray of type int32 has 3 buffers, expected 2",
               ImportArray(&array, int32()));
  EXPECT_EQ(g_releases, 1);
  EXPECT_EQ(array.release, nullptr);
}

TEST(CData, WrongChildCountAndMissingOffsets) {
  g_releases = 0;
  std::vector<const void*> buffers = {nullptr, nullptr};
  ArrowArray array = Foreign(1, buffers);
  EXPECT_ERROR(kInvalid, "has 0 children, expected 1", ImportArray(&array, list(ListItem(int8()))));
  array.release = CountArrayRelease;
  const void* utf8_buffers[3] = {nullptr, nullptr, nullptr};
  array.n_buffers = 3;
  array.buffers = utf8_buffers;
  EXPECT_ERROR(kInvalid, "has no offsets buffer", ImportArray(&array, utf8()));
  EXPECT_EQ(g_releases, 2);
}

TEST(CData, ImportValidatesData) {
  g_releases = 0;
  int32_t offsets[3] = {0, 5, 2};
  const char* chars = "hello";
  std::vector<const void*> buffers = {nullptr, offsets, chars};
  ArrowArray array = Foreign(2, buffers);
  EXPECT_ERROR(kInvalid, "offset 2 (2) < offset 1 (5)", ImportArray(&array, utf8()));
  EXPECT_EQ(g_releases, 1);
}

using test::Views;

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
      {{nullptr, views_buffer},
       2,
       "ArrowArray of type utf8_view has 2 buffers, expected at least 3 (validity, views, "
       "variadic data buffers, then their sizes)"},
      {{nullptr, views_buffer, data, nullptr},
       2,
       "has 1 variadic buffers but no buffer of their sizes"},
      {{nullptr, views_buffer, data, &negative}, 2, "variadic buffer 0 has negative size -3"},
      {{nullptr, views_buffer, nullptr, &size}, 2, "variadic buffer 0 is NULL but has 27 bytes"},
      {{nullptr, views_buffer, near_the_end, &size},
       2,
       "buffer 2 would need 27 bytes from its address, past the end of memory"},
      {{nullptr, views_buffer, data, &too_small},
       2,
       "imported ArrowArray of type utf8_view: row 1: view [0, 27) is outside variadic buffer 0 "
       "of 10 bytes"},
      {{nullptr, views_buffer, &size},
       2,
       "row 1: view points into variadic buffer 0, but the array has 0"},
      {{nullptr, views_buffer, data, &size},
       std::numeric_limits<int64_t>::max() / 4,
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
  EXPECT_ERROR(kInvalid,
               "imported ArrowArray of type dictionary<values=utf8, indices=int32, "
               "ordered=0>: row 2: dictionary index 2 is outside a dictionary of 2 values",
               run(bad_index_buffers, true, type));
  EXPECT_EQ(g_releases, 1);
  EXPECT_ERROR(kInvalid, "has no dictionary", run(index_buffers, false, type));
  EXPECT_EQ(g_releases, 1);
  EXPECT_ERROR(kInvalid,
               "ArrowArray of type int32 has a dictionary, but its schema is not "
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
  EXPECT_ERROR(kTypeError,
               "field: dictionary index type must be a signed or unsigned integer, got float32",
               ImportField(&schema));
  values = Leaf("+m");
  schema = Leaf("i");
  schema.dictionary = &values;
  EXPECT_ERROR(kInvalid, "field.dictionary: format '+m' needs 1 children, got 0",
               ImportField(&schema));
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
