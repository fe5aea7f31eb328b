// IPC readers: random access to the batches of a file (zero-copy from
// memory), streams read to their end, and the errors for missing sources,
// empty streams, messages of the wrong kind and files that are not IPC
// files.
#include "quiver/ipc.h"

#include <unistd.h>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "ipc_test_util.h"
#include "no_threads.h"
#include "quiver/build_info.h"
#include "quiver/fixed_shape_tensor.h"
#include "quiver/table.h"
#include "quiver/variable_shape_tensor.h"
#include "sample_arrays.h"

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
  // A stream is not a file (file_kind_test.cc has the other kinds), and a
  // file cut short has no trailing magic.
  RecordBatchPtr batch = SampleBatch(2);
  BufferPtr stream = WriteStream({batch});
  EXPECT_EQ(test::StatusOf(FileReader::Open(BufferSource(stream))).message(),
            "the input is an Arrow IPC stream, not an Arrow IPC file; open it with open_stream "
            "(C++: ipc::StreamReader)");
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

// One FileReader shared by 8 threads, each reading its own batches of a
// compressed file with a dictionary column (read once, by whichever thread
// comes first) and decompressing each batch on 2 threads of its own: every
// batch equals what one thread reads. make test-tsan runs this under
// ThreadSanitizer.
TEST(IpcReader, OneFileReaderSharedByThreadsReadsWhatOneThreadReads) {
  constexpr int kBatches = 32;
  constexpr int kRows = 2048;
  auto schema = std::make_shared<Schema>();
  ArrayDataPtr words = Utf8({"red", "green", "blue"});
  std::vector<std::optional<int32_t>> codes;
  for (int i = 0; i < kRows; ++i)
    codes.push_back(i % 7 == 0 ? std::nullopt : std::optional<int32_t>(i % 3));
  ArrayDataPtr colors = test::DictionaryOf(codes, words);
  schema->fields = {Field{"x", int32()}, Field{"color", colors->type}};
  auto sink = std::make_shared<BufferSink>();
  WriteOptions options;
  options.compression = HasCodec(Compression::kZstd) ? Compression::kZstd : Compression::kNone;
  ASSERT_OK_AND_ASSIGN(auto writer, FileWriter::Open(sink, schema, options));
  for (int b = 0; b < kBatches; ++b) {
    std::vector<int32_t> values(kRows);
    for (int i = 0; i < kRows; ++i) values[static_cast<size_t>(i)] = b * kRows + i * (i % 5);
    ASSERT_OK_AND_ASSIGN(
        auto batch,
        RecordBatch::Make(schema, kRows, {Primitive<int32_t>(int32(), values), colors}));
    ASSERT_OK(writer->Write(*batch));
  }
  ASSERT_OK(writer->Close());
  ASSERT_OK_AND_ASSIGN(BufferPtr bytes, sink->Finish());
  ReadOptions read_options;
  read_options.threads = 2;
  ASSERT_OK_AND_ASSIGN(auto alone, FileReader::Open(BufferSource(bytes), read_options));
  std::vector<RecordBatchPtr> expected;
  for (int b = 0; b < kBatches; ++b) expected.push_back(*alone->ReadRecordBatch(b));
  ASSERT_OK_AND_ASSIGN(auto shared, FileReader::Open(BufferSource(bytes), read_options));
  std::vector<RecordBatchPtr> got(kBatches);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int b = t; b < kBatches; b += 8) {
        auto batch = shared->ReadRecordBatch(b);
        if (batch.ok()) got[static_cast<size_t>(b)] = *batch;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int b = 0; b < kBatches; ++b) {
    ASSERT_TRUE(got[static_cast<size_t>(b)]) << "batch " << b;
    EXPECT_TRUE(got[static_cast<size_t>(b)]->Equals(*expected[static_cast<size_t>(b)]))
        << "batch " << b;
  }
}

