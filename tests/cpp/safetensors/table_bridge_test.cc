// A safetensors file as a one-row table of fixed_shape_tensor columns and
// back: columns view the file's bytes, the dtype and metadata survive, and
// a table of another form is refused with the column named.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "quiver/fixed_shape_tensor.h"
#include "quiver/safetensors.h"
#include "test_util.h"

namespace quiver {
namespace {

using test::IotaOf;

Result<BufferPtr> Write(const std::vector<SafetensorsInput>& tensors,
                        const std::map<std::string, std::string>& metadata = {}) {
  io::BufferSink sink;
  QUIVER_RETURN_NOT_OK(WriteSafetensors(tensors, metadata, &sink));
  return sink.Finish();
}

// A one-column table whose chunks are `chunks` (each a fixed_shape_tensor
// array of `tensor`'s rows), under the field `field`.
TablePtr TableOf(Field field, std::vector<ArrayDataPtr> chunks) {
  auto schema = std::make_shared<Schema>();
  TypePtr type = field.type;
  schema->fields.push_back(std::move(field));
  auto column = *ChunkedArray::Make(type, std::move(chunks));
  return *Table::Make(schema, {column});
}

ArrayDataPtr Rows(const Tensor& tensor) {
  return FixedShapeTensorArray::FromTensor(tensor)->data();
}

TEST(SafetensorsTableTest, FileBecomesOneRowOfColumnsOverItsBytes) {
  Tensor w = IotaOf<float>(float32(), {2, 3});
  Tensor bits = IotaOf<uint16_t>(uint16(), {4});
  ASSERT_OK_AND_ASSIGN(BufferPtr bytes,
                       Write({{"w", w, ""}, {"b", bits, "BF16"}}, {{"format", "pt"}}));
  ASSERT_OK_AND_ASSIGN(SafetensorsFile file, SafetensorsFile::FromBuffer(bytes));
  ASSERT_OK_AND_ASSIGN(TablePtr table, SafetensorsToTable(file));
  EXPECT_EQ(table->num_rows(), 1);
  ASSERT_EQ(table->num_columns(), 2);
  const Schema& schema = *table->schema();
  EXPECT_EQ(schema.metadata, (KeyValueMetadata{{"format", "pt"}}));
  for (int i = 0; i < 2; ++i) {
    const SafetensorsEntry& entry = file.entries()[static_cast<size_t>(i)];
    const Field& field = schema.fields[static_cast<size_t>(i)];
    EXPECT_EQ(field.name, entry.name);
    EXPECT_EQ(field.metadata, (KeyValueMetadata{{kSafetensorsDtypeKey, entry.dtype}}));
    ASSERT_OK_AND_ASSIGN(auto array, FixedShapeTensorArray::Make(table->column(i)->chunk(0)));
    ASSERT_OK_AND_ASSIGN(Tensor row, array.RowTensor(0));
    EXPECT_EQ(row.shape(), entry.shape);
    // Zero-copy: the column's values are the file's bytes.
    EXPECT_EQ(row.raw_data(), bytes->data() + file.data_offset() + entry.begin);
  }
  ASSERT_OK_AND_ASSIGN(auto w_column, FixedShapeTensorArray::Make(table->column(0)->chunk(0)));
  ASSERT_OK_AND_ASSIGN(Tensor w_row, w_column.RowTensor(0));
  EXPECT_TRUE(w_row.Equals(w));
}

TEST(SafetensorsTableTest, TableWritesBackTheSameBytes) {
  Tensor a = IotaOf<int64_t>(int64(), {3});
  Tensor b = IotaOf<uint8_t>(uint8(), {2, 2});
  Tensor empty = IotaOf<int16_t>(int16(), {0, 5});
  ASSERT_OK_AND_ASSIGN(BufferPtr bytes,
                       Write({{"a", a, ""}, {"f8", b, "F8_E5M2"}, {"e", empty, ""}}, {{"k", "v"}}));
  ASSERT_OK_AND_ASSIGN(SafetensorsFile file, SafetensorsFile::FromBuffer(bytes));
  ASSERT_OK_AND_ASSIGN(TablePtr table, SafetensorsToTable(file));
  ASSERT_OK_AND_ASSIGN(SafetensorsContents contents, SafetensorsFromTable(*table));
  ASSERT_EQ(contents.tensors.size(), 3u);
  EXPECT_EQ(contents.tensors[1].name, "e");
  EXPECT_EQ(contents.tensors[2].dtype, "F8_E5M2");
  EXPECT_EQ(contents.metadata, (std::map<std::string, std::string>{{"k", "v"}}));
  ASSERT_OK_AND_ASSIGN(BufferPtr again, Write(contents.tensors, contents.metadata));
  ASSERT_EQ(again->size(), bytes->size());
  EXPECT_EQ(std::memcmp(again->data(), bytes->data(), static_cast<size_t>(bytes->size())), 0);
}

TEST(SafetensorsTableTest, RowMayBeInAnyChunkAndPermuted) {
  // The row sits in the second chunk; the first is empty.
  Tensor rows = IotaOf<float>(float32(), {1, 2, 3});
  ArrayDataPtr one = Rows(rows);
  ArrayDataPtr none = Rows(*rows.View({TensorIndex::Slice(0, 0)}));
  ASSERT_OK_AND_ASSIGN(SafetensorsContents contents,
                       SafetensorsFromTable(*TableOf({"x", one->type}, {none, one})));
  ASSERT_OK_AND_ASSIGN(Tensor expected, rows.View({TensorIndex::Integer(0)}));
  EXPECT_TRUE(contents.tensors[0].tensor.Equals(expected));
  EXPECT_EQ(contents.tensors[0].dtype, "");
  // A permuted column gives its logical tensor, written row-major.
  ASSERT_OK_AND_ASSIGN(Tensor transposed,
                       Tensor::Make(float32(), rows.buffer(), {1, 3, 2}, {24, 4, 12}));
  ASSERT_OK_AND_ASSIGN(auto permuted, FixedShapeTensorArray::FromTensor(transposed));
  ASSERT_OK_AND_ASSIGN(
      contents, SafetensorsFromTable(*TableOf({"t", permuted.data()->type}, {permuted.data()})));
  ASSERT_OK_AND_ASSIGN(expected, transposed.View({TensorIndex::Integer(0)}));
  EXPECT_TRUE(contents.tensors[0].tensor.Equals(expected));
}

TEST(SafetensorsTableTest, StaleDtypeGivesWayToTheElementType) {
  // A column rewritten as int32 keeps an "F32" note: int32 decides.
  Tensor rows = IotaOf<int32_t>(int32(), {1, 2});
  ArrayDataPtr one = Rows(rows);
  ASSERT_OK_AND_ASSIGN(SafetensorsContents contents,
                       SafetensorsFromTable(*TableOf(
                           {"x", one->type, true, {{kSafetensorsDtypeKey, "F32"}}}, {one})));
  EXPECT_EQ(contents.tensors[0].dtype, "");
  ASSERT_OK_AND_ASSIGN(BufferPtr bytes, Write(contents.tensors));
  ASSERT_OK_AND_ASSIGN(SafetensorsFile file, SafetensorsFile::FromBuffer(bytes));
  EXPECT_EQ(file.Find("x")->dtype, "I32");
}

TEST(SafetensorsTableTest, OtherTablesAreRefusedNamingWhatIsWrong) {
  Tensor rows = IotaOf<float>(float32(), {2, 3});
  ArrayDataPtr two = Rows(rows);
  EXPECT_ERROR(kInvalid, "the table holds 2 rows; a safetensors file is written from exactly one",
               SafetensorsFromTable(*TableOf({"x", two->type}, {two})));
  ArrayDataPtr none = Rows(*rows.View({TensorIndex::Slice(0, 0)}));
  EXPECT_ERROR(kInvalid, "holds 0 rows", SafetensorsFromTable(*TableOf({"x", none->type}, {none})));
  ArrayDataPtr ints = test::Primitive<int32_t>(int32(), {7});
  EXPECT_ERROR(kInvalid, "column 'n' is int32, not a fixed_shape_tensor",
               SafetensorsFromTable(*TableOf({"n", int32()}, {ints})));
  // A null row has no tensor to write.
  auto null_row = std::make_shared<ArrayData>(*Rows(*rows.View({TensorIndex::Slice(0, 1)})));
  null_row->buffers[0] = test::Bitmap({false});
  null_row->null_count = 1;
  EXPECT_ERROR(kInvalid, "column 'z'",
               SafetensorsFromTable(*TableOf({"z", null_row->type}, {null_row})));
}

}  // namespace
}  // namespace quiver
