// BatchReader end to end: every row once per epoch (shuffled or not,
// sharded or not, with and without drop_last, with and without prefetch),
// determinism by seed and epoch, batch values equal to the source rows,
// multi-file datasets, bucketing lowering the padding ratio, batches that
// stay valid, and the errors of bad options and corrupt files; readers
// used in forked children, files read without mapping and truncated, and
// the max_batch_bytes cap.
#include "quiver/data.h"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <numeric>
#include <set>
#include <thread>

#include "data_test_util.h"
#include "fork_test_util.h"
#include "quiver/build_info.h"
#include "variable_shape_test_util.h"

namespace quiver::data {
namespace {

using test::TempDir;

class BatchReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // 23 rows over two files and five record batches.
    ASSERT_OK(test::WriteRows(dir_ / "a.arrow", 0, 14, 5, /*nulls=*/true));
    ASSERT_OK(test::WriteRows(dir_ / "b.arrow", 14, 9, 9, /*nulls=*/true));
  }

  BatchReaderOptions Options(int64_t batch_size) {
    BatchReaderOptions options;
    options.batch_size = batch_size;
    options.threads = 2;
    return options;
  }

  // Every batch of one epoch through Next().
  static std::vector<Batch> Epoch(BatchReader& reader) {
    std::vector<Batch> batches;
    while (true) {
      Result<std::optional<Batch>> next = reader.Next();
      EXPECT_TRUE(next.ok()) << next.status().ToString();
      if (!next.ok() || !*next) break;
      batches.push_back(std::move(**next));
    }
    return batches;
  }

  static std::vector<int64_t> Ids(const std::vector<Batch>& batches) {
    std::vector<int64_t> ids;
    for (const Batch& batch : batches) {
      const Tensor& id = batch.Find("id")->tensor;
      for (int64_t i = 0; i < batch.num_rows; ++i) ids.push_back(test::At<int64_t>(id, {i}));
    }
    return ids;
  }

  TempDir dir_;
};

TEST_F(BatchReaderTest, EveryRowOncePerEpoch) {
  for (Shuffle shuffle : {Shuffle::kNone, Shuffle::kGlobal, Shuffle::kWindow}) {
    for (bool drop_last : {false, true}) {
      for (int world : {1, 2}) {
        for (int prefetch : {0, 2}) {
          std::vector<int64_t> all;
          std::set<int64_t> counts;
          for (int rank = 0; rank < world; ++rank) {
            BatchReaderOptions options = Options(4);
            options.shuffle = shuffle;
            options.window_rows = 7;
            options.drop_last = drop_last;
            options.rank = rank;
            options.world_size = world;
            options.prefetch = prefetch;
            ASSERT_OK_AND_ASSIGN(auto reader, BatchReader::Open({dir_.path()}, options));
            std::vector<Batch> batches = Epoch(*reader);
            EXPECT_EQ(static_cast<int64_t>(batches.size()), reader->num_batches());
            counts.insert(reader->num_batches());
            std::vector<int64_t> ids = Ids(batches);
            EXPECT_EQ(static_cast<int64_t>(ids.size()),
                      drop_last ? reader->num_batches() * 4 : reader->shard_rows());
            all.insert(all.end(), ids.begin(), ids.end());
          }
          std::sort(all.begin(), all.end());
          EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end());
          if (!drop_last) {
            std::vector<int64_t> every(23);
            std::iota(every.begin(), every.end(), int64_t{0});
            EXPECT_EQ(all, every);
          } else {
            EXPECT_EQ(counts.size(), 1u);
          }
        }
      }
    }
  }
}

