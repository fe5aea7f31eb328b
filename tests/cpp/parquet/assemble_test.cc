// Arrays from Parquet levels: flat columns of each physical type, nulls,
// three- and two-level lists, nested lists, structs, maps, fixed-size
// lists (the tensor fast path without a copy, and rows that are null),
// the tensor extension types, the types an ARROW:schema key restores, and
// every contradiction between levels, values and schema.
#include "quiver/parquet/assemble.h"

#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "quiver/fixed_shape_tensor.h"
#include "quiver/internal/base64.h"
#include "quiver/io.h"
#include "quiver/ipc.h"
#include "quiver/record_batch.h"
#include "quiver/variable_shape_tensor.h"
#include "test_util.h"

namespace quiver::parquet {
namespace {

using Levels = std::vector<int16_t>;

SchemaElement Group(std::string name, int32_t children,
                    Repetition repetition = Repetition::kOptional,
                    LogicalType::Kind kind = LogicalType::kNone) {
  SchemaElement e;
  e.name = std::move(name);
  e.num_children = children;
  e.repetition = repetition;
  e.logical_type.kind = kind;
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

SchemaElement StringLeaf(std::string name, Repetition repetition = Repetition::kOptional) {
  SchemaElement e = Leaf(std::move(name), PhysicalType::kByteArray, repetition);
  e.logical_type.kind = LogicalType::kString;
  return e;
}

// A leaf's chunk: fixed-width values (BOOLEAN as one byte each).
template <typename T>
ColumnChunkData Chunk(PhysicalType type, const std::vector<T>& values, Levels def = {},
                      Levels rep = {}, int32_t type_length = 0) {
  ColumnChunkData c;
  c.values = *ColumnValues::Make(type, type_length);
  if (!values.empty()) {
    EXPECT_TRUE(c.values.fixed.Append(values.data(), sizeof(T) * values.size()).ok());
  }
  c.values.count = static_cast<int64_t>(values.size());
  if (type == PhysicalType::kFixedLenByteArray || type == PhysicalType::kInt96) {
    c.values.count = static_cast<int64_t>(values.size() * sizeof(T)) / c.values.width;
  }
  c.num_levels = !def.empty()   ? static_cast<int64_t>(def.size())
                 : !rep.empty() ? static_cast<int64_t>(rep.size())
                                : c.values.count;
  c.all_defined = def.empty();
  c.def_levels = std::move(def);
  c.rep_levels = std::move(rep);
  return c;
}

ColumnChunkData Strings(const std::vector<std::string>& values, Levels def = {}, Levels rep = {}) {
  ColumnChunkData c;
  c.values = *ColumnValues::Make(PhysicalType::kByteArray, 0);
  int32_t end = 0;
  for (const std::string& v : values) {
    EXPECT_TRUE(c.values.bytes.Append(v.data(), static_cast<int64_t>(v.size())).ok());
    end += static_cast<int32_t>(v.size());
    EXPECT_TRUE(c.values.offsets.Append(&end, 4).ok());
  }
  c.values.count = static_cast<int64_t>(values.size());
  c.num_levels = !def.empty()   ? static_cast<int64_t>(def.size())
                 : !rep.empty() ? static_cast<int64_t>(rep.size())
                                : c.values.count;
  c.all_defined = def.empty();
  c.def_levels = std::move(def);
  c.rep_levels = std::move(rep);
  return c;
}

template <typename... Chunks>
std::vector<ColumnChunkData> Leaves(Chunks... chunks) {
  std::vector<ColumnChunkData> out;
  (out.push_back(std::move(chunks)), ...);
  return out;
}

// The schema tree of one top-level field (`elements`: it and its
// descendants, depth first), read as its Parquet type or as `type` (which
// must fit it, as ArrowSchemaOf requires), then checked by Validate.
Result<ArrayDataPtr> Assemble(std::vector<SchemaElement> elements,
                              std::vector<ColumnChunkData> leaves, int64_t rows,
                              TypePtr type = nullptr, std::optional<bool> nullable = {},
                              bool fits = true) {
  FileMetaData m;
  SchemaElement root = Group("schema", 1);
  root.repetition.reset();
  m.schema.push_back(root);
  for (SchemaElement& e : elements) m.schema.push_back(std::move(e));
  QUIVER_ASSIGN_OR_RETURN(SchemaNode tree, BuildSchemaTree(m, "t.parquet"));
  QUIVER_ASSIGN_OR_RETURN(Field field, ParquetField(tree.children[0], "t.parquet"));
  if (type) {
    if (fits && !FitsParquetType(*type, *field.type)) {
      return Status::TypeError(type->ToString(), " does not fit ", field.type->ToString());
    }
    field.type = type;
  }
  if (nullable) field.nullable = *nullable;
  QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr out,
                          AssembleColumn(tree.children[0], field, &leaves, rows, "t.parquet"));
  QUIVER_RETURN_NOT_OK(Validate(*out));
  return out;
}

template <typename T>
std::vector<T> Values(const ArrayData& a) {
  std::vector<T> out(static_cast<size_t>(a.length));
  if (a.length > 0) {
    std::memcpy(out.data(), a.buffers[1]->data() + a.offset * sizeof(T), out.size() * sizeof(T));
  }
  return out;
}

std::vector<bool> Valid(const ArrayData& a) {
  std::vector<bool> out;
  for (int64_t i = 0; i < a.length; ++i) out.push_back(a.IsValid(i));
  return out;
}

std::vector<std::string> Texts(const ArrayData& a) {
  std::vector<std::string> out;
  for (int64_t i = 0; i < a.length; ++i) {
    Range r = ValueRange(a, i);
    out.emplace_back(reinterpret_cast<const char*>(a.buffers[2]->data()) + r.begin,
                     static_cast<size_t>(r.length()));
  }
  return out;
}

TEST(ParquetAssembleTest, RequiredColumnsMoveTheDecodedBuffers) {
  ColumnChunkData chunk = Chunk<int32_t>(PhysicalType::kInt32, {1, -2, 3});
  const uint8_t* decoded = chunk.values.fixed.data();
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr a,
                       Assemble({Leaf("x", PhysicalType::kInt32, Repetition::kRequired)},
                                Leaves(std::move(chunk)), 3));
  EXPECT_EQ(a->type->id(), TypeId::kInt32);
  EXPECT_EQ(a->null_count, 0);
  EXPECT_EQ(a->buffers[1]->data(), decoded);  // no copy
  EXPECT_EQ(Values<int32_t>(*a), (std::vector<int32_t>{1, -2, 3}));

