// Variable-shape columns into a batch: padded to the batch's largest shape
// with the pad value (null rows all padding, shape zeros), jagged (values,
// offsets, physical shapes) and one view per row, equal to the source rows.
#include <gtest/gtest.h>

#include "data_test_util.h"
#include "quiver/data/gather.h"

namespace quiver::data {
namespace {

using test::ImageShape;
using test::ImageValue;
using test::TempDir;

class RaggedGather : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK(test::WriteRows(dir_ / "a.arrow", 0, 12, 5, /*nulls=*/true));
    ASSERT_OK_AND_ASSIGN(dataset_, BatchSource::Open({dir_ / "a.arrow"}, {.columns = {"img"}}));
  }

  Result<Batch> Gather(const std::vector<int64_t>& rows, RaggedLayout layout, PadValue pad = 0) {
    std::vector<RowRef> refs;
    for (int64_t row : rows) {
      RowLocation at = dataset_->Locate(row);
      QUIVER_ASSIGN_OR_RETURN(std::shared_ptr<const LoadedBatch> loaded,
                              dataset_->Load(at.record_batch));
      refs.push_back({loaded.get(), at.record_batch, at.row});  // kept by the mapped dataset
    }
    BatchReaderOptions options;
    options.ragged = layout;
    options.pad_value = pad;
    QUIVER_ASSIGN_OR_RETURN(ColumnPlan plan, PlanColumn(dataset_->schema()->fields[0], 0, options));
    GatherContext context;
    context.pool = &pool_;
    context.threads = 2;
    context.ragged = layout;
    context.describe = [](const RowRef& ref) { return "row " + std::to_string(ref.row); };
    Batch batch;
    QUIVER_RETURN_NOT_OK(GatherColumn(plan, refs, context, &batch));
    return batch;
  }

  TempDir dir_;
  std::unique_ptr<BatchSource> dataset_;
  BufferPool pool_{8, nullptr};
};

TEST_F(RaggedGather, PaddedHoldsEveryRowAndThePadValue) {
  const std::vector<int64_t> rows = {5, 4, 11, 2};  // row 4 is null
  ASSERT_OK_AND_ASSIGN(Batch batch, Gather(rows, RaggedLayout::kPadded, 7));
  ASSERT_EQ(batch.arrays.size(), 2u);
  const Tensor& values = batch.arrays[0].tensor;
  const Tensor& shapes = batch.arrays[1].tensor;
  EXPECT_EQ(batch.arrays[1].name, "img_shape");
  // Largest shapes: (3, 3) for row 11... rows 5 (3, 2), 11 (3, 4), 2 (3, 3).
  EXPECT_EQ(values.shape(), Dims({4, 3, 4}));
  EXPECT_EQ(shapes.shape(), Dims({4, 2}));
  int64_t data = 0;
  for (int64_t i = 0; i < 4; ++i) {
    const bool null = rows[i] == 4;
    const std::vector<int64_t> shape = null ? std::vector<int64_t>{0, 0} : ImageShape(rows[i]);
    EXPECT_EQ(test::At<int32_t>(shapes, {i, 0}), shape[0]);
    EXPECT_EQ(test::At<int32_t>(shapes, {i, 1}), shape[1]);
    for (int64_t h = 0; h < 3; ++h) {
      for (int64_t w = 0; w < 4; ++w) {
        const bool inside = h < shape[0] && w < shape[1];
        const uint8_t expected = inside ? ImageValue(rows[i], h * shape[1] + w) : 7;
        EXPECT_EQ(test::At<uint8_t>(values, {i, h, w}), expected) << i << " " << h << " " << w;
      }
    }
    data += shape[0] * shape[1];
  }
  EXPECT_EQ(batch.padded_elements, 48);
  EXPECT_EQ(batch.padding_elements, 48 - data);
}

TEST_F(RaggedGather, JaggedIsTheRowsBackToBack) {
  const std::vector<int64_t> rows = {3, 9, 1};  // row 9 is null
  ASSERT_OK_AND_ASSIGN(Batch batch, Gather(rows, RaggedLayout::kJagged));
  ASSERT_EQ(batch.arrays.size(), 3u);
  const Tensor& values = batch.arrays[0].tensor;
  const Tensor& offsets = batch.arrays[1].tensor;
  const Tensor& shapes = batch.arrays[2].tensor;
  EXPECT_EQ(batch.arrays[1].name, "img_offsets");
  EXPECT_EQ(offsets.shape(), Dims({4}));
  int64_t at = 0;
  for (int64_t i = 0; i < 3; ++i) {
    EXPECT_EQ(test::At<int64_t>(offsets, {i}), at);
    const std::vector<int64_t> shape =
        rows[i] == 9 ? std::vector<int64_t>{0, 0} : ImageShape(rows[i]);
    EXPECT_EQ(test::At<int32_t>(shapes, {i, 0}), shape[0]);
    EXPECT_EQ(test::At<int32_t>(shapes, {i, 1}), shape[1]);
    for (int64_t k = 0; k < shape[0] * shape[1]; ++k) {
      EXPECT_EQ(test::At<uint8_t>(values, {at + k}), ImageValue(rows[i], k));
    }
    at += shape[0] * shape[1];
  }
  EXPECT_EQ(test::At<int64_t>(offsets, {3}), at);
  EXPECT_EQ(values.shape(), Dims({at}));
  EXPECT_EQ(batch.padded_elements, 0);
}

TEST_F(RaggedGather, ListGivesAViewPerRowAndNullopt) {
  ASSERT_OK_AND_ASSIGN(Batch batch, Gather({4, 7}, RaggedLayout::kList));
  ASSERT_EQ(batch.arrays.size(), 1u);
  ASSERT_TRUE(batch.arrays[0].is_list);
  ASSERT_EQ(batch.arrays[0].rows.size(), 2u);
  EXPECT_FALSE(batch.arrays[0].rows[0].has_value());
  const Tensor& row = *batch.arrays[0].rows[1];
  EXPECT_EQ(row.shape(), Dims(ImageShape(7)));
  EXPECT_EQ(test::At<uint8_t>(row, {1, 2}), ImageValue(7, 1 * 4 + 2));
}

TEST_F(RaggedGather, AllNullOrEmptyBatches) {
  ASSERT_OK_AND_ASSIGN(Batch batch, Gather({4, 9}, RaggedLayout::kPadded, 1));
  EXPECT_EQ(batch.arrays[0].tensor.shape(), Dims({2, 0, 0}));
  ASSERT_OK_AND_ASSIGN(batch, Gather({}, RaggedLayout::kPadded));
  EXPECT_EQ(batch.arrays[0].tensor.shape(), Dims({0, 0, 0}));
  ASSERT_OK_AND_ASSIGN(batch, Gather({4}, RaggedLayout::kJagged));
  EXPECT_EQ(batch.arrays[0].tensor.shape(), Dims({0}));
}

}  // namespace
}  // namespace quiver::data
