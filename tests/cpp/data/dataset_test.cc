// The dataset under a BatchReader: files from a list or a directory, one
// schema across files (errors name the file and the column), files that
// are not IPC or are cut short, the row index across files, and record
// batches validated on first use with errors naming file and record batch.
#include "quiver/data/dataset.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "data_test_util.h"
#include "variable_shape_test_util.h"

namespace quiver::data {
namespace {

using test::TempDir;
using test::WriteRows;

void WriteText(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

TEST(Dataset, ListFilesTakesFilesAndSortedDirectories) {
  TempDir dir;
  ASSERT_OK(WriteRows(dir / "b.arrow", 0, 3, 3));
  ASSERT_OK(WriteRows(dir / "a.feather", 0, 3, 3));
  ASSERT_OK(WriteRows(dir / ".hidden.arrow", 0, 3, 3));
  WriteText(dir / "README.txt", "not data");
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> files, ListFiles({dir.path()}));
  EXPECT_EQ(files, (std::vector<std::string>{dir / "a.feather", dir / "b.arrow"}));
  ASSERT_OK_AND_ASSIGN(files, ListFiles({dir / "b.arrow", dir / "a.feather"}));
  EXPECT_EQ(files, (std::vector<std::string>{dir / "b.arrow", dir / "a.feather"}));
  EXPECT_ERROR(kIOError, "no such file or directory", ListFiles({dir / "missing.arrow"}));
  EXPECT_ERROR(kInvalid, "source list is empty", ListFiles({}));
  TempDir empty;
  EXPECT_ERROR(kInvalid, "holds no .arrow, .feather or .ipc files", ListFiles({empty.path()}));
}

TEST(Dataset, RowIndexSpansFilesAndRecordBatches) {
  TempDir dir;
  ASSERT_OK(WriteRows(dir / "a.arrow", 0, 10, 4));  // record batches of 4, 4, 2
  ASSERT_OK(WriteRows(dir / "b.arrow", 10, 5, 5));  // one of 5
  ASSERT_OK_AND_ASSIGN(auto dataset, Dataset::Open({dir.path()}, {}, ValidationLevel::kFull));
  EXPECT_EQ(dataset->num_rows(), 15);
  EXPECT_EQ(dataset->num_record_batches(), 4);
  EXPECT_EQ(dataset->columns(), (std::vector<int>{0, 1, 2}));
  RowLocation at = dataset->Locate(9);
  EXPECT_EQ(at.record_batch, 2);
  EXPECT_EQ(at.row, 1);
  at = dataset->Locate(10);
  EXPECT_EQ(at.record_batch, 3);
  EXPECT_EQ(at.row, 0);
  EXPECT_EQ(dataset->Describe(3), "file " + (dir / "b.arrow") + ", record batch 0");
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<const LoadedBatch> loaded, dataset->Load(3));
  EXPECT_EQ(loaded->batch->num_rows(), 5);
  EXPECT_TRUE(loaded->ragged[2].has_value());
  EXPECT_TRUE(loaded->fixed[1].has_value());
  EXPECT_FALSE(loaded->ragged[0].has_value());
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<const LoadedBatch> again, dataset->Load(3));
  EXPECT_EQ(again, loaded);  // loaded once
}

TEST(Dataset, ColumnsAreSelectedByName) {
  TempDir dir;
  ASSERT_OK(WriteRows(dir / "a.arrow", 0, 4, 4));
  ASSERT_OK_AND_ASSIGN(auto dataset,
                       Dataset::Open({dir / "a.arrow"}, {"img", "id"}, ValidationLevel::kFull));
  EXPECT_EQ(dataset->columns(), (std::vector<int>{2, 0}));
  EXPECT_ERROR(kInvalid, "unknown column 'label': the files have columns 'id', 'emb', 'img'",
               Dataset::Open({dir / "a.arrow"}, {"label"}, ValidationLevel::kFull));
  EXPECT_ERROR(kInvalid, "column 'id' is asked for twice",
               Dataset::Open({dir / "a.arrow"}, {"id", "id"}, ValidationLevel::kFull));
}

TEST(Dataset, DifferentSchemasNameTheFileAndTheColumn) {
  TempDir dir;
  ASSERT_OK(WriteRows(dir / "a.arrow", 0, 4, 4));
  // Same names, but the image column has ndim 3 in the second file.
  auto schema = std::make_shared<Schema>();
  VariableShapeTensorType three_d = *VariableShapeTensorType::Make(uint8(), 3);
  schema->fields = {Field{"id", int64()}, Field{"emb", test::EmbeddingType().data_type()},
                    Field{"img", three_d.data_type()}};
  std::vector<std::optional<Tensor>> rows = {test::IotaOf<uint8_t>(uint8(), {1, 2, 2})};
  VariableShapeTensorArray images = *VariableShapeTensorArray::FromTensors(three_d, rows);
  RecordBatchPtr first = test::DataBatch(0, 1);
  ASSERT_OK_AND_ASSIGN(
      RecordBatchPtr other,
      RecordBatch::Make(schema, 1, {first->column(0), first->column(1), images.data()}));
  ASSERT_OK(test::WriteBatches(dir / "b.arrow", {other}));
  EXPECT_ERROR(kInvalid, "file " + (dir / "b.arrow") + ": column 2 'img' has type",
               Dataset::Open({dir.path()}, {}, ValidationLevel::kFull));
  EXPECT_ERROR(kInvalid, "ndim=3", Dataset::Open({dir.path()}, {}, ValidationLevel::kFull));
  // A file with a column less.
  auto fewer = std::make_shared<Schema>();
  fewer->fields = {Field{"id", int64()}, Field{"emb", test::EmbeddingType().data_type()}};
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr two,
                       RecordBatch::Make(fewer, 1, {first->column(0), first->column(1)}));
  ASSERT_OK(test::WriteBatches(dir / "b.arrow", {two}));
  EXPECT_ERROR(kInvalid, "column 2 'img' is missing",
               Dataset::Open({dir.path()}, {}, ValidationLevel::kFull));
}