  ASSERT_OK_AND_ASSIGN(a, Assemble({Leaf("d", PhysicalType::kDouble, Repetition::kRequired)},
                                   Leaves(Chunk<double>(PhysicalType::kDouble, {0.5, 2.0})), 2));
  EXPECT_EQ(Values<double>(*a), (std::vector<double>{0.5, 2.0}));
  ASSERT_OK_AND_ASSIGN(a, Assemble({Leaf("f", PhysicalType::kFloat)},
                                   Leaves(Chunk<float>(PhysicalType::kFloat, {1.5f})), 1));
  EXPECT_EQ(Values<float>(*a), (std::vector<float>{1.5f}));
}

TEST(ParquetAssembleTest, OptionalColumnsSpreadValuesOverNullSlots) {
  ASSERT_OK_AND_ASSIGN(
      ArrayDataPtr a,
      Assemble({Leaf("x", PhysicalType::kInt64)},
               Leaves(Chunk<int64_t>(PhysicalType::kInt64, {7, 9}, {1, 0, 0, 1})), 4));
  EXPECT_EQ(a->null_count, 2);
  EXPECT_EQ(Valid(*a), (std::vector<bool>{true, false, false, true}));
  EXPECT_EQ(Values<int64_t>(*a), (std::vector<int64_t>{7, 0, 0, 9}));

  // An optional column without nulls (all_defined): no bitmap.
  ASSERT_OK_AND_ASSIGN(a, Assemble({Leaf("x", PhysicalType::kInt64)},
                                   Leaves(Chunk<int64_t>(PhysicalType::kInt64, {7, 9})), 2));
  EXPECT_EQ(a->buffers[0], nullptr);
  EXPECT_EQ(a->null_count, 0);
}

TEST(ParquetAssembleTest, LongColumnsSpreadInRuns) {
  // 16 values, 16 nulls, then every third slot null: whole bytes of the
  // bitmap set, clear and mixed, for 8-byte and 3-byte values.
  Levels def;
  std::vector<int64_t> values;
  std::vector<int64_t> expected;
  std::string raw, expected_raw;
  for (int i = 0; i < 100; ++i) {
    const bool valid = i < 16 || (i >= 32 && i % 3 != 0);
    def.push_back(valid ? 1 : 0);
    expected.push_back(valid ? 1000 + i : 0);
    const char bytes[3] = {static_cast<char>(i), 'b', 'c'};
    expected_raw.append(valid ? std::string(bytes, 3) : std::string(3, '\0'));
    if (!valid) continue;
    values.push_back(1000 + i);
    raw.append(bytes, 3);
  }
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr a,
                       Assemble({Leaf("x", PhysicalType::kInt64)},
                                Leaves(Chunk<int64_t>(PhysicalType::kInt64, values, def)), 100));
  EXPECT_EQ(Values<int64_t>(*a), expected);
  EXPECT_EQ(a->null_count, 100 - static_cast<int64_t>(values.size()));
  SchemaElement fixed = Leaf("f", PhysicalType::kFixedLenByteArray);
  fixed.type_length = 3;
  ASSERT_OK_AND_ASSIGN(
      a, Assemble({fixed},
                  Leaves(Chunk<char>(PhysicalType::kFixedLenByteArray,
                                     std::vector<char>(raw.begin(), raw.end()), def, {}, 3)),
                  100));
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(a->buffers[1]->data()), 300), expected_raw);
}

TEST(ParquetAssembleTest, BooleansPackIntoBits) {
  ASSERT_OK_AND_ASSIGN(
      ArrayDataPtr a,
      Assemble({Leaf("b", PhysicalType::kBoolean)},
               Leaves(Chunk<uint8_t>(PhysicalType::kBoolean, {1, 0, 1}, {1, 1, 0, 1})), 4));
  EXPECT_EQ(a->type->id(), TypeId::kBool);
  EXPECT_EQ(Valid(*a), (std::vector<bool>{true, true, false, true}));
  std::vector<bool> bits;
  for (int64_t i = 0; i < 4; ++i) bits.push_back(GetBool(*a, i));
  EXPECT_EQ(bits, (std::vector<bool>{true, false, false, true}));
}

TEST(ParquetAssembleTest, LogicalTypesConvertTheirValues) {
  // INTEGER(8) and INTEGER(16, unsigned) narrow from INT32.
  SchemaElement i8 = Leaf("i8", PhysicalType::kInt32, Repetition::kRequired);
  i8.logical_type.kind = LogicalType::kInteger;
  i8.logical_type.bit_width = 8;
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr a,
                       Assemble({i8}, Leaves(Chunk<int32_t>(PhysicalType::kInt32, {-3, 127})), 2));
  EXPECT_EQ(a->type->id(), TypeId::kInt8);
  EXPECT_EQ(Values<int8_t>(*a), (std::vector<int8_t>{-3, 127}));
  SchemaElement u16 = i8;
  u16.logical_type.bit_width = 16;
  u16.logical_type.is_signed = false;
  ASSERT_OK_AND_ASSIGN(a,
                       Assemble({u16}, Leaves(Chunk<int32_t>(PhysicalType::kInt32, {65535})), 1));
  EXPECT_EQ(Values<uint16_t>(*a), (std::vector<uint16_t>{65535}));

  // DATE and TIMESTAMP as they are; a timestamp read in another unit.
  SchemaElement date = Leaf("d", PhysicalType::kInt32);
  date.logical_type.kind = LogicalType::kDate;
  ASSERT_OK_AND_ASSIGN(a,
                       Assemble({date}, Leaves(Chunk<int32_t>(PhysicalType::kInt32, {19000})), 1));
  EXPECT_EQ(a->type->id(), TypeId::kDate32);
  SchemaElement ts = Leaf("t", PhysicalType::kInt64);
  ts.logical_type.kind = LogicalType::kTimestamp;
  ts.logical_type.unit = TimeUnit::kMilli;
  ASSERT_OK_AND_ASSIGN(a, Assemble({ts}, Leaves(Chunk<int64_t>(PhysicalType::kInt64, {1500})), 1));
  EXPECT_EQ(a->type->ToString(), (*timestamp(TimeUnit::kMilli))->ToString());
  EXPECT_EQ(Values<int64_t>(*a), (std::vector<int64_t>{1500}));
  ASSERT_OK_AND_ASSIGN(a, Assemble({ts}, Leaves(Chunk<int64_t>(PhysicalType::kInt64, {1500})), 1,
                                   *timestamp(TimeUnit::kMilli)));
  // A duration (what an Arrow writer stores as plain INT64).
  ASSERT_OK_AND_ASSIGN(a, Assemble({Leaf("dur", PhysicalType::kInt64)},
                                   Leaves(Chunk<int64_t>(PhysicalType::kInt64, {42})), 1,
                                   *duration(TimeUnit::kMicro)));
  EXPECT_EQ(a->type->id(), TypeId::kDuration);
  EXPECT_EQ(Values<int64_t>(*a), (std::vector<int64_t>{42}));
}

TEST(ParquetAssembleTest, Int96IsNanosecondsSinceTheEpoch) {
  // Julian day 2440589 (1970-01-02) plus 5 ns; and the epoch itself.
  std::vector<uint8_t> raw(24, 0);
  const int64_t nanos = 5;
  const int32_t day = 2440589, epoch = 2440588;
  std::memcpy(raw.data(), &nanos, 8);
  std::memcpy(raw.data() + 8, &day, 4);
  std::memcpy(raw.data() + 20, &epoch, 4);
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr a,
                       Assemble({Leaf("t", PhysicalType::kInt96, Repetition::kRequired)},
                                Leaves(Chunk<uint8_t>(PhysicalType::kInt96, raw)), 2));
  EXPECT_EQ(a->type->ToString(), (*timestamp(TimeUnit::kNano))->ToString());
  EXPECT_EQ(Values<int64_t>(*a), (std::vector<int64_t>{86400LL * 1000000000LL + 5, 0}));
}