TEST_F(BatchReaderTest, BatchesHoldTheSourceRows) {
  BatchReaderOptions options = Options(5);
  options.shuffle = Shuffle::kGlobal;
  options.pad_value = 9;
  ASSERT_OK_AND_ASSIGN(auto reader,
                       BatchReader::Open({dir_ / "a.arrow", dir_ / "b.arrow"}, options));
  EXPECT_EQ(reader->output_names(), (std::vector<std::string>{"id", "emb", "img", "img_shape"}));
  EXPECT_EQ(reader->num_rows(), 23);
  for (const Batch& batch : Epoch(*reader)) {
    const Tensor& img = batch.Find("img")->tensor;
    const Tensor& shape = batch.Find("img_shape")->tensor;
    const Tensor& emb = batch.Find("emb")->tensor;
    for (int64_t i = 0; i < batch.num_rows; ++i) {
      const int64_t r = batch.rows[i];
      EXPECT_EQ(test::At<int64_t>(batch.Find("id")->tensor, {i}), r);
      EXPECT_EQ(test::At<float>(emb, {i, 1}), -static_cast<float>(r));
      const bool null = r % 5 == 4;
      const std::vector<int64_t> s = null ? std::vector<int64_t>{0, 0} : test::ImageShape(r);
      EXPECT_EQ(test::At<int32_t>(shape, {i, 0}), s[0]);
      EXPECT_EQ(test::At<int32_t>(shape, {i, 1}), s[1]);
      for (int64_t h = 0; h < img.shape()[1]; ++h) {
        for (int64_t w = 0; w < img.shape()[2]; ++w) {
          const bool inside = h < s[0] && w < s[1];
          EXPECT_EQ(test::At<uint8_t>(img, {i, h, w}),
                    inside ? test::ImageValue(r, h * s[1] + w) : 9);
        }
      }
    }
  }
}

TEST_F(BatchReaderTest, SameSeedAndEpochSameOrderOtherEpochsDiffer) {
  BatchReaderOptions options = Options(4);
  options.shuffle = Shuffle::kGlobal;
  options.seed = 42;
  ASSERT_OK_AND_ASSIGN(auto a, BatchReader::Open({dir_.path()}, options));
  ASSERT_OK_AND_ASSIGN(auto b, BatchReader::Open({dir_.path()}, options));
  std::vector<int64_t> first = Ids(Epoch(*a));
  EXPECT_EQ(first, Ids(Epoch(*b)));
  ASSERT_OK(a->SetEpoch(1));
  EXPECT_EQ(a->epoch(), 1);
  std::vector<int64_t> second = Ids(Epoch(*a));
  EXPECT_NE(first, second);
  ASSERT_OK(a->SetEpoch(0));
  EXPECT_EQ(Ids(Epoch(*a)), first);
  ASSERT_OK_AND_ASSIGN(std::vector<int64_t> rows, a->EpochRows());
  EXPECT_EQ(rows, first);
  EXPECT_ERROR(kInvalid, "epoch must be >= 0", a->SetEpoch(-1));
}

TEST_F(BatchReaderTest, SetEpochMidwayStartsOver) {
  BatchReaderOptions options = Options(3);
  options.prefetch = 3;
  ASSERT_OK_AND_ASSIGN(auto reader, BatchReader::Open({dir_.path()}, options));
  ASSERT_OK_AND_ASSIGN(auto first, reader->Next());
  ASSERT_OK(reader->SetEpoch(0));
  std::vector<Batch> batches = Epoch(*reader);
  ASSERT_EQ(batches.size(), 8u);
  EXPECT_EQ(batches[0].rows, first->rows);
  ASSERT_OK_AND_ASSIGN(auto after, reader->Next());
  EXPECT_FALSE(after.has_value());  // stays at the end
}

TEST_F(BatchReaderTest, BatchesStayValidWhileLaterOnesAreRead) {
  BatchReaderOptions options = Options(4);
  options.prefetch = 1;
  ASSERT_OK_AND_ASSIGN(auto reader, BatchReader::Open({dir_.path()}, options));
  std::vector<Batch> batches = Epoch(*reader);
  ASSERT_OK(reader->SetEpoch(1));
  std::vector<Batch> more = Epoch(*reader);
  // The first epoch's batches were not overwritten by the second's.
  for (const Batch& batch : batches) {
    for (int64_t i = 0; i < batch.num_rows; ++i)
      EXPECT_EQ(test::At<int64_t>(batch.Find("id")->tensor, {i}), batch.rows[i]);
  }
}

