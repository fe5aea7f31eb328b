// What IPC readers keep safe once they have checked it: messages whose
// union tag names a header table that is absent, footers rewritten after
// open, footer blocks that do not fit the file, files that shrink under a
// mapping, streams that arrive slowly or end inside a message, and one file
// reader shared by many threads.
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <future>
#include <thread>
#include <vector>

#include "File_generated.h"
#include "quiver/ipc.h"
#include "quiver/ipc/message.h"
#include "test_util.h"

namespace quiver::ipc {

namespace {

SchemaPtr Int32Schema() {
  auto schema = std::make_shared<Schema>();
  schema->fields = {Field{"x", int32()}};
  return schema;
}

RecordBatchPtr Int32Batch(const SchemaPtr& schema, int32_t first, int rows) {
  std::vector<int32_t> values(static_cast<size_t>(rows));
  for (int i = 0; i < rows; ++i) values[static_cast<size_t>(i)] = first + i;
  return *RecordBatch::Make(schema, rows, {test::Primitive<int32_t>(int32(), values)});
}

// An IPC file of `batches` batches of 4 rows each.
std::vector<uint8_t> FileBytes(int batches) {
  auto schema = Int32Schema();
  auto sink = std::make_shared<BufferSink>();
  auto writer = *FileWriter::Open(sink, schema);
  for (int b = 0; b < batches; ++b) EXPECT_TRUE(writer->Write(*Int32Batch(schema, b * 4, 4)).ok());
  EXPECT_TRUE(writer->Close().ok());
  BufferPtr bytes = *sink->Finish();
  return std::vector<uint8_t>(bytes->data(), bytes->data() + bytes->size());
}

// A source over `bytes` in place: the caller's memory, not a copy.
std::shared_ptr<InputSource> BorrowedSource(std::vector<uint8_t>& bytes) {
  return BufferSource(Buffer::Wrap(bytes.data(), static_cast<int64_t>(bytes.size()), [] {}));
}

// One framed message whose header tag is `kind` but whose header table is
// not there (what the tensor fuzzers found).
std::vector<uint8_t> HeaderlessMessage(fb::MessageHeader kind) {
  flatbuffers::FlatBufferBuilder builder;
  builder.Finish(fb::CreateMessage(builder, fb::MetadataVersion::V5, kind, 0, 0));
  BufferPtr framed = *FrameMetadata(builder, 0, 8);
  return std::vector<uint8_t>(framed->data(), framed->data() + framed->size());
}

// Where footer block `i` of record batches sits in `file`.
size_t BatchBlockPosition(const std::vector<uint8_t>& file, flatbuffers::uoffset_t i) {
  int32_t footer_length;
  std::memcpy(&footer_length, file.data() + file.size() - 10, 4);
  const size_t footer_start = file.size() - 10 - static_cast<size_t>(footer_length);
  const auto* footer = flatbuffers::GetRoot<fb::Footer>(file.data() + footer_start);
  const auto* block = reinterpret_cast<const uint8_t*>(footer->record_batches()->Get(i));
  return static_cast<size_t>(block - file.data());
}

std::filesystem::path TempPath(const char* name) {
  return std::filesystem::temp_directory_path() /
         (std::string("quiver_") + name + "_" + std::to_string(getpid()) + ".arrow");
}

}  // namespace

TEST(IpcReaderSafety, MessagesNamingAnAbsentHeaderAreRefused) {
  for (fb::MessageHeader kind : {fb::MessageHeader::Tensor, fb::MessageHeader::SparseTensor,
                                 fb::MessageHeader::Schema, fb::MessageHeader::RecordBatch,
                                 fb::MessageHeader::DictionaryBatch}) {
    std::vector<uint8_t> bytes = HeaderlessMessage(kind);
    auto source = BufferSource(test::BufferFrom(bytes.data(), static_cast<int64_t>(bytes.size())));
    const std::string expected =
        std::string("names a ") + fb::EnumNameMessageHeader(kind) + " header but carries no header table";
    EXPECT_ERROR(kInvalid, expected, ReadTensor(source));
    EXPECT_ERROR(kInvalid, expected, ReadSparseTensor(source));
    EXPECT_ERROR(kInvalid, expected, StreamReader::Open(source));
  }
  std::vector<uint8_t> none = HeaderlessMessage(fb::MessageHeader::NONE);
  auto source = BufferSource(test::BufferFrom(none.data(), static_cast<int64_t>(none.size())));
  EXPECT_ERROR(kInvalid, "message at byte 0 has no header", ReadTensor(source));
}

TEST(IpcReaderSafety, FooterRewrittenAfterOpenIsNotReadAgain) {
  std::vector<uint8_t> bytes = FileBytes(2);
  ASSERT_OK_AND_ASSIGN(auto reader, FileReader::Open(BorrowedSource(bytes)));
  int32_t footer_length;
  std::memcpy(&footer_length, bytes.data() + bytes.size() - 10, 4);
  // Every footer byte overwritten, as another writer of the caller's buffer could.
  std::memset(bytes.data() + bytes.size() - 10 - footer_length, 0xff, static_cast<size_t>(footer_length));
  EXPECT_EQ(reader->num_record_batches(), 2);
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, reader->ReadRecordBatch(1));
  EXPECT_TRUE(batch->Equals(*Int32Batch(Int32Schema(), 4, 4)));
}

