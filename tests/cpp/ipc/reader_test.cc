// IPC readers: random access to the batches of a file (zero-copy from
// memory), streams read to their end, and the errors for missing sources,
// empty streams, messages of the wrong kind and files that are not IPC
// files.
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
using test::WriteFile;
using test::WriteStream;

using test::Bitmap;
using test::Primitive;
using test::Utf8;

TEST(Ipc, FileRandomAccessAndZeroCopy) {
  RecordBatchPtr batch = SampleBatch();
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr tail, batch->Slice(2, 3));
  BufferPtr bytes = WriteFile({batch, tail});
  ASSERT_OK_AND_ASSIGN(auto reader, FileReader::Open(BufferSource(bytes)));
  EXPECT_EQ(reader->num_record_batches(), 2);
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr second, reader->ReadRecordBatch(1));
  EXPECT_TRUE(second->Equals(*tail));  // the slice was written compactly
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr first, reader->ReadRecordBatch(0));
  const uint8_t* ids = first->column(0)->buffers[1]->data();
  EXPECT_GE(ids, bytes->data());
  EXPECT_LT(ids, bytes->data() + bytes->size());  // points into the file bytes
  EXPECT_EQ(reinterpret_cast<uintptr_t>(ids) % 64, reinterpret_cast<uintptr_t>(bytes->data()) % 64);
  EXPECT_ERROR(kIndexError, "record batch 2 is out of range", reader->ReadRecordBatch(2));
}

TEST(IpcReader, OpenErrors) {
  EXPECT_EQ(test::StatusOf(StreamReader::Open(std::shared_ptr<InputSource>())).message(),
            "IPC stream reader has no source");
  EXPECT_EQ(test::StatusOf(FileReader::Open(nullptr)).message(), "IPC file reader has no source");
  EXPECT_EQ(test::StatusOf(StreamReader::Open(BufferSource(test::BufferOf(std::vector<uint8_t>{}))))
                .message(),
            "the IPC stream is empty: it has no schema message");
  EXPECT_EQ(
      test::StatusOf(FileReader::Open(BufferSource(test::BufferOf(std::vector<uint8_t>(10, 0)))))
          .message(),
      "a 10-byte file is too short for the Arrow IPC file format");
  // A stream is not a file, and a file cut short has no trailing magic.
  RecordBatchPtr batch = SampleBatch(2);
  BufferPtr stream = WriteStream({batch});
  EXPECT_EQ(test::StatusOf(FileReader::Open(BufferSource(stream))).message(),
            "not an Arrow IPC file: bad magic at byte 0");
  BufferPtr file = WriteFile({batch});
  ASSERT_OK_AND_ASSIGN(BufferPtr cut, Buffer::Slice(file, 0, file->size() - 1));
  EXPECT_ERROR(kInvalid, "not a complete Arrow IPC file: bad magic at byte ",
               FileReader::Open(BufferSource(cut)));
}

TEST(IpcReader, StreamsAreReadToTheirEnd) {
  RecordBatchPtr batch = SampleBatch(3);
  BufferPtr stream = WriteStream({batch, batch, batch});
  ASSERT_OK_AND_ASSIGN(auto reader, StreamReader::Open(BufferSource(stream)));
  int batches = 0;
  while (true) {
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr next, reader->Next());
    if (!next) break;
    EXPECT_TRUE(next->Equals(*batch));
    ++batches;
  }
  EXPECT_EQ(batches, 3);
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr after, reader->Next());  // the end stays the end
  EXPECT_FALSE(after);
  // Two streams back to back: the second schema message is refused.
  std::vector<uint8_t> twice(stream->data(), stream->data() + stream->size() - 8);  // no end marker
  twice.insert(twice.end(), stream->data(), stream->data() + stream->size());
  ASSERT_OK_AND_ASSIGN(auto again, StreamReader::Open(BufferSource(test::BufferOf(twice))));
  for (int i = 0; i < 3; ++i) ASSERT_OK(again->Next().status());
  EXPECT_ERROR(kInvalid, ": a second schema message in the stream", again->Next());
}

}  // namespace quiver::ipc