TEST_F(BatchReaderTest, JaggedAndListLayouts) {
  BatchReaderOptions options = Options(6);
  options.ragged = RaggedLayout::kJagged;
  options.columns = {"img"};
  ASSERT_OK_AND_ASSIGN(auto reader, BatchReader::Open({dir_.path()}, options));
  EXPECT_EQ(reader->output_names(), (std::vector<std::string>{"img", "img_offsets", "img_shape"}));
  ASSERT_OK_AND_ASSIGN(auto batch, reader->Next());
  const Tensor& offsets = batch->Find("img_offsets")->tensor;
  const Tensor& values = batch->Find("img")->tensor;
  for (int64_t i = 0; i < 6; ++i) {
    const int64_t begin = test::At<int64_t>(offsets, {i});
    if (i == 4) {
      EXPECT_EQ(test::At<int64_t>(offsets, {i + 1}), begin);  // null row
      continue;
    }
    EXPECT_EQ(test::At<uint8_t>(values, {begin}), test::ImageValue(i, 0));
  }
  options.ragged = RaggedLayout::kList;
  ASSERT_OK_AND_ASSIGN(reader, BatchReader::Open({dir_.path()}, options));
  ASSERT_OK_AND_ASSIGN(batch, reader->Next());
  ASSERT_TRUE(batch->arrays[0].is_list);
  EXPECT_EQ(batch->arrays[0].rows.size(), 6u);
  EXPECT_FALSE(batch->arrays[0].rows[4].has_value());
}

TEST_F(BatchReaderTest, BucketingLowersThePaddingRatio) {
  // Sizes skewed: most rows 1 x 1, every fifth 64 x 64.
  TempDir skewed;
  std::vector<std::optional<Tensor>> images;
  for (int64_t r = 0; r < 200; ++r) {
    const int64_t side = r % 5 == 0 ? 64 : 1;
    images.emplace_back(test::IotaOf<uint8_t>(uint8(), {side, side}));
  }
  VariableShapeTensorArray array =
      *VariableShapeTensorArray::FromTensors(test::ImageType(), images);
  auto schema = std::make_shared<Schema>();
  schema->fields = {Field{"img", array.type().data_type()}};
  ASSERT_OK(
      test::WriteBatches(skewed / "s.arrow", {*RecordBatch::Make(schema, 200, {array.data()})}));
  BatchReaderOptions options = Options(10);
  options.shuffle = Shuffle::kGlobal;
  ASSERT_OK_AND_ASSIGN(auto plain, BatchReader::Open({skewed.path()}, options));
  Epoch(*plain);
  options.bucket_by = "img";
  options.bucket_window = 10;
  ASSERT_OK_AND_ASSIGN(auto bucketed, BatchReader::Open({skewed.path()}, options));
  std::vector<Batch> batches = Epoch(*bucketed);
  std::vector<int64_t> seen;
  for (const Batch& batch : batches) seen.insert(seen.end(), batch.rows.begin(), batch.rows.end());
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen.size(), 200u);
  EXPECT_EQ(std::adjacent_find(seen.begin(), seen.end()), seen.end());
  EXPECT_GT(plain->padding_ratio(), 0.5);
  EXPECT_LT(bucketed->padding_ratio(), 0.2);
  EXPECT_LT(bucketed->padding_ratio(), plain->padding_ratio());
}

