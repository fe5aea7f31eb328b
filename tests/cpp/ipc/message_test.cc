// Framing and reading IPC messages: corrupt flatbuffers and framing,
// header tags naming an absent table, metadata copied out of zero-copy
// sources, and streams ending inside a message.
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <future>
#include <thread>
#include <vector>

#include "File_generated.h"
#include "ipc_test_util.h"
#include "quiver/ipc.h"
#include "quiver/ipc/encoder.h"
#include "quiver/ipc/message.h"

namespace quiver::ipc {

using test::BorrowedSource;
using test::CraftStream;
using test::FileBytes;
using test::Int32Batch;
using test::Int32Body;
using test::Int32Schema;
using test::ReadAll;

namespace {

// One framed message whose header tag is `kind` but whose header table is
// not there (what the tensor fuzzers found).
std::vector<uint8_t> HeaderlessMessage(fb::MessageHeader kind) {
  flatbuffers::FlatBufferBuilder builder;
  builder.Finish(fb::CreateMessage(builder, fb::MetadataVersion::V5, kind, 0, 0));
  BufferPtr framed = *FrameMetadata(builder, 0, 8);
  return std::vector<uint8_t>(framed->data(), framed->data() + framed->size());
}

}  // namespace

TEST(IpcReaderSafety, MessagesNamingAnAbsentHeaderAreRefused) {
  for (fb::MessageHeader kind :
       {fb::MessageHeader::Tensor, fb::MessageHeader::SparseTensor, fb::MessageHeader::Schema,
        fb::MessageHeader::RecordBatch, fb::MessageHeader::DictionaryBatch}) {
    std::vector<uint8_t> bytes = HeaderlessMessage(kind);
    auto source = BufferSource(test::BufferFrom(bytes.data(), static_cast<int64_t>(bytes.size())));
    const std::string expected = std::string("names a ") + fb::EnumNameMessageHeader(kind) +
                                 " header but carries no header table";
    EXPECT_ERROR(kInvalid, expected, ReadTensor(source));
    EXPECT_ERROR(kInvalid, expected, ReadSparseTensor(source));
    EXPECT_ERROR(kInvalid, expected, StreamReader::Open(source));
  }
  std::vector<uint8_t> none = HeaderlessMessage(fb::MessageHeader::NONE);
  auto source = BufferSource(test::BufferFrom(none.data(), static_cast<int64_t>(none.size())));
  EXPECT_ERROR(kInvalid, "message at byte 0 has no header", ReadTensor(source));
}

TEST(IpcReaderSafety, MessageMetadataRewrittenAfterVerificationIsNotRead) {
  // The metadata of a message read from a zero-copy source is a copy of its own.
  std::vector<uint8_t> bytes = FileBytes(1);
  auto source = BorrowedSource(bytes);
  ASSERT_OK_AND_ASSIGN(std::optional<Message> message, ReadMessage(*source, 8));
  ASSERT_TRUE(message.has_value());
  EXPECT_FALSE(message->metadata->data() >= bytes.data() &&
               message->metadata->data() < bytes.data() + bytes.size());
}

TEST(IpcReaderSafety, AStreamEndingInsideAMessageSaysWhereAndWhatWasMissing) {
  auto schema = Int32Schema();
  auto sink = std::make_shared<BufferSink>();
  auto writer = *StreamWriter::Open(sink, schema);
  const int64_t schema_end = sink->position();
  ASSERT_OK(writer->Write(*Int32Batch(schema, 0, 4)));
  BufferPtr whole = *sink->Finish();
  for (int64_t cut : {schema_end + 6, schema_end + 40, whole->size() - 3}) {
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    ASSERT_EQ(write(fds[1], whole->data(), static_cast<size_t>(cut)), cut);
    close(fds[1]);
    ASSERT_OK_AND_ASSIGN(auto reader, StreamReader::Open(FileDescriptorStream(fds[0])));
    auto next = reader->Next();
    const std::string where =
        cut == schema_end + 6
            ? "truncated message length at byte " + std::to_string(schema_end + 4)
            : "the stream ends inside the message at byte " + std::to_string(schema_end);
    EXPECT_ERROR(kInvalid, where, next);
    // The reader stays failed: it does not parse from inside the message.
    EXPECT_ERROR(kInvalid, where, reader->Next());
    close(fds[0]);
  }
}

}  // namespace quiver::ipc

