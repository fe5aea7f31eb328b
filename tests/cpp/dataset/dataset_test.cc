// The random-access dataset: files and streams alike, compressed or not,
// mapped or read with pread; takes in any order with repeats equal to the
// same take from the whole table; slices across record batches and
// sources; projections; the cache's counts and its byte bound; and the
// errors a user meets (indices out of range, unknown columns, sources of
// another schema, what is not IPC).
#include "quiver/dataset.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <random>
#include <string>

#include "data_test_util.h"
#include "quiver/build_info.h"

namespace quiver::dataset {
namespace {

using test::DataBatch;
using test::TempDir;

// Rows [first, first + n) in record batches of `per_batch` rows, written
// as a file or a stream, compressed with `compression`.
Status WriteData(const std::string& path, int64_t first, int64_t n, int64_t per_batch, bool stream,
                 ipc::Compression compression = ipc::Compression::kNone) {
  QUIVER_ASSIGN_OR_RETURN(auto sink, ipc::OpenFileSink(path));
  ipc::WriteOptions options;
  options.compression = compression;
  std::vector<RecordBatchPtr> batches;
  for (int64_t at = first; at < first + n; at += per_batch) {
    batches.push_back(DataBatch(at, std::min(per_batch, first + n - at)));
  }
  if (stream) {
    QUIVER_ASSIGN_OR_RETURN(auto writer,
                            ipc::StreamWriter::Open(sink, batches[0]->schema(), options));
    for (const RecordBatchPtr& batch : batches) QUIVER_RETURN_NOT_OK(writer->Write(*batch));
    QUIVER_RETURN_NOT_OK(writer->Close());
  } else {
    QUIVER_ASSIGN_OR_RETURN(auto writer,
                            ipc::FileWriter::Open(sink, batches[0]->schema(), options));
    for (const RecordBatchPtr& batch : batches) QUIVER_RETURN_NOT_OK(writer->Write(*batch));
    QUIVER_RETURN_NOT_OK(writer->Close());
  }
  return sink->Close();
}

// The rows [0, n) as one table, built directly.
TablePtr Expected(int64_t n) {
  RecordBatchPtr batch = DataBatch(0, n);
  return *Table::FromRecordBatches(batch->schema(), std::span<const RecordBatchPtr>(&batch, 1));
}

struct Case {
  bool stream;
  ipc::Compression compression;
  bool memory_map;
};

class RandomAccessDatasetCases : public ::testing::TestWithParam<Case> {};

TEST_P(RandomAccessDatasetCases, TakeAndSliceEqualTheWholeTable) {
  const Case c = GetParam();
  if (!ipc::HasCodec(c.compression)) GTEST_SKIP() << "this build lacks the codec";
  TempDir dir;
  ASSERT_OK(WriteData(dir / "a.arrow", 0, 23, 5, c.stream, c.compression));
  ASSERT_OK(WriteData(dir / "b.arrows", 23, 17, 8, c.stream, c.compression));
  DatasetOptions options;
  options.memory_map = c.memory_map;
  ASSERT_OK_AND_ASSIGN(auto dataset, Dataset::Open({dir.path()}, options));
  EXPECT_EQ(dataset->num_rows(), 40);
  EXPECT_EQ(dataset->num_record_batches(), 5 + 3);
  const TablePtr whole = Expected(40);
  std::vector<int64_t> indices = {39, 0, 7, 7, 22, 23, 5, 39, 30};
  ASSERT_OK_AND_ASSIGN(TablePtr taken, dataset->Take(indices));
  ASSERT_OK_AND_ASSIGN(TablePtr expected, whole->Take(indices));
  EXPECT_TRUE(taken->Equals(*expected));
  ASSERT_OK_AND_ASSIGN(TablePtr sliced, dataset->Slice(3, 30));
  ASSERT_OK_AND_ASSIGN(expected, whole->Slice(3, 30));
  EXPECT_TRUE(sliced->Equals(*expected));
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, dataset->ReadRecordBatch(5));
  EXPECT_TRUE(batch->Equals(*DataBatch(23, 8)));
}

INSTANTIATE_TEST_SUITE_P(Sources, RandomAccessDatasetCases,
                         ::testing::Values(Case{false, ipc::Compression::kNone, true},
                                           Case{true, ipc::Compression::kNone, true},
                                           Case{false, ipc::Compression::kNone, false},
                                           Case{true, ipc::Compression::kNone, false},
                                           Case{false, ipc::Compression::kZstd, true},
                                           Case{true, ipc::Compression::kZstd, false},
                                           Case{false, ipc::Compression::kLz4Frame, false},
                                           Case{true, ipc::Compression::kLz4Frame, true}));

TEST(RandomAccessDataset, RandomTakesMatchOverManyBatches) {
  TempDir dir;
  ASSERT_OK(WriteData(dir / "a.arrow", 0, 300, 7, false, ipc::Compression::kNone));
  ASSERT_OK_AND_ASSIGN(auto dataset, Dataset::Open({dir / "a.arrow"}));
  const TablePtr whole = Expected(300);
  std::mt19937 rng(7);
  for (int round = 0; round < 20; ++round) {
    std::vector<int64_t> indices(1 + rng() % 64);
    for (int64_t& i : indices) i = rng() % 300;
    ASSERT_OK_AND_ASSIGN(TablePtr taken, dataset->Take(indices));
    ASSERT_OK_AND_ASSIGN(TablePtr expected, whole->Take(indices));
    ASSERT_TRUE(taken->Equals(*expected)) << "round " << round;
  }
}

TEST(RandomAccessDataset, ProjectionReadsOnlyTheColumnsAskedInTheirOrder) {
  TempDir dir;
  ASSERT_OK(WriteData(dir / "a.arrow", 0, 20, 5, false));
  DatasetOptions options;
  options.columns = {"img", "id"};
  options.memory_map = false;
  ASSERT_OK_AND_ASSIGN(auto dataset, Dataset::Open({dir / "a.arrow"}, options));
  ASSERT_EQ(dataset->schema()->fields.size(), 2u);
  EXPECT_EQ(dataset->schema()->fields[0].name, "img");
  const int64_t before = dataset->cache_stats().bytes_fetched;
  ASSERT_OK_AND_ASSIGN(TablePtr taken, dataset->Take(std::vector<int64_t>{3, 1}));
  const TablePtr whole = Expected(20);
  ASSERT_OK_AND_ASSIGN(TablePtr expected, whole->Take(std::vector<int64_t>{3, 1}));
  ASSERT_OK_AND_ASSIGN(expected, expected->SelectColumns(std::vector<int>{2, 0}));
  EXPECT_TRUE(taken->Equals(*expected));
  // The emb column (2 floats a row) was never read: the bytes fetched are
  // those of id and img alone.
  DatasetOptions all;
  all.memory_map = false;
  ASSERT_OK_AND_ASSIGN(auto full, Dataset::Open({dir / "a.arrow"}, all));
  const int64_t full_before = full->cache_stats().bytes_fetched;
  ASSERT_OK(full->Take(std::vector<int64_t>{3, 1}).status());
  EXPECT_LT(dataset->cache_stats().bytes_fetched - before,
            full->cache_stats().bytes_fetched - full_before);
}

TEST(RandomAccessDataset, CacheCountsHitsAndStaysWithinItsBytes) {
  TempDir dir;
  ASSERT_OK(WriteData(dir / "a.arrow", 0, 200, 10, false, ipc::Compression::kNone));
  DatasetOptions options;
  options.memory_map = false;
  options.cache_bytes = 2000;
  ASSERT_OK_AND_ASSIGN(auto dataset, Dataset::Open({dir / "a.arrow"}, options));
  ASSERT_OK(dataset->Take(std::vector<int64_t>{0}).status());
  CacheStats stats = dataset->cache_stats();
  EXPECT_EQ(stats.misses, 3);  // three columns of record batch 0
  EXPECT_EQ(stats.hits, 0);
  ASSERT_OK(dataset->Take(std::vector<int64_t>{1}).status());
  stats = dataset->cache_stats();
  EXPECT_EQ(stats.hits, 3);
  for (int64_t row = 0; row < 200; row += 10) {
    ASSERT_OK(dataset->Take(std::vector<int64_t>{row}).status());
  }
  stats = dataset->cache_stats();
  EXPECT_LE(stats.bytes_cached, 2000);
  EXPECT_GT(stats.evictions, 0);
  EXPECT_GT(stats.bytes_decoded, 0);
  EXPECT_GT(stats.requests, 0);
}

TEST(RandomAccessDataset, ErrorsNameWhatIsWrong) {
  TempDir dir;
  ASSERT_OK(WriteData(dir / "a.arrow", 0, 10, 5, false));
  ASSERT_OK_AND_ASSIGN(auto dataset, Dataset::Open({dir / "a.arrow"}));
  EXPECT_ERROR(kIndexError, "index 10 at position 1 is out of range for a dataset of 10 rows",
               dataset->Take(std::vector<int64_t>{0, 10}));
  EXPECT_ERROR(kIndexError, "index -1 at position 0", dataset->Take(std::vector<int64_t>{-1}));
  EXPECT_ERROR(kIndexError, "outside a dataset of 10 rows", dataset->Slice(5, 6));
  EXPECT_ERROR(kIndexError, "record batch 2 is out of range", dataset->ReadRecordBatch(2));
  DatasetOptions options;
  options.columns = {"nope"};
  EXPECT_ERROR(kInvalid, "no column named 'nope' (the columns: id, emb, img)",
               Dataset::Open({dir / "a.arrow"}, options));
  std::ofstream(dir / "notes.arrow") << "id,emb\n1,2\n";
  EXPECT_ERROR(kInvalid, "notes.arrow", Dataset::Open({dir / "notes.arrow"}));
  // Another schema.
  auto other = std::make_shared<Schema>();
  other->fields = {Field{"id", int64()}};
  ASSERT_OK_AND_ASSIGN(auto sink, ipc::OpenFileSink(dir / "c.arrow"));
  ASSERT_OK_AND_ASSIGN(auto writer, ipc::FileWriter::Open(sink, other));
  ASSERT_OK(writer->Close());
  ASSERT_OK(sink->Close());
  EXPECT_ERROR(kInvalid, "every file must have the same schema",
               Dataset::Open({dir / "a.arrow", dir / "c.arrow"}));
  DatasetOptions negative;
  negative.cache_bytes = -1;
  EXPECT_ERROR(kInvalid, "cache_bytes", Dataset::Open({dir / "a.arrow"}, negative));
}

TEST(RandomAccessDataset, TruncatedStreamIsAnErrorNamingIt) {
  TempDir dir;
  ASSERT_OK(WriteData(dir / "a.arrows", 0, 10, 5, true));
  std::filesystem::resize_file(dir / "a.arrows",
                               std::filesystem::file_size(dir / "a.arrows") - 100);
  EXPECT_ERROR(kInvalid, "a.arrows", Dataset::Open({dir / "a.arrows"}));
}

TEST(RandomAccessDataset, EmptyTakeAndSliceHaveTheSchema) {
  TempDir dir;
  ASSERT_OK(WriteData(dir / "a.arrow", 0, 10, 5, false));
  ASSERT_OK_AND_ASSIGN(auto dataset, Dataset::Open({dir / "a.arrow"}));
  ASSERT_OK_AND_ASSIGN(TablePtr none, dataset->Take(std::vector<int64_t>{}));
  EXPECT_EQ(none->num_rows(), 0);
  EXPECT_EQ(none->schema()->fields.size(), 3u);
}

}  // namespace
}  // namespace quiver::dataset