TEST(ParquetAssembleTest, FixedLenByteArraysAsBinaryDecimalAndFloat16) {
  SchemaElement raw = Leaf("raw", PhysicalType::kFixedLenByteArray);
  raw.type_length = 3;
  ASSERT_OK_AND_ASSIGN(
      ArrayDataPtr a,
      Assemble({raw},
               Leaves(Chunk<uint8_t>(PhysicalType::kFixedLenByteArray, {1, 2, 3}, {0, 1}, {}, 3)),
               2));
  EXPECT_EQ(a->type->id(), TypeId::kFixedSizeBinary);
  EXPECT_EQ(Valid(*a), (std::vector<bool>{false, true}));
  EXPECT_EQ(std::memcmp(a->buffers[1]->data() + 3, "\x01\x02\x03", 3), 0);

  // DECIMAL(10, 2) in 5 big-endian bytes: -2 and 258, sign-extended to 16
  // little-endian bytes.
  SchemaElement money = Leaf("m", PhysicalType::kFixedLenByteArray, Repetition::kRequired);
  money.type_length = 5;
  money.logical_type.kind = LogicalType::kDecimal;
  money.logical_type.precision = 10;
  money.logical_type.scale = 2;
  ASSERT_OK_AND_ASSIGN(
      a, Assemble({money},
                  Leaves(Chunk<uint8_t>(PhysicalType::kFixedLenByteArray,
                                        {0xff, 0xff, 0xff, 0xff, 0xfe, 0, 0, 0, 1, 2}, {}, {}, 5)),
                  2));
  EXPECT_EQ(a->type->id(), TypeId::kDecimal128);
  std::vector<int64_t> words(4);
  std::memcpy(words.data(), a->buffers[1]->data(), 32);
  EXPECT_EQ(words, (std::vector<int64_t>{-2, -1, 258, 0}));

  // DECIMAL on INT32: sign-extended.
  SchemaElement small = Leaf("s", PhysicalType::kInt32, Repetition::kRequired);
  small.logical_type.kind = LogicalType::kDecimal;
  small.logical_type.precision = 5;
  ASSERT_OK_AND_ASSIGN(a, Assemble({small}, Leaves(Chunk<int32_t>(PhysicalType::kInt32, {-7})), 1));
  std::memcpy(words.data(), a->buffers[1]->data(), 16);
  EXPECT_EQ(words[0], -7);
  EXPECT_EQ(words[1], -1);

  // DECIMAL(40) on BYTE_ARRAY: decimal256.
  SchemaElement big = Leaf("b", PhysicalType::kByteArray, Repetition::kRequired);
  big.logical_type.kind = LogicalType::kDecimal;
  big.logical_type.precision = 40;
  ASSERT_OK_AND_ASSIGN(a, Assemble({big}, Leaves(Strings({std::string("\x01\x00", 2)})), 1));
  EXPECT_EQ(a->type->id(), TypeId::kDecimal256);
  std::memcpy(words.data(), a->buffers[1]->data(), 32);
  EXPECT_EQ(words, (std::vector<int64_t>{256, 0, 0, 0}));

  SchemaElement half = Leaf("h", PhysicalType::kFixedLenByteArray, Repetition::kRequired);
  half.type_length = 2;
  half.logical_type.kind = LogicalType::kFloat16;
  ASSERT_OK_AND_ASSIGN(
      a,
      Assemble({half},
               Leaves(Chunk<uint16_t>(PhysicalType::kFixedLenByteArray, {0x3c00}, {}, {}, 2)), 1));
  EXPECT_EQ(a->type->id(), TypeId::kFloat16);
  EXPECT_EQ(Values<uint16_t>(*a), (std::vector<uint16_t>{0x3c00}));
}

TEST(ParquetAssembleTest, StringsWithNullsAsUtf8LargeUtf8ViewsAndDictionaries) {
  auto chunk = [] { return Strings({"a", "a much longer string", "a"}, {1, 0, 1, 1}); };
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr a, Assemble({StringLeaf("s")}, Leaves(chunk()), 4));
  EXPECT_EQ(a->type->id(), TypeId::kUtf8);
  EXPECT_EQ(Valid(*a), (std::vector<bool>{true, false, true, true}));
  EXPECT_EQ(Texts(*a), (std::vector<std::string>{"a", "", "a much longer string", "a"}));

  ASSERT_OK_AND_ASSIGN(a, Assemble({StringLeaf("s")}, Leaves(chunk()), 4, large_utf8()));
  EXPECT_EQ(a->type->id(), TypeId::kLargeUtf8);
  EXPECT_EQ(Texts(*a), (std::vector<std::string>{"a", "", "a much longer string", "a"}));
  EXPECT_EQ(a->null_count, 1);

  ASSERT_OK_AND_ASSIGN(a, Assemble({StringLeaf("s")}, Leaves(chunk()), 4, utf8_view()));
  EXPECT_EQ(a->type->id(), TypeId::kUtf8View);
  EXPECT_EQ(Valid(*a), (std::vector<bool>{true, false, true, true}));
  int32_t length = 0;
  std::memcpy(&length, a->buffers[1]->data() + 32, 4);
  EXPECT_EQ(length, 20);

  ASSERT_OK_AND_ASSIGN(
      a, Assemble({StringLeaf("s")}, Leaves(chunk()), 4, *dictionary(int32(), utf8())));
  EXPECT_EQ(a->type->id(), TypeId::kDictionary);
  EXPECT_EQ(Valid(*a), (std::vector<bool>{true, false, true, true}));
  EXPECT_EQ(DictionaryIndex(*a, 0), 0);
  EXPECT_EQ(DictionaryIndex(*a, 2), 1);
  EXPECT_EQ(DictionaryIndex(*a, 3), 0);
  EXPECT_EQ(Texts(*a->dictionary), (std::vector<std::string>{"a", "a much longer string"}));

  // Plain BYTE_ARRAY: binary.
  ASSERT_OK_AND_ASSIGN(a, Assemble({Leaf("b", PhysicalType::kByteArray, Repetition::kRequired)},
                                   Leaves(Strings({"x", ""})), 2));
  EXPECT_EQ(a->type->id(), TypeId::kBinary);
  EXPECT_EQ(Texts(*a), (std::vector<std::string>{"x", ""}));
}

// optional group l (LIST) { repeated group list { optional int32 element } }
std::vector<SchemaElement> ThreeLevelList() {
  return {Group("l", 1, Repetition::kOptional, LogicalType::kList),
          Group("list", 1, Repetition::kRepeated), Leaf("element", PhysicalType::kInt32)};
}

