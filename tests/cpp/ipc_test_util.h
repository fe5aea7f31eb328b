// Helpers for the record batch IPC tests: a sample batch with a tensor
// column, streams and files written from batches, small int32 batches and
// the bytes of a file of them, and record batch streams crafted field by
// field with the generated flatbuffer code.
#pragma once

#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "quiver/fixed_shape_tensor.h"
#include "quiver/ipc.h"
#include "quiver/ipc/encoder.h"
#include "quiver/ipc/message.h"
#include "test_util.h"

namespace quiver::test {

// A batch with a tensor column next to ordinary ones, nulls included.
inline RecordBatchPtr SampleBatch(int64_t rows = 5) {
  std::vector<int64_t> ids(static_cast<size_t>(rows));
  std::vector<float> cells(static_cast<size_t>(rows * 6));
  std::vector<bool> valid(static_cast<size_t>(rows), true);
  std::vector<std::optional<std::string>> labels;
  for (int64_t i = 0; i < rows; ++i) {
    ids[static_cast<size_t>(i)] = i * 10;
    for (int k = 0; k < 6; ++k)
      cells[static_cast<size_t>(i * 6 + k)] = static_cast<float>(i * 6 + k);
    if (i % 3 == 1) valid[static_cast<size_t>(i)] = false;
    labels.push_back(i % 2 ? std::optional<std::string>("label " + std::to_string(i))
                           : std::nullopt);
  }
  auto tensor_type = *FixedShapeTensorType::Make(float32(), {2, 3}, {"H", "W"}, {1, 0});
  auto images = std::make_shared<ArrayData>();
  images->type = tensor_type.data_type();
  images->length = rows;
  images->buffers = {Bitmap(valid)};
  images->children = {Primitive<float>(float32(), cells)};
  auto schema = std::make_shared<Schema>();
  schema->fields = {Field{"id", int64(), false, {{"unit", "none"}}},
                    Field{"images", tensor_type.data_type()}, Field{"label", utf8()}};
  schema->metadata = {{"origin", "quiver test"}};
  return *RecordBatch::Make(schema, rows, {Primitive<int64_t>(int64(), ids), images, Utf8(labels)});
}

// An IPC stream of `batches` (all of the first one's schema).
inline BufferPtr WriteStream(const std::vector<RecordBatchPtr>& batches,
                             ipc::WriteOptions options = {}) {
  auto sink = std::make_shared<ipc::BufferSink>();
  auto writer = ipc::StreamWriter::Open(sink, batches[0]->schema(), options);
  EXPECT_TRUE(writer.ok()) << writer.status().ToString();
  for (const auto& batch : batches) EXPECT_TRUE((*writer)->Write(*batch).ok());
  EXPECT_TRUE((*writer)->Close().ok());
  return *sink->Finish();
}

// An IPC file of `batches` (all of the first one's schema).
inline BufferPtr WriteFile(const std::vector<RecordBatchPtr>& batches,
                           ipc::WriteOptions options = {}) {
  auto sink = std::make_shared<ipc::BufferSink>();
  auto writer = ipc::FileWriter::Open(sink, batches[0]->schema(), options);
  EXPECT_TRUE(writer.ok()) << writer.status().ToString();
  for (const auto& batch : batches) {
    Status st = (*writer)->Write(*batch);
    EXPECT_TRUE(st.ok()) << st.ToString();
  }
  EXPECT_TRUE((*writer)->Close().ok());
  return *sink->Finish();
}

// One nullable int32 column "x".
inline SchemaPtr Int32Schema() {
  auto schema = std::make_shared<Schema>();
  schema->fields = {Field{"x", int32()}};
  return schema;
}

// `rows` rows of `schema` holding first, first + 1, ...
inline RecordBatchPtr Int32Batch(const SchemaPtr& schema, int32_t first, int rows) {
  std::vector<int32_t> values(static_cast<size_t>(rows));
  for (int i = 0; i < rows; ++i) values[static_cast<size_t>(i)] = first + i;
  return *RecordBatch::Make(schema, rows, {Primitive<int32_t>(int32(), values)});
}

// An IPC file of `batches` batches of 4 rows each.
inline std::vector<uint8_t> FileBytes(int batches) {
  auto schema = Int32Schema();
  auto sink = std::make_shared<ipc::BufferSink>();
  auto writer = *ipc::FileWriter::Open(sink, schema);
  for (int b = 0; b < batches; ++b) EXPECT_TRUE(writer->Write(*Int32Batch(schema, b * 4, 4)).ok());
  EXPECT_TRUE(writer->Close().ok());
  BufferPtr bytes = *sink->Finish();
  return std::vector<uint8_t>(bytes->data(), bytes->data() + bytes->size());
}

// A source over `bytes` in place: the caller's memory, not a copy.
inline std::shared_ptr<ipc::InputSource> BorrowedSource(std::vector<uint8_t>& bytes) {
  return ipc::BufferSource(Buffer::Wrap(bytes.data(), static_cast<int64_t>(bytes.size()), [] {}));
}

// A stream: a valid schema message for `schema`, then one RecordBatch
// message with the given nodes, buffers and body (of metadata `version`),
// then end of stream.
inline BufferPtr CraftStream(const SchemaPtr& schema, int64_t rows,
                             std::vector<ipc::fb::FieldNode> nodes,
                             std::vector<ipc::fb::Buffer> buffers, std::vector<uint8_t> body,
                             bool compressed = false,
                             ipc::fb::MetadataVersion version = ipc::fb::MetadataVersion::V5) {
  namespace fb = ipc::fb;
  ipc::BufferSink sink;
  EXPECT_TRUE(ipc::WriteSchemaMessage(sink, *schema).ok());
  flatbuffers::FlatBufferBuilder builder;
  flatbuffers::Offset<fb::BodyCompression> compression = 0;
  if (compressed) compression = fb::CreateBodyCompression(builder, fb::CompressionType::ZSTD);
  auto batch = fb::CreateRecordBatch(builder, rows, builder.CreateVectorOfStructs(nodes),
                                     builder.CreateVectorOfStructs(buffers), compression);
  builder.Finish(fb::CreateMessage(builder, version, fb::MessageHeader::RecordBatch, batch.Union(),
                                   static_cast<int64_t>(body.size())));
  BufferPtr framed = *ipc::FrameMetadata(builder, sink.position(), 8);
  EXPECT_TRUE(sink.Write(framed->data(), framed->size()).ok());
  EXPECT_TRUE(sink.Write(body.data(), static_cast<int64_t>(body.size())).ok());
  EXPECT_TRUE(ipc::WriteEndOfStream(sink).ok());
  return *sink.Finish();
}

// Reads every batch of the stream in `bytes`; the first error, if any.
inline Status ReadAll(const BufferPtr& bytes) {
  QUIVER_ASSIGN_OR_RETURN(auto reader, ipc::StreamReader::Open(ipc::BufferSource(bytes)));
  while (true) {
    QUIVER_ASSIGN_OR_RETURN(RecordBatchPtr batch, reader->Next());
    if (!batch) return Status::OK();
  }
}

// The bytes of `values`, as a body for CraftStream.
inline std::vector<uint8_t> Int32Body(std::vector<int32_t> values) {
  std::vector<uint8_t> body(values.size() * 4);
  std::memcpy(body.data(), values.data(), body.size());
  return body;
}

}  // namespace quiver::test