namespace quiver::dataset {
namespace {

TEST(RandomAccessDataset, QuiverFilesOpenFromTheFooterAloneAndItsRowsAreChecked) {
  TempDir dir;
  ASSERT_OK(WriteData(dir / "a.arrow", 0, 40, 5, false));  // quiver's footer lists the rows
  DatasetOptions options;
  options.memory_map = false;
  ASSERT_OK_AND_ASSIGN(auto dataset, Dataset::Open({dir / "a.arrow"}, options));
  // Opening read the two magics, the footer and the first bytes: no
  // record batch header.
  const CacheStats opened = dataset->cache_stats();
  EXPECT_LE(opened.requests, 5);
  EXPECT_EQ(dataset->num_rows(), 40);
  ASSERT_OK(dataset->Take(std::vector<int64_t>{39}).status());
  // A footer whose counts disagree with a header: the header wins, and
  // the batch says so.
  ASSERT_OK_AND_ASSIGN(auto source, io::OpenFileSource(dir / "a.arrow"));
  ASSERT_OK_AND_ASSIGN(BufferPtr bytes, source->ReadAt(0, source->size()));
  std::string text(reinterpret_cast<const char*>(bytes->data()), bytes->size());
  const size_t at = text.find("5,5,5,5,5,5,5,5");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 15, "5,5,5,5,5,5,5,4");
  std::ofstream(dir / "b.arrow", std::ios::binary) << text;
  ASSERT_OK_AND_ASSIGN(auto lied, Dataset::Open({dir / "b.arrow"}));
  EXPECT_EQ(lied->num_rows(), 39);
  EXPECT_ERROR(kInvalid, "its header says 5 rows, the file's footer 4",
               lied->Take(std::vector<int64_t>{36}));
}

TEST(RandomAccessDataset, CompressedBodiesOfAMappedFileAreReadWithPread) {
  if (!ipc::HasCodec(ipc::Compression::kZstd)) GTEST_SKIP() << "no ZSTD";
  TempDir dir;
  ASSERT_OK(WriteData(dir / "a.arrow", 0, 40, 5, false, ipc::Compression::kZstd));
  ASSERT_OK_AND_ASSIGN(auto dataset, Dataset::Open({dir / "a.arrow"}));  // mapped
  const int64_t before = dataset->cache_stats().bytes_fetched;
  ASSERT_OK(dataset->Take(std::vector<int64_t>{0, 39}).status());
  EXPECT_GT(dataset->cache_stats().bytes_fetched, before);
}

// A mapped file rewritten under its path (a writer renames its new file
// over the old), or removed, after the dataset opened it: every read still
// comes from the file opened, headers and compressed bodies (read with
// pread) included, never half from one file and half from another.
TEST(RandomAccessDataset, AMappedFileReplacedOrRemovedAfterOpenIsStillTheOneRead) {
  for (ipc::Compression codec : {ipc::Compression::kNone, ipc::Compression::kZstd}) {
    if (!ipc::HasCodec(codec)) continue;
    TempDir dir;
    const std::string path = dir / "a.arrow";
    ASSERT_OK(WriteData(path, 0, 40, 5, false, codec));
    ASSERT_OK_AND_ASSIGN(auto dataset, Dataset::Open({path}));  // mapped
    // Another file, same name: other rows, other sizes (and the same size).
    ASSERT_OK(WriteData(path, 100, 60, 7, false, codec));
    const TablePtr whole = Expected(40);
    const std::vector<int64_t> first = {39, 0, 7, 22};
    ASSERT_OK_AND_ASSIGN(TablePtr taken, dataset->Take(first));
    EXPECT_TRUE(taken->Equals(**whole->Take(first)));
    ASSERT_OK(WriteData(path, 100, 40, 5, false, codec));
    std::remove(path.c_str());
    const std::vector<int64_t> later = {3, 16, 31, 38};
    ASSERT_OK_AND_ASSIGN(taken, dataset->Take(later));
    EXPECT_TRUE(taken->Equals(**whole->Take(later)));
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, dataset->ReadRecordBatch(6));
    EXPECT_TRUE(batch->Equals(*DataBatch(30, 5)));
  }
}

