// IPC stream and file writers: a batch of every kind of column round trips
// with its values, types and metadata; a missing sink or schema, batches
// off the schema, closed writers and a second dictionary in a file are
// errors naming what is wrong. Batches are cut by max_batch_rows and
// max_batch_bytes, and a file's footer lists the rows of its batches.
#include "quiver/ipc.h"

#include <unistd.h>
#include <cstdio>
#include <cstring>
#include <string>

#include "ipc_test_util.h"
#include "no_threads.h"
#include "quiver/build_info.h"
#include "quiver/fixed_shape_tensor.h"
#include "quiver/ipc/block_hint.h"
#include "quiver/ipc/footer_rows.h"
#include "quiver/ipc/metadata.h"
#include "quiver/variable_shape_tensor.h"
#include "sample_arrays.h"
#include "variable_shape_test_util.h"

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

// --- Cutting batches (WriteOptions::max_batch_rows / max_batch_bytes) -------

namespace {

using Rows = std::vector<int64_t>;

// A file as a reader sees it: its batches, their body lengths (from the
// headers) and the row counts its footer lists.
struct ReadBack {
  std::vector<RecordBatchPtr> batches;
  Rows rows;
  Rows bodies;
  std::optional<Rows> footer;
};

ReadBack ReadFileBack(const BufferPtr& bytes) {
  ReadBack out;
  auto reader = FileReader::Open(BufferSource(bytes));
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  if (!reader.ok()) return out;
  out.footer = (*reader)->FooterRecordBatchRows();
  for (int i = 0; i < (*reader)->num_record_batches(); ++i) {
    auto batch = (*reader)->ReadRecordBatch(i);
    auto layout = (*reader)->RecordBatchLayout(i);
    EXPECT_TRUE(batch.ok() && layout.ok()) << batch.status().ToString();
    if (!batch.ok() || !layout.ok()) return out;
    out.rows.push_back((*batch)->num_rows());
    out.bodies.push_back(layout->body_length);
    out.batches.push_back(*batch);
  }
  return out;
}

std::vector<RecordBatchPtr> ReadStreamBack(const BufferPtr& bytes) {
  std::vector<RecordBatchPtr> out;
  auto reader = StreamReader::Open(BufferSource(bytes));
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  if (!reader.ok()) return out;
  while (true) {
    auto batch = (*reader)->Next();
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    if (!batch.ok() || !*batch) return out;
    out.push_back(*batch);
  }
}

// `pieces` are `input`, cut in order: each equals the slice it covers.
void ExpectPiecesOf(const RecordBatch& input, const std::vector<RecordBatchPtr>& pieces) {
  int64_t offset = 0;
  for (size_t i = 0; i < pieces.size(); ++i) {
    SCOPED_TRACE("piece " + std::to_string(i));
    ASSERT_LE(offset + pieces[i]->num_rows(), input.num_rows());
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr expected, input.Slice(offset, pieces[i]->num_rows()));
    EXPECT_TRUE(pieces[i]->Equals(*expected));
    offset += pieces[i]->num_rows();
  }
  EXPECT_EQ(offset, input.num_rows());
}

WriteOptions Limits(int64_t rows, int64_t bytes, Compression codec = Compression::kNone) {
  WriteOptions options;
  options.max_batch_rows = rows;
  options.max_batch_bytes = bytes;
  options.compression = codec;
  return options;
}

// Ragged float32 rows of 1-D shapes `sizes` (values 0, 1, 2, ... across rows).
RecordBatchPtr RaggedBatch(const std::vector<int32_t>& sizes) {
  std::vector<int32_t> offsets = {0};
  for (int32_t size : sizes) offsets.push_back(offsets.back() + size);
  std::vector<float> values(static_cast<size_t>(offsets.back()));
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i);
  ArrayDataPtr column = test::RawStorage(offsets, values, sizes, 1);
  auto schema = std::make_shared<Schema>();
  schema->fields = {Field{"t", column->type}, Field{"id", int32()}};
  std::vector<int32_t> ids(sizes.size());
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int32_t>(i);
  return *RecordBatch::Make(schema, static_cast<int64_t>(sizes.size()),
                            {column, Primitive<int32_t>(int32(), ids)});
}

}  // namespace