TEST_F(BatchReaderTest, BadOptionsAndColumns) {
  BatchReaderOptions options = Options(0);
  EXPECT_ERROR(kInvalid, "batch_size must be > 0", BatchReader::Open({dir_.path()}, options));
  options = Options(2);
  options.columns = {"id", "label"};
  EXPECT_ERROR(kInvalid, "no column named 'label'", BatchReader::Open({dir_.path()}, options));
  options.columns = {};
  options.bucket_by = "id";
  options.bucket_window = 2;
  EXPECT_ERROR(kInvalid, "bucket_by='id' is not a variable_shape_tensor column",
               BatchReader::Open({dir_.path()}, options));
  options.bucket_by = "img";
  options.columns = {"id"};
  EXPECT_ERROR(kInvalid, "bucket_by='img' is not among the columns read",
               BatchReader::Open({dir_.path()}, options));
  options = Options(2);
  options.pad_value = 0.5;
  EXPECT_ERROR(kInvalid, "column 'img': pad value 0.5 is not exactly representable as uint8",
               BatchReader::Open({dir_.path()}, options));
  EXPECT_ERROR(kIOError, "no such file", BatchReader::Open({dir_ / "nope"}, Options(2)));
}

TEST_F(BatchReaderTest, OutputNamesMustNotClash) {
  TempDir dir;
  auto schema = std::make_shared<Schema>();
  RecordBatchPtr rb = test::DataBatch(0, 2);
  schema->fields = {Field{"img", test::ImageType().data_type()}, Field{"img_shape", int64()}};
  ASSERT_OK(test::WriteBatches(dir / "c.arrow",
                               {*RecordBatch::Make(schema, 2, {rb->column(2), rb->column(0)})}));
  EXPECT_ERROR(kInvalid, "two batch arrays would be named 'img_shape'",
               BatchReader::Open({dir.path()}, Options(2)));
}

TEST_F(BatchReaderTest, ACorruptRecordBatchFailsTheBatchThatTouchesIt) {
  TempDir dir;
  auto schema = std::make_shared<Schema>();
  ArrayDataPtr good = test::RawStorage({0, 2, 4}, {1, 2, 3, 4}, {1, 2, 1, 2}, 2);
  ArrayDataPtr bad = test::RawStorage({0, 2, 4}, {1, 2, 3, 4}, {1, 2, 1, 3}, 2);
  schema->fields = {Field{"img", good->type}};
  ASSERT_OK(test::WriteBatches(dir / "c.arrow",
                               {*RecordBatch::Make(schema, 2, {good}),
                                *RecordBatch::Make(schema, 2, {bad}, ValidationLevel::kMinimal)}));
  for (int prefetch : {0, 2}) {
    BatchReaderOptions options = Options(2);
    options.prefetch = prefetch;
    ASSERT_OK_AND_ASSIGN(auto reader, BatchReader::Open({dir / "c.arrow"}, options));
    ASSERT_OK_AND_ASSIGN(auto first, reader->Next());
    EXPECT_TRUE(first.has_value());
    EXPECT_ERROR(kInvalid, "batch 1: " + (dir / "c.arrow") + ": record batch 1", reader->Next());
    EXPECT_ERROR(kInvalid, "batch 1:", reader->Next());  // the error stays
    ASSERT_OK(reader->SetEpoch(0));
    ASSERT_OK_AND_ASSIGN(first, reader->Next());  // a new epoch starts over
    EXPECT_TRUE(first.has_value());
    EXPECT_ERROR(kInvalid, "record batch 1", reader->ReadBatch(1));
    EXPECT_ERROR(kIndexError, "batch 5 is out of range for 2 batches", reader->ReadBatch(5));
  }
}

TEST_F(BatchReaderTest, BatchBuffersComeFromTheAllocator) {
  int64_t allocations = 0;
  BatchReaderOptions options = Options(8);
  options.columns = {"emb"};
  options.prefetch = 0;
  options.allocate = [&](int64_t bytes) {
    ++allocations;
    return Buffer::AllocateUninitialized(bytes);
  };
  ASSERT_OK_AND_ASSIGN(auto reader, BatchReader::Open({dir_.path()}, options));
  for (int epoch = 0; epoch < 3; ++epoch) {
    ASSERT_OK(reader->SetEpoch(epoch));
    Epoch(*reader);  // holds the epoch's 3 batches, then drops them
  }
  EXPECT_EQ(reader->num_batches(), 3);
  // The ring keeps (prefetch + 2) x 1 column = 2 of a custom allocator's
  // buffers, however small: epoch 0 allocates 3, each later epoch reuses
  // the 2 kept and allocates 1 for the third batch held at the same time.
  EXPECT_EQ(allocations, 5);
}

