// The rows under a BatchReader: record batches of a dataset::Dataset
// (files, directories, streams, compressed files), the row index across
// sources, tensor columns wrapped, columns selected by name, errors naming
// the source, the record batch and the column, views of mapped files kept,
// decoded batches bounded by the dataset's cache.
#include "quiver/data/batch_source.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "data_test_util.h"
#include "variable_shape_test_util.h"

namespace quiver::data {
namespace {

using test::TempDir;
using test::WriteRows;

dataset::DatasetOptions Options(std::vector<std::string> columns = {}) {
  dataset::DatasetOptions options;
  options.columns = std::move(columns);
  return options;
}

// Rows [first, first + n) as an IPC stream, or a file compressed with
// `compression`, in record batches of `per_batch` rows.
Status WriteWith(const std::string& path, bool stream, ipc::Compression compression, int64_t n,
                 int64_t per_batch) {
  ipc::WriteOptions options;
  options.compression = compression;
  options.max_batch_rows = per_batch;
  QUIVER_ASSIGN_OR_RETURN(auto sink, ipc::OpenFileSink(path));
  RecordBatchPtr batch = test::DataBatch(0, n, /*nulls=*/true);
  if (stream) {
    QUIVER_ASSIGN_OR_RETURN(auto writer, ipc::StreamWriter::Open(sink, batch->schema(), options));
    QUIVER_RETURN_NOT_OK(writer->Write(*batch));
    QUIVER_RETURN_NOT_OK(writer->Close());
  } else {
    QUIVER_ASSIGN_OR_RETURN(auto writer, ipc::FileWriter::Open(sink, batch->schema(), options));
    QUIVER_RETURN_NOT_OK(writer->Write(*batch));
    QUIVER_RETURN_NOT_OK(writer->Close());
  }
  return sink->Close();
}

TEST(BatchSource, RowIndexSpansFilesAndRecordBatches) {
  TempDir dir;
  ASSERT_OK(WriteRows(dir / "a.arrow", 0, 10, 4));  // record batches of 4, 4, 2
  ASSERT_OK(WriteRows(dir / "b.arrow", 10, 5, 5));  // one of 5
  ASSERT_OK_AND_ASSIGN(auto source, BatchSource::Open({dir.path()}, Options()));
  EXPECT_EQ(source->locations(), (std::vector<std::string>{dir / "a.arrow", dir / "b.arrow"}));
  EXPECT_EQ(source->num_rows(), 15);
  EXPECT_EQ(source->num_record_batches(), 4);
  EXPECT_EQ(source->record_batch_rows(2), 2);
  EXPECT_EQ(source->record_batch_start(3), 10);
  RowLocation at = source->Locate(9);
  EXPECT_EQ(at.record_batch, 2);
  EXPECT_EQ(at.row, 1);
  at = source->Locate(10);
  EXPECT_EQ(at.record_batch, 3);
  EXPECT_EQ(at.row, 0);
  EXPECT_EQ(source->Describe(3), (dir / "b.arrow") + ": record batch 0");
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<const LoadedBatch> loaded, source->Load(3));
  EXPECT_EQ(loaded->batch->num_rows(), 5);
  EXPECT_TRUE(loaded->ragged[2].has_value());
  EXPECT_TRUE(loaded->fixed[1].has_value());
  EXPECT_FALSE(loaded->ragged[0].has_value());
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<const LoadedBatch> again, source->Load(3));
  EXPECT_EQ(again, loaded);  // a view of the mapped file: kept, wrapped once
}

TEST(BatchSource, ColumnsAreSelectedByNameInTheOrderAsked) {
  TempDir dir;
  ASSERT_OK(WriteRows(dir / "a.arrow", 0, 4, 4));
  ASSERT_OK_AND_ASSIGN(auto source, BatchSource::Open({dir / "a.arrow"}, Options({"img", "id"})));
  ASSERT_EQ(source->schema()->fields.size(), 2u);
  EXPECT_EQ(source->schema()->fields[0].name, "img");
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<const LoadedBatch> loaded, source->Load(0));
  EXPECT_TRUE(loaded->ragged[0].has_value());
  EXPECT_ERROR(kInvalid, "no column named 'label' (the columns: id, emb, img)",
               BatchSource::Open({dir / "a.arrow"}, Options({"label"})));
  EXPECT_ERROR(kInvalid, "column 'id' is asked for twice",
               BatchSource::Open({dir / "a.arrow"}, Options({"id", "id"})));
}

