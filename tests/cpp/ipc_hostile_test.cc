// IPC readers fed messages no honest writer makes: every one must be a
// specific error naming the message, never a crash or a read out of bounds.
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

TEST(IpcHostile, BuffersOutsideTheBody) {
  auto body = Int32Body({1, 2});
  EXPECT_ERROR(kInvalid, "buffer 1 [4, +8) lies outside the 8-byte body",
               ReadAll(CraftStream(Int32Schema(), 2, {{2, 0}}, {{0, 0}, {4, 8}}, body)));
  EXPECT_ERROR(kInvalid, "buffer 1 [-8, +8) lies outside",
               ReadAll(CraftStream(Int32Schema(), 2, {{2, 0}}, {{0, 0}, {-8, 8}}, body)));
  // offset + length overflows int64.
  EXPECT_ERROR(kInvalid, "lies outside",
               ReadAll(CraftStream(Int32Schema(), 2, {{2, 0}},
                                   {{0, 0}, {4, std::numeric_limits<int64_t>::max()}}, body)));
}

TEST(IpcHostile, CountsMustMatchTheSchema) {
  auto body = Int32Body({1, 2});
  EXPECT_ERROR(kInvalid, "column 0 (x) needs buffer 1, the record batch has 1",
               ReadAll(CraftStream(Int32Schema(), 2, {{2, 0}}, {{0, 0}}, body)));
  EXPECT_ERROR(kInvalid, "needs field node 0, the record batch has 0",
               ReadAll(CraftStream(Int32Schema(), 2, {}, {{0, 0}, {0, 8}}, body)));
  EXPECT_ERROR(kInvalid, "the record batch has 2 field nodes and 3 buffers, the schema uses 1 and 2",
               ReadAll(CraftStream(Int32Schema(), 2, {{2, 0}, {2, 0}}, {{0, 0}, {0, 8}, {0, 0}}, body)));
}

TEST(IpcHostile, LengthsAreChecked) {
  auto body = Int32Body({1, 2});
  EXPECT_ERROR(kInvalid, "field node has length -2",
               ReadAll(CraftStream(Int32Schema(), 2, {{-2, 0}}, {{0, 0}, {0, 8}}, body)));
  EXPECT_ERROR(kInvalid, "null count 3",
               ReadAll(CraftStream(Int32Schema(), 2, {{2, 3}}, {{0, 0}, {0, 8}}, body)));
  EXPECT_ERROR(kInvalid, "has 5 rows, the batch 2",
               ReadAll(CraftStream(Int32Schema(), 2, {{5, 0}}, {{0, 0}, {0, 8}}, body)));
  // A length the values buffer cannot hold: validation names the buffer.
  EXPECT_ERROR(kInvalid, "values buffer has 8 bytes, 400 needed",
               ReadAll(CraftStream(Int32Schema(), 100, {{100, 0}}, {{0, 0}, {0, 8}}, body)));
  EXPECT_ERROR(kInvalid, "overflows int64",
               ReadAll(CraftStream(Int32Schema(), std::numeric_limits<int64_t>::max(),
                                   {{std::numeric_limits<int64_t>::max(), 0}}, {{0, 0}, {0, 8}}, body)));
  EXPECT_ERROR(kInvalid, "negative row count",
               ReadAll(CraftStream(Int32Schema(), -1, {{2, 0}}, {{0, 0}, {0, 8}}, body)));
  EXPECT_ERROR(kInvalid, "nulls but no validity bitmap",
               ReadAll(CraftStream(Int32Schema(), 2, {{2, 1}}, {{0, 0}, {0, 8}}, body)));
}

TEST(IpcHostile, Utf8OffsetsPastTheData) {
  auto schema = std::make_shared<Schema>();
  schema->fields = {Field{"s", utf8()}};
  std::vector<uint8_t> body = Int32Body({0, 2, 900});
  body.insert(body.end(), {'a', 'b', 'c', 'd', 0, 0, 0, 0});
  EXPECT_ERROR(kInvalid, "offsets [0, 900] are outside [0, data size 4]",
               ReadAll(CraftStream(schema, 2, {{2, 0}}, {{0, 0}, {0, 12}, {12, 4}}, body)));
}

