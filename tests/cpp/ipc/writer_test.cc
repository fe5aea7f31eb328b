// IPC stream and file writers: a batch of every kind of column round trips
// with its values, types and metadata; a missing sink or schema, batches
// off the schema, closed writers and a second dictionary in a file are
// errors naming what is wrong.
#include "quiver/ipc.h"

#include <unistd.h>
#include <cstdio>
#include <cstring>
#include <string>

#include "ipc_test_util.h"
#include "no_threads.h"
#include "quiver/fixed_shape_tensor.h"
#include "quiver/variable_shape_tensor.h"
#include "sample_arrays.h"

namespace quiver::ipc {

using test::SampleBatch;
using test::WriteStream;

using test::Bitmap;
using test::Primitive;
using test::Utf8;

TEST(Ipc, StreamRoundTripKeepsValuesTypesAndMetadata) {
  RecordBatchPtr batch = SampleBatch();
  for (Compression codec : {Compression::kNone, Compression::kLz4Frame, Compression::kZstd}) {
    WriteOptions options;
    options.compression = codec;
    BufferPtr bytes = WriteStream({batch, batch}, options);
    ASSERT_OK_AND_ASSIGN(auto reader, StreamReader::Open(BufferSource(bytes)));
    EXPECT_TRUE(reader->schema()->Equals(*batch->schema()));
    for (int k = 0; k < 2; ++k) {
      ASSERT_OK_AND_ASSIGN(RecordBatchPtr read, reader->Next());
      ASSERT_TRUE(read);
      EXPECT_TRUE(read->Equals(*batch)) << static_cast<int>(codec);
    }
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr end, reader->Next());
    EXPECT_FALSE(end);
  }
}

namespace {

SchemaPtr OneColumn(TypePtr type) {
  auto schema = std::make_shared<Schema>();
  schema->fields = {Field{"x", std::move(type)}};
  return schema;
}

RecordBatchPtr Ints(const SchemaPtr& schema, std::vector<int32_t> values) {
  const auto rows = static_cast<int64_t>(values.size());
  return *RecordBatch::Make(schema, rows, {Primitive<int32_t>(int32(), values)});
}

}  // namespace

TEST(IpcWriter, OpenNeedsASinkAndASchema) {
  EXPECT_EQ(test::StatusOf(StreamWriter::Open(nullptr, OneColumn(int32()))).message(),
            "IPC writer has no sink");
  EXPECT_EQ(test::StatusOf(StreamWriter::Open(std::make_shared<BufferSink>(), nullptr)).message(),
            "IPC writer has no schema");
  EXPECT_EQ(test::StatusOf(FileWriter::Open(nullptr, OneColumn(int32()))).message(),
            "IPC writer has no sink");
  WriteOptions options;
  options.compression = Compression::kZstd;
  options.compression_level = 99;
  auto sink = std::make_shared<BufferSink>();
  EXPECT_ERROR(kInvalid, "compression level 99 is outside ZSTD's range",
               StreamWriter::Open(sink, OneColumn(int32()), options));
  EXPECT_EQ(sink->position(), 0);  // refused before anything was written
}

TEST(IpcWriter, BatchesMustMatchTheSchema) {
  SchemaPtr schema = OneColumn(int32());
  auto sink = std::make_shared<BufferSink>();
  ASSERT_OK_AND_ASSIGN(auto writer, StreamWriter::Open(sink, schema));
  auto two = std::make_shared<Schema>();
  two->fields = {Field{"x", int32()}, Field{"y", int32()}};
  auto wide = *RecordBatch::Make(
      two, 1, {Primitive<int32_t>(int32(), {1}), Primitive<int32_t>(int32(), {2})});
  Status st = writer->Write(*wide);
  EXPECT_EQ(st.code(), StatusCode::kTypeError);
  EXPECT_EQ(st.message(), "the batch has 2 columns, the stream's schema 1");
  SchemaPtr floats = OneColumn(float32());
  auto other = *RecordBatch::Make(floats, 1, {Primitive<float>(float32(), {1.5f})});
  EXPECT_EQ(writer->Write(*other).message(),
            "column 0 (x) is float32, the stream's schema says int32");
  // A refused batch leaves the stream usable.
  ASSERT_OK(writer->Write(*Ints(schema, {7, 8})));
  ASSERT_OK(writer->Close());
  EXPECT_EQ(writer->Write(*Ints(schema, {9})).message(), "cannot write to a closed IPC writer");
  ASSERT_OK_AND_ASSIGN(auto reader, StreamReader::Open(BufferSource(*sink->Finish())));
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr read, reader->Next());
  ASSERT_TRUE(read);
  EXPECT_TRUE(read->Equals(*Ints(schema, {7, 8})));
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr end, reader->Next());
  EXPECT_FALSE(end);
}