TEST(IpcReaderSafety, MessageMetadataRewrittenAfterVerificationIsNotRead) {
  // The metadata of a message read from a zero-copy source is a copy of its own.
  std::vector<uint8_t> bytes = FileBytes(1);
  auto source = BorrowedSource(bytes);
  ASSERT_OK_AND_ASSIGN(std::optional<Message> message, ReadMessage(*source, 8));
  ASSERT_TRUE(message.has_value());
  EXPECT_FALSE(message->metadata->data() >= bytes.data() && message->metadata->data() < bytes.data() + bytes.size());
}

TEST(IpcReaderSafety, FooterBlocksMustFitTheFile) {
  const std::vector<uint8_t> good = FileBytes(1);
  const size_t at = BatchBlockPosition(good, 0);
  auto with_block = [&](int64_t offset, int32_t metadata, int64_t body) {
    std::vector<uint8_t> bytes = good;
    std::memcpy(bytes.data() + at, &offset, 8);
    std::memcpy(bytes.data() + at + 8, &metadata, 4);
    std::memcpy(bytes.data() + at + 16, &body, 8);
    return FileReader::Open(BufferSource(test::BufferFrom(bytes.data(), static_cast<int64_t>(bytes.size()))))
        .status();
  };
  int64_t offset;
  int32_t metadata;
  int64_t body;
  std::memcpy(&offset, good.data() + at, 8);
  std::memcpy(&metadata, good.data() + at + 8, 4);
  std::memcpy(&body, good.data() + at + 16, 8);
  ASSERT_OK(with_block(offset, metadata, body));
  const char* expected = "record batch block 0";
  EXPECT_ERROR(kInvalid, expected, with_block(offset, -8, body));
  EXPECT_ERROR(kInvalid, expected, with_block(offset, 0, body));
  EXPECT_ERROR(kInvalid, expected, with_block(offset, metadata, -1));
  EXPECT_ERROR(kInvalid, expected, with_block(offset, std::numeric_limits<int32_t>::max(), body));
  EXPECT_ERROR(kInvalid, expected, with_block(offset, metadata, std::numeric_limits<int64_t>::max()));
  EXPECT_ERROR(kInvalid, expected, with_block(std::numeric_limits<int64_t>::max() - 4, metadata, body));
  EXPECT_ERROR(kInvalid, expected, with_block(-64, metadata, body));
  EXPECT_ERROR(kInvalid, expected, with_block(static_cast<int64_t>(good.size()), metadata, body));
  // Inside the file, but not what the message there says of itself.
  std::vector<uint8_t> shifted = good;
  const int32_t longer = metadata + 8;
  std::memcpy(shifted.data() + at + 8, &longer, 4);
  ASSERT_OK_AND_ASSIGN(auto reader, FileReader::Open(BufferSource(
                                        test::BufferFrom(shifted.data(), static_cast<int64_t>(shifted.size())))));
  EXPECT_ERROR(kInvalid, "record batch 0: the footer says", reader->ReadRecordBatch(0));
}

