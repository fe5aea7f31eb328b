// Sources and sinks: what Reserve (the preallocation hint the writers give
// before each message) may and may not do to a file, a descriptor, a pipe
// and a memory sink; memory-mapped files outliving their reader; files
// that shrink under a reader.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "File_generated.h"
#include "ipc_test_util.h"
#include "no_threads.h"
#include "quiver/fixed_shape_tensor.h"
#include "quiver/ipc.h"
#include "quiver/ipc/message.h"
#include "quiver/variable_shape_tensor.h"

namespace quiver::ipc {

using test::FileBytes;
using test::Int32Batch;
using test::Int32Schema;
using test::SampleBatch;

namespace {

// One column of `count` float32 values: 4 * count body bytes, enough to
// pass the sinks' 256 KiB preallocation threshold.
RecordBatchPtr LargeBatch(int64_t count = 1 << 18) {
  std::vector<float> values(static_cast<size_t>(count));
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i);
  auto schema = std::make_shared<Schema>();
  schema->fields = {Field{"x", float32()}};
  return *RecordBatch::Make(schema, count, {test::Primitive<float>(float32(), values)});
}

Status WriteStreamTo(const std::shared_ptr<OutputSink>& sink, const RecordBatch& batch) {
  QUIVER_ASSIGN_OR_RETURN(auto writer, StreamWriter::Open(sink, batch.schema()));
  QUIVER_RETURN_NOT_OK(writer->Write(batch));
  return writer->Close();
}

std::string StreamBytes(const RecordBatch& batch) {
  auto sink = std::make_shared<BufferSink>();
  Status st = WriteStreamTo(sink, batch);
  EXPECT_TRUE(st.ok()) << st.ToString();
  BufferPtr bytes = *sink->Finish();
  return std::string(reinterpret_cast<const char*>(bytes->data()),
                     static_cast<size_t>(bytes->size()));
}

std::string FileContents(const std::string& path) {
  std::string out;
  FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return out;
  char chunk[65536];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof chunk, file)) > 0) out.append(chunk, n);
  std::fclose(file);
  return out;
}

// A fresh temporary file's path (removed by the destructor).
struct TempFile {
  TempFile() {
    const int fd = mkstemp(path);
    EXPECT_GE(fd, 0);
    close(fd);
  }
  ~TempFile() { std::remove(path); }
  char path[32] = "/tmp/quiver_sink_testXXXXXX";
};

// Whether the filesystem under /tmp preallocates (tmpfs and ext4 do).
bool CanPreallocate() {
  TempFile probe;
  const int fd = open(probe.path, O_WRONLY);
  const bool ok = fd >= 0 && fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 1 << 20) == 0;
  if (fd >= 0) close(fd);
  return ok;
}

}  // namespace

TEST(IpcSink, FileSinkPreallocatesWithoutChangingTheFileSize) {
  TempFile file;
  const int fd = open(file.path, O_WRONLY | O_TRUNC);
  ASSERT_GE(fd, 0);
  auto sink = FileDescriptorSink(fd);
  sink->Reserve(4 << 20);
  struct stat info;
  ASSERT_EQ(stat(file.path, &info), 0);
  EXPECT_EQ(info.st_size, 0);  // the hint never shows in the contents
  if (CanPreallocate()) {
    EXPECT_GE(info.st_blocks * 512, 4 << 20);
  }
  ASSERT_OK(sink->Write("ab", 2));
  ASSERT_OK(sink->Close());
  close(fd);
  EXPECT_EQ(FileContents(file.path), "ab");
}

TEST(IpcSink, APathSinkShowsItsFileOnlyWhenClosed) {
  TempFile file;
  {
    const int fd = open(file.path, O_WRONLY | O_TRUNC | O_CLOEXEC);
    ASSERT_EQ(write(fd, "old", 3), 3);
    close(fd);
  }
  {
    ASSERT_OK_AND_ASSIGN(auto sink, OpenFileSink(file.path));
    ASSERT_OK(sink->Write("new contents", 12));
    ASSERT_OK(sink->Flush());
    EXPECT_EQ(FileContents(file.path), "old");  // still the whole previous file
    // Destroyed without Close: the previous file stays, no temporary is left.
  }
  EXPECT_EQ(FileContents(file.path), "old");
  const std::string dir = std::filesystem::path(file.path).parent_path().string();
  const std::string hidden =
      "." + std::filesystem::path(file.path).filename().string() + ".quiver-";
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    EXPECT_NE(entry.path().filename().string().rfind(hidden, 0), 0u) << entry.path();
  }
  ASSERT_OK_AND_ASSIGN(auto sink, OpenFileSink(file.path));
  ASSERT_OK(sink->Write("new", 3));
  ASSERT_OK(sink->Close());
  EXPECT_EQ(FileContents(file.path), "new");
}

