// What IPC readers keep safe once they have checked it: footers rewritten
// after open, footer blocks that do not fit the file, a checked footer,
// streams that arrive slowly, and one file reader shared by many threads.
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
using test::FileBytes;
using test::Int32Batch;
using test::Int32Schema;

namespace {

// Where footer block `i` of record batches sits in `file`.
size_t BatchBlockPosition(const std::vector<uint8_t>& file, flatbuffers::uoffset_t i) {
  int32_t footer_length;
  std::memcpy(&footer_length, file.data() + file.size() - 10, 4);
  const size_t footer_start = file.size() - 10 - static_cast<size_t>(footer_length);
  const auto* footer = flatbuffers::GetRoot<fb::Footer>(file.data() + footer_start);
  const auto* block = reinterpret_cast<const uint8_t*>(footer->record_batches()->Get(i));
  return static_cast<size_t>(block - file.data());
}

}  // namespace

TEST(IpcReaderSafety, FooterRewrittenAfterOpenIsNotReadAgain) {
  std::vector<uint8_t> bytes = FileBytes(2);
  ASSERT_OK_AND_ASSIGN(auto reader, FileReader::Open(BorrowedSource(bytes)));
  int32_t footer_length;
  std::memcpy(&footer_length, bytes.data() + bytes.size() - 10, 4);
  // Every footer byte overwritten, as another writer of the caller's buffer could.
  std::memset(bytes.data() + bytes.size() - 10 - footer_length, 0xff,
              static_cast<size_t>(footer_length));
  EXPECT_EQ(reader->num_record_batches(), 2);
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, reader->ReadRecordBatch(1));
  EXPECT_TRUE(batch->Equals(*Int32Batch(Int32Schema(), 4, 4)));
}

TEST(IpcReaderSafety, FooterBlocksMustFitTheFile) {
  const std::vector<uint8_t> good = FileBytes(1);
  const size_t at = BatchBlockPosition(good, 0);
  auto with_block = [&](int64_t offset, int32_t metadata, int64_t body) {
    std::vector<uint8_t> bytes = good;
    std::memcpy(bytes.data() + at, &offset, 8);
    std::memcpy(bytes.data() + at + 8, &metadata, 4);
    std::memcpy(bytes.data() + at + 16, &body, 8);
    return FileReader::Open(
               BufferSource(test::BufferFrom(bytes.data(), static_cast<int64_t>(bytes.size()))))
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
  EXPECT_ERROR(kInvalid, expected,
               with_block(offset, metadata, std::numeric_limits<int64_t>::max()));
  EXPECT_ERROR(kInvalid, expected,
               with_block(std::numeric_limits<int64_t>::max() - 4, metadata, body));
  EXPECT_ERROR(kInvalid, expected, with_block(-64, metadata, body));
  EXPECT_ERROR(kInvalid, expected, with_block(static_cast<int64_t>(good.size()), metadata, body));
  // Inside the file, but not what the message there says of itself.
  std::vector<uint8_t> shifted = good;
  const int32_t longer = metadata + 8;
  std::memcpy(shifted.data() + at + 8, &longer, 4);
  ASSERT_OK_AND_ASSIGN(auto reader, FileReader::Open(BufferSource(test::BufferFrom(
                                        shifted.data(), static_cast<int64_t>(shifted.size())))));
  EXPECT_ERROR(kInvalid, "record batch 0: the footer says", reader->ReadRecordBatch(0));
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
    const bool seen =
        first_batch_seen.wait_for(std::chrono::seconds(20)) == std::future_status::ready;
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

TEST(IpcReaderSafety, OneFileReaderServesManyThreads) {
  std::vector<uint8_t> bytes = FileBytes(32);
  ASSERT_OK_AND_ASSIGN(auto reader, FileReader::Open(BufferSource(test::BufferFrom(
                                        bytes.data(), static_cast<int64_t>(bytes.size())))));
  std::vector<RecordBatchPtr> got(32);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int b = t; b < 32; b += 8) got[static_cast<size_t>(b)] = *reader->ReadRecordBatch(b);
    });
  }
  for (auto& thread : threads) thread.join();
  for (int b = 0; b < 32; ++b)
    EXPECT_TRUE(got[static_cast<size_t>(b)]->Equals(*Int32Batch(Int32Schema(), b * 4, 4)));
}

}  // namespace quiver::ipc

namespace quiver::ipc {

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
    return FileReader::Open(
               BufferSource(test::BufferFrom(data.data(), static_cast<int64_t>(data.size()))))
        .status();
  };
  std::vector<uint8_t> long_footer = bytes;
  const int32_t claim = static_cast<int32_t>(bytes.size());
  std::memcpy(long_footer.data() + bytes.size() - 10, &claim, 4);
  EXPECT_ERROR(kInvalid, "does not fit a", open(long_footer));
  std::vector<uint8_t> bad_tail = bytes;
  bad_tail.back() = 'X';
  EXPECT_ERROR(kInvalid, "truncated", open(bad_tail));
  EXPECT_ERROR(kInvalid, "too short",
               open(std::vector<uint8_t>(bytes.begin(), bytes.begin() + 12)));
}

}  // namespace quiver::ipc
