// Parquet schemas to Arrow schemas: leaves by logical, converted and
// physical type; lists in the three-level form and the older two-level
// ones; maps; structs; the levels of each leaf; the ARROW:schema key
// restoring tensor and fixed-size list types; and malformed schemas.
#include "quiver/parquet/schema.h"

#include <string>

#include "quiver/fixed_shape_tensor.h"
#include "quiver/internal/base64.h"
#include "quiver/io.h"
#include "quiver/ipc.h"
#include "quiver/record_batch.h"
#include "test_util.h"

namespace quiver::parquet {
namespace {

SchemaElement Group(std::string name, int32_t children,
                    std::optional<Repetition> repetition = Repetition::kOptional) {
  SchemaElement e;
  e.name = std::move(name);
  e.num_children = children;
  e.repetition = repetition;
  return e;
}

SchemaElement Leaf(std::string name, PhysicalType type,
                   Repetition repetition = Repetition::kOptional) {
  SchemaElement e;
  e.name = std::move(name);
  e.type = type;
  e.repetition = repetition;
  return e;
}

FileMetaData WithSchema(std::vector<SchemaElement> children_and_below, int32_t top_level) {
  FileMetaData m;
  m.schema.push_back(Group("schema", top_level, std::nullopt));
  for (SchemaElement& e : children_and_below) m.schema.push_back(std::move(e));
  return m;
}

Result<Schema> ArrowOf(const FileMetaData& m) {
  QUIVER_ASSIGN_OR_RETURN(SchemaNode root, BuildSchemaTree(m, "test.parquet"));
  return ArrowSchemaOf(m, root, "test.parquet");
}

TEST(ParquetSchemaTest, LeavesMapByLogicalConvertedAndPhysicalType) {
  SchemaElement text = Leaf("text", PhysicalType::kByteArray);
  text.logical_type.kind = LogicalType::kString;
  SchemaElement legacy_text = Leaf("legacy_text", PhysicalType::kByteArray);
  legacy_text.converted_type = 0;
  SchemaElement u16 = Leaf("u16", PhysicalType::kInt32, Repetition::kRequired);
  u16.logical_type.kind = LogicalType::kInteger;
  u16.logical_type.bit_width = 16;
  u16.logical_type.is_signed = false;
  SchemaElement legacy_i8 = Leaf("legacy_i8", PhysicalType::kInt32);
  legacy_i8.converted_type = 15;
  SchemaElement when = Leaf("when", PhysicalType::kInt64);
  when.logical_type.kind = LogicalType::kTimestamp;
  when.logical_type.unit = TimeUnit::kMicro;
  SchemaElement half = Leaf("half", PhysicalType::kFixedLenByteArray);
  half.type_length = 2;
  half.logical_type.kind = LogicalType::kFloat16;
  SchemaElement money = Leaf("money", PhysicalType::kFixedLenByteArray);
  money.type_length = 9;
  money.logical_type.kind = LogicalType::kDecimal;
  money.logical_type.precision = 20;
  money.logical_type.scale = 2;
  SchemaElement raw = Leaf("raw", PhysicalType::kFixedLenByteArray);
  raw.type_length = 7;
  FileMetaData m = WithSchema({text, legacy_text, u16, legacy_i8, when, half, money, raw,
                               Leaf("old_time", PhysicalType::kInt96),
                               Leaf("flag", PhysicalType::kBoolean, Repetition::kRequired)},
                              10);
  ASSERT_OK_AND_ASSIGN(Schema s, ArrowOf(m));
  ASSERT_EQ(s.fields.size(), 10u);
  std::vector<std::string> types;
  for (const Field& f : s.fields) types.push_back(f.ToString());
  EXPECT_EQ(types,
            (std::vector<std::string>{
                "text: utf8", "legacy_text: utf8", "u16: uint16 not null", "legacy_i8: int8",
                "when: " + (*timestamp(TimeUnit::kMicro))->ToString(), "half: float16",
                "money: " + (*decimal128(20, 2))->ToString(),
                "raw: " + (*fixed_size_binary(7))->ToString(),
                "old_time: " + (*timestamp(TimeUnit::kNano))->ToString(), "flag: bool not null"}));
}

TEST(ParquetSchemaTest, ListsInEveryFormTheFormatAllowsAndTheirLevels) {
  SchemaElement three = Group("three", 1);
  three.logical_type.kind = LogicalType::kList;
  SchemaElement two_leaf = Group("two_leaf", 1);
  two_leaf.converted_type = 3;
  SchemaElement two_array = Group("two_array", 1);
  two_array.converted_type = 3;
  FileMetaData m = WithSchema(
      {three, Group("list", 1, Repetition::kRepeated), Leaf("element", PhysicalType::kFloat),
       two_leaf, Leaf("item", PhysicalType::kInt32, Repetition::kRepeated), two_array,
       Group("array", 1, Repetition::kRepeated), Leaf("x", PhysicalType::kDouble),
       Leaf("bare", PhysicalType::kInt64, Repetition::kRepeated)},
      4);
  ASSERT_OK_AND_ASSIGN(SchemaNode root, BuildSchemaTree(m, "t"));
  const SchemaNode& element = root.children[0].children[0].children[0];
  EXPECT_EQ(element.leaf_index, 0);
  EXPECT_EQ(element.max_definition_level, 3);
  EXPECT_EQ(element.max_repetition_level, 1);
  EXPECT_EQ(root.children[3].leaf_index, 3);
  EXPECT_EQ(root.children[3].max_definition_level, 1);
  ASSERT_OK_AND_ASSIGN(Schema s, ArrowSchemaOf(m, root, "t"));
  EXPECT_TRUE(s.fields[0].type->Equals(*list(Field{"element", float32(), true})));
  EXPECT_TRUE(s.fields[1].type->Equals(*list(Field{"item", int32(), false})));
  EXPECT_TRUE(s.fields[2].type->Equals(
      *list(Field{"array", struct_({Field{"x", float64(), true}}), false})));
  EXPECT_TRUE(s.fields[3].type->Equals(*list(Field{"bare", int64(), false})));
  EXPECT_FALSE(s.fields[3].nullable);
}

TEST(ParquetSchemaTest, MapsAndStructs) {
  SchemaElement map = Group("m", 1);
  map.logical_type.kind = LogicalType::kMap;
  SchemaElement key = Leaf("key", PhysicalType::kByteArray, Repetition::kRequired);
  key.logical_type.kind = LogicalType::kString;
  FileMetaData m = WithSchema(
      {map, Group("key_value", 2, Repetition::kRepeated), key, Leaf("value", PhysicalType::kInt64),
       Group("point", 2), Leaf("x", PhysicalType::kFloat, Repetition::kRequired),
       Leaf("y", PhysicalType::kFloat)},
      2);
  ASSERT_OK_AND_ASSIGN(Schema s, ArrowOf(m));
  ASSERT_OK_AND_ASSIGN(
      TypePtr expected_map,
      map_(Field{"key_value", struct_({Field{"key", utf8(), false}, Field{"value", int64()}}),
                 false}));
  EXPECT_TRUE(s.fields[0].type->Equals(*expected_map)) << s.fields[0].type->ToString();
  EXPECT_TRUE(s.fields[1].type->Equals(
      *struct_({Field{"x", float32(), false}, Field{"y", float32(), true}})));

  m.schema[3].repetition = Repetition::kOptional;  // an optional key
  EXPECT_ERROR(kInvalid, "the keys of Parquet MAP 'm' are not required", ArrowOf(m));
}

TEST(ParquetSchemaTest, ArrowSchemaKeyRestoresTypesThatFitTheParquetOnes) {
  // What an Arrow writer stores: a fixed_shape_tensor column (a list in
  // Parquet), a large string, and a column whose stored type does not fit
  // (kept as the Parquet type says).
  ASSERT_OK_AND_ASSIGN(FixedShapeTensorType tensor, FixedShapeTensorType::Make(float32(), {2, 2}));
  auto arrow = std::make_shared<Schema>();
  arrow->fields = {Field{"t", tensor.data_type(), true}, Field{"s", large_utf8(), true},
                   Field{"n", utf8(), true}};
  auto sink = std::make_shared<io::BufferSink>();
  { ASSERT_OK_AND_ASSIGN(auto writer, ipc::StreamWriter::Open(sink, arrow)); }
  ASSERT_OK_AND_ASSIGN(BufferPtr bytes, sink->Finish());
  const std::string encoded = internal::EncodeBase64(
      std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()));