namespace {

// Record batches of one utf8 column for the ReadAll tests: batch b holds
// the word "MAGIC<100 + b>", which BreakMagic finds again in the bytes.
std::shared_ptr<Schema> MagicSchema() {
  auto schema = std::make_shared<Schema>();
  schema->fields = {Field{"s", utf8()}};
  return schema;
}

std::string MagicWord(int b) { return "MAGIC" + std::to_string(100 + b); }

template <typename Writer>
BufferPtr WriteMagicBatches(int count) {
  auto schema = MagicSchema();
  auto sink = std::make_shared<BufferSink>();
  auto writer = *Writer::Open(sink, schema);
  for (int b = 0; b < count; ++b) {
    auto batch = *RecordBatch::Make(schema, 3, {Utf8({"a", MagicWord(b), "b"})});
    EXPECT_TRUE(writer->Write(*batch).ok());
  }
  EXPECT_TRUE(writer->Close().ok());
  return *sink->Finish();
}

// `bytes` with the magic word of each batch in `batches` no longer UTF-8.
BufferPtr BreakMagic(const BufferPtr& bytes, std::initializer_list<int> batches) {
  std::vector<uint8_t> out(bytes->data(), bytes->data() + bytes->size());
  for (int b : batches) {
    const std::string word = MagicWord(b);
    auto at = std::search(out.begin(), out.end(), word.begin(), word.end());
    EXPECT_NE(at, out.end());
    if (at != out.end()) *at = 0xff;
  }
  return test::BufferOf(out);
}

}  // namespace

// ReadAllRecordBatches reads a file's batches on several threads: the same
// batches as one thread reads, and on failure the error of the lowest
// corrupt batch, as a read in order would give, whichever thread met it.
TEST(IpcReader, ReadAllRecordBatchesOnThreadsKeepsOrderAndTheFirstError) {
  constexpr int kBatches = 24;
  BufferPtr bytes = WriteMagicBatches<FileWriter>(kBatches);
  ASSERT_OK_AND_ASSIGN(auto reader, FileReader::Open(BufferSource(bytes)));
  for (int threads : {1, 4}) {
    ASSERT_OK_AND_ASSIGN(auto batches, reader->ReadAllRecordBatches(threads));
    ASSERT_EQ(batches.size(), size_t{kBatches});
    for (int b = 0; b < kBatches; ++b) {
      ASSERT_OK_AND_ASSIGN(auto alone, reader->ReadRecordBatch(b));
      EXPECT_TRUE(batches[static_cast<size_t>(b)]->Equals(*alone)) << "batch " << b;
    }
  }
  ASSERT_OK_AND_ASSIGN(auto bad, FileReader::Open(BufferSource(BreakMagic(bytes, {17, 9}))));
  for (int threads : {1, 2, 8}) {
    for (int run = 0; run < 5; ++run) {
      EXPECT_ERROR(kInvalid, "record batch 9", bad->ReadAllRecordBatches(threads));
    }
  }
}

// StreamReader::ReadAll decodes a window of batches at once: the batches
// Next() gives, and on failure Next()'s first error, which then sticks.
TEST(IpcReader, StreamReadAllOnThreadsGivesWhatNextGives) {
  constexpr int kBatches = 30;
  BufferPtr bytes = WriteMagicBatches<StreamWriter>(kBatches);
  ASSERT_OK_AND_ASSIGN(auto one_by_one, StreamReader::Open(BufferSource(bytes)));
  ASSERT_OK_AND_ASSIGN(auto all, StreamReader::Open(BufferSource(bytes)));
  ASSERT_OK_AND_ASSIGN(auto batches, all->ReadAll(4));
  ASSERT_EQ(batches.size(), size_t{kBatches});
  for (const RecordBatchPtr& batch : batches) {
    ASSERT_OK_AND_ASSIGN(auto expected, one_by_one->Next());
    EXPECT_TRUE(batch->Equals(*expected));
  }
  ASSERT_OK_AND_ASSIGN(auto rest, all->ReadAll(4));
  EXPECT_TRUE(rest.empty());
  // Two corrupt batches in one window of 8 (2 threads x 4).
  BufferPtr corrupt = BreakMagic(bytes, {14, 10});
  ASSERT_OK_AND_ASSIGN(auto stepping, StreamReader::Open(BufferSource(corrupt)));
  Status first;
  while (first.ok()) {
    auto next = stepping->Next();
    ASSERT_TRUE(!next.ok() || *next) << "the corrupt stream ended cleanly";
    if (!next.ok()) first = next.status();
  }
  ASSERT_OK_AND_ASSIGN(auto bad, StreamReader::Open(BufferSource(corrupt)));
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto got = bad->ReadAll(2);
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.status().message(), first.message());
  }
}