namespace quiver::ipc {

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
  EXPECT_ERROR(kInvalid, "truncated message",
               read(std::vector<uint8_t>(bytes.begin(), bytes.begin() + 2)));
}

// --- PeekMessageKind ----------------------------------------------------------

namespace {

// One framed message of `kind` with an empty header table of that kind.
std::vector<uint8_t> EmptyHeaderMessage(fb::MessageHeader kind) {
  flatbuffers::FlatBufferBuilder builder;
  flatbuffers::Offset<void> header;
  switch (kind) {
    case fb::MessageHeader::DictionaryBatch:
      header = fb::CreateDictionaryBatch(builder).Union();
      break;
    default: header = fb::CreateRecordBatch(builder).Union(); break;
  }
  builder.Finish(fb::CreateMessage(builder, fb::MetadataVersion::V5, kind, header, 0));
  BufferPtr framed = *FrameMetadata(builder, 0, 8);
  return std::vector<uint8_t>(framed->data(), framed->data() + framed->size());
}

}  // namespace

// Counts the reads asked of a source of views or of copies.
class ReadCountingSource : public InputSource {
 public:
  ReadCountingSource(BufferPtr bytes, bool views)
      : inner_(BufferSource(std::move(bytes))), views_(views) {}
  int64_t size() const override { return inner_->size(); }
  Result<BufferPtr> ReadAt(int64_t offset, int64_t length) override {
    ++reads_;
    return inner_->ReadAt(offset, length);
  }
  bool zero_copy() const override { return views_; }
  int reads() const { return reads_; }

 private:
  std::shared_ptr<InputSource> inner_;
  bool views_;
  int reads_ = 0;
};

// A source of views (a mapped file, whose every read checks the file's
// size) is read once per message; a source of copies part by part, as the
// parts become known (prefix, metadata, body).
TEST(ReadMessage, ASourceOfViewsIsReadOncePerMessage) {
  BufferPtr stream = test::WriteStream({Int32Batch(Int32Schema(), 0, 4)});
  for (bool views : {true, false}) {
    ReadCountingSource source(stream, views);
    ASSERT_OK_AND_ASSIGN(std::optional<Message> schema, ReadMessage(source, 0));
    EXPECT_EQ(source.reads(), views ? 1 : 4);  // continuation, length, metadata, body
    ASSERT_OK_AND_ASSIGN(std::optional<Message> batch, ReadMessage(source, schema->size));
    EXPECT_EQ(source.reads(), views ? 2 : 8);
    EXPECT_EQ(batch->header->header_type(), fb::MessageHeader::RecordBatch);
    EXPECT_EQ(batch->body->size(), batch->header->body_length());
    EXPECT_EQ(*PeekMessageKind(source, schema->size), MessageKind::kRecordBatch);
  }
}

// A stream over a source of views (a mapped file opened as a stream) and a
// file reader's record batch each read a message with one read of the
// source, so one check of a mapped file's size.
TEST(ReadMessage, StreamsAndFileBlocksOverASourceOfViewsReadOncePerMessage) {
  const std::vector<RecordBatchPtr> batches = {Int32Batch(Int32Schema(), 0, 4),
                                               Int32Batch(Int32Schema(), 4, 3)};
  BufferPtr stream_bytes = test::WriteStream(batches);
  for (bool views : {true, false}) {
    ReadCountingSource source(stream_bytes, views);
    std::unique_ptr<InputStream> stream = StreamOver(source, 0);
    int messages = 0;
    while (true) {
      ASSERT_OK_AND_ASSIGN(std::optional<Message> message, ReadMessage(*stream));
      if (!message) break;
      ++messages;
      EXPECT_EQ(stream->position(), message->offset + message->size);
    }
    EXPECT_EQ(messages, 3);  // the schema, two record batches
    // Views: one read a message and one for the end-of-stream marker;
    // copies: each part.
    EXPECT_EQ(source.reads(), views ? 4 : 14);
  }
  // A StreamReader over a source of views (open_stream of a mapped file):
  // the peek at its first bytes, then one read a message, end included.
  auto views = std::make_shared<ReadCountingSource>(stream_bytes, true);
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<StreamReader> streamed, StreamReader::Open(views));
  int64_t rows = 0;
  while (true) {
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, streamed->Next());
    if (!batch) break;
    rows += batch->num_rows();
  }
  EXPECT_EQ(rows, 7);
  EXPECT_EQ(views->reads(), 1 + 4);
  auto source = std::make_shared<ReadCountingSource>(test::WriteFile(batches), true);
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<FileReader> reader, FileReader::Open(source));
  const int before = source->reads();
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr second, reader->ReadRecordBatch(1));
  EXPECT_EQ(second->num_rows(), 3);
  EXPECT_EQ(source->reads(), before + 1);
}