TEST(IpcReaderSafety, AFileThatShrinksIsAnErrorNamingIt) {
  const std::vector<uint8_t> bytes = FileBytes(3);
  for (bool memory_map : {true, false}) {
    const auto path = TempPath(memory_map ? "shrink_mapped" : "shrink_read");
    {
      auto sink = *OpenFileSink(path.string());
      ASSERT_OK(sink->Write(bytes.data(), static_cast<int64_t>(bytes.size())));
      ASSERT_OK(sink->Close());
    }
    ASSERT_OK_AND_ASSIGN(auto source, OpenFileSource(path.string(), memory_map));
    ASSERT_OK_AND_ASSIGN(auto reader, FileReader::Open(source));
    ASSERT_OK(reader->ReadRecordBatch(0).status());
    std::filesystem::resize_file(path, bytes.size() / 2);
    auto read = reader->ReadRecordBatch(2);
    EXPECT_ERROR(kIOError, path.string() + "' shrank to " + std::to_string(bytes.size() / 2) +
                               " bytes after it was opened with " + std::to_string(bytes.size()),
                 read);
    std::filesystem::remove(path);
  }
}

TEST(IpcReaderSafety, StreamBatchesArriveBeforeThePipeCloses) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  auto schema = Int32Schema();
  std::promise<void> first_batch_read;
  std::future<void> first_batch_seen = first_batch_read.get_future();
  std::thread producer([&] {
    auto sink = FileDescriptorSink(fds[1]);
    auto writer = *StreamWriter::Open(sink, schema);
    EXPECT_TRUE(writer->Write(*Int32Batch(schema, 0, 4)).ok());
    // A reader that waits for the end of the stream never sees batch 0:
    // the producer gives up after a while and the test fails below.
    const bool seen = first_batch_seen.wait_for(std::chrono::seconds(20)) == std::future_status::ready;
    EXPECT_TRUE(seen) << "the reader did not return batch 0 while the producer kept the pipe open";
    EXPECT_TRUE(writer->Write(*Int32Batch(schema, 4, 4)).ok());
    EXPECT_TRUE(writer->Close().ok());
    close(fds[1]);
  });
  ASSERT_OK_AND_ASSIGN(auto reader, StreamReader::Open(FileDescriptorStream(fds[0])));
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr first, reader->Next());
  ASSERT_TRUE(first);
  EXPECT_TRUE(first->Equals(*Int32Batch(schema, 0, 4)));
  first_batch_read.set_value();
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr second, reader->Next());
  ASSERT_TRUE(second);
  EXPECT_TRUE(second->Equals(*Int32Batch(schema, 4, 4)));
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr end, reader->Next());
  EXPECT_FALSE(end);
  producer.join();
  close(fds[0]);
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
    const std::string where = cut == schema_end + 6 ? "truncated message length at byte " + std::to_string(schema_end + 4)
                                                    : "the stream ends inside the message at byte " + std::to_string(schema_end);
    EXPECT_ERROR(kInvalid, where, next);
    // The reader stays failed: it does not parse from inside the message.
    EXPECT_ERROR(kInvalid, where, reader->Next());
    close(fds[0]);
  }
}

TEST(IpcReaderSafety, OneFileReaderServesManyThreads) {
  std::vector<uint8_t> bytes = FileBytes(32);
  ASSERT_OK_AND_ASSIGN(auto reader, FileReader::Open(BufferSource(
                                        test::BufferFrom(bytes.data(), static_cast<int64_t>(bytes.size())))));
  std::vector<RecordBatchPtr> got(32);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int b = t; b < 32; b += 8) got[static_cast<size_t>(b)] = *reader->ReadRecordBatch(b);
    });
  }
  for (auto& thread : threads) thread.join();
  for (int b = 0; b < 32; ++b) EXPECT_TRUE(got[static_cast<size_t>(b)]->Equals(*Int32Batch(Int32Schema(), b * 4, 4)));
}

}  // namespace quiver::ipc
