// tools/input_file: how the tool opens what it reads.
#include "input_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <thread>

namespace quiver::tools {
namespace {

namespace fs = std::filesystem;

// An IPC file (or stream) of one int32 column, `batches` batches of `rows`.
BufferPtr IpcBytes(bool stream, int batches = 3, int64_t rows = 1 << 16) {
  auto schema = std::make_shared<Schema>();
  schema->fields = {Field{"x", int32(), false, {}}};
  auto values = *Buffer::Allocate(rows * 4);
  for (int64_t i = 0; i < rows; ++i) {
    const auto v = static_cast<int32_t>(i);
    std::memcpy(values->mutable_data() + i * 4, &v, 4);
  }
  auto data = std::make_shared<ArrayData>();
  data->type = int32();
  data->length = rows;
  data->null_count = 0;
  data->buffers = {nullptr, values};
  auto batch = *RecordBatch::Make(schema, rows, {data});
  auto sink = std::make_shared<ipc::BufferSink>();
  if (stream) {
    auto writer = *ipc::StreamWriter::Open(sink, schema);
    for (int i = 0; i < batches; ++i) EXPECT_TRUE(writer->Write(*batch).ok());
    EXPECT_TRUE(writer->Close().ok());
  } else {
    auto writer = *ipc::FileWriter::Open(sink, schema);
    for (int i = 0; i < batches; ++i) EXPECT_TRUE(writer->Write(*batch).ok());
    EXPECT_TRUE(writer->Close().ok());
  }
  return *sink->Finish();
}

struct TempFile {
  explicit TempFile(const BufferPtr& bytes) {
    char name[] = "/tmp/quiver_input_testXXXXXX";
    const int fd = mkstemp(name);
    path = name;
    EXPECT_EQ(write(fd, bytes->data(), static_cast<size_t>(bytes->size())), bytes->size());
    close(fd);
  }
  ~TempFile() { fs::remove(path); }
  std::string path;
};

TEST(InputFile, BatchesOutliveATruncationOfTheirFile) {
  // A mapped file's arrays point into the mapping: after another process
  // truncates the file, touching them raises SIGBUS. The tool's own
  // memory cannot be taken away.
  TempFile file(IpcBytes(false));
  auto input = OpenInput(file.path, {});
  ASSERT_TRUE(input.ok()) << input.status().message();
  EXPECT_FALSE(input->source->zero_copy());
  auto batch = input->file->ReadRecordBatch(1);
  ASSERT_TRUE(batch.ok());
  fs::resize_file(file.path, 0);
  const ArrayData& column = *(*batch)->column(0);
  int64_t sum = 0;
  for (int64_t i = 0; i < column.length; ++i) {
    int32_t v;
    std::memcpy(&v, column.buffers[1]->data() + i * 4, 4);
    sum += v;
  }
  EXPECT_EQ(sum, int64_t{65535} * 65536 / 2);
  auto next = input->file->ReadRecordBatch(2);
  ASSERT_FALSE(next.ok());
  EXPECT_NE(next.status().message().find("shrank"), std::string::npos) << next.status().message();
}

// What arrives through a pipe named /dev/fd/N (bash's <(...)).
Result<Input> OpenThroughPipe(const BufferPtr& bytes, std::thread* writer) {
  int fds[2];
  EXPECT_EQ(pipe(fds), 0);
  *writer = std::thread([bytes, fd = fds[1]] {
    EXPECT_EQ(write(fd, bytes->data(), static_cast<size_t>(bytes->size())), bytes->size());
    close(fd);
  });
  auto input = OpenInput("/dev/fd/" + std::to_string(fds[0]), {});
  close(fds[0]);  // OpenInput opened its own descriptor
  return input;
}

TEST(InputFile, PipesAreReadAsStreamsOrGatheredWhole) {
  for (bool stream : {true, false}) {
    const BufferPtr bytes = IpcBytes(stream, 2, 1000);
    std::thread writer;
    auto input = OpenThroughPipe(bytes, &writer);
    ASSERT_TRUE(input.ok()) << input.status().message();
    EXPECT_EQ(input->kind, stream ? InputKind::kIpcStream : InputKind::kIpcFile);
    int64_t rows = 0;
    ASSERT_TRUE(ForEachBatch(*input, [&](int, const RecordBatchPtr& batch) {
                  rows += batch->num_rows();
                  return Status::OK();
                }).ok());
    writer.join();
    EXPECT_EQ(rows, 2000);
    EXPECT_EQ(input->size(), bytes->size());
  }
  std::thread writer;
  auto empty = OpenThroughPipe(*Buffer::Allocate(0), &writer);
  writer.join();
  EXPECT_FALSE(empty.ok());
}

}  // namespace
}  // namespace quiver::tools
