// IPC stream writer: a batch of every kind of column round trips with its
// values, types and metadata.
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

}  // namespace quiver::ipc