TEST(IpcHostile, CompressedBuffersAreChecked) {
  std::vector<uint8_t> body(24, 0);
  const int64_t claim = int64_t{1} << 40;
  std::memcpy(body.data(), &claim, 8);
  EXPECT_ERROR(kInvalid, "claims 1099511627776 decompressed bytes; the limit is",
               ReadAll(CraftStream(Int32Schema(), 2, {{2, 0}}, {{0, 0}, {0, 24}}, body, true)));
  const int64_t honest = 8;
  std::memcpy(body.data(), &honest, 8);
  EXPECT_ERROR(kInvalid, "corrupt ZSTD frame",
               ReadAll(CraftStream(Int32Schema(), 2, {{2, 0}}, {{0, 0}, {0, 24}}, body, true)));
  EXPECT_ERROR(kInvalid, "is compressed but has no length prefix",
               ReadAll(CraftStream(Int32Schema(), 2, {{2, 0}}, {{0, 0}, {0, 4}}, body, true)));
  // -1: stored uncompressed after the prefix.
  std::vector<uint8_t> stored(16, 0);
  const int64_t raw = -1;
  std::memcpy(stored.data(), &raw, 8);
  ASSERT_OK(ReadAll(CraftStream(Int32Schema(), 2, {{2, 0}}, {{0, 0}, {0, 16}}, stored, true)));
}

TEST(IpcHostile, CorruptFlatbuffersAndFraming) {
  BufferPtr good = CraftStream(Int32Schema(), 2, {{2, 0}}, {{0, 0}, {0, 8}}, Int32Body({1, 2}));
  std::vector<uint8_t> bytes(good->data(), good->data() + good->size());
  auto read = [](std::vector<uint8_t> data) {
    return ReadAll(test::BufferFrom(data.data(), static_cast<int64_t>(data.size())));
  };
  std::vector<uint8_t> corrupt = bytes;
  for (size_t i = 8; i < 24; ++i) corrupt[i] = 0xff;  // the schema's root offset and vtable
  EXPECT_ERROR(kInvalid, "message metadata at byte 0 is not a valid flatbuffer", read(corrupt));
  std::vector<uint8_t> negative = bytes;
  const int32_t minus = -16;
  std::memcpy(negative.data() + 4, &minus, 4);
  EXPECT_ERROR(kInvalid, "negative metadata length -16", read(negative));
  std::vector<uint8_t> huge = bytes;
  const int32_t big = std::numeric_limits<int32_t>::max();
  std::memcpy(huge.data() + 4, &big, 4);
  EXPECT_ERROR(kInvalid, "claims 2147483647 bytes of metadata", read(huge));
  EXPECT_ERROR(kInvalid, "truncated message", read(std::vector<uint8_t>(bytes.begin(), bytes.begin() + 2)));
}

TEST(IpcHostile, DeepSchemasAreRefused) {
  TypePtr type = int8();
  for (int i = 0; i < 70; ++i) type = list(ListItem(type));
  auto schema = std::make_shared<Schema>();
  schema->fields = {Field{"deep", type}};
  BufferSink sink;
  EXPECT_ERROR(kInvalid, "nests more than 64 levels deep", WriteSchemaMessage(sink, *schema));
}

TEST(IpcHostile, FileFooterIsChecked) {
  auto schema = Int32Schema();
  BufferSink sink;
  auto writer = *FileWriter::Open(std::shared_ptr<OutputSink>(&sink, [](OutputSink*) {}), schema);
  auto batch = *RecordBatch::Make(schema, 2, {test::Primitive<int32_t>(int32(), {1, 2})});
  ASSERT_OK(writer->Write(*batch));
  ASSERT_OK(writer->Close());
  BufferPtr good = *sink.Finish();
  std::vector<uint8_t> bytes(good->data(), good->data() + good->size());
  auto open = [](std::vector<uint8_t> data) {
    return FileReader::Open(BufferSource(test::BufferFrom(data.data(), static_cast<int64_t>(data.size())))).status();
  };
  std::vector<uint8_t> long_footer = bytes;
  const int32_t claim = static_cast<int32_t>(bytes.size());
  std::memcpy(long_footer.data() + bytes.size() - 10, &claim, 4);
  EXPECT_ERROR(kInvalid, "does not fit a", open(long_footer));
  std::vector<uint8_t> bad_tail = bytes;
  bad_tail.back() = 'X';
  EXPECT_ERROR(kInvalid, "truncated", open(bad_tail));
  EXPECT_ERROR(kInvalid, "too short", open(std::vector<uint8_t>(bytes.begin(), bytes.begin() + 12)));
}

}  // namespace quiver::ipc
