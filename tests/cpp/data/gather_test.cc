// Column plans (which types are read, pad values, output names) and the
// gather of scalar, bool and fixed-shape columns from rows of several
// record batches, null rows as zeros.
#include "quiver/data/gather.h"

#include <gtest/gtest.h>

#include <cstring>

#include "data_test_util.h"

namespace quiver::data {
namespace {

using test::TempDir;

// Rows `rows` of `dataset` as gather input.
std::vector<RowRef> Refs(BatchSource& dataset, const std::vector<int64_t>& rows) {
  std::vector<RowRef> refs;
  for (int64_t row : rows) {
    RowLocation at = dataset.Locate(row);
    // Memory-mapped: the dataset keeps every loaded batch.
    refs.push_back({dataset.Load(at.record_batch)->get(), at.record_batch, at.row});
  }
  return refs;
}

GatherContext Context(BufferPool* pool, RaggedLayout ragged = RaggedLayout::kPadded) {
  GatherContext context;
  context.pool = pool;
  context.threads = 2;
  context.ragged = ragged;
  context.describe = [](const RowRef& ref) { return "row " + std::to_string(ref.row); };
  return context;
}

TEST(Gather, PlansReadableColumnsAndRefuseOthers) {
  BatchReaderOptions options;
  ASSERT_OK_AND_ASSIGN(ColumnPlan plan, PlanColumn(Field{"x", float64()}, 0, options));
  EXPECT_EQ(plan.kind, ColumnKind::kValues);
  EXPECT_EQ(plan.width, 8);
  ASSERT_OK_AND_ASSIGN(plan, PlanColumn(Field{"flag", boolean()}, 0, options));
  EXPECT_EQ(plan.kind, ColumnKind::kBits);
  EXPECT_TRUE(plan.value_type->is_bool8());
  ASSERT_OK_AND_ASSIGN(plan, PlanColumn(Field{"img", test::ImageType().data_type()}, 0, options));
  EXPECT_EQ(plan.kind, ColumnKind::kRagged);
  EXPECT_EQ(plan.pad_pattern, 0u);
  EXPECT_EQ(OutputNames(plan, RaggedLayout::kPadded),
            (std::vector<std::string>{"img", "img_shape"}));
  EXPECT_EQ(OutputNames(plan, RaggedLayout::kJagged),
            (std::vector<std::string>{"img", "img_offsets", "img_shape"}));
  EXPECT_EQ(OutputNames(plan, RaggedLayout::kList), (std::vector<std::string>{"img"}));
  // A plain fixed_size_list<float32, 3> reads as (B, 3).
  ASSERT_OK_AND_ASSIGN(TypePtr embedding, fixed_size_list(Field{"item", float32()}, 3));
  ASSERT_OK_AND_ASSIGN(plan, PlanColumn(Field{"emb", embedding}, 0, options));
  EXPECT_EQ(plan.kind, ColumnKind::kFixed);
  EXPECT_EQ(plan.logical_cell, (std::vector<int64_t>{3}));
  ASSERT_OK_AND_ASSIGN(TypePtr bits, fixed_size_list(Field{"item", boolean()}, 3));
  ASSERT_OK_AND_ASSIGN(plan, PlanColumn(Field{"flags", bits}, 0, options));
  EXPECT_EQ(plan.kind, ColumnKind::kObjects);  // bit-packed: taken as rows
  // Strings and lists of numbers have arrays of their own; any other
  // type (a list of strings) is taken as rows.
  ASSERT_OK_AND_ASSIGN(plan, PlanColumn(Field{"name", utf8()}, 0, options));
  EXPECT_EQ(plan.kind, ColumnKind::kStrings);
  ASSERT_OK_AND_ASSIGN(plan, PlanColumn(Field{"seq", list(Field{"item", int16()})}, 0, options));
  EXPECT_EQ(plan.kind, ColumnKind::kRagged);
  EXPECT_TRUE(plan.list);
  ASSERT_OK_AND_ASSIGN(plan, PlanColumn(Field{"tags", list(Field{"item", utf8()})}, 0, options));
  EXPECT_EQ(plan.kind, ColumnKind::kObjects);
  options.pad_value = 300;
  EXPECT_ERROR(kInvalid, "column 'img': pad value 300 is not exactly representable as uint8",
               PlanColumn(Field{"img", test::ImageType().data_type()}, 0, options));
  options.ragged = RaggedLayout::kJagged;  // no padding, no pad value check
  ASSERT_OK(PlanColumn(Field{"img", test::ImageType().data_type()}, 0, options).status());
}

TEST(Gather, ScalarAndFixedColumnsFromSeveralRecordBatches) {
  TempDir dir;
  ASSERT_OK(test::WriteRows(dir / "a.arrow", 0, 10, 3));
  ASSERT_OK_AND_ASSIGN(auto dataset, BatchSource::Open({dir / "a.arrow"}, {}));
  BufferPool pool(8, nullptr);
  const std::vector<int64_t> rows = {9, 0, 4, 5};
  std::vector<RowRef> refs = Refs(*dataset, rows);
  BatchReaderOptions options;
  Batch batch;
  for (int c : {0, 1}) {
    ASSERT_OK_AND_ASSIGN(ColumnPlan plan, PlanColumn(dataset->schema()->fields[c], c, options));
    ASSERT_OK(GatherColumn(plan, refs, Context(&pool), &batch));
  }
  ASSERT_EQ(batch.arrays.size(), 2u);
  const Tensor& ids = batch.arrays[0].tensor;
  EXPECT_EQ(ids.shape(), Dims({4}));
  const Tensor& emb = batch.arrays[1].tensor;
  EXPECT_EQ(emb.shape(), Dims({4, 2}));
  for (int64_t i = 0; i < 4; ++i) {
    EXPECT_EQ(test::At<int64_t>(ids, {i}), rows[i]);
    EXPECT_EQ(test::At<float>(emb, {i, 0}), static_cast<float>(rows[i]));
    EXPECT_EQ(test::At<float>(emb, {i, 1}), -static_cast<float>(rows[i]));
  }
}

TEST(Gather, NullRowsBoolsAndPermutedCells) {
  TempDir dir;
  // A nullable int32 column, a bool column and a fixed (2, 3) column with
  // permutation [1, 0] (logical cell (3, 2)), row 1 null in each.
  auto fixed_type = *FixedShapeTensorType::Make(int32(), {2, 3}, {}, {1, 0});
  std::vector<int32_t> cells(18);
  for (int k = 0; k < 18; ++k) cells[k] = k;
  auto fixed = std::make_shared<ArrayData>();
  fixed->type = fixed_type.data_type();
  fixed->length = 3;
  fixed->buffers = {test::Bitmap({true, false, true})};
  fixed->children = {test::Primitive<int32_t>(int32(), cells)};
  auto flags = std::make_shared<ArrayData>();
  flags->type = boolean();
  flags->length = 3;
  const uint8_t bits[1] = {0b101};
  flags->buffers = {test::Bitmap({true, false, true}), test::BufferFrom(bits, 1)};
  auto schema = std::make_shared<Schema>();
  schema->fields = {Field{"x", int32()}, Field{"flag", boolean()}, Field{"cell", fixed->type}};
  ASSERT_OK_AND_ASSIGN(
      RecordBatchPtr rb,
      RecordBatch::Make(
          schema, 3,
          {test::Primitive<int32_t>(int32(), {7, 8, 9}, {true, false, true}), flags, fixed}));
  ASSERT_OK(test::WriteBatches(dir / "n.arrow", {rb}));
  ASSERT_OK_AND_ASSIGN(auto dataset, BatchSource::Open({dir / "n.arrow"}, {}));
  BufferPool pool(8, nullptr);
  std::vector<RowRef> refs = Refs(*dataset, {1, 2, 0});
  Batch batch;
  for (int c = 0; c < 3; ++c) {
    ASSERT_OK_AND_ASSIGN(ColumnPlan plan,
                         PlanColumn(dataset->schema()->fields[c], c, BatchReaderOptions{}));
    ASSERT_OK(GatherColumn(plan, refs, Context(&pool), &batch));
  }
  const Tensor& x = batch.arrays[0].tensor;
  EXPECT_EQ(test::At<int32_t>(x, {0}), 0);  // null row: zero
  EXPECT_EQ(test::At<int32_t>(x, {1}), 9);
  EXPECT_EQ(test::At<int32_t>(x, {2}), 7);
  const Tensor& flag = batch.arrays[1].tensor;
  EXPECT_TRUE(flag.type()->is_bool8());
  const uint8_t* f = flag.raw_data();
  EXPECT_EQ(f[0], 0);
  EXPECT_EQ(f[1], 1);
  EXPECT_EQ(f[2], 1);
  const Tensor& cell = batch.arrays[2].tensor;
  EXPECT_EQ(cell.shape(), Dims({3, 3, 2}));
  EXPECT_EQ(test::At<int32_t>(cell, {0, 2, 1}), 0);  // null row
  // Row 2 holds physical [[12, 13, 14], [15, 16, 17]]; logical [j, i] = physical [i, j].
  EXPECT_EQ(test::At<int32_t>(cell, {1, 0, 1}), 15);
  EXPECT_EQ(test::At<int32_t>(cell, {1, 2, 0}), 14);
  EXPECT_EQ(test::At<int32_t>(cell, {2, 1, 1}), 4);
}

}  // namespace
}  // namespace quiver::data
