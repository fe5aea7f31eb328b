// Encoding record batches: compressed buffers written and read back even
// when the process cannot start threads.
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

}  // namespace

// Compressing and decompressing a batch's buffers uses a thread per core;
// a process that cannot start threads still writes and reads it.
TEST(Ipc, CompressionFinishesWithoutThreads) {
  RecordBatchPtr batch = SampleBatch(20000);
  bool skipped = false;
  const std::string failure = test::RunWithoutThreads(
      [&] {
        WriteOptions write;
        write.compression = Compression::kLz4Frame;
        write.threads = 4;
        auto sink = std::make_shared<BufferSink>();
        auto writer = FileWriter::Open(sink, batch->schema(), write);
        if (!writer.ok() || !(*writer)->Write(*batch).ok() || !(*writer)->Close().ok()) return 1;
        auto bytes = sink->Finish();
        if (!bytes.ok()) return 2;
        ReadOptions read;
        read.threads = 4;
        auto reader = FileReader::Open(BufferSource(*bytes), read);
        if (!reader.ok()) return 3;
        auto back = (*reader)->ReadRecordBatch(0);
        return back.ok() && (*back)->Equals(*batch) ? 0 : 4;
      },
      &skipped);
  if (skipped) GTEST_SKIP() << "needs root to drop to an unprivileged user with no threads left";
  EXPECT_EQ(failure, "");
}

}  // namespace quiver::ipc