TEST(IpcWriterCutting, ByRowsInFilesAndStreams) {
  RecordBatchPtr batch = SampleBatch(10);
  const WriteOptions options = Limits(4, 0);
  ReadBack file = ReadFileBack(test::WriteFile({batch, batch}, options));
  EXPECT_EQ(file.rows, (Rows{4, 4, 2, 4, 4, 2}));
  EXPECT_EQ(file.footer, file.rows);
  std::vector<RecordBatchPtr> first(file.batches.begin(), file.batches.begin() + 3);
  std::vector<RecordBatchPtr> second(file.batches.begin() + 3, file.batches.end());
  ExpectPiecesOf(*batch, first);
  ExpectPiecesOf(*batch, second);
  std::vector<RecordBatchPtr> stream = ReadStreamBack(WriteStream({batch}, options));
  ASSERT_EQ(stream.size(), 3u);
  ExpectPiecesOf(*batch, stream);
  // A limit at or above the batch's rows leaves it whole.
  EXPECT_EQ(ReadFileBack(test::WriteFile({batch}, Limits(10, 0))).rows, Rows{10});
  EXPECT_EQ(ReadFileBack(test::WriteFile({batch}, Limits(1, 0))).rows, Rows(10, 1));
}

TEST(IpcWriterCutting, ByBytesEveryBodyWithinTheLimit) {
  RecordBatchPtr batch = SampleBatch(200);
  ASSERT_OK_AND_ASSIGN(BodySize whole, RecordBatchBodySize(*batch));
  for (int64_t limit : {whole.bytes / 2, whole.bytes / 7, int64_t{1500}, int64_t{700}}) {
    SCOPED_TRACE("limit " + std::to_string(limit));
    ReadBack file = ReadFileBack(test::WriteFile({batch}, Limits(0, limit)));
    EXPECT_GT(file.batches.size(), 1u);
    for (int64_t body : file.bodies) EXPECT_LE(body, limit);
    ExpectPiecesOf(*batch, file.batches);
    EXPECT_EQ(file.footer, file.rows);
    // The measure is what the encoder writes: each body's length exactly.
    for (size_t i = 0; i < file.batches.size(); ++i) {
      ASSERT_OK_AND_ASSIGN(BodySize measured, RecordBatchBodySize(*file.batches[i]));
      EXPECT_EQ(measured.bytes, file.bodies[i]);
    }
    ExpectPiecesOf(*batch, ReadStreamBack(WriteStream({batch}, Limits(0, limit))));
  }
  // Both limits: the tighter one cuts.
  ReadBack both = ReadFileBack(test::WriteFile({batch}, Limits(3, whole.bytes / 2)));
  for (int64_t rows : both.rows) EXPECT_LE(rows, 3);
  EXPECT_EQ(both.rows.size(), 67u);
  // A limit the batch fits leaves it whole.
  EXPECT_EQ(ReadFileBack(test::WriteFile({batch}, Limits(0, whole.bytes))).rows, Rows{200});
}

// Rows of very different sizes: the average row puts too many large rows
// in some pieces; those are halved until they fit.
TEST(IpcWriterCutting, RaggedTensorRowsAreHalvedUntilTheyFit) {
  std::vector<int32_t> sizes;
  // Large rows side by side, where pieces by the average row (about 16
  // rows) hold several of them.
  for (int i = 0; i < 64; ++i)
    sizes.push_back(i == 3 || i == 4 || i == 5 || i == 40 ? 2000 : (i % 5) + 1);
  RecordBatchPtr batch = RaggedBatch(sizes);
  const int64_t limit = 9000;  // one large row (8000 bytes of values) and some small ones
  for (Compression codec : {Compression::kNone, Compression::kZstd}) {
    ReadBack file = ReadFileBack(test::WriteFile({batch}, Limits(0, limit, codec)));
    ExpectPiecesOf(*batch, file.batches);
    for (const RecordBatchPtr& piece : file.batches) {  // measured uncompressed
      ASSERT_OK_AND_ASSIGN(BodySize size, RecordBatchBodySize(*piece));
      EXPECT_LE(size.bytes, limit);
    }
    int64_t with_large = 0;
    int64_t offset = 0;
    for (int64_t rows : file.rows) {  // no two large rows share a piece
      int64_t large = 0;
      for (int64_t r = offset; r < offset + rows; ++r) large += sizes[static_cast<size_t>(r)] > 100;
      EXPECT_LE(large, 1);
      with_large += large;
      offset += rows;
    }
    EXPECT_EQ(with_large, 4);
    EXPECT_EQ(file.footer, file.rows);
  }
}

// A row larger than max_batch_bytes is written alone, over the limit;
// the rows around it are cut as usual.
TEST(IpcWriterCutting, AnOversizedRowIsWrittenAlone) {
  std::vector<int32_t> sizes(100, 2);
  sizes[37] = 4096;  // 16 KiB of values; by the average row, pieces of about 9 rows
  RecordBatchPtr batch = RaggedBatch(sizes);
  const int64_t limit = 2048;
  ReadBack file = ReadFileBack(test::WriteFile({batch}, Limits(0, limit)));
  ExpectPiecesOf(*batch, file.batches);
  int64_t offset = 0;
  for (size_t i = 0; i < file.rows.size(); ++i) {
    const bool holds_it = offset <= 37 && 37 < offset + file.rows[i];
    if (holds_it) {
      EXPECT_EQ(file.rows[i], 1);
      EXPECT_GT(file.bodies[i], limit);
    } else {
      EXPECT_LE(file.bodies[i], limit);
    }
    offset += file.rows[i];
  }
  // A limit below any row's size writes one row per batch.
  EXPECT_EQ(ReadFileBack(test::WriteFile({batch}, Limits(0, 1))).rows, Rows(100, 1));
}

