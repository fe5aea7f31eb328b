#include "quiver/ipc.h"

#include <cstdio>
#include <cstring>
#include <string>
#include <unistd.h>

#include "no_threads.h"
#include "quiver/fixed_shape_tensor.h"
#include "quiver/variable_shape_tensor.h"
#include "test_util.h"

namespace quiver::ipc {

using test::Bitmap;
using test::BufferOf;
using test::Primitive;
using test::Utf8;

namespace {

// A batch with a tensor column next to ordinary ones, nulls included.
RecordBatchPtr SampleBatch(int64_t rows = 5) {
  std::vector<int64_t> ids(static_cast<size_t>(rows));
  std::vector<float> cells(static_cast<size_t>(rows * 6));
  std::vector<bool> valid(static_cast<size_t>(rows), true);
  std::vector<std::optional<std::string>> labels;
  for (int64_t i = 0; i < rows; ++i) {
    ids[static_cast<size_t>(i)] = i * 10;
    for (int k = 0; k < 6; ++k) cells[static_cast<size_t>(i * 6 + k)] = static_cast<float>(i * 6 + k);
    if (i % 3 == 1) valid[static_cast<size_t>(i)] = false;
    labels.push_back(i % 2 ? std::optional<std::string>("label " + std::to_string(i)) : std::nullopt);
  }
  auto tensor_type = *FixedShapeTensorType::Make(float32(), {2, 3}, {"H", "W"}, {1, 0});
  auto images = std::make_shared<ArrayData>();
  images->type = tensor_type.data_type();
  images->length = rows;
  images->buffers = {Bitmap(valid)};
  images->children = {Primitive<float>(float32(), cells)};
  auto schema = std::make_shared<Schema>();
  schema->fields = {Field{"id", int64(), false, {{"unit", "none"}}},
                    Field{"images", tensor_type.data_type()},
                    Field{"label", utf8()}};
  schema->metadata = {{"origin", "quiver test"}};
  return *RecordBatch::Make(schema, rows, {Primitive<int64_t>(int64(), ids), images, Utf8(labels)});
}

BufferPtr WriteStream(const std::vector<RecordBatchPtr>& batches, WriteOptions options = {}) {
  auto sink = std::make_shared<BufferSink>();
  auto writer = StreamWriter::Open(sink, batches[0]->schema(), options);
  EXPECT_TRUE(writer.ok()) << writer.status().ToString();
  for (const auto& batch : batches) EXPECT_TRUE((*writer)->Write(*batch).ok());
  EXPECT_TRUE((*writer)->Close().ok());
  return *sink->Finish();
}

BufferPtr WriteFile(const std::vector<RecordBatchPtr>& batches, WriteOptions options = {}) {
  auto sink = std::make_shared<BufferSink>();
  auto writer = FileWriter::Open(sink, batches[0]->schema(), options);
  EXPECT_TRUE(writer.ok()) << writer.status().ToString();
  for (const auto& batch : batches) {
    Status st = (*writer)->Write(*batch);
    EXPECT_TRUE(st.ok()) << st.ToString();
  }
  EXPECT_TRUE((*writer)->Close().ok());
  return *sink->Finish();
}

}  // namespace

TEST(Ipc, StreamRoundTripKeepsValuesTypesAndMetadata) {
  RecordBatchPtr batch = SampleBatch();
  for (Compression codec : {Compression::kNone, Compression::kLz4Frame, Compression::kZstd}) {
    WriteOptions options;
    options.compression = codec;
    BufferPtr bytes = WriteStream({batch, batch}, options);
    ASSERT_OK_AND_ASSIGN(auto reader, StreamReader::Open(BufferSource(bytes)));
    EXPECT_TRUE(reader->schema()->Equals(*batch->schema()));
    for (int k = 0; k < 2; ++k) {
      ASSERT_OK_AND_ASSIGN(RecordBatchPtr read, reader->Next());
      ASSERT_TRUE(read);
      EXPECT_TRUE(read->Equals(*batch)) << static_cast<int>(codec);
    }
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr end, reader->Next());
    EXPECT_FALSE(end);
  }
}

