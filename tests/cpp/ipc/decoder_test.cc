// Decoding record batch messages: a batch crafted field by field with the
// generated flatbuffer code reads back as written.
#include <cstring>
#include <vector>

#include "quiver/ipc.h"
#include "quiver/ipc/encoder.h"
#include "quiver/ipc/message.h"
#include "test_util.h"

namespace quiver::ipc {

namespace {

SchemaPtr Int32Schema() {
  auto schema = std::make_shared<Schema>();
  schema->fields = {Field{"x", int32()}};
  return schema;
}

// A stream: a valid schema message for `schema`, then one RecordBatch
// message with the given nodes, buffers and body, then end of stream.
BufferPtr CraftStream(const SchemaPtr& schema, int64_t rows, std::vector<fb::FieldNode> nodes,
                      std::vector<fb::Buffer> buffers, std::vector<uint8_t> body,
                      bool compressed = false) {
  BufferSink sink;
  EXPECT_TRUE(WriteSchemaMessage(sink, *schema).ok());
  flatbuffers::FlatBufferBuilder builder;
  flatbuffers::Offset<fb::BodyCompression> compression = 0;
  if (compressed) compression = fb::CreateBodyCompression(builder, fb::CompressionType::ZSTD);
  auto batch = fb::CreateRecordBatch(builder, rows, builder.CreateVectorOfStructs(nodes),
                                     builder.CreateVectorOfStructs(buffers), compression);
  builder.Finish(fb::CreateMessage(builder, fb::MetadataVersion::V5, fb::MessageHeader::RecordBatch,
                                   batch.Union(), static_cast<int64_t>(body.size())));
  BufferPtr framed = *FrameMetadata(builder, sink.position(), 8);
  EXPECT_TRUE(sink.Write(framed->data(), framed->size()).ok());
  EXPECT_TRUE(sink.Write(body.data(), static_cast<int64_t>(body.size())).ok());
  EXPECT_TRUE(WriteEndOfStream(sink).ok());
  return *sink.Finish();
}

Status ReadAll(const BufferPtr& bytes) {
  QUIVER_ASSIGN_OR_RETURN(auto reader, StreamReader::Open(BufferSource(bytes)));
  while (true) {
    QUIVER_ASSIGN_OR_RETURN(RecordBatchPtr batch, reader->Next());
    if (!batch) return Status::OK();
  }
}

std::vector<uint8_t> Int32Body(std::vector<int32_t> values) {
  std::vector<uint8_t> body(values.size() * 4);
  std::memcpy(body.data(), values.data(), body.size());
  return body;
}

}  // namespace

TEST(IpcHostile, HonestCraftedBatchReads) {
  ASSERT_OK(ReadAll(CraftStream(Int32Schema(), 2, {{2, 0}}, {{0, 0}, {0, 8}}, Int32Body({1, 2}))));
}

}  // namespace quiver::ipc