// Compression does not move the cuts (they are made on the uncompressed
// body), and what is read back is what was written.
TEST(IpcWriterCutting, CompressedFilesAreCutAsUncompressedOnes) {
  RecordBatchPtr batch = SampleBatch(300);
  const WriteOptions plain = Limits(50, 2000);
  const ReadBack expected = ReadFileBack(test::WriteFile({batch}, plain));
  ASSERT_GT(expected.rows.size(), 6u);
  for (Compression codec : {Compression::kLz4Frame, Compression::kZstd}) {
    SCOPED_TRACE(static_cast<int>(codec));
    const WriteOptions options = Limits(50, 2000, codec);
    BufferPtr bytes = test::WriteFile({batch}, options);
    ReadBack file = ReadFileBack(bytes);
    EXPECT_EQ(file.rows, expected.rows);
    EXPECT_EQ(file.footer, file.rows);
    ExpectPiecesOf(*batch, file.batches);
    ASSERT_OK_AND_ASSIGN(auto reader, FileReader::Open(BufferSource(bytes)));
    for (int i = 0; i < reader->num_record_batches(); ++i) {
      ASSERT_OK_AND_ASSIGN(Compression written, reader->RecordBatchCompression(i));
      EXPECT_EQ(written, codec);
    }
    ExpectPiecesOf(*batch, ReadStreamBack(WriteStream({batch}, options)));
  }
}

TEST(IpcWriterCutting, NegativeLimitsAreRefusedWhenTheWriterOpens) {
  auto sink = std::make_shared<BufferSink>();
  EXPECT_ERROR(kInvalid, "WriteOptions::max_batch_rows is -1; it must be 0 (no limit) or more",
               FileWriter::Open(sink, test::Int32Schema(), Limits(-1, 0)));
  EXPECT_ERROR(kInvalid, "WriteOptions::max_batch_bytes is -5; it must be 0 (no limit) or more",
               StreamWriter::Open(sink, test::Int32Schema(), Limits(0, -5)));
  EXPECT_EQ(sink->position(), 0);  // nothing written, not even the file's magic
}

// A zero-row batch stays one zero-row batch under either limit.
TEST(IpcWriterCutting, AZeroRowBatchIsStillWrittenOnce) {
  RecordBatchPtr batch = SampleBatch(0);
  ReadBack file = ReadFileBack(test::WriteFile({batch, SampleBatch(3)}, Limits(2, 64)));
  EXPECT_EQ(file.rows, (Rows{0, 1, 1, 1}));
  EXPECT_EQ(file.footer, file.rows);
  ASSERT_EQ(ReadStreamBack(WriteStream({batch}, Limits(1, 1))).size(), 1u);
}

// A dictionary-encoded column cut into pieces: the dictionary is written
// once, before the first piece.
TEST(IpcWriterCutting, DictionariesAreWrittenOnce) {
  ASSERT_OK_AND_ASSIGN(TypePtr dict_type, dictionary(int8(), utf8()));
  auto data = std::make_shared<ArrayData>(*Primitive<int8_t>(dict_type, {0, 1, 1, 0, 1}));
  data->dictionary = Utf8({"a", "b"});
  RecordBatchPtr batch = *RecordBatch::Make(OneColumn(dict_type), 5, {data});
  BufferPtr bytes = WriteStream({batch, batch}, Limits(2, 0));
  auto source = BufferSource(bytes);
  std::unique_ptr<InputStream> stream = StreamOver(*source, 0);
  int dictionaries = 0, batches = 0;
  while (true) {
    ASSERT_OK_AND_ASSIGN(std::optional<Message> message, ReadMessage(*stream));
    if (!message) break;
    dictionaries += message->header->header_type() == fb::MessageHeader::DictionaryBatch;
    batches += message->header->header_type() == fb::MessageHeader::RecordBatch;
  }
  EXPECT_EQ(dictionaries, 1);
  EXPECT_EQ(batches, 6);
  ExpectPiecesOf(*batch, ReadFileBack(test::WriteFile({batch}, Limits(2, 0))).batches);
}

// --- The LZ4 block size in each record batch message ------------------------