// Warm decodes the record batches asked for into the cache at once, each
// once: the reads that follow hit; a record batch out of range is an
// IndexError.
TEST(RandomAccessDataset, WarmFillsTheCacheForTheReadsThatFollow) {
  if (!ipc::HasCodec(ipc::Compression::kZstd)) GTEST_SKIP() << "no ZSTD";
  TempDir dir;
  ASSERT_OK(WriteData(dir / "a.arrow", 0, 40, 5, false, ipc::Compression::kZstd));
  ASSERT_OK_AND_ASSIGN(auto dataset, Dataset::Open({dir / "a.arrow"}));
  ASSERT_OK(dataset->Warm(std::vector<int64_t>{0, 3, 3, 5}));
  const CacheStats warmed = dataset->cache_stats();
  const int64_t columns = static_cast<int64_t>(dataset->schema()->fields.size());
  EXPECT_EQ(warmed.misses, 3 * columns);
  EXPECT_EQ(warmed.hits, 0);
  ASSERT_OK(dataset->Warm(std::vector<int64_t>{0, 3}));  // held: nothing read
  EXPECT_EQ(dataset->cache_stats().misses, warmed.misses);
  ASSERT_OK(dataset->Take(std::vector<int64_t>{0, 16, 27}).status());
  EXPECT_EQ(dataset->cache_stats().misses, warmed.misses);
  EXPECT_EQ(dataset->cache_stats().hits, 3 * columns);
  EXPECT_ERROR(kIndexError, "record batch 8 is out of range for 8 record batches",
               dataset->Warm(std::vector<int64_t>{8}));
}

}  // namespace
}  // namespace quiver::dataset

