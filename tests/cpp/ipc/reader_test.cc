// IPC readers: random access to the batches of a file (zero-copy from
// memory), streams read to their end, and the errors for missing sources,
// empty streams, messages of the wrong kind and files that are not IPC
// files.
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

TEST(IpcReader, OpenErrors) {
  EXPECT_EQ(test::StatusOf(StreamReader::Open(std::shared_ptr<InputSource>())).message(),
            "IPC stream reader has no source");
  EXPECT_EQ(test::StatusOf(FileReader::Open(nullptr)).message(), "IPC file reader has no source");
  EXPECT_EQ(test::StatusOf(StreamReader::Open(BufferSource(test::BufferOf(std::vector<uint8_t>{})))).message(),
            "the IPC stream is empty: it has no schema message");
  EXPECT_EQ(test::StatusOf(FileReader::Open(BufferSource(test::BufferOf(std::vector<uint8_t>(10, 0))))).message(),
            "a 10-byte file is too short for the Arrow IPC file format");
  // A stream is not a file, and a file cut short has no trailing magic.
  RecordBatchPtr batch = SampleBatch(2);
  BufferPtr stream = WriteStream({batch});
  EXPECT_EQ(test::StatusOf(FileReader::Open(BufferSource(stream))).message(),
            "not an Arrow IPC file: bad magic at byte 0");
  BufferPtr file = WriteFile({batch});
  ASSERT_OK_AND_ASSIGN(BufferPtr cut, Buffer::Slice(file, 0, file->size() - 1));
  EXPECT_ERROR(kInvalid, "not a complete Arrow IPC file: bad magic at byte ", FileReader::Open(BufferSource(cut)));
}

TEST(IpcReader, StreamsAreReadToTheirEnd) {
  RecordBatchPtr batch = SampleBatch(3);
  BufferPtr stream = WriteStream({batch, batch, batch});
  ASSERT_OK_AND_ASSIGN(auto reader, StreamReader::Open(BufferSource(stream)));
  int batches = 0;
  while (true) {
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr next, reader->Next());
    if (!next) break;
    EXPECT_TRUE(next->Equals(*batch));
    ++batches;
  }
  EXPECT_EQ(batches, 3);
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr after, reader->Next());  // the end stays the end
  EXPECT_FALSE(after);
  // Two streams back to back: the second schema message is refused.
  std::vector<uint8_t> twice(stream->data(), stream->data() + stream->size() - 8);  // no end marker
  twice.insert(twice.end(), stream->data(), stream->data() + stream->size());
  ASSERT_OK_AND_ASSIGN(auto again, StreamReader::Open(BufferSource(test::BufferOf(twice))));
  for (int i = 0; i < 3; ++i) ASSERT_OK(again->Next().status());
  EXPECT_ERROR(kInvalid, ": a second schema message in the stream", again->Next());
}

}  // namespace quiver::ipc