TEST(Dataset, FilesThatAreNotIpcOrCutShortAreNamed) {
  TempDir dir;
  WriteText(dir / "notes.arrow", "these are not the bytes of an Arrow file");
  EXPECT_ERROR(kInvalid, "file " + (dir / "notes.arrow") + " is not a readable Arrow IPC file",
               Dataset::Open({dir / "notes.arrow"}, {}, ValidationLevel::kFull));
  ASSERT_OK(WriteRows(dir / "whole.arrow", 0, 20, 5));
  const auto size = std::filesystem::file_size(dir / "whole.arrow");
  std::filesystem::copy_file(dir / "whole.arrow", dir / "cut.arrow");
  std::filesystem::resize_file(dir / "cut.arrow", size / 2);
  Result<std::unique_ptr<Dataset>> cut =
      Dataset::Open({dir / "cut.arrow"}, {}, ValidationLevel::kFull);
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.status().message().find(dir / "cut.arrow"), std::string::npos)
      << cut.status().ToString();
}

TEST(Dataset, ACorruptRecordBatchFailsWhenFirstLoaded) {
  // Row 1 says shape [1, 3] but holds 2 values: kMinimal lets it through,
  // the full check on first use does not.
  TempDir dir;
  ArrayDataPtr bad = test::RawStorage({0, 2, 4}, {1, 2, 3, 4}, {1, 2, 1, 3}, 2);
  auto schema = std::make_shared<Schema>();
  schema->fields = {Field{"img", bad->type}};
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch,
                       RecordBatch::Make(schema, 2, {bad}, ValidationLevel::kMinimal));
  ASSERT_OK_AND_ASSIGN(
      RecordBatchPtr good,
      RecordBatch::Make(schema, 2, {test::RawStorage({0, 2, 4}, {1, 2, 3, 4}, {1, 2, 1, 2}, 2)}));
  ASSERT_OK(test::WriteBatches(dir / "a.arrow", {good, batch}));
  ASSERT_OK_AND_ASSIGN(auto dataset, Dataset::Open({dir / "a.arrow"}, {}, ValidationLevel::kFull));
  ASSERT_OK(dataset->Load(0).status());
  EXPECT_ERROR(kInvalid, "file " + (dir / "a.arrow") + ", record batch 1, column 'img': row 1",
               dataset->Load(1));
  EXPECT_ERROR(kInvalid, "record batch 1", dataset->Load(1));  // the same error again
}

// Without mapping: rows counted from the headers, batches read on Load and
// kept up to the cache's bytes (the oldest loaded dropped first, read
// again when asked for), the same rows as the mapped read.
TEST(Dataset, UnmappedFilesAreReadOnLoadIntoABoundedCache) {
  TempDir dir;
  ASSERT_OK(WriteRows(dir / "a.arrow", 0, 30, 10));
  ASSERT_OK_AND_ASSIGN(auto mapped, Dataset::Open({dir / "a.arrow"}, {}, ValidationLevel::kFull));
  // Room for about one record batch of 10 rows.
  ASSERT_OK_AND_ASSIGN(auto unmapped, Dataset::Open({dir / "a.arrow"}, {}, ValidationLevel::kFull,
                                                    /*memory_map=*/false, /*cache_bytes=*/300));
  EXPECT_EQ(unmapped->num_rows(), 30);
  EXPECT_EQ(unmapped->num_record_batches(), 3);
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<const LoadedBatch> first, unmapped->Load(0));
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<const LoadedBatch> again, unmapped->Load(0));
  EXPECT_EQ(first, again);  // cached
  ASSERT_OK(unmapped->Load(1).status());
  ASSERT_OK(unmapped->Load(2).status());
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<const LoadedBatch> reread, unmapped->Load(0));
  EXPECT_NE(reread, first);                          // dropped from the cache, read again
  EXPECT_TRUE(first->batch->column(0)->buffers[1]);  // what a holder had stays valid
  for (int k = 0; k < 3; ++k) {
    ASSERT_OK_AND_ASSIGN(auto a, mapped->Load(k));
    ASSERT_OK_AND_ASSIGN(auto b, unmapped->Load(k));
    EXPECT_TRUE(a->batch->Equals(*b->batch));
  }
  // After a fork, every lock is fresh and the rows read the same.
  unmapped->AfterFork();
  ASSERT_OK_AND_ASSIGN(auto after, unmapped->Load(1));
  EXPECT_EQ(after->batch->num_rows(), 10);
}

TEST(Dataset, AnUnmappedFileRewrittenWithOtherRowsIsAnError) {
  TempDir dir;
  ASSERT_OK(WriteRows(dir / "a.arrow", 0, 20, 10));
  ASSERT_OK_AND_ASSIGN(auto dataset, Dataset::Open({dir / "a.arrow"}, {}, ValidationLevel::kFull,
                                                   /*memory_map=*/false));
  std::filesystem::resize_file(dir / "a.arrow", 100);
  EXPECT_ERROR(kIOError, "file " + (dir / "a.arrow") + ", record batch 0", dataset->Load(0));
}

}  // namespace
}  // namespace quiver::data