TEST(BatchSource, StreamsAndCompressedFilesReadTheSameRows) {
  TempDir dir;
  ASSERT_OK(WriteWith(dir / "plain.arrow", false, ipc::Compression::kNone, 30, 7));
  ASSERT_OK(WriteWith(dir / "rows.arrows", true, ipc::Compression::kNone, 30, 7));
  ASSERT_OK(WriteWith(dir / "small.arrow", false, ipc::Compression::kZstd, 30, 7));
  ASSERT_OK_AND_ASSIGN(auto plain, BatchSource::Open({dir / "plain.arrow"}, Options()));
  for (const char* name : {"rows.arrows", "small.arrow"}) {
    ASSERT_OK_AND_ASSIGN(auto other, BatchSource::Open({dir / name}, Options()));
    ASSERT_EQ(other->num_record_batches(), plain->num_record_batches()) << name;
    for (int k = 0; k < plain->num_record_batches(); ++k) {
      ASSERT_OK_AND_ASSIGN(auto a, plain->Load(k));
      ASSERT_OK_AND_ASSIGN(auto b, other->Load(k));
      EXPECT_TRUE(a->batch->Equals(*b->batch)) << name << " record batch " << k;
    }
  }
  // Decoded columns come from the dataset's cache, counted there.
  ASSERT_OK_AND_ASSIGN(auto compressed, BatchSource::Open({dir / "small.arrow"}, Options()));
  ASSERT_OK(compressed->Load(0).status());
  ASSERT_OK(compressed->Load(0).status());
  EXPECT_EQ(compressed->stats().misses, 3);  // three columns decoded once
  EXPECT_EQ(compressed->stats().hits, 3);
}

TEST(BatchSource, DifferentSchemasNameTheSourceAndTheColumn) {
  TempDir dir;
  ASSERT_OK(WriteRows(dir / "a.arrow", 0, 4, 4));
  auto fewer = std::make_shared<Schema>();
  fewer->fields = {Field{"id", int64()}, Field{"emb", test::EmbeddingType().data_type()}};
  RecordBatchPtr first = test::DataBatch(0, 1);
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr two,
                       RecordBatch::Make(fewer, 1, {first->column(0), first->column(1)}));
  ASSERT_OK(test::WriteBatches(dir / "b.arrow", {two}));
  Result<std::unique_ptr<BatchSource>> opened = BatchSource::Open({dir.path()}, Options());
  ASSERT_FALSE(opened.ok());
  EXPECT_NE(opened.status().message().find(dir / "b.arrow"), std::string::npos)
      << opened.status().ToString();
  EXPECT_NE(opened.status().message().find("img"), std::string::npos) << opened.status().ToString();
}

TEST(BatchSource, ACorruptRecordBatchFailsWhenFirstLoadedAndAgainLater) {
  // Row 1 says shape [1, 3] but holds 2 values: caught by the full check
  // when the record batch is first read.
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
  ASSERT_OK_AND_ASSIGN(auto source, BatchSource::Open({dir / "a.arrow"}, Options()));
  ASSERT_OK(source->Load(0).status());
  EXPECT_ERROR(kInvalid, (dir / "a.arrow") + ": record batch 1", source->Load(1));
  EXPECT_ERROR(kInvalid, "record batch 1", source->Load(1));  // the same error again
}

// Without mapping: batches read with pread into the dataset's bounded
// cache, read again once dropped; what a holder had stays valid; the same
// rows as the mapped read; a forked child's fresh locks.
TEST(BatchSource, UnmappedFilesAreReadIntoTheBoundedCache) {
  TempDir dir;
  ASSERT_OK(WriteRows(dir / "a.arrow", 0, 30, 10));
  ASSERT_OK_AND_ASSIGN(auto mapped, BatchSource::Open({dir / "a.arrow"}, Options()));
  dataset::DatasetOptions options = Options();
  options.memory_map = false;
  options.cache_bytes = 300;  // about one record batch's columns
  ASSERT_OK_AND_ASSIGN(auto unmapped, BatchSource::Open({dir / "a.arrow"}, options));
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<const LoadedBatch> first, unmapped->Load(0));
  ASSERT_OK(unmapped->Load(1).status());
  ASSERT_OK(unmapped->Load(2).status());
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<const LoadedBatch> reread, unmapped->Load(0));
  EXPECT_NE(reread, first);
  EXPECT_GT(unmapped->stats().evictions, 0);
  EXPECT_TRUE(first->batch->column(0)->buffers[1]);
  for (int k = 0; k < 3; ++k) {
    ASSERT_OK_AND_ASSIGN(auto a, mapped->Load(k));
    ASSERT_OK_AND_ASSIGN(auto b, unmapped->Load(k));
    EXPECT_TRUE(a->batch->Equals(*b->batch));
  }
  unmapped->AfterFork();
  ASSERT_OK_AND_ASSIGN(auto after, unmapped->Load(1));
  EXPECT_EQ(after->batch->num_rows(), 10);
}

TEST(BatchSource, AnUnmappedFileCutShortAfterOpenIsAnError) {
  TempDir dir;
  ASSERT_OK(WriteRows(dir / "a.arrow", 0, 20, 10));
  dataset::DatasetOptions options = Options();
  options.memory_map = false;
  ASSERT_OK_AND_ASSIGN(auto source, BatchSource::Open({dir / "a.arrow"}, options));
  std::filesystem::resize_file(dir / "a.arrow", 100);
  Result<std::shared_ptr<const LoadedBatch>> loaded = source->Load(0);
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.status().message().find(dir / "a.arrow"), std::string::npos)
      << loaded.status().ToString();
}

}  // namespace
}  // namespace quiver::data
