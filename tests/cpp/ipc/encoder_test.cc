// Encoding record batches: compressed buffers written and read back even
// when the process cannot start threads.
#include "quiver/ipc.h"

#include <unistd.h>
#include <cstdio>
#include <cstring>
#include <string>

#include "ipc_test_util.h"
#include "no_threads.h"
#include "quiver/fixed_shape_tensor.h"
#include "quiver/variable_shape_tensor.h"

namespace quiver::ipc {

using test::SampleBatch;

using test::Bitmap;
using test::Primitive;
using test::Utf8;

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