TEST(PeekMessageKind, NamesEveryKindFromTheHeaderAlone) {
  // A stream: a schema, then a record batch after it.
  BufferPtr stream = test::WriteStream({Int32Batch(Int32Schema(), 0, 4)});
  auto stream_source = BufferSource(stream);
  EXPECT_EQ(*PeekMessageKind(*stream_source), MessageKind::kSchema);
  ASSERT_OK_AND_ASSIGN(std::optional<Message> schema, ReadMessage(*stream_source, 0));
  EXPECT_EQ(*PeekMessageKind(*stream_source, schema->size), MessageKind::kRecordBatch);
  std::vector<uint8_t> dictionary = EmptyHeaderMessage(fb::MessageHeader::DictionaryBatch);
  EXPECT_EQ(*PeekMessageKind(*BorrowedSource(dictionary)), MessageKind::kDictionaryBatch);

  BufferSink sink;
  ASSERT_OK_AND_ASSIGN(Tensor dense,
                       Tensor::Make(float32(), test::BufferOf<float>({0, 1, 0, 2}), {2, 2}));
  ASSERT_OK(WriteTensor(dense, &sink));
  const int64_t sparse_at = sink.position();
  ASSERT_OK_AND_ASSIGN(SparseTensor sparse, SparseTensor::FromDense(dense, SparseFormat::kCSR));
  ASSERT_OK(WriteSparseTensor(sparse, &sink));
  ASSERT_OK_AND_ASSIGN(BufferPtr bytes, sink.Finish());
  auto source = BufferSource(bytes);
  EXPECT_EQ(*PeekMessageKind(*source), MessageKind::kTensor);
  EXPECT_EQ(*PeekMessageKind(*source, sparse_at), MessageKind::kSparseTensor);
  // Only the prefix and metadata are read: a body cut short does not matter.
  BufferPtr cut = test::BufferFrom(bytes->data(), sparse_at - 8);
  EXPECT_EQ(*PeekMessageKind(*BufferSource(cut)), MessageKind::kTensor);
}

TEST(PeekMessageKind, RefusesWhatIsNoMessage) {
  auto empty = BufferSource(test::BufferOf<uint8_t>({}));
  EXPECT_ERROR(kInvalid, "no message at byte 0", PeekMessageKind(*empty));
  auto end_marker = BufferSource(test::BufferOf<uint8_t>({0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}));
  EXPECT_ERROR(kInvalid, "no message at byte 0", PeekMessageKind(*end_marker));
  BufferPtr stream = test::WriteStream({Int32Batch(Int32Schema(), 0, 4)});
  EXPECT_ERROR(kInvalid, "no message at byte " + std::to_string(stream->size()),
               PeekMessageKind(*BufferSource(stream), stream->size()));
  auto truncated = BufferSource(test::BufferOf<uint8_t>({0xff, 0xff}));
  EXPECT_ERROR(kInvalid, "truncated message prefix at byte 0", PeekMessageKind(*truncated));
  auto negative = BufferSource(test::BufferOf<int32_t>({-1, -8}));
  EXPECT_ERROR(kInvalid, "negative metadata length -8", PeekMessageKind(*negative));
  std::vector<uint8_t> file = FileBytes(1);  // "ARROW1" is no message prefix
  EXPECT_ERROR(kInvalid, "message at byte 0 claims", PeekMessageKind(*BorrowedSource(file)));
  std::vector<uint8_t> headerless = HeaderlessMessage(fb::MessageHeader::Tensor);
  EXPECT_ERROR(kInvalid, "names a Tensor header but carries no header table",
               PeekMessageKind(*BorrowedSource(headerless)));
  std::vector<uint8_t> unknown = EmptyHeaderMessage(static_cast<fb::MessageHeader>(9));
  EXPECT_ERROR(kInvalid, "message at byte 0 has a header of unknown type 9",
               PeekMessageKind(*BorrowedSource(unknown)));
}

}  // namespace quiver::ipc