TEST(IpcSink, APathSinkNamesItsTemporaryFileUntilClosed) {
  TempFile file;
  ASSERT_OK_AND_ASSIGN(auto sink, OpenFileSink(file.path));
  const std::string temporary = sink->temporary_path();
  const std::string name = std::filesystem::path(file.path).filename().string();
  EXPECT_EQ(std::filesystem::path(temporary).filename().string().rfind("." + name + ".quiver-", 0),
            0u)
      << temporary;
  EXPECT_TRUE(std::filesystem::exists(temporary));
  ASSERT_OK(sink->Write("x", 1));
  ASSERT_OK(sink->Close());
  EXPECT_EQ(sink->temporary_path(), "");  // renamed: nothing left to clean up
  EXPECT_FALSE(std::filesystem::exists(temporary));
  EXPECT_EQ(FileDescriptorSink(1)->temporary_path(), "");
}

TEST(IpcSink, AFailedWriteStopsTheSinkAndNamesTheOffset) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  close(fds[0]);  // nobody reads: writes fail with EPIPE
  signal(SIGPIPE, SIG_IGN);
  auto sink = FileDescriptorSink(fds[1]);
  ASSERT_OK(sink->Write("12345", 5));  // gathered
  const std::string big(1 << 17, 'x');
  EXPECT_ERROR(kIOError, "writing 5 bytes at byte 0 of descriptor",
               sink->Write(big.data(), 1 << 17));
  EXPECT_ERROR(kIOError, "the writer stops here", sink->Write("z", 1));
  EXPECT_ERROR(kIOError, "the writer stops here", sink->Close());
  close(fds[1]);
}

TEST(IpcSink, LargeMessagesThroughAFileSinkMatchTheMemorySink) {
  TempFile file;
  RecordBatchPtr batch = LargeBatch();
  ASSERT_OK_AND_ASSIGN(auto sink, OpenFileSink(file.path));
  ASSERT_OK(WriteStreamTo(sink, *batch));
  ASSERT_OK(sink->Close());
  EXPECT_EQ(FileContents(file.path), StreamBytes(*batch));
}

TEST(IpcSink, DescriptorAtAnOffsetWritesAfterWhatIsThere) {
  TempFile file;
  const int fd = open(file.path, O_WRONLY | O_TRUNC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, "header", 6), 6);
  auto sink = FileDescriptorSink(fd);
  sink->Reserve(4 << 20);  // reserved past the six bytes, the size unchanged
  struct stat info;
  ASSERT_EQ(fstat(fd, &info), 0);
  EXPECT_EQ(info.st_size, 6);
  if (CanPreallocate()) {
    EXPECT_GE(info.st_blocks * 512, 4 << 20);
  }
  RecordBatchPtr batch = LargeBatch();
  ASSERT_OK(WriteStreamTo(sink, *batch));
  ASSERT_OK(sink->Close());  // flushes the gathered tail; the descriptor stays open
  close(fd);
  EXPECT_EQ(FileContents(file.path), "header" + StreamBytes(*batch));
}

TEST(IpcSink, AppendingDescriptorKeepsEarlierBytes) {
  TempFile file;
  int fd = open(file.path, O_WRONLY | O_TRUNC);
  ASSERT_EQ(write(fd, "0123456789", 10), 10);
  close(fd);
  // O_APPEND with the offset at 0: preallocating "at the offset" would be
  // wrong, so the sink must not try, and every byte lands after the ten.
  fd = open(file.path, O_WRONLY | O_APPEND);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(lseek(fd, 0, SEEK_SET), 0);
  struct stat before, after;
  ASSERT_EQ(fstat(fd, &before), 0);
  FileDescriptorSink(fd)->Reserve(4 << 20);
  ASSERT_EQ(fstat(fd, &after), 0);
  EXPECT_EQ(after.st_blocks, before.st_blocks);  // nothing reserved for an append
  RecordBatchPtr batch = LargeBatch();
  ASSERT_OK(WriteStreamTo(FileDescriptorSink(fd), *batch));
  close(fd);
  EXPECT_EQ(FileContents(file.path), "0123456789" + StreamBytes(*batch));
}

TEST(IpcSink, PipeSinkWritesLargeMessages) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  std::string received;
  std::thread reader([&] {
    char chunk[65536];
    ssize_t n;
    while ((n = read(fds[0], chunk, sizeof chunk)) > 0)
      received.append(chunk, static_cast<size_t>(n));
  });
  RecordBatchPtr batch = LargeBatch();
  Status st = WriteStreamTo(FileDescriptorSink(fds[1]), *batch);
  close(fds[1]);
  reader.join();
  close(fds[0]);
  ASSERT_OK(st);
  EXPECT_EQ(received, StreamBytes(*batch));
}