// Not under the sanitizers: TSan refuses a fork beside running threads, and
// GCC 12's ASan runtime does not lock its allocator across fork(), so a
// child forked while the prefetch thread allocates can hang inside malloc
// (ASan's, not the reader's; glibc's malloc is fork-safe). The Python suite
// forks real DataLoader workers in ordinary builds.
#if !defined(__SANITIZE_THREAD__) && !defined(__SANITIZE_ADDRESS__)
using test::InForkedChild;

// A reader whose prefetch thread ran in the parent: the child iterates,
// starts another epoch, reads one batch, or just destroys it; none of it
// may wait for the thread the child does not have.
TEST_F(BatchReaderTest, WorksInAForkedChildAfterItsThreadRan) {
  enum class Action { kIterate, kSetEpoch, kReadBatch, kDestroy };
  for (Action action :
       {Action::kIterate, Action::kSetEpoch, Action::kReadBatch, Action::kDestroy}) {
    for (bool memory_map : {true, false}) {
      BatchReaderOptions options = Options(4);
      options.prefetch = 3;
      options.memory_map = memory_map;
      ASSERT_OK_AND_ASSIGN(auto reader, BatchReader::Open({dir_.path()}, options));
      ASSERT_OK_AND_ASSIGN(auto first, reader->Next());  // starts the thread
      ASSERT_TRUE(first.has_value());
      const int status = InForkedChild([&] {
        switch (action) {
          case Action::kIterate: {
            // The rest of epoch 0 from where the parent was.
            std::vector<int64_t> ids = Ids(Epoch(*reader));
            return ids.size() == 19 && ids.front() == 4 ? 0 : 1;
          }
          case Action::kSetEpoch: {
            if (!reader->SetEpoch(1).ok()) return 2;
            std::vector<int64_t> ids = Ids(Epoch(*reader));
            std::sort(ids.begin(), ids.end());
            std::vector<int64_t> all(23);
            std::iota(all.begin(), all.end(), 0);
            return ids == all ? 0 : 3;
          }
          case Action::kReadBatch: return reader->ReadBatch(5).ok() ? 0 : 4;
          case Action::kDestroy: reader.reset(); return 0;
        }
        return 5;
      });
      EXPECT_EQ(status, 0) << "action " << static_cast<int>(action) << ", memory_map " << memory_map
                           << (status == -1 ? " (the child hung)" : "");
      // The parent's reader goes on as before.
      EXPECT_EQ(Ids(Epoch(*reader)).size(), 19u);
    }
  }
}
#endif

TEST_F(BatchReaderTest, UnmappedFilesReadTheSameRows) {
  BatchReaderOptions options = Options(5);
  options.shuffle = Shuffle::kGlobal;
  ASSERT_OK_AND_ASSIGN(auto mapped, BatchReader::Open({dir_.path()}, options));
  options.memory_map = false;
  ASSERT_OK_AND_ASSIGN(auto unmapped, BatchReader::Open({dir_.path()}, options));
  EXPECT_EQ(unmapped->num_rows(), 23);
  for (int epoch = 0; epoch < 2; ++epoch) {
    ASSERT_OK(mapped->SetEpoch(epoch));
    ASSERT_OK(unmapped->SetEpoch(epoch));
    std::vector<Batch> a = Epoch(*mapped), b = Epoch(*unmapped);
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      for (const BatchArray& array : a[i].arrays) {
        EXPECT_TRUE(array.tensor.Equals(b[i].Find(array.name)->tensor)) << array.name;
      }
    }
  }
}