namespace quiver::dataset {
namespace {

// Rows [first, first + n) of fixed-width columns: id (int64, every fifth
// null), emb (fixed_shape_tensor float32 [2]) and tile (fixed_size_list
// <uint8>[4096]): 4 KiB a row.
RecordBatchPtr FixedBatch(int64_t first, int64_t n) {
  std::vector<int64_t> ids;
  std::vector<bool> valid;
  std::vector<float> emb;
  std::vector<uint8_t> tiles;
  for (int64_t r = first; r < first + n; ++r) {
    ids.push_back(r);
    valid.push_back(r % 5 != 4);
    emb.insert(emb.end(), {static_cast<float>(r), static_cast<float>(-r)});
    for (int i = 0; i < 4096; ++i) tiles.push_back(static_cast<uint8_t>(r + i));
  }
  FixedShapeTensorArray fixed =
      *FixedShapeTensorArray::FromTensor(*Tensor::Make(float32(), test::BufferOf(emb), {n, 2}));
  auto tile = std::make_shared<ArrayData>();
  tile->type = *fixed_size_list(Field{"item", uint8()}, 4096);
  tile->length = n;
  tile->buffers = {nullptr};
  tile->children = {test::Primitive<uint8_t>(uint8(), tiles)};
  auto schema = std::make_shared<Schema>(Schema{
      {Field{"id", int64()}, Field{"emb", fixed.type().data_type()}, Field{"tile", tile->type}}});
  return *RecordBatch::Make(schema, n,
                            {test::Primitive<int64_t>(int64(), ids, valid), fixed.data(), tile});
}

// Rows [0, n) of FixedBatch as one table: what takes are checked against.
TablePtr FixedTable(int64_t n) {
  const RecordBatchPtr all = FixedBatch(0, n);
  return *Table::FromRecordBatches(all->schema(), std::span<const RecordBatchPtr>(&all, 1));
}

// LZ4 in independent blocks of 4 KiB: one tile row a block.
ipc::WriteOptions Lz4In4KiBBlocks() {
  ipc::WriteOptions write;
  write.compression = ipc::Compression::kLz4Frame;
  write.compression_block_bytes = 4096;
  return write;
}

// Random takes of every size (30 rounds of 1 to 40 indices, repeats
// allowed, seeded) from `dataset` agree with the same takes from `whole`.
void ExpectRandomTakesMatch(Dataset& dataset, const Table& whole, unsigned seed) {
  std::mt19937 rng(seed);
  for (int round = 0; round < 30; ++round) {
    std::vector<int64_t> indices(1 + rng() % 40);
    for (int64_t& i : indices) i = rng() % whole.num_rows();
    ASSERT_OK_AND_ASSIGN(TablePtr taken, dataset.Take(indices));
    ASSERT_OK_AND_ASSIGN(TablePtr expected, whole.Take(indices));
    ASSERT_TRUE(taken->Equals(*expected)) << "round " << round;
  }
}

// A take of a few rows from a source that copies what it reads fetches
// those rows' bytes, not whole buffers, and gives the same table; a take
// of most of a batch reads its buffers whole (and caches them).
TEST(RandomAccessDataset, FewRowsOfFixedWidthColumnsFetchOnlyTheirBytes) {
  TempDir dir;
  std::vector<RecordBatchPtr> batches;
  for (int64_t at = 0; at < 600; at += 200) batches.push_back(FixedBatch(at, 200));
  ASSERT_OK(test::WriteBatches(dir / "a.arrow", batches));
  const RecordBatchPtr all = FixedBatch(0, 600);
  ASSERT_OK_AND_ASSIGN(
      TablePtr whole,
      Table::FromRecordBatches(all->schema(), std::span<const RecordBatchPtr>(&all, 1)));
  DatasetOptions options;
  options.memory_map = false;
  ASSERT_OK_AND_ASSIGN(auto dataset, Dataset::Open({dir / "a.arrow"}, options));
  const std::vector<int64_t> few = {599, 4, 3, 4, 250};
  int64_t before = dataset->cache_stats().bytes_fetched;
  ASSERT_OK_AND_ASSIGN(TablePtr taken, dataset->Take(few));
  ASSERT_OK_AND_ASSIGN(TablePtr expected, whole->Take(few));
  EXPECT_TRUE(taken->Equals(*expected));
  // Four distinct rows of 4 KiB, their ids and embeddings, three headers
  // and the id column's validity bitmaps: well under 20 KiB, where whole
  // buffers would be three batches of 800 KiB.
  EXPECT_LT(dataset->cache_stats().bytes_fetched - before, 20 * 1024);
  EXPECT_EQ(dataset->cache_stats().bytes_cached, 0);  // rows read alone are not kept

  // A one-row slice (ds[i]) reads that row alone too.
  before = dataset->cache_stats().bytes_fetched;
  ASSERT_OK_AND_ASSIGN(TablePtr one, dataset->Slice(420, 1));
  ASSERT_OK_AND_ASSIGN(expected, whole->Slice(420, 1));
  EXPECT_TRUE(one->Equals(*expected));
  EXPECT_LT(dataset->cache_stats().bytes_fetched - before, 8 * 1024);

  std::vector<int64_t> most;
  for (int64_t r = 200; r < 380; ++r) most.push_back(r);
  before = dataset->cache_stats().bytes_fetched;
  ASSERT_OK_AND_ASSIGN(taken, dataset->Take(most));
  ASSERT_OK_AND_ASSIGN(expected, whole->Take(most));
  EXPECT_TRUE(taken->Equals(*expected));
  EXPECT_GT(dataset->cache_stats().bytes_cached, 200 * 4096);
  // Now cached: a take of a few of those rows reads nothing.
  before = dataset->cache_stats().bytes_fetched;
  ASSERT_OK_AND_ASSIGN(taken, dataset->Take(std::vector<int64_t>{201, 399}));
  ASSERT_OK_AND_ASSIGN(expected, whole->Take(std::vector<int64_t>{201, 399}));
  EXPECT_TRUE(taken->Equals(*expected));
  EXPECT_EQ(dataset->cache_stats().bytes_fetched, before);

  ExpectRandomTakesMatch(*dataset, *whole, 11);
}

// Once the cache is full, a take of a few rows of a compressed file
// written in blocks (compression_block_bytes) decodes the blocks that hold
// them, not whole buffers, keeps nothing, and gives the same table;
// without blocks, for most of a batch, or while the cache has room, the
// batch is decoded whole and cached.
TEST(RandomAccessDataset, FewRowsOfACompressedFileDecodeOnlyTheirBlocks) {
  const RecordBatchPtr all = FixedBatch(0, 600);
  ASSERT_OK_AND_ASSIGN(
      TablePtr whole,
      Table::FromRecordBatches(all->schema(), std::span<const RecordBatchPtr>(&all, 1)));
  std::vector<RecordBatchPtr> batches;
  for (int64_t at = 0; at < 600; at += 200) batches.push_back(FixedBatch(at, 200));
  for (ipc::Compression codec : {ipc::Compression::kLz4Frame, ipc::Compression::kZstd}) {
    if (!ipc::HasCodec(codec)) continue;
    for (bool memory_map : {true, false}) {
      SCOPED_TRACE(std::string(codec == ipc::Compression::kZstd ? "zstd" : "lz4") +
                   (memory_map ? " mapped" : " pread"));
      TempDir dir;
      ipc::WriteOptions write;
      write.compression = codec;
      write.compression_block_bytes = 64 << 10;
      ASSERT_OK(test::WriteBatches(dir / "blocks.arrow", batches, write));
      write.compression_block_bytes = 0;
      ASSERT_OK(test::WriteBatches(dir / "frames.arrow", batches, write));
      DatasetOptions options;
      options.memory_map = memory_map;
      ASSERT_OK_AND_ASSIGN(auto frames, Dataset::Open({dir / "frames.arrow"}, options));
      ASSERT_OK_AND_ASSIGN(auto roomy, Dataset::Open({dir / "blocks.arrow"}, options));
      // A cache that one batch (822 KiB) fills: rows are then read alone.
      options.cache_bytes = 850 << 10;
      ASSERT_OK_AND_ASSIGN(auto blocks, Dataset::Open({dir / "blocks.arrow"}, options));
      // The first read learns that the file is compressed (a mapped file's
      // rows are named only then) and fills the cache.
      for (auto* dataset : {blocks.get(), frames.get(), roomy.get()}) {
        ASSERT_OK(dataset->Slice(0, 200).status());
      }
      const std::vector<int64_t> few = {599, 404, 403, 404, 250};
      const int64_t cached = blocks->cache_stats().bytes_cached;
      int64_t before = blocks->cache_stats().bytes_decoded;
      ASSERT_OK_AND_ASSIGN(TablePtr taken, blocks->Take(few));
      ASSERT_OK_AND_ASSIGN(TablePtr expected, whole->Take(few));
      EXPECT_TRUE(taken->Equals(*expected));
      // Three rows' tiles lie in one or two 64 KiB blocks each; the small
      // id and emb buffers (one frame each) decode whole. Whole batches
      // would be two of 800 KiB.
      EXPECT_LT(blocks->cache_stats().bytes_decoded - before, 6 * (64 << 10) + 2 * 200 * 16);
      EXPECT_EQ(blocks->cache_stats().bytes_cached, cached);  // nothing kept
      // Neighbouring rows of one batch are in buffers of their own, not a
      // slice of the batch-long tile buffer whose other bytes were never
      // decoded.
      const std::vector<int64_t> run = {403, 404};
      ASSERT_OK_AND_ASSIGN(TablePtr pair, blocks->Take(run));
      ASSERT_OK_AND_ASSIGN(TablePtr expected_pair, whole->Take(run));
      EXPECT_TRUE(pair->Equals(*expected_pair));
      EXPECT_LE(pair->column(2)->chunks()[0]->children[0]->buffers[1]->size(), 2 * 4096 + 64);

      // The batch's blocks are known now: another row of it reads its
      // blocks' bytes alone, not the whole stored buffers.
      const int64_t fetched = blocks->cache_stats().bytes_fetched;
      ASSERT_OK_AND_ASSIGN(TablePtr row, blocks->Take(std::vector<int64_t>{590}));
      ASSERT_OK_AND_ASSIGN(TablePtr expected_row, whole->Take(std::vector<int64_t>{590}));
      EXPECT_TRUE(row->Equals(*expected_row));
      if (!memory_map) {
        EXPECT_LT(blocks->cache_stats().bytes_fetched - fetched, 2 * (64 << 10));
      }

      before = frames->cache_stats().bytes_decoded;
      ASSERT_OK_AND_ASSIGN(taken, frames->Take(few));
      EXPECT_TRUE(taken->Equals(*expected));
      EXPECT_GT(frames->cache_stats().bytes_decoded - before, 2 * 200 * 4096);

      // A one-row slice (ds[i]) decodes its blocks alone too.
      before = blocks->cache_stats().bytes_decoded;
      ASSERT_OK_AND_ASSIGN(TablePtr one, blocks->Slice(420, 1));
      ASSERT_OK_AND_ASSIGN(expected, whole->Slice(420, 1));
      EXPECT_TRUE(one->Equals(*expected));
      // In buffers of its own, not a slice of the batch-long tile buffer
      // whose other bytes were never decoded.
      const ArrayDataPtr& tile = one->column(2)->chunks()[0];
      EXPECT_LE(tile->children[0]->buffers[1]->size(), 4096 + 64);
      EXPECT_LT(blocks->cache_stats().bytes_decoded - before, 2 * (64 << 10) + 200 * 16);

      // A cache that holds the small columns but refuses the tiles: the
      // tiles' blocks are read alone and the cached columns cut to the rows.
      options.cache_bytes = 64 << 10;
      ASSERT_OK_AND_ASSIGN(auto tight, Dataset::Open({dir / "blocks.arrow"}, options));
      ASSERT_OK(tight->Slice(0, 600).status());
      EXPECT_GT(tight->cache_stats().bytes_cached, 0);
      before = tight->cache_stats().bytes_decoded;
      ASSERT_OK_AND_ASSIGN(taken, tight->Take(few));
      EXPECT_TRUE(taken->Equals(**whole->Take(few)));
      EXPECT_LT(tight->cache_stats().bytes_decoded - before, 6 * (64 << 10));

      // A cache with room: the batch is decoded whole, and kept for the
      // rows that will follow.
      before = roomy->cache_stats().bytes_decoded;
      ASSERT_OK_AND_ASSIGN(taken, roomy->Take(few));
      EXPECT_TRUE(taken->Equals(**whole->Take(few)));
      EXPECT_GT(roomy->cache_stats().bytes_decoded - before, 2 * 200 * 4096);
      EXPECT_GT(roomy->cache_stats().bytes_cached, 3 * 200 * 4096);

      // Most of a batch: decoded whole (and cached).
      std::vector<int64_t> most;
      for (int64_t r = 400; r < 580; ++r) most.push_back(r);
      before = blocks->cache_stats().bytes_decoded;
      ASSERT_OK_AND_ASSIGN(taken, blocks->Take(most));
      ASSERT_OK_AND_ASSIGN(expected, whole->Take(most));
      EXPECT_TRUE(taken->Equals(*expected));
      EXPECT_GT(blocks->cache_stats().bytes_decoded - before, 200 * 4096);

      ExpectRandomTakesMatch(*blocks, *whole, 5);
    }
  }
}

// Rows of a batch stored one frame a buffer, once the cache is full: the
// bytes read whole are decoded whole once and cached, so the next take of
// its rows decodes nothing.
TEST(RandomAccessDataset, ABatchOfOneFrameBuffersIsDecodedOnceAndCached) {
  if (!ipc::HasCodec(ipc::Compression::kLz4Frame)) GTEST_SKIP() << "this build has no LZ4";
  std::vector<RecordBatchPtr> batches;
  for (int64_t at = 0; at < 600; at += 200) batches.push_back(FixedBatch(at, 200));
  TempDir dir;
  ipc::WriteOptions write;
  write.compression = ipc::Compression::kLz4Frame;
  ASSERT_OK(test::WriteBatches(dir / "frames.arrow", batches, write));
  DatasetOptions options;
  options.memory_map = false;
  options.cache_bytes = 850 << 10;  // one batch
  ASSERT_OK_AND_ASSIGN(auto dataset, Dataset::Open({dir / "frames.arrow"}, options));
  ASSERT_OK(dataset->Slice(0, 200).status());  // fills the cache
  const std::vector<int64_t> few = {450, 420};
  ASSERT_OK(dataset->Take(few).status());
  const CacheStats after_first = dataset->cache_stats();
  EXPECT_GT(after_first.bytes_decoded, 200 * 4096);
  ASSERT_OK_AND_ASSIGN(TablePtr again, dataset->Take(few));
  EXPECT_EQ(dataset->cache_stats().bytes_decoded, after_first.bytes_decoded);
  EXPECT_GT(dataset->cache_stats().hits, after_first.hits);
  EXPECT_EQ(again->column(0)->chunks()[0]->length, 2);
}

// The LZ4 block size quiver's writer declares is what places the blocks:
// with one block of a batch damaged (its sequences no longer countable),
// rows in the batch's other blocks still read, where counting would give
// up on the buffer and the whole decode would fail; the damaged block's
// own row fails with an error.
TEST(RandomAccessDataset, DeclaredLz4BlocksArePlacedWithoutCountingThem) {
  if (!ipc::HasCodec(ipc::Compression::kLz4Frame)) GTEST_SKIP() << "this build has no LZ4";
  const TablePtr whole = FixedTable(400);
  TempDir dir;
  ASSERT_OK(test::WriteBatches(dir / "blocks.arrow", {FixedBatch(0, 200), FixedBatch(200, 200)},
                               Lz4In4KiBBlocks()));
  // The last LZ4 frame of the file is the second batch's tiles: past its
  // 15-byte header (magic, flags, block size, content size, checksum), its
  // blocks; block 50's bytes become 0xFF.
  std::string bytes;
  {
    std::ifstream in(dir / "blocks.arrow", std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  const size_t frame = bytes.rfind(std::string("\x04\x22\x4d\x18", 4));
  ASSERT_NE(frame, std::string::npos);
  size_t at = frame + 15;
  auto word = [&](size_t where) {
    uint32_t value = 0;
    std::memcpy(&value, bytes.data() + where, 4);
    return value;
  };
  for (int block = 0; block < 50; ++block) at += 4 + (word(at) & 0x7FFFFFFFu);
  ASSERT_EQ(word(at) & 0x80000000u, 0u);  // compressed, not stored raw
  for (uint32_t i = 0; i < word(at); ++i) bytes[at + 4 + i] = '\xFF';
  std::ofstream(dir / "blocks.arrow", std::ios::binary | std::ios::trunc) << bytes;

  DatasetOptions options;
  options.memory_map = false;
  options.cache_bytes = 850 << 10;  // one batch: the second's rows are read alone
  ASSERT_OK_AND_ASSIGN(auto dataset, Dataset::Open({dir / "blocks.arrow"}, options));
  ASSERT_OK(dataset->Slice(0, 200).status());
  const std::vector<int64_t> rows = {210, 399, 260, 210};
  ASSERT_OK_AND_ASSIGN(TablePtr taken, dataset->Take(rows));
  ASSERT_OK_AND_ASSIGN(TablePtr expected, whole->Take(rows));
  EXPECT_TRUE(taken->Equals(*expected));
  const auto damaged = dataset->Take(std::vector<int64_t>{250});
  ASSERT_FALSE(damaged.ok());
  EXPECT_NE(damaged.status().message().find("record batch 1"), std::string::npos)
      << damaged.status().message();
}

// A take whose rows lie in many record batches read alone: the rows
// (repeats, nulls, every column) are the whole table's.
TEST(RandomAccessDataset, TakesOverManyCompressedBatchesMatch) {
  if (!ipc::HasCodec(ipc::Compression::kLz4Frame)) GTEST_SKIP() << "this build has no LZ4";
  std::vector<RecordBatchPtr> batches;
  for (int64_t at = 0; at < 800; at += 8) batches.push_back(FixedBatch(at, 8));
  const TablePtr whole = FixedTable(800);
  TempDir dir;
  ASSERT_OK(test::WriteBatches(dir / "blocks.arrow", batches, Lz4In4KiBBlocks()));
  DatasetOptions options;
  options.memory_map = false;
  options.cache_bytes = 40 << 10;  // one batch: the others' rows are read alone
  ASSERT_OK_AND_ASSIGN(auto dataset, Dataset::Open({dir / "blocks.arrow"}, options));
  ASSERT_OK(dataset->Slice(0, 8).status());
  for (int64_t stride : {13, 11}) {  // 62 and 73 of the 100 batches
    SCOPED_TRACE("every " + std::to_string(stride) + "th row");
    std::vector<int64_t> rows;
    for (int64_t r = 799; r >= 0; r -= stride) rows.push_back(r);
    rows.push_back(rows.front());
    ASSERT_OK_AND_ASSIGN(TablePtr taken, dataset->Take(rows));
    ASSERT_OK_AND_ASSIGN(TablePtr expected, whole->Take(rows));
    EXPECT_TRUE(taken->Equals(*expected));
  }
  EXPECT_GT(dataset->cache_stats().bytes_decoded, 0);
  EXPECT_LT(dataset->cache_stats().bytes_decoded, 800 * 4096 / 2);  // rows, not batches
}

}  // namespace
}  // namespace quiver::dataset