TEST(ParquetAssembleTest, ThreeLevelListsWithNullAndEmptyListsAndNullElements) {
  // [[1, null, 2], null, [], [3]]
  auto chunk = [] {
    return Chunk<int32_t>(PhysicalType::kInt32, {1, 2, 3}, {3, 2, 3, 0, 1, 3}, {0, 1, 1, 0, 0, 0});
  };
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr a, Assemble(ThreeLevelList(), Leaves(chunk()), 4));
  EXPECT_EQ(a->type->id(), TypeId::kList);
  EXPECT_EQ(Valid(*a), (std::vector<bool>{true, false, true, true}));
  EXPECT_EQ(Values<int32_t>(*a), (std::vector<int32_t>{0, 3, 3, 3}));  // offsets
  EXPECT_EQ(std::memcmp(a->buffers[1]->data() + 16, "\x04\0\0\0", 4), 0);
  const ArrayData& items = *a->children[0];
  EXPECT_EQ(Valid(items), (std::vector<bool>{true, false, true, true}));
  EXPECT_EQ(Values<int32_t>(items), (std::vector<int32_t>{1, 0, 2, 3}));

  // Read as large_list: int64 offsets.
  ASSERT_OK_AND_ASSIGN(a, Assemble(ThreeLevelList(), Leaves(chunk()), 4,
                                   large_list(Field{"element", int32(), true})));
  EXPECT_EQ(a->type->id(), TypeId::kLargeList);
  std::vector<int64_t> offsets(5);
  std::memcpy(offsets.data(), a->buffers[1]->data(), 40);
  EXPECT_EQ(offsets, (std::vector<int64_t>{0, 3, 3, 3, 4}));

  // And as list_view: offsets and sizes.
  ASSERT_OK_AND_ASSIGN(a, Assemble(ThreeLevelList(), Leaves(chunk()), 4,
                                   list_view(Field{"element", int32(), true})));
  EXPECT_EQ(a->buffers.size(), 3u);
  std::vector<int32_t> sizes(4);
  std::memcpy(sizes.data(), a->buffers[2]->data(), 16);
  EXPECT_EQ(sizes, (std::vector<int32_t>{3, 0, 0, 1}));
}

TEST(ParquetAssembleTest, TwoLevelListsAndBareRepeatedFields) {
  // optional group l (LIST) { repeated int32 array }: [[1, 2], [], null]
  ASSERT_OK_AND_ASSIGN(
      ArrayDataPtr a,
      Assemble({Group("l", 1, Repetition::kOptional, LogicalType::kList),
                Leaf("array", PhysicalType::kInt32, Repetition::kRepeated)},
               Leaves(Chunk<int32_t>(PhysicalType::kInt32, {1, 2}, {2, 2, 1, 0}, {0, 1, 0, 0})),
               3));
  EXPECT_EQ(Valid(*a), (std::vector<bool>{true, true, false}));
  EXPECT_EQ(Values<int32_t>(*a), (std::vector<int32_t>{0, 2, 2}));
  EXPECT_FALSE(a->type->children()[0].nullable);
  EXPECT_EQ(Values<int32_t>(*a->children[0]), (std::vector<int32_t>{1, 2}));

  // A two-level list of a repeated group of two fields: list<struct>.
  ASSERT_OK_AND_ASSIGN(
      a, Assemble({Group("l", 1, Repetition::kRequired, LogicalType::kList),
                   Group("pair", 2, Repetition::kRepeated),
                   Leaf("x", PhysicalType::kInt32, Repetition::kRequired),
                   StringLeaf("y", Repetition::kRequired)},
                  Leaves(Chunk<int32_t>(PhysicalType::kInt32, {1, 2}, {1, 1, 0}, {0, 1, 0}),
                         Strings({"p", "q"}, {1, 1, 0}, {0, 1, 0})),
                  2));
  EXPECT_EQ(a->type->children()[0].type->id(), TypeId::kStruct);
  EXPECT_EQ(Values<int32_t>(*a), (std::vector<int32_t>{0, 2}));
  EXPECT_EQ(Texts(*a->children[0]->children[1]), (std::vector<std::string>{"p", "q"}));

  // repeated int32 r outside a LIST: a non-null list of required values.
  ASSERT_OK_AND_ASSIGN(
      a, Assemble({Leaf("r", PhysicalType::kInt32, Repetition::kRepeated)},
                  Leaves(Chunk<int32_t>(PhysicalType::kInt32, {1, 2}, {1, 1, 0}, {0, 1, 0})), 2));
  EXPECT_EQ(a->type->id(), TypeId::kList);
  EXPECT_EQ(a->null_count, 0);
  EXPECT_EQ(Values<int32_t>(*a), (std::vector<int32_t>{0, 2}));
}

TEST(ParquetAssembleTest, NestedLists) {
  // [[[1, 2], [3]], [null, []], null]
  ASSERT_OK_AND_ASSIGN(
      ArrayDataPtr a,
      Assemble({Group("o", 1, Repetition::kOptional, LogicalType::kList),
                Group("list", 1, Repetition::kRepeated),
                Group("element", 1, Repetition::kOptional, LogicalType::kList),
                Group("list", 1, Repetition::kRepeated), Leaf("element", PhysicalType::kInt32)},
               Leaves(Chunk<int32_t>(PhysicalType::kInt32, {1, 2, 3}, {5, 5, 5, 2, 3, 0},
                                     {0, 2, 1, 0, 1, 0})),
               3));
  EXPECT_EQ(Valid(*a), (std::vector<bool>{true, true, false}));
  EXPECT_EQ(Values<int32_t>(*a), (std::vector<int32_t>{0, 2, 4}));
  const ArrayData& inner = *a->children[0];
  EXPECT_EQ(Valid(inner), (std::vector<bool>{true, true, false, true}));
  EXPECT_EQ(Values<int32_t>(inner), (std::vector<int32_t>{0, 2, 3, 3}));
  EXPECT_EQ(Values<int32_t>(*inner.children[0]), (std::vector<int32_t>{1, 2, 3}));
}

TEST(ParquetAssembleTest, StructsWithOptionalChildrenAndNullStructs) {
  // {a: 1, b: "x"}, null, {a: null, b: "z"}
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr a,
                       Assemble({Group("s", 2), Leaf("a", PhysicalType::kInt32),
                                 StringLeaf("b", Repetition::kRequired)},
                                Leaves(Chunk<int32_t>(PhysicalType::kInt32, {1}, {2, 0, 1}),
                                       Strings({"x", "z"}, {1, 0, 1})),
                                3));
  EXPECT_EQ(Valid(*a), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(Valid(*a->children[0]), (std::vector<bool>{true, false, false}));
  EXPECT_EQ(Values<int32_t>(*a->children[0]), (std::vector<int32_t>{1, 0, 0}));
  // b is required: under the null struct it is an empty string, not a null.
  EXPECT_EQ(a->children[1]->null_count, 0);
  EXPECT_EQ(Texts(*a->children[1]), (std::vector<std::string>{"x", "", "z"}));
}