TEST_F(BatchReaderTest, AnUnmappedFileTruncatedAfterOpenIsAnError) {
  TempDir dir;
  ASSERT_OK(test::WriteRows(dir / "t.arrow", 0, 40, 10));
  BatchReaderOptions options = Options(10);
  options.memory_map = false;
  options.prefetch = 0;
  ASSERT_OK_AND_ASSIGN(auto reader, BatchReader::Open({dir / "t.arrow"}, options));
  std::filesystem::resize_file(dir / "t.arrow", std::filesystem::file_size(dir / "t.arrow") / 2);
  // Record batches past the cut fail with the file named; none kills us.
  Status failure;
  for (int64_t i = 0; i < reader->num_batches() && failure.ok(); ++i) {
    failure = reader->ReadBatch(i).status();
  }
  EXPECT_EQ(failure.code(), StatusCode::kIOError) << failure.ToString();
  EXPECT_NE(failure.message().find(dir / "t.arrow"), std::string::npos) << failure.ToString();
}

TEST_F(BatchReaderTest, MaxBatchBytesRefusesAnOversizedPaddedBatch) {
  TempDir dir;
  auto schema = std::make_shared<Schema>();
  const VariableShapeTensorType type = *VariableShapeTensorType::Make(uint8(), 2);
  Tensor wide = *Tensor::Make(uint8(), *Buffer::Allocate(2000), {1, 2000});
  Tensor tall = *Tensor::Make(uint8(), *Buffer::Allocate(2000), {2000, 1});
  const std::vector<std::optional<Tensor>> rows{wide, tall};
  VariableShapeTensorArray ragged = *VariableShapeTensorArray::FromTensors(type, rows);
  schema->fields = {Field{"img", type.data_type()}};
  ASSERT_OK(test::WriteBatches(dir / "p.arrow", {*RecordBatch::Make(schema, 2, {ragged.data()})}));
  BatchReaderOptions options = Options(2);
  options.max_batch_bytes = 1'000'000;  // the padded batch: 2 x 2000 x 2000 = 8 MB
  ASSERT_OK_AND_ASSIGN(auto reader, BatchReader::Open({dir / "p.arrow"}, options));
  Result<Batch> batch = reader->ReadBatch(0);
  EXPECT_ERROR(kInvalid, "column 'img': padding 2 rows to their largest extents [2, 2000, 2000]",
               batch);
  EXPECT_ERROR(kInvalid, "row 0 has shape [1, 2000]; " + (dir / "p.arrow"), batch);
  EXPECT_ERROR(kInvalid, "row 1 has shape [2000, 1]", batch);
  EXPECT_ERROR(kInvalid, "ragged='jagged'", batch);
  // Jagged rows take what they hold.
  options.ragged = RaggedLayout::kJagged;
  ASSERT_OK_AND_ASSIGN(reader, BatchReader::Open({dir / "p.arrow"}, options));
  ASSERT_OK(reader->ReadBatch(0).status());
  options.max_batch_bytes = 0;
  EXPECT_ERROR(kInvalid, "max_batch_bytes must be > 0, got 0",
               BatchReader::Open({dir / "p.arrow"}, options));
  options.max_batch_bytes = 100;  // any array past the cap
  options.ragged = RaggedLayout::kJagged;
  ASSERT_OK_AND_ASSIGN(reader, BatchReader::Open({dir / "p.arrow"}, options));
  EXPECT_ERROR(kInvalid, "more than max_batch_bytes (100)", reader->ReadBatch(0));
}

TEST_F(BatchReaderTest, BatchSizeNearTheInt64Limit) {
  BatchReaderOptions options = Options(INT64_MAX);
  ASSERT_OK_AND_ASSIGN(auto reader, BatchReader::Open({dir_.path()}, options));
  EXPECT_EQ(reader->num_batches(), 1);
  EXPECT_EQ(Ids(Epoch(*reader)).size(), 23u);
}

}  // namespace
}  // namespace quiver::data
