// The bytes a few rows of an uncompressed record batch need: fixed-width
// values, booleans, fixed-size lists and structs give each row's own bytes
// (neighbours merged), validity bitmaps are read whole, and a column with
// offsets, views or a dictionary is refused, leaving nothing behind.
#include "quiver/dataset/row_ranges.h"

#include <gtest/gtest.h>

#include "ipc_test_util.h"
#include "sample_arrays.h"

namespace quiver::dataset {
namespace {

using test::Bitmap;
using test::Primitive;
using test::Utf8;

// The layout of `batch` written to a file and read back.
ipc::BatchLayout LayoutOf(const RecordBatchPtr& batch) {
  auto reader = *ipc::FileReader::Open(ipc::BufferSource(test::WriteFile({batch})));
  return *reader->RecordBatchLayout(0);
}

std::vector<BufferPiece> PiecesOf(const ipc::BatchLayout& layout, int column,
                                  std::vector<int64_t> rows) {
  std::vector<BufferPiece> out;
  EXPECT_TRUE(RowPieces(layout, layout.columns[static_cast<size_t>(column)], rows, &out));
  return out;
}

void ExpectPieces(const std::vector<BufferPiece>& got, const std::vector<BufferPiece>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].buffer, want[i].buffer) << "piece " << i;
    EXPECT_EQ(got[i].offset, want[i].offset) << "piece " << i;
    EXPECT_EQ(got[i].length, want[i].length) << "piece " << i;
  }
}

TEST(RowPieces, FixedWidthRowsGiveTheirOwnBytesAndNeighboursMerge) {
  // int32 with nulls, fixed_size_list<int16>[3], bool.
  ArrayDataPtr with_nulls =
      Primitive<int32_t>(int32(), {1, 2, 3, 4, 5, 6, 7, 8, 9, 10},
                         {true, true, false, true, true, true, true, true, true, true});
  auto triples = std::make_shared<ArrayData>();
  triples->type = *fixed_size_list(Field{"item", int16()}, 3);
  triples->length = 10;
  triples->buffers = {nullptr};
  triples->children = {Primitive<int16_t>(int16(), std::vector<int16_t>(30, 1))};
  auto flags = std::make_shared<ArrayData>();
  flags->type = boolean();
  flags->length = 10;
  flags->buffers = {nullptr,
                    Bitmap({true, false, true, false, true, false, true, false, true, true})};
  auto schema = std::make_shared<Schema>(
      Schema{{Field{"i", int32()}, Field{"t", triples->type}, Field{"b", boolean()}}});
  const ipc::BatchLayout layout =
      LayoutOf(*RecordBatch::Make(schema, 10, {with_nulls, triples, flags}));

  const ipc::FieldNodeLayout& i = layout.columns[0];
  const int64_t i_valid = i.buffers[0], i_values = i.buffers[1];
  ExpectPieces(PiecesOf(layout, 0, {1, 2, 7}),
               {{i_valid, 0, layout.buffers[static_cast<size_t>(i_valid)].length},
                {i_values, 4, 8},
                {i_values, 28, 4}});

  const int64_t t_values = layout.columns[1].children[0].buffers[1];
  ExpectPieces(PiecesOf(layout, 1, {0, 4}), {{t_values, 0, 6}, {t_values, 24, 6}});

  // Ten bits: rows 0 and 3 share byte 0, row 9 is in byte 1, which
  // touches it: one piece.
  const int64_t bits = layout.columns[2].buffers[1];
  ExpectPieces(PiecesOf(layout, 2, {0, 3}), {{bits, 0, 1}});
  ExpectPieces(PiecesOf(layout, 2, {0, 3, 9}), {{bits, 0, 2}});
}

TEST(RowPieces, StructsWalkTheirChildren) {
  ArrayDataPtr x = Primitive<double>(float64(), {1, 2, 3, 4});
  ArrayDataPtr y = Primitive<int8_t>(int8(), {1, 2, 3, 4});
  auto pair = std::make_shared<ArrayData>();
  pair->type = struct_({Field{"x", float64()}, Field{"y", int8()}});
  pair->length = 4;
  pair->buffers = {nullptr};
  pair->children = {x, y};
  auto schema = std::make_shared<Schema>(Schema{{Field{"p", pair->type}}});
  const ipc::BatchLayout layout = LayoutOf(*RecordBatch::Make(schema, 4, {pair}));
  const int64_t xs = layout.columns[0].children[0].buffers[1];
  const int64_t ys = layout.columns[0].children[1].buffers[1];
  ExpectPieces(PiecesOf(layout, 0, {3}), {{xs, 24, 8}, {ys, 3, 1}});
}

TEST(RowPieces, ColumnsWithOffsetsOrDictionariesAreRefusedLeavingNothing) {
  auto schema = std::make_shared<Schema>(Schema{{Field{"n", int64()}, Field{"s", utf8()}}});
  const ipc::BatchLayout layout = LayoutOf(
      *RecordBatch::Make(schema, 2, {Primitive<int64_t>(int64(), {1, 2}), Utf8({"a", "bc"})}));
  std::vector<BufferPiece> out;
  ASSERT_TRUE(RowPieces(layout, layout.columns[0], std::vector<int64_t>{1}, &out));
  const size_t before = out.size();
  EXPECT_FALSE(RowPieces(layout, layout.columns[1], std::vector<int64_t>{1}, &out));
  EXPECT_EQ(out.size(), before);

  ArrayDataPtr code = test::DictionaryOf({0, 1}, Utf8({"x", "y"}));
  auto coded = std::make_shared<Schema>(Schema{{Field{"c", code->type}}});
  auto reader = *ipc::FileReader::Open(
      ipc::BufferSource(test::WriteFile({*RecordBatch::Make(coded, 2, {code})})));
  const ipc::BatchLayout dictionary_layout = *reader->RecordBatchLayout(0);
  EXPECT_FALSE(
      RowPieces(dictionary_layout, dictionary_layout.columns[0], std::vector<int64_t>{0}, &out));
}

}  // namespace
}  // namespace quiver::dataset