// Compressing and decompressing a batch's buffers uses a thread per core;
// a process that cannot start threads still writes and reads it.
TEST(Ipc, CompressionFinishesWithoutThreads) {
  RecordBatchPtr batch = SampleBatch(20000);
  bool skipped = false;
  const std::string failure = test::RunWithoutThreads(
      [&] {
        WriteOptions write;
        write.compression = Compression::kLz4Frame;
        write.threads = 4;
        auto sink = std::make_shared<BufferSink>();
        auto writer = FileWriter::Open(sink, batch->schema(), write);
        if (!writer.ok() || !(*writer)->Write(*batch).ok() || !(*writer)->Close().ok()) return 1;
        auto bytes = sink->Finish();
        if (!bytes.ok()) return 2;
        ReadOptions read;
        read.threads = 4;
        auto reader = FileReader::Open(BufferSource(*bytes), read);
        if (!reader.ok()) return 3;
        auto back = (*reader)->ReadRecordBatch(0);
        return back.ok() && (*back)->Equals(*batch) ? 0 : 4;
      },
      &skipped);
  if (skipped) GTEST_SKIP() << "needs root to drop to an unprivileged user with no threads left";
  EXPECT_EQ(failure, "");
}

TEST(Ipc, FileRandomAccessAndZeroCopy) {
  RecordBatchPtr batch = SampleBatch();
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr tail, batch->Slice(2, 3));
  BufferPtr bytes = WriteFile({batch, tail});
  ASSERT_OK_AND_ASSIGN(auto reader, FileReader::Open(BufferSource(bytes)));
  EXPECT_EQ(reader->num_record_batches(), 2);
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr second, reader->ReadRecordBatch(1));
  EXPECT_TRUE(second->Equals(*tail));  // the slice was written compactly
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr first, reader->ReadRecordBatch(0));
  const uint8_t* ids = first->column(0)->buffers[1]->data();
  EXPECT_GE(ids, bytes->data());
  EXPECT_LT(ids, bytes->data() + bytes->size());  // points into the file bytes
  EXPECT_EQ(reinterpret_cast<uintptr_t>(ids) % 64, reinterpret_cast<uintptr_t>(bytes->data()) % 64);
  EXPECT_ERROR(kIndexError, "record batch 2 is out of range", reader->ReadRecordBatch(2));
}

TEST(Ipc, MemoryMappedFileOutlivesTheReader) {
  char path[] = "/tmp/quiver_ipc_testXXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  RecordBatchPtr batch = SampleBatch(100);
  {
    ASSERT_OK_AND_ASSIGN(auto sink, OpenFileSink(path));
    ASSERT_OK_AND_ASSIGN(auto writer, FileWriter::Open(sink, batch->schema()));
    ASSERT_OK(writer->Write(*batch));
    ASSERT_OK(writer->Close());
    ASSERT_OK(sink->Close());
  }
  RecordBatchPtr read;
  {
    ASSERT_OK_AND_ASSIGN(auto source, OpenFileSource(path));
    EXPECT_TRUE(source->zero_copy());
    ASSERT_OK_AND_ASSIGN(auto reader, FileReader::Open(source));
    ASSERT_OK_AND_ASSIGN(read, reader->ReadRecordBatch(0));
  }
  std::remove(path);  // the mapping keeps the bytes readable
  EXPECT_TRUE(read->Equals(*batch));
  ASSERT_OK_AND_ASSIGN(auto fixed, FixedShapeTensorArray::Make(read->column(1)));
  ASSERT_OK_AND_ASSIGN(Tensor row, fixed.RowTensor(99));
  EXPECT_EQ(*row.Value<float>(std::vector<int64_t>{0, 0}), 99.0f * 6);
}

TEST(Ipc, TensorMessageRoundTrip) {
  std::vector<int32_t> values(24);
  for (int i = 0; i < 24; ++i) values[static_cast<size_t>(i)] = i;
  ASSERT_OK_AND_ASSIGN(Tensor tensor, Tensor::Make(int32(), BufferOf(values), {2, 3, 4}, {},
                                                   {"a", "b", "c"}));
  // Row-major, a column-major view of the same bytes, and a strided slice.
  ASSERT_OK_AND_ASSIGN(Tensor fortran, Tensor::Make(int32(), tensor.buffer(), {4, 3, 2}, {4, 16, 48}));
  ASSERT_OK_AND_ASSIGN(Tensor strided, Tensor::Make(int32(), tensor.buffer(), {2, 2}, {48, 8}));
  for (const Tensor& t : {tensor, fortran, strided}) {
    BufferSink sink;
    ASSERT_OK(WriteTensor(t, &sink));
    ASSERT_OK_AND_ASSIGN(BufferPtr bytes, sink.Finish());
    ASSERT_OK_AND_ASSIGN(Tensor back, ReadTensor(BufferSource(bytes)));
    EXPECT_TRUE(back.Equals(t));
    EXPECT_EQ(back.dim_names(), t.dim_names());
    EXPECT_GE(back.raw_data(), bytes->data());  // zero-copy from memory
  }
}

}  // namespace quiver::ipc