  SchemaElement t = Group("t", 1);
  t.logical_type.kind = LogicalType::kList;
  SchemaElement s = Leaf("s", PhysicalType::kByteArray);
  s.logical_type.kind = LogicalType::kString;
  FileMetaData m =
      WithSchema({t, Group("list", 1, Repetition::kRepeated), Leaf("element", PhysicalType::kFloat),
                  s, Leaf("n", PhysicalType::kInt32)},
                 3);
  m.key_value_metadata = {{"ARROW:schema", encoded}, {"origin", "test"}};
  ASSERT_OK_AND_ASSIGN(Schema out, ArrowOf(m));
  EXPECT_TRUE(out.fields[0].type->Equals(*tensor.data_type())) << out.fields[0].type->ToString();
  EXPECT_EQ(out.fields[1].type->id(), TypeId::kLargeUtf8);
  EXPECT_EQ(out.fields[2].type->id(), TypeId::kInt32);  // utf8 does not fit INT32
  EXPECT_EQ(out.metadata, (KeyValueMetadata{{"origin", "test"}}));

  // An undecodable key: the Parquet types alone.
  m.key_value_metadata = {{"ARROW:schema", "not base64!"}};
  ASSERT_OK_AND_ASSIGN(out, ArrowOf(m));
  EXPECT_EQ(out.fields[0].type->id(), TypeId::kList);
  EXPECT_EQ(out.fields[1].type->id(), TypeId::kUtf8);
}

TEST(ParquetSchemaTest, MapWithoutValuesIsAListOfItsKeys) {
  // The format lets a MAP's key_value group leave the value out.
  SchemaElement map = Group("m", 1);
  map.logical_type.kind = LogicalType::kMap;
  FileMetaData m = WithSchema({map, Group("key_value", 1, Repetition::kRepeated),
                               Leaf("key", PhysicalType::kInt32, Repetition::kRequired)},
                              1);
  ASSERT_OK_AND_ASSIGN(Schema s, ArrowOf(m));
  EXPECT_TRUE(s.fields[0].type->Equals(*list(Field{"key", int32(), false})))
      << s.fields[0].type->ToString();
  m.schema[3].repetition = Repetition::kOptional;
  EXPECT_ERROR(kInvalid, "the keys of Parquet MAP 'm' are not required", ArrowOf(m));
}

TEST(ParquetSchemaTest, MalformedSchemasAreNamed) {
  EXPECT_ERROR(kInvalid, "has 3 children, but only 1 elements follow",
               ArrowOf(WithSchema({Leaf("a", PhysicalType::kInt32)}, 3)));
  EXPECT_ERROR(
      kInvalid, "lists 3 elements, but its root's tree holds 2",
      ArrowOf(WithSchema({Leaf("a", PhysicalType::kInt32), Leaf("b", PhysicalType::kInt32)}, 1)));
  SchemaElement typeless = Leaf("a", PhysicalType::kInt32);
  typeless.type.reset();
  EXPECT_ERROR(kInvalid, "('a') is a leaf without a physical type",
               ArrowOf(WithSchema({typeless}, 1)));
  EXPECT_ERROR(kInvalid, "('g') has no repetition",
               ArrowOf(WithSchema({Group("g", 0, std::nullopt)}, 1)));
  EXPECT_ERROR(kInvalid, "is a FIXED_LEN_BYTE_ARRAY of length 0",
               ArrowOf(WithSchema({Leaf("f", PhysicalType::kFixedLenByteArray)}, 1)));
  SchemaElement mismatch = Leaf("d", PhysicalType::kDouble);
  mismatch.logical_type.kind = LogicalType::kDate;
  EXPECT_ERROR(kInvalid, "is annotated DATE but stored as DOUBLE",
               ArrowOf(WithSchema({mismatch}, 1)));
  SchemaElement bson = Leaf("b", PhysicalType::kByteArray);
  bson.logical_type.kind = LogicalType::kBson;
  EXPECT_ERROR(kTypeError, "BSON or VARIANT", ArrowOf(WithSchema({bson}, 1)));
  SchemaElement two = Group("l", 2);
  two.logical_type.kind = LogicalType::kList;
  EXPECT_ERROR(kInvalid, "LIST group 'l' does not hold exactly one repeated field",
               ArrowOf(WithSchema({two, Leaf("a", PhysicalType::kInt32, Repetition::kRepeated),
                                   Leaf("b", PhysicalType::kInt32, Repetition::kRepeated)},
                                  1)));
  EXPECT_ERROR(kInvalid, "has no elements", ArrowOf(FileMetaData{}));
  // Each count fits what follows it, but a nested group takes elements a
  // later sibling was counted on: the schema ends before the root's last.
  EXPECT_ERROR(kInvalid, "has 2 children, but the schema ends after 1 of them",
               ArrowOf(WithSchema({Group("g", 1), Leaf("a", PhysicalType::kInt32)}, 2)));
}

TEST(ParquetSchemaTest, ListWhoseRepeatedGroupIsEmpty) {
  // A LIST group over a repeated group of no fields: by the two-level rule
  // the repeated group is the element, an empty struct (not a read of the
  // first of its no children).
  SchemaElement l = Group("l", 1);
  l.logical_type.kind = LogicalType::kList;
  ASSERT_OK_AND_ASSIGN(Schema s,
                       ArrowOf(WithSchema({l, Group("list", 0, Repetition::kRepeated)}, 1)));
  ASSERT_EQ(s.fields.size(), 1u);
  EXPECT_EQ(s.fields[0].type->id(), TypeId::kList);
  EXPECT_EQ(s.fields[0].type->children()[0].type->id(), TypeId::kStruct);
  EXPECT_TRUE(s.fields[0].type->children()[0].type->children().empty());
}

TEST(ParquetSchemaTest, NestingDeeperThanTheLimitIsRefused) {
  std::vector<SchemaElement> chain;
  for (int i = 0; i < 100; ++i) chain.push_back(Group("g" + std::to_string(i), 1));
  chain.push_back(Leaf("leaf", PhysicalType::kInt32));
  EXPECT_ERROR(kInvalid, "nests deeper than 64 levels", ArrowOf(WithSchema(chain, 1)));
}

}  // namespace
}  // namespace quiver::parquet
