// The loader's read-ahead: in order over a compressed file the record
// batches of the batches after the one read are warmed (each decoded
// once); over mapped uncompressed files nothing is warmed; a group never
// reaches past a quarter of the cache.
#include "quiver/data/read_ahead.h"

#include <gtest/gtest.h>

#include "data_test_util.h"
#include "quiver/build_info.h"
#include "quiver/data.h"

namespace quiver::data {
namespace {

using test::TempDir;

// 40 rows in record batches of 4, compressed with `compression`.
Status WriteTen(const std::string& path, ipc::Compression compression) {
  ipc::WriteOptions write;
  write.compression = compression;
  write.max_batch_rows = 4;
  QUIVER_ASSIGN_OR_RETURN(auto sink, ipc::OpenFileSink(path));
  RecordBatchPtr rows = test::DataBatch(0, 40);
  QUIVER_ASSIGN_OR_RETURN(auto writer, ipc::FileWriter::Open(sink, rows->schema(), write));
  QUIVER_RETURN_NOT_OK(writer->Write(*rows));
  QUIVER_RETURN_NOT_OK(writer->Close());
  return sink->Close();
}

// In order over a compressed file, the reader warms the record batches of
// the batches after the one it reads (in one parallel read), so the first
// batch has decoded more than its own record batches, each once.
TEST(ReadAhead, AReaderWarmsTheNextBatchesRecordBatchesInOrder) {
  if (!ipc::HasCodec(ipc::Compression::kZstd)) GTEST_SKIP() << "no ZSTD";
  TempDir dir;
  ASSERT_OK(WriteTen(dir / "z.arrow", ipc::Compression::kZstd));
  BatchReaderOptions options;
  options.batch_size = 4;
  options.prefetch = 0;
  ASSERT_OK_AND_ASSIGN(auto reader, BatchReader::Open({dir / "z.arrow"}, options));
  ASSERT_OK_AND_ASSIGN(auto first, reader->Next());
  ASSERT_TRUE(first.has_value());
  const int64_t decoded = reader->stats().misses / 3;  // three columns
  EXPECT_GT(decoded, 1);
  int64_t rows = first->num_rows;
  while (true) {
    ASSERT_OK_AND_ASSIGN(auto batch, reader->Next());
    if (!batch) break;
    rows += batch->num_rows;
  }
  EXPECT_EQ(rows, 40);
  EXPECT_EQ(reader->stats().misses, 10 * 3);  // every record batch decoded once
}

// Directly: a group is batch i's record batches and the next ones while
// they fit the budget; over views of a mapped file there is nothing to do.
TEST(ReadAhead, GroupsWarmTheCacheAndViewsAreLeftAlone) {
  if (!ipc::HasCodec(ipc::Compression::kZstd)) GTEST_SKIP() << "no ZSTD";
  TempDir dir;
  ASSERT_OK(WriteTen(dir / "z.arrow", ipc::Compression::kZstd));
  ASSERT_OK(WriteTen(dir / "p.arrow", ipc::Compression::kNone));
  BatchReaderOptions options;
  options.batch_size = 4;
  auto plan = std::make_shared<const EpochPlan>(std::vector<int64_t>(10, 4), options, 0,
                                                std::vector<int64_t>{});
  ASSERT_OK_AND_ASSIGN(auto compressed, BatchSource::Open({dir / "z.arrow"}, {}));
  {
    ReadAhead ahead(compressed.get());
    ahead.Before(plan, 0);  // batch 0's group, then the next on a thread
    ahead.Restart(0);       // waits for that thread
    const int64_t warmed = compressed->stats().misses / 3;
    EXPECT_GE(warmed, 4);  // at least the first group (4 before any size is known)
    EXPECT_LE(warmed, 10);
  }
  ASSERT_OK_AND_ASSIGN(auto mapped, BatchSource::Open({dir / "p.arrow"}, {}));
  ReadAhead views(mapped.get());
  views.Before(plan, 0);
  views.Restart(0);
  EXPECT_EQ(mapped->stats().misses, 0);
}

}  // namespace
}  // namespace quiver::data
