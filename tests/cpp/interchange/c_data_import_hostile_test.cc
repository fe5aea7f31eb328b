// C Data imports and exports fed what an attacker or a broken producer
// would hand over: deep nesting, impossible lengths, missing callbacks and
// canonical extension types with lying metadata below the top level.
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "c_data_test_util.h"
#include "quiver/c_data.h"

namespace quiver {

using test::CountArrayRelease;
using test::CountSchemaRelease;
using test::g_releases;

namespace {

// A chain of `depth` "+l" schemas over an int8 leaf, all in `nodes`.
struct DeepSchema {
  explicit DeepSchema(int depth) : nodes(static_cast<size_t>(depth) + 1), pointers(nodes.size()) {
    for (size_t i = 0; i < nodes.size(); ++i) {
      ArrowSchema& node = nodes[i];
      node = ArrowSchema{};
      node.format = i + 1 == nodes.size() ? "c" : "+l";
      node.name = "item";
      node.release = CountSchemaRelease;
      pointers[i] = &node;
      if (i + 1 < nodes.size()) {
        node.n_children = 1;
        node.children = &pointers[i + 1];
      }
    }
  }
  std::vector<ArrowSchema> nodes;
  std::vector<ArrowSchema*> pointers;
};

}  // namespace

TEST(CDataHostile, DeepSchemaIsRefusedWithoutRecursingPastTheCap) {
  for (int depth : {65, 10000, 50000}) {
    g_releases = 0;
    DeepSchema deep(depth);
    EXPECT_ERROR(kInvalid, "ArrowSchema nests more than 64 levels deep",
                 ImportField(&deep.nodes[0]));
    EXPECT_EQ(g_releases, 1);  // the base struct, once
  }
  DeepSchema ok(64);
  ASSERT_OK_AND_ASSIGN(Field field, ImportField(&ok.nodes[0]));
  EXPECT_EQ(field.type->nesting_depth(), 64);
}

// A released child's memory may be gone: its name is not read to name it
// in the error (ASan caught the read through a freed name).
TEST(CDataHostile, AReleasedChildIsRefusedWithoutReadingItsName) {
  g_releases = 0;
  DeepSchema schema(1);  // "+l" over an int8 child
  auto name = std::make_unique<char[]>(6);
  std::memcpy(name.get(), "price", 6);
  schema.nodes[1].name = name.get();
  schema.nodes[1].release = nullptr;  // released by its producer...
  name.reset();                       // ...which freed its name
  EXPECT_ERROR(kInvalid, "field.child 0: ArrowSchema is released", ImportField(&schema.nodes[0]));
}

TEST(CDataHostile, DeepTypesAreNotExportedOrImported) {
  TypePtr type = int8();
  for (int i = 0; i < 10000; ++i) type = list(ListItem(type));
  ArrowSchema schema;
  EXPECT_ERROR(kInvalid, "nested 65 levels deep (the limit is 64)",
               ExportField(Field{"deep", type}, &schema));
  auto data = std::make_shared<ArrayData>();
  data->type = type;
  data->buffers = {nullptr, nullptr};
  ArrowArray array;
  EXPECT_ERROR(kInvalid, "type nests 10000 levels deep", ExportArray(data, &array));
  ArrowArray foreign{};
  foreign.release = CountArrayRelease;
  g_releases = 0;
  EXPECT_ERROR(kInvalid, "type nests 10000 levels deep", ImportArray(&foreign, type));
  EXPECT_EQ(g_releases, 1);
}

TEST(CDataHostile, ImpossibleLengthsAreErrors) {
  const int64_t max = std::numeric_limits<int64_t>::max();
  int32_t values[2] = {1, 2};
  uint8_t bits[1] = {0xff};
  const void* buffers[2] = {bits, values};
  struct Case {
    TypePtr type;
    int64_t length, offset;
    const char* message;
  };
  for (const Case& c :
       {Case{int32(), max, 0, "values buffer size: 9223372036854775807 * 4 overflows"},
        Case{int8(), max, 1, "offset + length"}, Case{int64(), max / 2, 0, "overflows int64"}}) {
    ArrowArray array{};
    array.length = c.length;
    array.offset = c.offset;
    array.null_count = -1;
    array.n_buffers = 2;
    array.buffers = buffers;
    array.release = CountArrayRelease;
    g_releases = 0;
    EXPECT_ERROR(kInvalid, c.message, ImportArray(&array, c.type));
    EXPECT_EQ(g_releases, 1);
  }
  int32_t offsets[2] = {0, 1};
  const void* text_buffers[3] = {nullptr, offsets, "a"};
  ArrowArray text{};
  text.length = max;
  text.n_buffers = 3;
  text.buffers = text_buffers;
  text.release = CountArrayRelease;
  EXPECT_ERROR(kInvalid, "offsets count: 9223372036854775807 + 1 overflows",
               ImportArray(&text, utf8()));
}

TEST(CDataHostile, NestedTensorMetadataIsCheckedOnImport) {
  // A struct field typed arrow.fixed_shape_tensor with shape [5, 5] over a
  // fixed_size_list[6]: refused, naming where it sits.
  ASSERT_OK_AND_ASSIGN(TypePtr storage, fixed_size_list(ListItem(float32()), 6));
  ASSERT_OK_AND_ASSIGN(TypePtr lying,
                       extension("arrow.fixed_shape_tensor", R"({"shape":[5,5]})", storage));
  ArrowSchema schema;
  ASSERT_OK(ExportField(Field{"batch", struct_({Field{"id", int64()}, Field{"images", lying}})},
                        &schema));
  EXPECT_ERROR(kInvalid, "field.child 1 (images): ", ImportField(&schema));
  ASSERT_OK(ExportField(Field{"batch", list(Field{"cells", lying})}, &schema));
  EXPECT_ERROR(kInvalid, "has 25 elements but the storage list size is 6", ImportField(&schema));
  // Variable-shape and bool8 metadata too.
  ASSERT_OK_AND_ASSIGN(TypePtr bad_bool8, extension("arrow.bool8", "", int16()));
  ASSERT_OK(ExportField(Field{"s", struct_({Field{"flag", bad_bool8}})}, &schema));
  EXPECT_ERROR(kInvalid, "arrow.bool8 needs int8 storage, got int16", ImportField(&schema));
  ASSERT_OK_AND_ASSIGN(TypePtr bad_ragged,
                       extension("arrow.variable_shape_tensor", "{\"permutation\":[0]}", int32()));
  ASSERT_OK(ExportField(Field{"s", struct_({Field{"r", bad_ragged}})}, &schema));
  EXPECT_ERROR(kTypeError, "field.child 0 (r): ", ImportField(&schema));
  // A valid nested tensor type passes.
  ASSERT_OK_AND_ASSIGN(TypePtr good,
                       extension("arrow.fixed_shape_tensor", R"({"shape":[2,3]})", storage));
  ASSERT_OK(ExportField(Field{"s", struct_({Field{"images", good}})}, &schema));
  ASSERT_OK(ImportField(&schema).status());
}

}  // namespace quiver
