// Table: Make and FromRecordBatches checks, column verbs (select, remove,
// rename, add, set), row verbs (slice, take, filter), CombineChunks,
// ToRecordBatches at chunk boundaries of every column, ConcatenateTables.
#include "quiver/table.h"

#include <string>
#include <vector>

#include "test_util.h"

namespace quiver {

using test::Primitive;
using test::Utf8;

namespace {

SchemaPtr IdName() {
  auto schema = std::make_shared<Schema>();
  schema->fields = {Field{"id", int32()}, Field{"name", utf8()}};
  schema->metadata = {{"k", "v"}};
  return schema;
}

// ids chunked [0, 1, 2] [3, 4]; names chunked [a] [b, c, d, e].
TablePtr FiveRows() {
  ChunkedArrayPtr ids = *ChunkedArray::Make(
      int32(), {Primitive<int32_t>(int32(), {0, 1, 2}), Primitive<int32_t>(int32(), {3, 4})});
  ChunkedArrayPtr names =
      *ChunkedArray::Make(utf8(), {Utf8({"a"}), Utf8({"b", std::nullopt, "d", "e"})});
  return *Table::Make(IdName(), {ids, names});
}

ChunkedArrayPtr Ints(const std::vector<int32_t>& values) {
  return *ChunkedArray::Make(int32(), {Primitive<int32_t>(int32(), values)});
}

}  // namespace

TEST(Table, MakeChecksTypesAndLengths) {
  TablePtr table = FiveRows();
  EXPECT_EQ(table->num_rows(), 5);
  EXPECT_EQ(table->FieldIndex("name"), 1);
  EXPECT_ERROR(kTypeError, "column 1 (name) is int32, its field says utf8",
               Table::Make(IdName(), {Ints({1}), Ints({1})}));
  EXPECT_ERROR(kInvalid, "column 1 (name) has 2 rows, 1 expected",
               Table::Make(IdName(), {Ints({1}), *ChunkedArray::Make(utf8(), {Utf8({"a", "b"})})}));
  EXPECT_ERROR(kInvalid, "1 columns for 2 fields", Table::Make(IdName(), {Ints({1})}));
}

// ValidateColumn names the column before ChunkedArray::Validate's chunk.
TEST(Table, ValidateColumnNamesTheColumnAndChunk) {
  auto backwards = std::make_shared<ArrayData>(*Utf8({"ab", "c"}));
  backwards->buffers[1] = test::BufferOf(std::vector<int32_t>{0, 2, 1});
  ChunkedArrayPtr names = *ChunkedArray::Make(utf8(), {Utf8({"a"}), backwards});
  TablePtr table = *Table::Make(IdName(), {Ints({1, 2, 3}), names});
  ASSERT_OK(table->ValidateColumn(0));
  EXPECT_ERROR(kInvalid, "column 1 (name): chunk 1: offset 2 (1) < offset 1 (2)",
               table->ValidateColumn(1));
  EXPECT_ERROR(kInvalid, "column 1 (name): record batch 5: offset 2",
               table->ValidateColumn(1, ValidationLevel::kFull, 2, "record batch", 4));
  ASSERT_OK(table->ValidateColumn(1, ValidationLevel::kDefault));
}

TEST(Table, ToRecordBatchesCutsWhereAnyColumnsChunkEnds) {
  TablePtr table = FiveRows();
  ASSERT_OK_AND_ASSIGN(std::vector<RecordBatchPtr> batches, table->ToRecordBatches());
  std::vector<int64_t> rows;
  for (const RecordBatchPtr& batch : batches) rows.push_back(batch->num_rows());
  EXPECT_EQ(rows, (std::vector<int64_t>{1, 2, 2}));
  ASSERT_OK_AND_ASSIGN(batches, table->ToRecordBatches(1));
  EXPECT_EQ(batches.size(), 5u);
  ASSERT_OK_AND_ASSIGN(TablePtr back, Table::FromRecordBatches(table->schema(), batches));
  EXPECT_TRUE(back->Equals(*table));
}

// As pyarrow's to_batches: ids [0 1 2] [] [3 4], names [a] [] [b c d e] ->
// 1, 0 (names' empty chunk), 2, 0 (ids' empty chunk), 2; empty chunks after
// the last row, and a table of no rows, give no batch.
TEST(Table, ToRecordBatchesKeepsEmptyChunksBeforeTheLastRow) {
  ChunkedArrayPtr ids = *ChunkedArray::Make(
      int32(), {Primitive<int32_t>(int32(), {0, 1, 2}), Primitive<int32_t>(int32(), {}),
                Primitive<int32_t>(int32(), {3, 4}), Primitive<int32_t>(int32(), {})});
  ChunkedArrayPtr names = *ChunkedArray::Make(
      utf8(), {Utf8({"a"}), Utf8({}), Utf8({"b", std::nullopt, "d", "e"}), Utf8({})});
  TablePtr table = *Table::Make(IdName(), {ids, names});
  auto rows_of = [](const std::vector<RecordBatchPtr>& batches) {
    std::vector<int64_t> rows;
    for (const RecordBatchPtr& batch : batches) rows.push_back(batch->num_rows());
    return rows;
  };
  ASSERT_OK_AND_ASSIGN(std::vector<RecordBatchPtr> batches, table->ToRecordBatches());
  EXPECT_EQ(rows_of(batches), (std::vector<int64_t>{1, 0, 2, 0, 2}));
  ASSERT_OK_AND_ASSIGN(TablePtr back, Table::FromRecordBatches(table->schema(), batches));
  EXPECT_TRUE(back->Equals(*table));
  ASSERT_OK_AND_ASSIGN(batches, table->ToRecordBatches(2));
  EXPECT_EQ(rows_of(batches), (std::vector<int64_t>{1, 0, 2, 0, 2}));

  ChunkedArrayPtr no_ids = *ChunkedArray::Make(
      int32(), {Primitive<int32_t>(int32(), {}), Primitive<int32_t>(int32(), {})});
  ChunkedArrayPtr no_names = *ChunkedArray::Make(utf8(), {Utf8({})});
  ASSERT_OK_AND_ASSIGN(batches, (*Table::Make(IdName(), {no_ids, no_names}))->ToRecordBatches());
  EXPECT_TRUE(batches.empty());
}

TEST(Table, ColumnVerbs) {
  TablePtr table = FiveRows();
  ASSERT_OK_AND_ASSIGN(TablePtr swapped, table->SelectColumns(std::vector<int>{1, 0}));
  EXPECT_EQ(swapped->schema()->fields[0].name, "name");
  EXPECT_EQ(swapped->schema()->metadata, table->schema()->metadata);
  EXPECT_ERROR(kIndexError, "column 2 is out of range for 2 columns",
               table->SelectColumns(std::vector<int>{2}));
  ASSERT_OK_AND_ASSIGN(TablePtr removed, table->RemoveColumn(0));
  EXPECT_EQ(removed->num_columns(), 1);
  EXPECT_EQ(removed->num_rows(), 5);
  std::vector<std::string> names = {"x", "y"};
  ASSERT_OK_AND_ASSIGN(TablePtr renamed, table->RenameColumns(names));
  EXPECT_EQ(renamed->schema()->fields[1].name, "y");
  EXPECT_ERROR(kInvalid, "got 1 names for 2 columns",
               table->RenameColumns(std::vector<std::string>{"x"}));
  ASSERT_OK_AND_ASSIGN(TablePtr added,
                       table->AddColumn(1, Field{"n", int32()}, Ints({5, 6, 7, 8, 9})));
  EXPECT_EQ(added->schema()->fields[1].name, "n");
  EXPECT_ERROR(kInvalid, "column 'n' has 2 rows, the table 5",
               table->AddColumn(0, Field{"n", int32()}, Ints({1, 2})));
  EXPECT_ERROR(kTypeError, "column 'n' is int32, its field says utf8",
               table->AddColumn(0, Field{"n", utf8()}, Ints({1, 2, 3, 4, 5})));
  EXPECT_ERROR(kIndexError, "position 3", table->AddColumn(3, Field{"n", int32()}, Ints({1})));
  ASSERT_OK_AND_ASSIGN(TablePtr set,
                       table->SetColumn(0, Field{"id2", int32()}, Ints({9, 9, 9, 9, 9})));
  EXPECT_EQ(set->schema()->fields[0].name, "id2");
  // A table without columns takes its first column's length.
  ASSERT_OK_AND_ASSIGN(TablePtr bare, removed->RemoveColumn(0));
  ASSERT_OK_AND_ASSIGN(TablePtr grown, bare->AddColumn(0, Field{"n", int32()}, Ints({1, 2})));
  EXPECT_EQ(grown->num_rows(), 2);
}

TEST(Table, RowVerbs) {
  TablePtr table = FiveRows();
  ASSERT_OK_AND_ASSIGN(TablePtr sliced, table->Slice(2, 2));
  EXPECT_EQ(sliced->num_rows(), 2);
  EXPECT_TRUE(sliced->column(1)->Equals(**ChunkedArray::Make(utf8(), {Utf8({std::nullopt, "d"})})));
  EXPECT_ERROR(kIndexError, "slice [4, +2) is out of range for 5 rows", table->Slice(4, 2));

  ASSERT_OK_AND_ASSIGN(TablePtr taken, table->Take(std::vector<int64_t>{4, 0, 2}));
  EXPECT_TRUE(taken->column(0)->Equals(*Ints({4, 0, 2})));
  EXPECT_TRUE(
      taken->column(1)->Equals(**ChunkedArray::Make(utf8(), {Utf8({"e", "a", std::nullopt})})));
  EXPECT_ERROR(kIndexError, "index 7 at position 1", table->Take(std::vector<int64_t>{0, 7}));

  ASSERT_OK_AND_ASSIGN(TablePtr kept, table->Filter(std::vector<uint8_t>{1, 0, 0, 0, 1}));
  EXPECT_TRUE(kept->column(0)->Equals(*Ints({0, 4})));
  EXPECT_ERROR(kInvalid, "filter mask has 1 entries for 5 rows",
               table->Filter(std::vector<uint8_t>{1}));

  ASSERT_OK_AND_ASSIGN(TablePtr combined, table->CombineChunks());
  EXPECT_EQ(combined->column(0)->num_chunks(), 1);
  EXPECT_TRUE(combined->Equals(*table));
}

TEST(Table, ConcatenateKeepsChunksAndChecksSchemas) {
  TablePtr table = FiveRows();
  std::vector<TablePtr> two = {table, table};
  ASSERT_OK_AND_ASSIGN(TablePtr joined, ConcatenateTables(two));
  EXPECT_EQ(joined->num_rows(), 10);
  EXPECT_EQ(joined->column(0)->num_chunks(), 4);
  EXPECT_EQ(joined->column(0)->chunk(2).get(), table->column(0)->chunk(0).get());
  std::vector<TablePtr> mixed = {table, *table->RemoveColumn(0)};
  EXPECT_ERROR(kInvalid, "table 1 has another schema", ConcatenateTables(mixed));
  EXPECT_ERROR(kInvalid, "at least one", ConcatenateTables(std::vector<TablePtr>{}));

  // Metadata may differ (schema or field), as pyarrow allows; table 0's is kept.
  auto plain = std::make_shared<Schema>(*table->schema());
  plain->metadata = {};
  plain->fields[1].metadata = {{"origin", "x"}};
  std::vector<TablePtr> tagged = {table, *Table::Make(plain, table->columns())};
  ASSERT_OK_AND_ASSIGN(TablePtr kept, ConcatenateTables(tagged));
  EXPECT_EQ(kept->schema()->metadata, table->schema()->metadata);
  EXPECT_EQ(kept->num_rows(), 10);
  ASSERT_OK_AND_ASSIGN(auto batches, table->ToRecordBatches());
  ASSERT_OK_AND_ASSIGN(TablePtr from_batches, Table::FromRecordBatches(plain, batches));
  EXPECT_TRUE(from_batches->schema()->Equals(*plain));
  auto renamed = std::make_shared<Schema>(*plain);
  renamed->fields[0].name = "key";
  EXPECT_ERROR(kInvalid, "record batch 0 has another schema",
               Table::FromRecordBatches(renamed, batches));
}

}  // namespace quiver