TEST(ParquetAssembleTest, ListsOfStructs) {
  // [{a: 1, b: "x"}, null], null, [{a: null, b: "y"}]
  // optional group l (LIST) { repeated group list { optional group element
  //   { optional int32 a; required binary b (STRING) } } }
  ASSERT_OK_AND_ASSIGN(
      ArrayDataPtr a,
      Assemble({Group("l", 1, Repetition::kOptional, LogicalType::kList),
                Group("list", 1, Repetition::kRepeated), Group("element", 2),
                Leaf("a", PhysicalType::kInt32), StringLeaf("b", Repetition::kRequired)},
               Leaves(Chunk<int32_t>(PhysicalType::kInt32, {1}, {4, 2, 0, 3}, {0, 1, 0, 0}),
                      Strings({"x", "y"}, {3, 2, 0, 3}, {0, 1, 0, 0})),
               3));
  EXPECT_EQ(Valid(*a), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(Values<int32_t>(*a), (std::vector<int32_t>{0, 2, 2}));
  const ArrayData& element = *a->children[0];
  EXPECT_EQ(Valid(element), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(Valid(*element.children[0]), (std::vector<bool>{true, false, false}));
  EXPECT_EQ(Texts(*element.children[1]), (std::vector<std::string>{"x", "", "y"}));
}

TEST(ParquetAssembleTest, Maps) {
  // {a: 1, b: null}, null, {}
  SchemaElement key = StringLeaf("key", Repetition::kRequired);
  ASSERT_OK_AND_ASSIGN(
      ArrayDataPtr a,
      Assemble(
          {Group("m", 1, Repetition::kOptional, LogicalType::kMap),
           Group("key_value", 2, Repetition::kRepeated), key, Leaf("value", PhysicalType::kInt32)},
          Leaves(Strings({"a", "b"}, {2, 2, 0, 1}, {0, 1, 0, 0}),
                 Chunk<int32_t>(PhysicalType::kInt32, {1}, {3, 2, 0, 1}, {0, 1, 0, 0})),
          3));
  EXPECT_EQ(a->type->id(), TypeId::kMap);
  EXPECT_EQ(Valid(*a), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(Values<int32_t>(*a), (std::vector<int32_t>{0, 2, 2}));
  const ArrayData& entries = *a->children[0];
  EXPECT_EQ(Texts(*entries.children[0]), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(Valid(*entries.children[1]), (std::vector<bool>{true, false}));
}

TEST(ParquetAssembleTest, MapWithoutValuesIsAListOfItsKeys) {
  // [1, 2], null, []: a MAP whose key_value group holds a key and no value.
  ASSERT_OK_AND_ASSIGN(
      ArrayDataPtr a,
      Assemble({Group("m", 1, Repetition::kOptional, LogicalType::kMap),
                Group("key_value", 1, Repetition::kRepeated),
                Leaf("key", PhysicalType::kInt32, Repetition::kRequired)},
               Leaves(Chunk<int32_t>(PhysicalType::kInt32, {1, 2}, {2, 2, 0, 1}, {0, 1, 0, 0})),
               3));
  EXPECT_EQ(a->type->id(), TypeId::kList);
  EXPECT_EQ(Valid(*a), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(Values<int32_t>(*a), (std::vector<int32_t>{0, 2, 2}));
  EXPECT_EQ(Values<int32_t>(*a->children[0]), (std::vector<int32_t>{1, 2}));
}

// optional group t (LIST) { repeated group list { required float element } }
std::vector<SchemaElement> FloatList() {
  return {Group("t", 1, Repetition::kOptional, LogicalType::kList),
          Group("list", 1, Repetition::kRepeated),
          Leaf("element", PhysicalType::kFloat, Repetition::kRequired)};
}

TEST(ParquetAssembleTest, FixedSizeListFastPathMovesTheValues) {
  // No definition levels (all defined) and no repetition levels (the
  // reader checked the rows): the child is the decoded buffer itself.
  ColumnChunkData chunk = Chunk<float>(PhysicalType::kFloat, {1, 2, 3, 4, 5, 6});
  const uint8_t* decoded = chunk.values.fixed.data();
  ASSERT_OK_AND_ASSIGN(TypePtr fsl, fixed_size_list(Field{"element", float32(), false}, 3));
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr a, Assemble(FloatList(), Leaves(std::move(chunk)), 2, fsl));
  EXPECT_EQ(a->length, 2);
  EXPECT_EQ(a->null_count, 0);
  EXPECT_EQ(a->children[0]->length, 6);
  EXPECT_EQ(a->children[0]->buffers[1]->data(), decoded);

  // As arrow.fixed_shape_tensor (what the ARROW:schema key restores).
  ASSERT_OK_AND_ASSIGN(FixedShapeTensorType tensor, FixedShapeTensorType::Make(float32(), {3}));
  chunk = Chunk<float>(PhysicalType::kFloat, {1, 2, 3, 4, 5, 6});
  decoded = chunk.values.fixed.data();
  ASSERT_OK_AND_ASSIGN(a, Assemble(FloatList(), Leaves(std::move(chunk)), 2, tensor.data_type()));
  EXPECT_EQ(a->type->extension_name(), "arrow.fixed_shape_tensor");
  EXPECT_EQ(a->children[0]->buffers[1]->data(), decoded);
  ASSERT_OK_AND_ASSIGN(FixedShapeTensorArray array, FixedShapeTensorArray::Make(a));
  EXPECT_EQ(array.length(), 2);
}

TEST(ParquetAssembleTest, TypesTheArrowSchemaKeyRestores) {
  // What an Arrow writer leaves: a fixed_shape_tensor column and a
  // large_utf8 one, read through ArrowSchemaOf as a reader would.
  ASSERT_OK_AND_ASSIGN(FixedShapeTensorType tensor, FixedShapeTensorType::Make(int64(), {2}));
  auto arrow = std::make_shared<Schema>();
  arrow->fields = {Field{"t", tensor.data_type(), true}, Field{"s", large_utf8(), true}};
  auto sink = std::make_shared<io::BufferSink>();
  { ASSERT_OK_AND_ASSIGN(auto writer, ipc::StreamWriter::Open(sink, arrow)); }
  ASSERT_OK_AND_ASSIGN(BufferPtr bytes, sink->Finish());
  FileMetaData m;
  m.schema = {Group("schema", 2), Group("t", 1, Repetition::kOptional, LogicalType::kList),
              Group("list", 1, Repetition::kRepeated), Leaf("element", PhysicalType::kInt64),
              StringLeaf("s")};
  m.schema[0].repetition.reset();
  m.key_value_metadata = {{"ARROW:schema", internal::EncodeBase64(std::string_view(
                                               reinterpret_cast<const char*>(bytes->data()),
                                               static_cast<size_t>(bytes->size())))}};
  ASSERT_OK_AND_ASSIGN(SchemaNode tree, BuildSchemaTree(m, "t.parquet"));
  ASSERT_OK_AND_ASSIGN(Schema schema, ArrowSchemaOf(m, tree, "t.parquet"));

  std::vector<ColumnChunkData> t = Leaves(Chunk<int64_t>(PhysicalType::kInt64, {1, 2, 3, 4}));
  const uint8_t* decoded = t[0].values.fixed.data();
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr a,
                       AssembleColumn(tree.children[0], schema.fields[0], &t, 2, "t.parquet"));
  ASSERT_OK(Validate(*a));
  EXPECT_TRUE(a->type->Equals(*tensor.data_type()));
  EXPECT_EQ(a->children[0]->buffers[1]->data(), decoded);

  std::vector<ColumnChunkData> s_leaves = Leaves(Strings({"x"}, {0, 1}));
  ASSERT_OK_AND_ASSIGN(
      a, AssembleColumn(tree.children[1], schema.fields[1], &s_leaves, 2, "t.parquet"));
  ASSERT_OK(Validate(*a));
  EXPECT_EQ(a->type->id(), TypeId::kLargeUtf8);
  EXPECT_EQ(Texts(*a), (std::vector<std::string>{"", "x"}));
}

TEST(ParquetAssembleTest, FixedSizeListNullRowsTakeZeroEntries) {
  // [1, 2, 3], null, [4, 5, 6]: with and without repetition levels.
  ASSERT_OK_AND_ASSIGN(TypePtr fsl, fixed_size_list(Field{"element", float32(), false}, 3));
  for (bool rep : {false, true}) {
    SCOPED_TRACE(rep);
    ColumnChunkData chunk =
        Chunk<float>(PhysicalType::kFloat, {1, 2, 3, 4, 5, 6}, {2, 2, 2, 0, 2, 2, 2},
                     rep ? Levels{0, 1, 1, 0, 0, 1, 1} : Levels{});
    ASSERT_OK_AND_ASSIGN(ArrayDataPtr a, Assemble(FloatList(), Leaves(std::move(chunk)), 3, fsl));
    EXPECT_EQ(Valid(*a), (std::vector<bool>{true, false, true}));
    EXPECT_EQ(a->children[0]->null_count, 0);
    EXPECT_EQ(Values<float>(*a->children[0]), (std::vector<float>{1, 2, 3, 0, 0, 0, 4, 5, 6}));
  }
}

TEST(ParquetAssembleTest, VariableShapeTensors) {
  // Storage struct<data: list<float>, shape: fixed_size_list<int32>[2]>:
  // a 2x2 tensor, a 1x3 one, a null row.
  ASSERT_OK_AND_ASSIGN(VariableShapeTensorType tensor, VariableShapeTensorType::Make(float32(), 2));
  ASSERT_OK_AND_ASSIGN(
      ArrayDataPtr a,
      Assemble({Group("vt", 2), Group("data", 1, Repetition::kOptional, LogicalType::kList),
                Group("list", 1, Repetition::kRepeated), Leaf("element", PhysicalType::kFloat),
                Group("shape", 1, Repetition::kOptional, LogicalType::kList),
                Group("list", 1, Repetition::kRepeated), Leaf("element", PhysicalType::kInt32)},
               Leaves(Chunk<float>(PhysicalType::kFloat, {1, 2, 3, 4, 5, 6, 7},
                                   {4, 4, 4, 4, 4, 4, 4, 0}, {0, 1, 1, 1, 0, 1, 1, 0}),
                      Chunk<int32_t>(PhysicalType::kInt32, {2, 2, 1, 3}, {4, 4, 4, 4, 0},
                                     {0, 1, 0, 1, 0})),
               3, tensor.data_type()));
  EXPECT_EQ(a->type->extension_name(), "arrow.variable_shape_tensor");
  EXPECT_EQ(Valid(*a), (std::vector<bool>{true, true, false}));
  const ArrayData& shape = *a->children[1];
  EXPECT_EQ(Values<int32_t>(*shape.children[0]), (std::vector<int32_t>{2, 2, 1, 3, 0, 0}));
  ASSERT_OK_AND_ASSIGN(VariableShapeTensorArray array, VariableShapeTensorArray::Make(a));
  EXPECT_EQ(array.length(), 3);
}

TEST(ParquetAssembleTest, ContradictionsAreInvalidAndNameTheColumn) {
  const auto optional_int = [] {
    return std::vector<SchemaElement>{Leaf("x", PhysicalType::kInt32)};
  };
  // More values than the levels say.
  EXPECT_ERROR(
      kInvalid, "column 'x': the levels hold 1 values, but 2 were decoded",
      Assemble(optional_int(), Leaves(Chunk<int32_t>(PhysicalType::kInt32, {1, 2}, {1, 0})), 2));
  // Another row count.
  EXPECT_ERROR(
      kInvalid, "the levels hold 2 rows, not 3",
      Assemble(optional_int(), Leaves(Chunk<int32_t>(PhysicalType::kInt32, {1}, {1, 0})), 3));
  // A definition level above the maximum.
  EXPECT_ERROR(
      kInvalid, "definition level 2 at level 1 outside [0, 1]",
      Assemble(optional_int(), Leaves(Chunk<int32_t>(PhysicalType::kInt32, {1}, {1, 2})), 2));
  // A repetition level above the maximum, and a first one that repeats.
  EXPECT_ERROR(kInvalid, "repetition level 2 at level 1 outside [0, 1]",
               Assemble(ThreeLevelList(),
                        Leaves(Chunk<int32_t>(PhysicalType::kInt32, {1, 2}, {3, 3}, {0, 2})), 1));
  EXPECT_ERROR(kInvalid, "the first repetition level is 1, not 0",
               Assemble(ThreeLevelList(),
                        Leaves(Chunk<int32_t>(PhysicalType::kInt32, {1, 2}, {3, 3}, {1, 1})), 0));
  // A repetition that continues a null list.
  EXPECT_ERROR(kInvalid, "continues a list that is null or empty",
               Assemble(ThreeLevelList(),
                        Leaves(Chunk<int32_t>(PhysicalType::kInt32, {1}, {0, 3}, {0, 1})), 1));
  // A null where the Arrow field is not nullable.
  EXPECT_ERROR(kInvalid, "a null in a field that is not nullable",
               Assemble(optional_int(), Leaves(Chunk<int32_t>(PhysicalType::kInt32, {1}, {1, 0})),
                        2, nullptr, false));
  // Values whose buffer disagrees with their count.
  ColumnChunkData short_values = Chunk<int32_t>(PhysicalType::kInt32, {1, 2});
  short_values.values.fixed.Shrink(4);
  EXPECT_ERROR(kInvalid, "2 values of 4 bytes, but 4 bytes of them",
               Assemble({Leaf("x", PhysicalType::kInt32, Repetition::kRequired)},
                        Leaves(std::move(short_values)), 2));
  // No definition levels for a column that says not all levels are defined.
  ColumnChunkData undefined = Chunk<int32_t>(PhysicalType::kInt32, {1, 2});
  undefined.all_defined = false;
  EXPECT_ERROR(kInvalid, "no definition levels, but not every level is defined",
               Assemble(optional_int(), Leaves(std::move(undefined)), 2));
  // Leaves missing.
  EXPECT_ERROR(
      kInvalid, "the column has 2 leaves, but 1 were given",
      Assemble({Group("s", 2), Leaf("a", PhysicalType::kInt32), Leaf("b", PhysicalType::kInt32)},
               Leaves(Chunk<int32_t>(PhysicalType::kInt32, {1})), 1));
}

TEST(ParquetAssembleTest, FixedSizeListRowsOfAnotherLengthAreInvalid) {
  ASSERT_OK_AND_ASSIGN(TypePtr fsl, fixed_size_list(Field{"element", float32(), false}, 3));
  // With repetition levels: a row of 2.
  EXPECT_ERROR(kInvalid, "row 1 is a list of 2 values, not fixed_size_list[3]'s 3",
               Assemble(FloatList(),
                        Leaves(Chunk<float>(PhysicalType::kFloat, {1, 2, 3, 4, 5}, {2, 2, 2, 2, 2},
                                            {0, 1, 1, 0, 1})),
                        2, fsl));
  // An empty (not null) row.
  EXPECT_ERROR(
      kInvalid, "row 0 is a list of 0 values",
      Assemble(FloatList(), Leaves(Chunk<float>(PhysicalType::kFloat, {}, {1}, {0})), 1, fsl));
  // Without repetition levels: values that do not make whole rows.
  EXPECT_ERROR(
      kInvalid, "4 values do not make rows of fixed_size_list[3]",
      Assemble(FloatList(), Leaves(Chunk<float>(PhysicalType::kFloat, {1, 2, 3, 4})), 1, fsl));
  EXPECT_ERROR(
      kInvalid, "a row at level 3 of 1 values, not fixed_size_list[3]'s 3",
      Assemble(FloatList(),
               Leaves(Chunk<float>(PhysicalType::kFloat, {1, 2, 3, 4}, {2, 2, 2, 2, 0})), 2, fsl));
  // No repetition levels for a column in a variable-size list.
  EXPECT_ERROR(kInvalid,
               "no repetition levels, but the column is not in exactly one fixed-size list",
               Assemble(FloatList(), Leaves(Chunk<float>(PhysicalType::kFloat, {1, 2, 3})), 1));
}

TEST(ParquetAssembleTest, LeavesOfOneGroupThatDisagreeAreInvalid) {
  // list<struct<a, b>>: one row each, but 2 entries of a and 1 of b.
  const auto pairs = [] {
    return std::vector<SchemaElement>{Group("l", 1, Repetition::kRequired, LogicalType::kList),
                                      Group("pair", 2, Repetition::kRepeated),
                                      Leaf("a", PhysicalType::kInt32, Repetition::kRequired),
                                      Leaf("b", PhysicalType::kInt32, Repetition::kRequired)};
  };
  EXPECT_ERROR(kInvalid,
               "column 'l': its columns disagree on the entries of slot 0: 2 in 'l.pair.a', 1 in "
               "'l.pair.b'",
               Assemble(pairs(),
                        Leaves(Chunk<int32_t>(PhysicalType::kInt32, {1, 2}, {1, 1}, {0, 1}),
                               Chunk<int32_t>(PhysicalType::kInt32, {1}, {1}, {0})),
                        1));
  // As many entries in all, spread over the rows otherwise: [[1, 2], [3]]
  // and [[1], [2, 3]].
  EXPECT_ERROR(
      kInvalid, "disagree on the entries of slot 0",
      Assemble(pairs(),
               Leaves(Chunk<int32_t>(PhysicalType::kInt32, {1, 2, 3}, {1, 1, 1}, {0, 1, 0}),
                      Chunk<int32_t>(PhysicalType::kInt32, {1, 2, 3}, {1, 1, 1}, {0, 0, 1})),
               2));
  // An Arrow type that does not fit the Parquet node.
  FileMetaData m;
  m.schema = {Group("schema", 1), Leaf("x", PhysicalType::kInt32)};
  m.schema[0].repetition.reset();
  ASSERT_OK_AND_ASSIGN(SchemaNode tree, BuildSchemaTree(m, "t"));
  std::vector<ColumnChunkData> leaves = Leaves(Chunk<int32_t>(PhysicalType::kInt32, {1}));
  const Field wrong{"x", struct_({Field{"y", int32()}}), true};
  EXPECT_ERROR(kInvalid, "does not fit the Parquet",
               AssembleColumn(tree.children[0], wrong, &leaves, 1, "t"));
}

TEST(ParquetAssembleTest, NestedFixedSizeListsFillNullRowsAtEveryLevel) {
  // fixed_size_list<fixed_size_list<int32, 2>, 2>:
  // [[1, 2], [3, 4]], null, [null, [5, 6]]
  ASSERT_OK_AND_ASSIGN(TypePtr inner, fixed_size_list(Field{"element", int32(), false}, 2));
  ASSERT_OK_AND_ASSIGN(TypePtr outer, fixed_size_list(Field{"element", inner, true}, 2));
  ASSERT_OK_AND_ASSIGN(
      ArrayDataPtr a,
      Assemble({Group("o", 1, Repetition::kOptional, LogicalType::kList),
                Group("list", 1, Repetition::kRepeated),
                Group("element", 1, Repetition::kOptional, LogicalType::kList),
                Group("list", 1, Repetition::kRepeated),
                Leaf("element", PhysicalType::kInt32, Repetition::kRequired)},
               Leaves(Chunk<int32_t>(PhysicalType::kInt32, {1, 2, 3, 4, 5, 6},
                                     {4, 4, 4, 4, 0, 2, 4, 4}, {0, 2, 1, 2, 0, 0, 1, 2})),
               3, outer));
  EXPECT_EQ(Valid(*a), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(Valid(*a->children[0]), (std::vector<bool>{true, true, true, true, false, true}));
  EXPECT_EQ(Values<int32_t>(*a->children[0]->children[0]),
            (std::vector<int32_t>{1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 5, 6}));
}

TEST(ParquetAssembleTest, FixedSizeListsTooLargeToFillAreInvalid) {
  // One null row of fixed_size_list<fixed_size_list<int32, 2^30>, 2^30>
  // would take 2^60 zeros.
  ASSERT_OK_AND_ASSIGN(TypePtr inner, fixed_size_list(Field{"element", int32(), false}, 1 << 30));
  ASSERT_OK_AND_ASSIGN(TypePtr outer, fixed_size_list(Field{"element", inner, true}, 1 << 30));
  EXPECT_ERROR(kInvalid, "1152921504606846976 slots, more than 2^57",
               Assemble({Group("o", 1, Repetition::kOptional, LogicalType::kList),
                         Group("list", 1, Repetition::kRepeated),
                         Group("element", 1, Repetition::kOptional, LogicalType::kList),
                         Group("list", 1, Repetition::kRepeated),
                         Leaf("element", PhysicalType::kInt32, Repetition::kRequired)},
                        Leaves(Chunk<int32_t>(PhysicalType::kInt32, {}, {0}, {0})), 1, outer));
}

TEST(ParquetAssembleTest, FixedSizeListWithoutRepetitionLevelsInsideAStruct) {
  // struct<t: fixed_size_list<float, 2>>, the reader having left out the
  // repetition levels: the struct's rows come from the list size.
  ASSERT_OK_AND_ASSIGN(TypePtr fsl, fixed_size_list(Field{"element", float32(), false}, 2));
  std::vector<SchemaElement> elements = FloatList();
  elements.insert(elements.begin(), Group("s", 1));
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr a,
                       Assemble(elements, Leaves(Chunk<float>(PhysicalType::kFloat, {1, 2, 3, 4})),
                                2, struct_({Field{"t", fsl, true}})));
  EXPECT_EQ(a->length, 2);
  EXPECT_EQ(a->children[0]->length, 2);
  EXPECT_EQ(Values<float>(*a->children[0]->children[0]), (std::vector<float>{1, 2, 3, 4}));
}

TEST(ParquetAssembleTest, DictionariesOfNumbersAndTimestampsInOtherUnits) {
  ASSERT_OK_AND_ASSIGN(
      ArrayDataPtr a,
      Assemble({Leaf("x", PhysicalType::kInt32)},
               Leaves(Chunk<int32_t>(PhysicalType::kInt32, {5, 6, 5}, {1, 1, 0, 1})), 4,
               *dictionary(int8(), int32())));
  EXPECT_EQ(a->dictionary->length, 2);
  EXPECT_EQ(Values<int32_t>(*a->dictionary), (std::vector<int32_t>{5, 6}));
  EXPECT_EQ(Values<int8_t>(*a), (std::vector<int8_t>{0, 1, 0, 0}));
  EXPECT_EQ(Valid(*a), (std::vector<bool>{true, true, false, true}));

  // TIMESTAMP(MILLIS) read as seconds and as microseconds; INT96 as
  // microseconds.
  SchemaElement ts = Leaf("t", PhysicalType::kInt64, Repetition::kRequired);
  ts.logical_type.kind = LogicalType::kTimestamp;
  ts.logical_type.unit = TimeUnit::kMilli;
  ASSERT_OK_AND_ASSIGN(a, Assemble({ts}, Leaves(Chunk<int64_t>(PhysicalType::kInt64, {3000})), 1,
                                   *timestamp(TimeUnit::kSecond), {}, false));
  EXPECT_EQ(Values<int64_t>(*a), (std::vector<int64_t>{3}));
  // A value the coarser unit cannot hold whole is an error, never truncated.
  EXPECT_ERROR(kInvalid, "value 0 (2500) is not a whole number of the unit",
               Assemble({ts}, Leaves(Chunk<int64_t>(PhysicalType::kInt64, {2500})), 1,
                        *timestamp(TimeUnit::kSecond), {}, false));
  ASSERT_OK_AND_ASSIGN(a, Assemble({ts}, Leaves(Chunk<int64_t>(PhysicalType::kInt64, {2500})), 1,
                                   *timestamp(TimeUnit::kMicro), {}, false));
  EXPECT_EQ(Values<int64_t>(*a), (std::vector<int64_t>{2500000}));
  std::vector<uint8_t> raw(12, 0);
  const int64_t nanos = 7000;
  const int32_t epoch = 2440588;
  std::memcpy(raw.data(), &nanos, 8);
  std::memcpy(raw.data() + 8, &epoch, 4);
  ASSERT_OK_AND_ASSIGN(a, Assemble({Leaf("t", PhysicalType::kInt96, Repetition::kRequired)},
                                   Leaves(Chunk<uint8_t>(PhysicalType::kInt96, raw)), 1,
                                   *timestamp(TimeUnit::kMicro), {}, false));
  EXPECT_EQ(Values<int64_t>(*a), (std::vector<int64_t>{7}));
  // A type the physical type does not read as.
  EXPECT_ERROR(
      kNotImplemented, "does not read Parquet INT64 values as utf8",
      Assemble({ts}, Leaves(Chunk<int64_t>(PhysicalType::kInt64, {1})), 1, utf8(), {}, false));
}

// Random levels, values and row counts, within and outside what the
// schema allows: every outcome is an error or an array that validates.
TEST(ParquetAssembleTest, RandomLevelsNeverCrash) {
  ASSERT_OK_AND_ASSIGN(TypePtr fsl, fixed_size_list(Field{"element", float32(), false}, 2));
  ASSERT_OK_AND_ASSIGN(TypePtr fsl_int, fixed_size_list(Field{"element", int32(), true}, 2));
  struct Case {
    std::vector<SchemaElement> elements;
    TypePtr type;
  };
  std::vector<Case> cases = {
      {ThreeLevelList(), nullptr},
      {ThreeLevelList(), fsl_int},
      {FloatList(), fsl},
      {{Group("o", 1, Repetition::kOptional, LogicalType::kList),
        Group("list", 1, Repetition::kRepeated),
        Group("element", 1, Repetition::kOptional, LogicalType::kList),
        Group("list", 1, Repetition::kRepeated), Leaf("element", PhysicalType::kInt32)},
       nullptr},
      {{Group("s", 2), Leaf("a", PhysicalType::kInt32),
        Leaf("r", PhysicalType::kInt32, Repetition::kRepeated)},
       nullptr},
      {{Group("m", 1, Repetition::kOptional, LogicalType::kMap),
        Group("key_value", 2, Repetition::kRepeated),
        Leaf("key", PhysicalType::kInt32, Repetition::kRequired),
        Leaf("value", PhysicalType::kInt32)},
       nullptr},
  };
  std::mt19937 random(42);
  int ok = 0;
  for (const Case& c : cases) {
    FileMetaData m;
    m.schema.push_back(Group("schema", 1));
    m.schema[0].repetition.reset();
    for (const SchemaElement& e : c.elements) m.schema.push_back(e);
    ASSERT_OK_AND_ASSIGN(SchemaNode tree, BuildSchemaTree(m, "t"));
    ASSERT_OK_AND_ASSIGN(Field field, ParquetField(tree.children[0], "t"));
    if (c.type) field.type = c.type;
    std::vector<const SchemaNode*> leaf_nodes;
    std::vector<const SchemaNode*> stack = {&tree.children[0]};
    while (!stack.empty()) {
      const SchemaNode* n = stack.back();
      stack.pop_back();
      if (n->is_leaf()) leaf_nodes.push_back(n);
      for (auto it = n->children.rbegin(); it != n->children.rend(); ++it) stack.push_back(&*it);
    }
    for (int iteration = 0; iteration < 3000; ++iteration) {
      const bool wild = iteration % 4 == 0;
      int64_t rows = std::uniform_int_distribution<int64_t>(0, 4)(random);
      std::vector<ColumnChunkData> leaves;
      for (const SchemaNode* leaf : leaf_nodes) {
        const int16_t max_def = leaf->max_definition_level, max_rep = leaf->max_repetition_level;
        const int n = std::uniform_int_distribution<int>(0, 10)(random);
        Levels def, rep;
        int64_t values = 0, leaf_rows = 0;
        for (int i = 0; i < n; ++i) {
          int16_t d = static_cast<int16_t>(
              std::uniform_int_distribution<int>(wild ? -1 : 0, max_def + (wild ? 1 : 0))(random));
          int16_t r = static_cast<int16_t>(
              std::uniform_int_distribution<int>(wild ? -1 : 0, max_rep + (wild ? 1 : 0))(random));
          if (!wild && i == 0) r = 0;
          if (!wild && r > 0 && d < max_def) d = max_def;  // mostly consistent
          def.push_back(d);
          rep.push_back(r);
          values += d == max_def;
          leaf_rows += r == 0;
        }
        if (!wild) rows = leaf_rows;
        if (wild) values = std::uniform_int_distribution<int64_t>(0, n)(random);
        const bool drop_rep = max_rep > 0 && random() % 5 == 0;
        const bool drop_def = random() % 5 == 0;
        ColumnChunkData chunk;
        chunk.values = *ColumnValues::Make(*leaf->element->type, leaf->element->type_length);
        for (int64_t v = 0; v < values; ++v) {
          const int32_t x = static_cast<int32_t>(v);
          ASSERT_OK(chunk.values.fixed.Append(&x, chunk.values.width));
        }
        chunk.values.count = values;
        chunk.num_levels = n;
        if (!drop_def && max_def > 0) chunk.def_levels = def;
        chunk.all_defined = chunk.def_levels.empty();
        if (!drop_rep && max_rep > 0) chunk.rep_levels = rep;
        leaves.push_back(std::move(chunk));
      }
      auto out = AssembleColumn(tree.children[0], field, &leaves, rows, "t");
      if (out.ok()) {
        ++ok;
        ASSERT_OK(Validate(**out));
        EXPECT_EQ((*out)->length, rows);
      } else {
        EXPECT_EQ(out.status().code(), StatusCode::kInvalid) << out.status().ToString();
      }
    }
  }
  EXPECT_GT(ok, 100);
}

}  // namespace
}  // namespace quiver::parquet