TEST(IpcWriter, AFileHoldsOneDictionaryPerField) {
  ASSERT_OK_AND_ASSIGN(TypePtr dict_type, dictionary(int8(), utf8()));
  SchemaPtr schema = OneColumn(dict_type);
  auto batch_over = [&](std::vector<std::optional<std::string>> words) {
    auto data = std::make_shared<ArrayData>(*Primitive<int8_t>(dict_type, {0, 1}));
    data->dictionary = Utf8(words);
    return *RecordBatch::Make(schema, 2, {data});
  };
  auto sink = std::make_shared<BufferSink>();
  ASSERT_OK_AND_ASSIGN(auto writer, FileWriter::Open(sink, schema));
  ASSERT_OK(writer->Write(*batch_over({"a", "b"})));
  ASSERT_OK(writer->Write(*batch_over({"a", "b"})));  // an equal dictionary is no new one
  EXPECT_EQ(writer->Write(*batch_over({"c", "d"})).message(),
            "batch 2 brings a new dictionary for id 0; the IPC file format holds one dictionary "
            "per field "
            "(write a stream, or give every batch the same dictionary)");
  ASSERT_OK(writer->Close());
  ASSERT_OK_AND_ASSIGN(auto reader, FileReader::Open(BufferSource(*sink->Finish())));
  EXPECT_EQ(reader->num_record_batches(), 2);
  // A stream may replace it.
  auto stream_sink = std::make_shared<BufferSink>();
  ASSERT_OK_AND_ASSIGN(auto stream, StreamWriter::Open(stream_sink, schema));
  ASSERT_OK(stream->Write(*batch_over({"a", "b"})));
  ASSERT_OK(stream->Write(*batch_over({"c", "d"})));
  ASSERT_OK(stream->Close());
  ASSERT_OK_AND_ASSIGN(auto stream_reader,
                       StreamReader::Open(BufferSource(*stream_sink->Finish())));
  ASSERT_OK(stream_reader->Next().status());
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr second, stream_reader->Next());
  EXPECT_TRUE(second->Equals(*batch_over({"c", "d"})));
}

TEST(Ipc, NewTypesRoundTripInFilesAndStreamsWholeAndSliced) {
  for (const auto& [name, data] : test::AllNewTypeSamples()) {
    SCOPED_TRACE(name);
    for (int64_t start : {0, 1}) {
      ASSERT_OK_AND_ASSIGN(ArrayDataPtr part, Slice(data, start, data->length - 2 * start));
      auto schema = std::make_shared<Schema>();
      schema->fields = {Field{name, data->type}};
      ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, RecordBatch::Make(schema, part->length, {part}));
      for (Compression codec : {Compression::kNone, Compression::kZstd}) {
        WriteOptions options;
        options.compression = codec;
        ASSERT_OK_AND_ASSIGN(auto reader,
                             StreamReader::Open(BufferSource(WriteStream({batch}, options))));
        EXPECT_TRUE(reader->schema()->Equals(*schema));
        ASSERT_OK_AND_ASSIGN(RecordBatchPtr read, reader->Next());
        ASSERT_TRUE(read);
        EXPECT_TRUE(read->Equals(*batch));
        ASSERT_OK_AND_ASSIGN(auto file,
                             FileReader::Open(BufferSource(test::WriteFile({batch}, options))));
        ASSERT_OK_AND_ASSIGN(RecordBatchPtr from_file, file->ReadRecordBatch(0));
        EXPECT_TRUE(from_file->Equals(*batch));
        EXPECT_EQ(from_file->column(0)->offset, 0);
      }
    }
  }
}

TEST(Ipc, RunEndsOfASliceAreRebasedOnWrite) {
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr part, Slice(test::RunEndSample(), 1, 3));  // [10, null, 30]
  auto schema = std::make_shared<Schema>();
  schema->fields = {Field{"r", part->type}};
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, RecordBatch::Make(schema, 3, {part}));
  ASSERT_OK_AND_ASSIGN(auto reader, StreamReader::Open(BufferSource(WriteStream({batch}))));
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr read, reader->Next());
  const ArrayData& runs = *read->column(0)->children[0];
  ASSERT_EQ(runs.length, 3);
  const auto* ends = reinterpret_cast<const int32_t*>(runs.buffers[1]->data());
  EXPECT_EQ(ends[0], 1);
  EXPECT_EQ(ends[1], 2);
  EXPECT_EQ(ends[2], 3);
}

// A writer writes every batch it is given, zero rows included (as Arrow
// C++ does): rows 0-2, none (a slice at row 3), then the rest.
TEST(IpcWriter, ZeroRowBatchesAreWritten) {
  std::vector<std::pair<std::string, ArrayDataPtr>> samples = test::AllNewTypeSamples();
  samples.emplace_back("null", test::Node(null(), 5, {}));
  samples.emplace_back("int32", Primitive<int32_t>(int32(), {1, 2, 3, 4, 5}));
  for (const auto& [name, data] : samples) {
    SCOPED_TRACE(name);
    auto schema = std::make_shared<Schema>();
    schema->fields = {Field{name, data->type}};
    std::vector<RecordBatchPtr> batches;
    for (auto [start, rows] : {std::pair<int64_t, int64_t>{0, 3}, {3, 0}, {3, data->length - 3}}) {
      ASSERT_OK_AND_ASSIGN(ArrayDataPtr part, Slice(data, start, rows));
      ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, RecordBatch::Make(schema, rows, {part}));
      batches.push_back(std::move(batch));
    }
    ASSERT_OK_AND_ASSIGN(auto stream, StreamReader::Open(BufferSource(WriteStream(batches))));
    for (const RecordBatchPtr& batch : batches) {
      ASSERT_OK_AND_ASSIGN(RecordBatchPtr read, stream->Next());
      ASSERT_TRUE(read);
      EXPECT_TRUE(read->Equals(*batch));
    }
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr end, stream->Next());
    EXPECT_FALSE(end);
    ASSERT_OK_AND_ASSIGN(auto file, FileReader::Open(BufferSource(test::WriteFile(batches))));
    ASSERT_EQ(file->num_record_batches(), 3);
    for (int i = 0; i < 3; ++i) {
      ASSERT_OK_AND_ASSIGN(RecordBatchPtr read, file->ReadRecordBatch(i));
      EXPECT_EQ(read->num_rows(), batches[static_cast<size_t>(i)]->num_rows());
      EXPECT_TRUE(read->Equals(*batches[static_cast<size_t>(i)]));
    }
  }
}

}  // namespace quiver::ipc