TEST(IpcSink, BufferSinkReserveKeepsTheBytesAndIgnoresImpossibleSizes) {
  BufferSink sink;
  ASSERT_OK(sink.Write("abc", 3));
  sink.Reserve(1 << 20);
  sink.Reserve(-5);
  sink.Reserve(std::numeric_limits<int64_t>::max());      // past 2^63 bytes: not tried
  sink.Reserve(std::numeric_limits<int64_t>::max() - 8);  // tried, the allocation refused
  std::vector<uint8_t> block(1 << 20, 7);
  ASSERT_OK(sink.Write(block.data(), static_cast<int64_t>(block.size())));
  ASSERT_OK(sink.Write("z", 1));
  EXPECT_EQ(sink.position(), 3 + (1 << 20) + 1);
  ASSERT_OK_AND_ASSIGN(BufferPtr bytes, sink.Finish());
  ASSERT_EQ(bytes->size(), 3 + (1 << 20) + 1);
  EXPECT_EQ(std::memcmp(bytes->data(), "abc", 3), 0);
  EXPECT_EQ(bytes->data()[3 + 12345], 7);
  EXPECT_EQ(bytes->data()[bytes->size() - 1], 'z');
}

TEST(IpcSink, BufferSinkGrowsGeometricallyUnderPerMessageReserves) {
  // Writers reserve each message's exact size; growing to exactly that
  // copied everything written so far once per message.
  BufferSink sink;
  std::vector<uint8_t> message(1300, 1);
  int growths = 0;
  int64_t capacity = sink.capacity();
  for (int i = 0; i < 4000; ++i) {
    sink.Reserve(static_cast<int64_t>(message.size()));
    ASSERT_OK(sink.Write(message.data(), static_cast<int64_t>(message.size())));
    if (sink.capacity() != capacity) ++growths;
    capacity = sink.capacity();
  }
  EXPECT_LE(growths, 12);  // 4096 bytes doubled up to 5.2 MB
  EXPECT_EQ(sink.position(), 4000 * 1300);
}

TEST(IpcSink, BufferSinkRefusesToGrowPastInt64) {
  BufferSink sink;
  ASSERT_OK(sink.Write("abc", 3));
  EXPECT_ERROR(kOutOfMemory, "more than 2^63 bytes",
               sink.Write("x", std::numeric_limits<int64_t>::max() - 1));
}

}  // namespace quiver::ipc

namespace quiver::ipc {

using test::Bitmap;
using test::Primitive;
using test::Utf8;

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

}  // namespace quiver::ipc

namespace quiver::ipc {

namespace {

std::filesystem::path TempPath(const char* name) {
  return std::filesystem::temp_directory_path() /
         (std::string("quiver_") + name + "_" + std::to_string(getpid()) + ".arrow");
}

}  // namespace

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
    EXPECT_ERROR(kIOError,
                 path.string() + "' shrank to " + std::to_string(bytes.size() / 2) +
                     " bytes after it was opened with " + std::to_string(bytes.size()),
                 read);
    std::filesystem::remove(path);
  }
}

}  // namespace quiver::ipc

namespace quiver::ipc {

TEST(IpcFileStream, ARegularFileIsMappedAndAFifoReadAsItArrives) {
  RecordBatchPtr batch = SampleBatch(10);
  const std::filesystem::path file = std::filesystem::temp_directory_path() /
                                     ("quiver_file_stream_" + std::to_string(getpid()) + ".arrows");
  {
    ASSERT_OK_AND_ASSIGN(auto sink, OpenFileSink(file.string()));
    ASSERT_OK_AND_ASSIGN(auto writer, StreamWriter::Open(sink, batch->schema()));
    ASSERT_OK(writer->Write(*batch));
    ASSERT_OK(writer->Close());
    ASSERT_OK(sink->Close());
  }
  ASSERT_OK_AND_ASSIGN(auto mapped, OpenFileStream(file.string()));
  EXPECT_TRUE(mapped->zero_copy());
  ASSERT_OK_AND_ASSIGN(auto reader, StreamReader::Open(mapped));
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr read, reader->Next());
  EXPECT_TRUE(read->Equals(*batch));

  // The same bytes through a FIFO: its size is 0, so it must not be mapped.
  const std::filesystem::path fifo = file.string() + ".fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::ifstream in(file, std::ios::binary);
  const std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in),
                                   std::istreambuf_iterator<char>()};
  ASSERT_FALSE(bytes.empty());
  std::thread producer([&] {
    const int fd = open(fifo.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return;
    size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    close(fd);
  });
  ASSERT_OK_AND_ASSIGN(auto piped, OpenFileStream(fifo.string()));  // waits for the writer
  EXPECT_FALSE(piped->zero_copy());
  ASSERT_OK_AND_ASSIGN(auto fifo_reader, StreamReader::Open(piped));
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr through_fifo, fifo_reader->Next());
  EXPECT_TRUE(through_fifo->Equals(*batch));
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr end, fifo_reader->Next());
  EXPECT_EQ(end, nullptr);
  producer.join();
  std::filesystem::remove(fifo);
  std::filesystem::remove(file);

  EXPECT_ERROR(kIOError, "is a directory, not a file",
               OpenFileStream(std::filesystem::temp_directory_path().string()));
  EXPECT_ERROR(kIOError, "cannot open '/nonexistent/quiver.arrows'",
               OpenFileStream("/nonexistent/quiver.arrows"));
}

}  // namespace quiver::ipc