// The value of the block size key each record batch message of `bytes`
// (a stream) carries ("" where it has none).
std::vector<std::string> BlockHints(const BufferPtr& bytes) {
  auto source = BufferSource(bytes);
  std::unique_ptr<InputStream> stream = StreamOver(*source, 0);
  std::vector<std::string> out;
  while (true) {
    Result<std::optional<Message>> message = ReadMessage(*stream);
    EXPECT_TRUE(message.ok());
    if (!message.ok() || !*message) break;
    if ((*message)->header->header_type() != fb::MessageHeader::RecordBatch) continue;
    const KeyValueMetadata metadata = ReadKeyValues((*message)->header->custom_metadata());
    const std::string* value = SoleValue(metadata, kLz4BlockBytesKey);
    out.push_back(value ? *value : "");
  }
  return out;
}

// Blocks of one size are declared, so that a reader of a few rows places
// them without counting their sequences; other files say nothing.
TEST(IpcWriterBlockHint, Lz4BlocksOfOneSizeAreDeclaredInEachRecordBatch) {
  if (!HasCodec(Compression::kLz4Frame)) GTEST_SKIP() << "this build has no LZ4";
  const RecordBatchPtr batch = SampleBatch(3000);
  WriteOptions options;
  options.compression = Compression::kLz4Frame;
  options.compression_block_bytes = 4096;
  options.max_batch_rows = 1000;
  EXPECT_EQ(BlockHints(WriteStream({batch}, options)),
            (std::vector<std::string>{"4096", "4096", "4096"}));
  options.compression_block_bytes = 0;
  EXPECT_EQ(BlockHints(WriteStream({batch}, options)), (std::vector<std::string>{"", "", ""}));
  if (HasCodec(Compression::kZstd)) {
    options.compression = Compression::kZstd;  // ZSTD frames carry their own sizes
    options.compression_block_bytes = 4096;
    EXPECT_EQ(BlockHints(WriteStream({batch}, options)), (std::vector<std::string>{"", "", ""}));
  }
  // Any Arrow reader reads the file as before.
  options.compression = Compression::kLz4Frame;
  ExpectPiecesOf(*batch, ReadFileBack(test::WriteFile({batch}, options)).batches);
}

// --- Row counts in the file footer ---------------------------------------------

TEST(IpcFileFooter, ListsTheRowsOfEveryBatch) {
  EXPECT_EQ(
      ReadFileBack(test::WriteFile({SampleBatch(3), SampleBatch(0), SampleBatch(1024)})).footer,
      (Rows{3, 0, 1024}));
  // A file of no batches lists none.
  auto sink = std::make_shared<BufferSink>();
  ASSERT_OK_AND_ASSIGN(auto writer, FileWriter::Open(sink, test::Int32Schema()));
  ASSERT_OK(writer->Close());
  ASSERT_OK_AND_ASSIGN(auto reader, FileReader::Open(BufferSource(*sink->Finish())));
  EXPECT_EQ(reader->FooterRecordBatchRows(), Rows{});
}

namespace {

// `bytes` with the first `from` replaced by `to` (of the same length).
BufferPtr Patched(const BufferPtr& bytes, const std::string& from, const std::string& to) {
  std::string text(reinterpret_cast<const char*>(bytes->data()),
                   static_cast<size_t>(bytes->size()));
  const size_t at = text.rfind(from);  // the footer is at the end
  EXPECT_NE(at, std::string::npos);
  text.replace(at, from.size(), to);
  return test::BufferOf(std::vector<uint8_t>(text.begin(), text.end()));
}

}  // namespace

// The footer's list is a hint: a malformed one is none (the file reads as
// before), and a well-formed wrong one is not checked against the headers
// (readers check each batch's rows as they read it).
TEST(IpcFileFooter, AMalformedListIsNoneAndTheFileStillReads) {
  BufferPtr bytes = test::WriteFile({SampleBatch(3), SampleBatch(2)});
  ASSERT_EQ(ReadFileBack(bytes).footer, (Rows{3, 2}));
  const std::string key(kRecordBatchRowsKey);
  for (const std::string& to : {std::string("3,x"), std::string("3;2"), std::string("-32")}) {
    ReadBack file = ReadFileBack(Patched(bytes, "3,2", to));
    EXPECT_EQ(file.footer, std::nullopt) << to;
    EXPECT_EQ(file.rows, (Rows{3, 2}));
  }
  ReadBack other_key = ReadFileBack(Patched(bytes, key, std::string(key.size(), 'q')));
  EXPECT_EQ(other_key.footer, std::nullopt);
  ReadBack wrong = ReadFileBack(Patched(bytes, "3,2", "3,9"));
  EXPECT_EQ(wrong.footer, (Rows{3, 9}));
  EXPECT_EQ(wrong.rows, (Rows{3, 2}));  // the headers say what the batches hold
}

}  // namespace quiver::ipc
