// Arrow arrays shredded into Parquet definition and repetition levels:
// nulls at every level of lists, structs, maps and fixed-size lists, slices,
// and fixed-size lists without nulls kept as a pattern.
#include "parquet_writer_test_util.h"

namespace quiver::parquet {
namespace {

TEST(ParquetShred, FlatColumnWithNulls) {
  auto a = Primitive<int32_t>(int32(), {1, 2, 3, 4}, {true, false, true, true});
  auto leaves = *ShredArray(a, true);
  ASSERT_EQ(leaves.size(), 1u);
  const ShreddedLeaf& leaf = leaves[0];
  EXPECT_EQ(leaf.max_def, 1);
  EXPECT_EQ(leaf.max_rep, 0);
  EXPECT_EQ(leaf.def, Levels({1, 0, 1, 1}));
  EXPECT_TRUE(leaf.rep.empty());
  ASSERT_EQ(leaf.value_ranges.size(), 2u);
  EXPECT_EQ(leaf.value_ranges[0], (Range{0, 1}));
  EXPECT_EQ(leaf.value_ranges[1], (Range{2, 4}));
  EXPECT_EQ(leaf.num_values, 3);
}

TEST(ParquetShred, FlatColumnWithoutNullsKeepsNoLevels) {
  auto a = Primitive<int64_t>(int64(), {1, 2, 3});
  auto leaf = (*ShredArray(a, true))[0];
  EXPECT_EQ(leaf.max_def, 1);
  EXPECT_TRUE(leaf.def.empty());
  EXPECT_EQ(leaf.num_levels, 3);
  ASSERT_EQ(leaf.value_ranges.size(), 1u);
  EXPECT_EQ(leaf.value_ranges[0], (Range{0, 3}));
}

TEST(ParquetShred, ListWithNullsAtEveryLevel) {
  // [[1, null], null, [], [3]]
  auto child = Primitive<int32_t>(int32(), {1, 0, 3}, {true, false, true});
  auto a = ListOf(list(ListItem(int32())), {0, 2, 2, 2, 3}, {true, false, true, true}, child);
  auto leaf = (*ShredArray(a, true))[0];
  EXPECT_EQ(leaf.max_def, 3);
  EXPECT_EQ(leaf.max_rep, 1);
  EXPECT_EQ(leaf.def, Levels({3, 2, 0, 1, 3}));
  // One list on the path: the repetition levels as levels per row.
  EXPECT_TRUE(leaf.rep.empty());
  EXPECT_EQ(leaf.row_levels, (std::vector<int64_t>{2, 1, 1, 1}));
  PageSpan page{0, 5, 0, 2, 4};
  const std::string rep = EncodeRepetitionLevels(leaf, page);
  RleHybridDecoder decoder(reinterpret_cast<const uint8_t*>(rep.data()),
                           static_cast<int64_t>(rep.size()), 1, "rep");
  std::vector<uint32_t> decoded(5);
  ASSERT_OK(decoder.Decode(decoded.data(), 5));
  EXPECT_EQ(decoded, (std::vector<uint32_t>{0, 1, 0, 0, 0}));
  ASSERT_EQ(leaf.value_ranges.size(), 2u);
  EXPECT_EQ(leaf.value_ranges[0], (Range{0, 1}));
  EXPECT_EQ(leaf.value_ranges[1], (Range{2, 3}));
}

TEST(ParquetShred, CountingWithoutKeepingLevels) {
  // [[1, null], null, [], [3]]: the same counts and slots, no levels kept.
  auto child = Primitive<int32_t>(int32(), {1, 0, 3}, {true, false, true});
  auto a = ListOf(list(ListItem(int32())), {0, 2, 2, 2, 3}, {true, false, true, true}, child);
  auto counted = *ShredLeaf(a, true, 0, false);
  EXPECT_EQ(counted.num_levels, 5);
  EXPECT_EQ(counted.num_values, 2);
  EXPECT_TRUE(counted.def.empty());
  EXPECT_TRUE(counted.rep.empty());
  EXPECT_FALSE(counted.def_all_max);
  EXPECT_FALSE(counted.implicit_levels());
  EXPECT_EQ(counted.value_ranges, (*ShredLeaf(a, true, 0, true)).value_ranges);
  auto flat = *ShredLeaf(Primitive<int32_t>(int32(), {1, 2}), true, 0, false);
  EXPECT_TRUE(flat.implicit_levels());
  EXPECT_EQ(StatusOf(ShredLeaf(a, true, 1, false)).code(), StatusCode::kIndexError);
}

TEST(ParquetShred, NestedListsAndSlices) {
  // [[[1, 2], []], [[3]], null] sliced to its last two rows.
  auto values = Primitive<int32_t>(int32(), {1, 2, 3});
  auto inner = ListOf(list(ListItem(int32())), {0, 2, 2, 3}, {}, values);
  auto outer = ListOf(list(ListItem(inner->type)), {0, 2, 3, 3}, {true, true, false}, inner);
  auto leaf = (*ShredArray(outer, true))[0];
  EXPECT_EQ(leaf.max_def, 5);
  EXPECT_EQ(leaf.max_rep, 2);
  EXPECT_EQ(leaf.def, Levels({5, 5, 3, 5, 0}));
  EXPECT_EQ(leaf.rep, Levels({0, 2, 1, 0, 0}));
  auto sliced = *Slice(outer, 1, 2);
  auto tail = (*ShredArray(sliced, true))[0];
  EXPECT_EQ(tail.def, Levels({5, 0}));
  EXPECT_EQ(tail.rep, Levels({0, 0}));
  ASSERT_EQ(tail.value_ranges.size(), 1u);
  EXPECT_EQ(tail.value_ranges[0], (Range{2, 3}));
}

TEST(ParquetShred, StructWithNullsAtBothLevels) {
  auto x = Primitive<int32_t>(int32(), {5, 6, 7}, {true, true, false});
  auto y = test::Utf8({"a", "b", "c"});
  auto s = std::make_shared<ArrayData>();
  s->type = struct_({Field{"x", int32()}, Field{"y", utf8(), false}});
  s->length = 3;
  s->buffers = {Bitmap({true, false, true})};
  s->children = {x, y};
  auto leaves = *ShredArray(s, true);
  ASSERT_EQ(leaves.size(), 2u);
  EXPECT_EQ(leaves[0].max_def, 2);
  EXPECT_EQ(leaves[0].def, Levels({2, 0, 1}));
  EXPECT_EQ(leaves[1].max_def, 1);  // y is required
  EXPECT_EQ(leaves[1].def, Levels({1, 0, 1}));
  EXPECT_EQ(leaves[1].num_values, 2);
}

TEST(ParquetShred, MapEntries) {
  // [{"a": 1, "b": null}, null, {}]
  auto keys = test::Utf8({"a", "b"});
  auto items = Primitive<int32_t>(int32(), {1, 0}, {true, false});
  auto entries = std::make_shared<ArrayData>();
  entries->type = struct_({Field{"key", utf8(), false}, Field{"value", int32()}});
  entries->length = 2;
  entries->buffers = {nullptr};
  entries->null_count = 0;
  entries->children = {keys, items};
  auto type = *map_(utf8(), int32());
  auto m = ListOf(type, {0, 2, 2, 2}, {true, false, true}, entries);
  auto leaves = *ShredArray(m, true);
  ASSERT_EQ(leaves.size(), 2u);
  EXPECT_EQ(leaves[0].max_def, 2);  // map, key_value (the key is required)
  EXPECT_EQ(leaves[0].def, Levels({2, 2, 0, 1}));
  EXPECT_EQ(leaves[0].row_levels, (std::vector<int64_t>{2, 1, 1}));
  EXPECT_EQ(leaves[1].max_def, 3);
  EXPECT_EQ(leaves[1].def, Levels({3, 2, 0, 1}));
}

TEST(ParquetShred, FixedSizeListWithoutNullsIsAPattern) {
  std::vector<float> v(24 * 5);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i);
  auto child = Primitive<float>(float32(), v);
  for (int32_t k : {8, 3, 4, 6, 1}) {
    auto a = std::make_shared<ArrayData>();
    a->type = *fixed_size_list(ListItem(float32()), k);
    a->length = 24 * 5 / k;
    a->buffers = {nullptr};
    a->null_count = 0;
    a->children = {child};
    auto sliced = *Slice(a, 1, a->length - 1);
    auto leaf = (*ShredArray(sliced, true))[0];
    EXPECT_EQ(leaf.rep_period, k);
    EXPECT_TRUE(leaf.def.empty());
    EXPECT_TRUE(leaf.rep.empty());
    ASSERT_EQ(leaf.value_ranges.size(), 1u);
    EXPECT_EQ(leaf.value_ranges[0], (Range{k, 24 * 5}));
    // The pattern decodes as the materialised levels.
    PageSpan page{0, leaf.num_levels, 0, leaf.num_values, sliced->length};
    std::vector<uint32_t> rep;
    for (int64_t r = 0; r < sliced->length; ++r) {
      for (int32_t j = 0; j < k; ++j) rep.push_back(j == 0 ? 0 : 1);
    }
    const std::string encoded = EncodeRepetitionLevels(leaf, page);
    RleHybridDecoder decoder(reinterpret_cast<const uint8_t*>(encoded.data()),
                             static_cast<int64_t>(encoded.size()), 1, "rep");
    std::vector<uint32_t> decoded(rep.size());
    ASSERT_OK(decoder.Decode(decoded.data(), static_cast<int64_t>(decoded.size())));
    EXPECT_EQ(decoded, rep);
    // The definition levels: one repeated run of max_def.
    std::vector<uint32_t> def(rep.size(), static_cast<uint32_t>(leaf.max_def));
    EXPECT_EQ(EncodeDefinitionLevels(leaf, page),
              EncodeRleHybrid(def.data(), static_cast<int64_t>(def.size()), 2));
  }
}

TEST(ParquetShred, DictionaryAndExtensionArraysAsTheirValues) {
  auto dict = test::Utf8({"x", "y"});
  auto a = std::make_shared<ArrayData>();
  a->type = *dictionary(int8(), utf8());
  a->length = 3;
  a->buffers = {Bitmap({true, false, true}), BufferOf(std::vector<int8_t>{1, 0, 0})};
  a->dictionary = dict;
  auto stored = *StoredArray(a);
  EXPECT_EQ(stored->type->id(), TypeId::kUtf8);
  EXPECT_FALSE(stored->IsValid(1));
  auto leaf = (*ShredArray(stored, true))[0];
  EXPECT_EQ(leaf.def, Levels({1, 0, 1}));
  auto ext_type = *extension("my.ext", "", int32());
  EXPECT_EQ(StoredType(list(ListItem(ext_type)))->children()[0].type->id(), TypeId::kInt32);
}

TEST(ParquetShred, LeafDictionariesFollowTheLeaves) {
  auto dict = test::Utf8({"x", "unused", "y"});
  auto labels = std::make_shared<ArrayData>();
  labels->type = *dictionary(int8(), utf8());
  labels->length = 2;
  labels->buffers = {nullptr, BufferOf(std::vector<int8_t>{2, 0})};
  labels->dictionary = dict;
  auto numbers = Primitive<int32_t>(int32(), {1, 2});
  auto s = std::make_shared<ArrayData>();
  s->type = struct_({Field{"n", int32(), true}, Field{"label", labels->type, true}});
  s->length = 2;
  s->buffers = {nullptr};
  s->children = {numbers, labels};
  const std::vector<ArrayDataPtr> found = *LeafDictionaries(s);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0], nullptr);
  ASSERT_NE(found[1], nullptr);
  EXPECT_EQ(found[1]->length, 3);  // every entry, the unused one too
  EXPECT_EQ(static_cast<int>(found.size()), CountLeaves(*StoredArray(s)));
}

}  // namespace
}  // namespace quiver::parquet