// read_all(validate="lazy") asks for the batches at kMinimal: the bad
// UTF-8 is handed out (buffer sizes are sound), for the caller to find
// with a full validation of the column later, naming the batch.
TEST(IpcReader, ReadAllAtAnotherLevelLeavesTheValuesToTheCaller) {
  BufferPtr bytes = BreakMagic(WriteMagicBatches<FileWriter>(6), {4});
  ASSERT_OK_AND_ASSIGN(auto file, FileReader::Open(BufferSource(bytes)));
  EXPECT_ERROR(kInvalid, "record batch 4", file->ReadAllRecordBatches(2));
  ASSERT_OK_AND_ASSIGN(auto batches, file->ReadAllRecordBatches(2, ValidationLevel::kMinimal));
  ASSERT_EQ(batches.size(), size_t{6});
  ASSERT_OK_AND_ASSIGN(auto table, Table::FromRecordBatches(MagicSchema(), batches));
  EXPECT_ERROR(kInvalid, "record batch 4: ",
               table->column(0)->Validate(ValidationLevel::kFull, 2, "record batch"));
  ASSERT_OK(table->column(0)->Validate(ValidationLevel::kDefault));
  // The reader's own level is untouched for the next read.
  EXPECT_ERROR(kInvalid, "record batch 4", file->ReadRecordBatch(4));

  BufferPtr stream_bytes = BreakMagic(WriteMagicBatches<StreamWriter>(6), {4});
  ASSERT_OK_AND_ASSIGN(auto stream, StreamReader::Open(BufferSource(stream_bytes)));
  ASSERT_OK_AND_ASSIGN(auto streamed, stream->ReadAll(2, ValidationLevel::kMinimal));
  ASSERT_EQ(streamed.size(), size_t{6});
  EXPECT_ERROR(kInvalid, "row 1",
               quiver::Validate(*streamed[4]->column(0), ValidationLevel::kFull));
  ASSERT_OK_AND_ASSIGN(auto eager, StreamReader::Open(BufferSource(stream_bytes)));
  EXPECT_ERROR(kInvalid, "", eager->ReadAll(2));
}

}  // namespace quiver::ipc

namespace quiver::ipc {

// The codec a batch's header declares: read alone for a file batch (nothing
// decompressed), and remembered for the batch a stream reader returned last.
TEST(IpcReader, BatchCompressionComesFromTheHeader) {
  std::vector<Compression> codecs = {Compression::kNone};
  if (HasCodec(Compression::kLz4Frame)) codecs.push_back(Compression::kLz4Frame);
  if (HasCodec(Compression::kZstd)) codecs.push_back(Compression::kZstd);
  for (Compression codec : codecs) {
    WriteOptions options;
    options.compression = codec;
    BufferPtr file = test::WriteFile({test::SampleBatch(), test::SampleBatch(3)}, options);
    ASSERT_OK_AND_ASSIGN(auto reader, FileReader::Open(BufferSource(file)));
    for (int i = 0; i < reader->num_record_batches(); ++i) {
      ASSERT_OK_AND_ASSIGN(Compression got, reader->RecordBatchCompression(i));
      EXPECT_EQ(got, codec);
    }
    EXPECT_ERROR(kIndexError, "record batch 2 is out of range for 2 batches",
                 reader->RecordBatchCompression(2));
    BufferPtr stream = test::WriteStream({test::SampleBatch()}, options);
    ASSERT_OK_AND_ASSIGN(auto streamed, StreamReader::Open(BufferSource(stream)));
    EXPECT_EQ(streamed->last_compression(), Compression::kNone);  // nothing read yet
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, streamed->Next());
    ASSERT_TRUE(batch);
    EXPECT_EQ(streamed->last_compression(), codec);
  }
}

}  // namespace quiver::ipc
