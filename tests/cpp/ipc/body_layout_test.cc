// Record batch layouts (FileReader::RecordBatchLayout, StreamReader::
// NextLayout) and single body buffers read alone (ReadBodyBuffer,
// ReadBodyBufferSize): the node tree of nested, view and dictionary
// columns, LZ4 and ZSTD buffers decompressed one at a time while a corrupt
// neighbour is never touched, the errors for bad indexes and bodies, and
// the validity buffer of unions in messages before metadata V5.
#include "quiver/ipc/body_layout.h"

#include <cstring>
#include <string>
#include <vector>

#include "counting_source.h"
#include "ipc_test_util.h"
#include "quiver/build_info.h"
#include "quiver/ipc/codec.h"
#include "sample_arrays.h"

namespace quiver::ipc {
namespace {

using test::Bitmap;
using test::Primitive;
using test::Utf8;

// id (int64), images (fixed_shape_tensor), label (utf8), then
// pair: struct<n: int64, names: list<utf8>>, view: utf8_view (one
// variadic buffer), code: dictionary<int32, utf8>, and big:
// fixed_size_list<int64>[1024] of zeros (32 KiB that compress well).
RecordBatchPtr LayoutBatch() {
  RecordBatchPtr sample = test::SampleBatch(4);
  auto names_offsets = test::BufferOf(std::vector<int32_t>{0, 1, 1, 3, 4});
  auto names = std::make_shared<ArrayData>();
  names->type = list(Field{"item", utf8()});
  names->length = 4;
  names->buffers = {nullptr, names_offsets};
  names->children = {Utf8({"a", "b", "c", "d"})};
  auto pair = std::make_shared<ArrayData>();
  pair->type = struct_({Field{"n", int64()}, Field{"names", names->type}});
  pair->length = 4;
  pair->null_count = 1;
  pair->buffers = {Bitmap({true, false, true, true})};
  pair->children = {Primitive<int64_t>(int64(), {1, 2, 3, 4}), names};
  // Two long values: one variadic buffer.
  ArrayDataPtr view = test::Views(
      {"short", "a value longer than twelve", std::nullopt, "another value longer than twelve"});
  ArrayDataPtr code = test::DictionaryOf({0, 1, std::nullopt, 0}, Utf8({"x", "y"}));
  std::vector<int64_t> zeros(4 * 1024, 0);
  auto big = std::make_shared<ArrayData>();
  big->type = *fixed_size_list(Field{"item", int64()}, 1024);
  big->length = 4;
  big->buffers = {nullptr};
  big->children = {Primitive<int64_t>(int64(), zeros)};
  auto schema = std::make_shared<Schema>(*sample->schema());
  schema->fields.push_back(Field{"pair", pair->type});
  schema->fields.push_back(Field{"view", view->type});
  schema->fields.push_back(Field{"code", code->type});
  schema->fields.push_back(Field{"big", big->type});
  std::vector<ArrayDataPtr> columns = sample->columns();
  columns.insert(columns.end(), {pair, view, code, big});
  return *RecordBatch::Make(schema, 4, columns);
}

// Every buffer index of `node` and its children, in pre-order.
void CollectBuffers(const FieldNodeLayout& node, std::vector<int64_t>* out) {
  out->insert(out->end(), node.buffers.begin(), node.buffers.end());
  for (const FieldNodeLayout& child : node.children) CollectBuffers(child, out);
}

// The offset of the first occurrence of `needle` in `bytes` (-1: none).
int64_t Find(const BufferPtr& bytes, const std::vector<uint8_t>& needle) {
  for (int64_t at = 0; at + static_cast<int64_t>(needle.size()) <= bytes->size(); ++at) {
    if (std::memcmp(bytes->data() + at, needle.data(), needle.size()) == 0) return at;
  }
  return -1;
}

TEST(BodyLayout, NodeTreeOfNestedViewAndDictionaryColumns) {
  RecordBatchPtr batch = LayoutBatch();
  BufferPtr bytes = test::WriteFile({batch});
  ASSERT_OK_AND_ASSIGN(auto reader, FileReader::Open(BufferSource(bytes)));
  ASSERT_OK_AND_ASSIGN(BatchLayout layout, reader->RecordBatchLayout(0));
  EXPECT_EQ(layout.num_rows, 4);
  EXPECT_EQ(layout.compression, Compression::kNone);
  ASSERT_EQ(layout.columns.size(), 7u);
  for (size_t i = 0; i < layout.columns.size(); ++i) {
    EXPECT_EQ(layout.columns[i].field.name, batch->schema()->fields[i].name);
    EXPECT_EQ(layout.columns[i].length, 4);
  }
  // images: fixed_size_list (validity) + float child (validity, values).
  const FieldNodeLayout& images = layout.columns[1];
  EXPECT_EQ(images.null_count, 1);  // row 1 (SampleBatch: i % 3 == 1)
  ASSERT_EQ(images.children.size(), 1u);
  EXPECT_EQ(images.children[0].length, 24);
  EXPECT_EQ(images.buffers.size(), 1u);
  EXPECT_EQ(images.children[0].buffers.size(), 2u);
  // pair: struct validity, n (validity, values), names (validity, offsets)
  // and its utf8 child (validity, offsets, data).
  const FieldNodeLayout& pair = layout.columns[3];
  EXPECT_EQ(pair.null_count, 1);
  ASSERT_EQ(pair.children.size(), 2u);
  EXPECT_EQ(pair.children[1].field.name, "names");
  ASSERT_EQ(pair.children[1].children.size(), 1u);
  EXPECT_EQ(pair.children[1].children[0].length, 4);
  EXPECT_EQ(pair.children[1].children[0].buffers.size(), 3u);
  // view: validity, views, then its variadic data buffer.
  EXPECT_EQ(layout.columns[4].buffers.size(), 3u);
  EXPECT_EQ(layout.columns[4].dictionary_id, -1);
  // code: validity and indices; its values live in a dictionary batch.
  EXPECT_EQ(layout.columns[5].buffers.size(), 2u);
  EXPECT_EQ(layout.columns[5].dictionary_id, 0);
  EXPECT_TRUE(layout.columns[5].children.empty());
  // Every buffer once, in pre-order; every span inside the body.
  std::vector<int64_t> order;
  for (const FieldNodeLayout& column : layout.columns) CollectBuffers(column, &order);
  ASSERT_EQ(order.size(), layout.buffers.size());
  for (size_t k = 0; k < order.size(); ++k) EXPECT_EQ(order[k], static_cast<int64_t>(k));
  for (const BodyBufferSpan& span : layout.buffers) {
    EXPECT_GE(span.offset, 0);
    EXPECT_LE(span.offset + span.length, layout.body_length);
  }
  // A raw buffer is a view of the file's bytes, holding what the decoded
  // batch holds.
  const int64_t ids = layout.columns[0].buffers[1];
  ASSERT_OK_AND_ASSIGN(BufferPtr id_values, reader->ReadBodyBuffer(0, ids));
  EXPECT_GE(id_values->data(), bytes->data());
  EXPECT_LT(id_values->data(), bytes->data() + bytes->size());
  ASSERT_EQ(id_values->size(), 4 * 8);
  EXPECT_EQ(std::memcmp(id_values->data(), batch->column(0)->buffers[1]->data(), 32), 0);
  ASSERT_OK_AND_ASSIGN(BodyBufferSize size, reader->ReadBodyBufferSize(0, ids));
  EXPECT_EQ(size.stored, 32);
  EXPECT_EQ(size.decoded, 32);
  EXPECT_FALSE(size.compressed);
}

TEST(BodyLayout, StreamLayoutsMatchTheFileAndMixWithNext) {
  RecordBatchPtr batch = LayoutBatch();
  BufferPtr file = test::WriteFile({batch, batch});
  BufferPtr stream = test::WriteStream({batch, batch, batch});
  ASSERT_OK_AND_ASSIGN(auto file_reader, FileReader::Open(BufferSource(file)));
  ASSERT_OK_AND_ASSIGN(BatchLayout expected, file_reader->RecordBatchLayout(0));
  ASSERT_OK_AND_ASSIGN(auto reader, StreamReader::Open(BufferSource(stream)));
  EXPECT_ERROR(kInvalid, "there is none", reader->ReadBodyBuffer(0));
  // The dictionary batch before the first record batch is decoded on the way.
  ASSERT_OK_AND_ASSIGN(std::optional<BatchLayout> first, reader->NextLayout());
  ASSERT_TRUE(first.has_value());
  ASSERT_EQ(first->buffers.size(), expected.buffers.size());
  for (size_t k = 0; k < expected.buffers.size(); ++k) {
    EXPECT_EQ(first->buffers[k].offset, expected.buffers[k].offset);
    EXPECT_EQ(first->buffers[k].length, expected.buffers[k].length);
  }
  const int64_t ids = first->columns[0].buffers[1];
  ASSERT_OK_AND_ASSIGN(BufferPtr id_values, reader->ReadBodyBuffer(ids));
  EXPECT_EQ(std::memcmp(id_values->data(), batch->column(0)->buffers[1]->data(), 32), 0);
  EXPECT_ERROR(kIndexError, "buffer 99 is out of range for the ", reader->ReadBodyBuffer(99));
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr second, reader->Next());
  ASSERT_NE(second, nullptr);
  EXPECT_TRUE(second->Equals(*batch));
  EXPECT_ERROR(kInvalid, "there is none", reader->ReadBodyBufferSize(ids));
  ASSERT_OK_AND_ASSIGN(std::optional<BatchLayout> third, reader->NextLayout());
  EXPECT_TRUE(third.has_value());
  ASSERT_OK_AND_ASSIGN(std::optional<BatchLayout> end, reader->NextLayout());
  EXPECT_FALSE(end.has_value());
}

class BodyLayoutCodec : public ::testing::TestWithParam<Compression> {};

TEST_P(BodyLayoutCodec, BuffersAreDecompressedAloneAndCorruptNeighboursStayUntouched) {
  const Compression codec = GetParam();
  if (!HasCodec(codec)) GTEST_SKIP() << "this build has no " << static_cast<int>(codec);
  RecordBatchPtr batch = LayoutBatch();
  WriteOptions options;
  options.compression = codec;
  BufferPtr plain = test::WriteFile({batch});
  BufferPtr packed = test::WriteFile({batch}, options);
  ASSERT_OK_AND_ASSIGN(auto raw_reader, FileReader::Open(BufferSource(plain)));
  ASSERT_OK_AND_ASSIGN(BatchLayout raw, raw_reader->RecordBatchLayout(0));
  ASSERT_OK_AND_ASSIGN(auto reader, FileReader::Open(BufferSource(packed)));
  ASSERT_OK_AND_ASSIGN(BatchLayout layout, reader->RecordBatchLayout(0));
  EXPECT_EQ(layout.compression, codec);
  ASSERT_EQ(layout.buffers.size(), raw.buffers.size());
  // Each buffer alone holds the bytes of its uncompressed twin.
  for (size_t k = 0; k < layout.buffers.size(); ++k) {
    const auto index = static_cast<int64_t>(k);
    ASSERT_OK_AND_ASSIGN(BufferPtr want, raw_reader->ReadBodyBuffer(0, index));
    ASSERT_OK_AND_ASSIGN(BufferPtr got, reader->ReadBodyBuffer(0, index));
    ASSERT_EQ(got->size(), want->size()) << "buffer " << k;
    EXPECT_EQ(std::memcmp(got->data(), want->data(), static_cast<size_t>(want->size())), 0);
    ASSERT_OK_AND_ASSIGN(BodyBufferSize size, reader->ReadBodyBufferSize(0, index));
    EXPECT_EQ(size.decoded, want->size());
    EXPECT_EQ(size.stored, layout.buffers[k].length);
  }
  // The 32 KiB of zeros shrink: stored as a frame, decoded to 32768 bytes.
  const int64_t big = layout.columns[6].children[0].buffers[1];
  ASSERT_OK_AND_ASSIGN(BodyBufferSize size, reader->ReadBodyBufferSize(0, big));
  EXPECT_TRUE(size.compressed);
  EXPECT_EQ(size.decoded, 4 * 1024 * 8);
  EXPECT_LT(size.stored, 1024);

  // Corrupt that frame (just after its 8-byte prefix): the buffer fails
  // alone, every other one still reads, and so does its size.
  // The buffer's prefix (its decompressed size) and the codec's frame magic.
  std::vector<uint8_t> prefix(8);
  const int64_t claimed = 4 * 1024 * 8;
  std::memcpy(prefix.data(), &claimed, 8);
  const std::vector<uint8_t> magic = codec == Compression::kZstd
                                         ? std::vector<uint8_t>{0x28, 0xb5, 0x2f, 0xfd}
                                         : std::vector<uint8_t>{0x04, 0x22, 0x4d, 0x18};
  prefix.insert(prefix.end(), magic.begin(), magic.end());
  const int64_t at = Find(packed, prefix);
  ASSERT_GT(at, 0);
  BufferPtr broken = test::BufferFrom(packed->data(), packed->size());
  for (int64_t i = at + 8; i < at + 8 + 16; ++i) broken->mutable_data()[i] ^= 0x5a;
  ASSERT_OK_AND_ASSIGN(auto bad, FileReader::Open(BufferSource(broken)));
  const std::string buffer = "buffer " + std::to_string(big);
  EXPECT_ERROR(kInvalid, buffer, bad->ReadBodyBuffer(0, big));
  EXPECT_ERROR(kInvalid, "record batch 0", bad->ReadRecordBatch(0));
  for (size_t k = 0; k < layout.buffers.size(); ++k) {
    if (static_cast<int64_t>(k) == big) continue;
    EXPECT_TRUE(bad->ReadBodyBuffer(0, static_cast<int64_t>(k)).ok()) << "buffer " << k;
  }
  EXPECT_TRUE(bad->ReadBodyBufferSize(0, big).ok());

  // A prefix claiming more than max_decompressed_buffer is refused before
  // anything is allocated, by both calls.
  ReadOptions small;
  small.max_decompressed_buffer = 1000;
  ASSERT_OK_AND_ASSIGN(auto limited, FileReader::Open(BufferSource(packed), small));
  EXPECT_ERROR(kInvalid, "claims 32768 decompressed bytes; the limit is 1000",
               limited->ReadBodyBuffer(0, big));
  EXPECT_ERROR(kInvalid, "claims 32768 decompressed bytes; the limit is 1000",
               limited->ReadBodyBufferSize(0, big));
}

INSTANTIATE_TEST_SUITE_P(Codecs, BodyLayoutCodec,
                         ::testing::Values(Compression::kLz4Frame, Compression::kZstd));

using ::quiver::test::CountingSource;

// Inspecting a file needs the batches' headers and the buffers it looks at,
// never a whole body: a 5 MiB batch's layout and sizes read a few KiB, and
// one buffer reads that buffer.
void ExpectNoWholeBodyRead(Compression codec) {
  SCOPED_TRACE(static_cast<int>(codec));
  std::vector<uint8_t> noise(1 << 20);
  for (size_t i = 0; i < noise.size(); ++i) noise[i] = static_cast<uint8_t>(i * 2654435761u >> 13);
  ArrayDataPtr values = Primitive<uint8_t>(uint8(), noise);
  auto schema = std::make_shared<Schema>(Schema{{Field{"x", uint8()}, Field{"y", int32()}}});
  ArrayDataPtr small = Primitive<int32_t>(int32(), std::vector<int32_t>(noise.size(), 7));
  WriteOptions options;
  options.compression = codec;
  BufferPtr bytes = test::WriteFile(
      {*RecordBatch::Make(schema, static_cast<int64_t>(noise.size()), {values, small})}, options);
  auto source = std::make_shared<CountingSource>(bytes);
  ASSERT_OK_AND_ASSIGN(auto reader, FileReader::Open(source));
  const int64_t at_open = source->read();
  ASSERT_OK_AND_ASSIGN(BatchLayout layout, reader->RecordBatchLayout(0));
  ASSERT_OK(reader->RecordBatchCompression(0).status());
  for (int64_t k = 0; k < static_cast<int64_t>(layout.buffers.size()); ++k) {
    ASSERT_OK(reader->ReadBodyBufferSize(0, k).status());
  }
  EXPECT_LT(source->read() - at_open, 64 * 1024) << "of a " << layout.body_length << "-byte body";
  const int64_t before = source->read();
  const int64_t x_values = layout.columns[0].buffers[1];
  ASSERT_OK_AND_ASSIGN(BufferPtr got, reader->ReadBodyBuffer(0, x_values));
  ASSERT_EQ(got->size(), static_cast<int64_t>(noise.size()));
  EXPECT_EQ(std::memcmp(got->data(), noise.data(), noise.size()), 0);
  EXPECT_EQ(source->read() - before, layout.buffers[static_cast<size_t>(x_values)].length);
}

TEST(BodyLayout, LayoutsAndSingleBuffersReadNoWholeBody) {
  for (Compression codec : {Compression::kNone, Compression::kLz4Frame, Compression::kZstd}) {
    if (HasCodec(codec)) ExpectNoWholeBodyRead(codec);
  }
}

TEST(BodyLayout, BadIndexes) {
  BufferPtr bytes = test::WriteFile({test::SampleBatch(3)});
  ASSERT_OK_AND_ASSIGN(auto reader, FileReader::Open(BufferSource(bytes)));
  EXPECT_ERROR(kIndexError, "record batch 1 is out of range for 1 batches",
               reader->RecordBatchLayout(1));
  EXPECT_ERROR(kIndexError, "record batch -1 is out of range", reader->RecordBatchLayout(-1));
  EXPECT_ERROR(kIndexError, "record batch 7 is out of range", reader->ReadBodyBuffer(7, 0));
  EXPECT_ERROR(kIndexError, "record batch -1 is out of range", reader->ReadBodyBufferSize(-1, 0));
  ASSERT_OK_AND_ASSIGN(BatchLayout layout, reader->RecordBatchLayout(0));
  const auto count = static_cast<int64_t>(layout.buffers.size());
  EXPECT_ERROR(kIndexError, "buffer -1 is out of range", reader->ReadBodyBuffer(0, -1));
  EXPECT_ERROR(kIndexError,
               "buffer " + std::to_string(count) + " is out of range for the " +
                   std::to_string(count) + " buffers",
               reader->ReadBodyBuffer(0, count));
  EXPECT_ERROR(kIndexError, "is out of range", reader->ReadBodyBufferSize(0, count));
}

TEST(BodyLayout, BadBodiesGetTheDecodersErrors) {
  // Too few field nodes, and a buffer outside the body: the layout and
  // the decoder say the same thing.
  SchemaPtr schema = test::Int32Schema();
  BufferPtr no_nodes = test::CraftStream(schema, 2, {}, {}, test::Int32Body({1, 2}));
  ASSERT_OK_AND_ASSIGN(auto reader, StreamReader::Open(BufferSource(no_nodes)));
  EXPECT_ERROR(kInvalid, "column 0 (x) needs field node 0, the record batch has 0",
               reader->NextLayout());
  EXPECT_ERROR(kInvalid, "column 0 (x) needs field node 0, the record batch has 0",
               test::ReadAll(no_nodes));
  BufferPtr outside =
      test::CraftStream(schema, 2, {{2, 0}}, {{0, 0}, {8, 64}}, test::Int32Body({1, 2}));
  ASSERT_OK_AND_ASSIGN(reader, StreamReader::Open(BufferSource(outside)));
  EXPECT_ERROR(kInvalid, "buffer 1 [8, +64) lies outside the 8-byte body", reader->NextLayout());
  EXPECT_ERROR(kInvalid, "buffer 1 [8, +64) lies outside the 8-byte body", test::ReadAll(outside));
  // A column shorter than the batch.
  BufferPtr short_column =
      test::CraftStream(schema, 3, {{2, 0}}, {{0, 0}, {0, 8}}, test::Int32Body({1, 2}));
  ASSERT_OK_AND_ASSIGN(reader, StreamReader::Open(BufferSource(short_column)));
  EXPECT_ERROR(kInvalid, "column 0 (x) has 2 rows, the batch 3", reader->NextLayout());
  // A failed stream stays failed.
  EXPECT_ERROR(kInvalid, "column 0 (x) has 2 rows, the batch 3", reader->Next());
}

// Before metadata V5 a union's type ids follow a validity buffer: the
// layout and the decoder both skip it in a V4 message, a V5 message with
// it has a buffer too many, and a V4 union with nulls of its own is
// refused (Arrow C++ reads such files the same way).
TEST(BodyLayout, PreV5UnionsSkipTheirValidityBuffer) {
  auto schema = std::make_shared<Schema>();
  schema->fields = {Field{"u", *sparse_union({Field{"i", int32()}})}};
  // Body: type ids [0, 0] (padded to 8), then the child's values [7, 9].
  std::vector<uint8_t> body(16, 0);
  const int32_t values[2] = {7, 9};
  std::memcpy(body.data() + 8, values, 8);
  const std::vector<fb::FieldNode> nodes = {{2, 0}, {2, 0}};
  const std::vector<fb::Buffer> buffers = {{0, 0}, {0, 2}, {8, 0}, {8, 8}};
  BufferPtr v4 = test::CraftStream(schema, 2, nodes, buffers, body, false, fb::MetadataVersion::V4);
  ASSERT_OK_AND_ASSIGN(auto reader, StreamReader::Open(BufferSource(v4)));
  ASSERT_OK_AND_ASSIGN(std::optional<BatchLayout> layout, reader->NextLayout());
  ASSERT_TRUE(layout.has_value());
  EXPECT_EQ(layout->columns[0].buffers, (std::vector<int64_t>{1}));  // the type ids only
  EXPECT_EQ(layout->columns[0].children[0].buffers, (std::vector<int64_t>{2, 3}));
  ASSERT_OK_AND_ASSIGN(reader, StreamReader::Open(BufferSource(v4)));
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, reader->Next());
  ASSERT_TRUE(batch);
  ArrayDataPtr want = test::Node(schema->fields[0].type, 2, {test::BufferOf<int8_t>({0, 0})},
                                 {Primitive<int32_t>(int32(), {7, 9})}, 0);
  EXPECT_TRUE(ArrayEquals(*batch->column(0), *want));
  EXPECT_EQ(batch->column(0)->null_count, 0);

  BufferPtr v5 = test::CraftStream(schema, 2, nodes, buffers, body);
  EXPECT_ERROR(kInvalid,
               "the record batch has 2 field nodes and 4 buffers, the schema uses 2 and 3",
               test::ReadAll(v5));
  ASSERT_OK_AND_ASSIGN(reader, StreamReader::Open(BufferSource(v5)));
  EXPECT_ERROR(kInvalid, "4 buffers, the schema uses 2 and 3", reader->NextLayout());

  BufferPtr v4_nulls =
      test::CraftStream(schema, 2, {{2, 1}, {2, 0}}, buffers, body, false, fb::MetadataVersion::V4);
  EXPECT_ERROR(kNotImplemented, "column 0 (u) is a union with 1 nulls of its own",
               test::ReadAll(v4_nulls));
  // Too few buffers for the extra one: the count error, not a crash.
  BufferPtr v4_short = test::CraftStream(schema, 2, nodes, {{0, 2}, {8, 0}, {8, 8}}, body, false,
                                         fb::MetadataVersion::V4);
  EXPECT_ERROR(kInvalid, "needs buffer 3, the record batch has 3", test::ReadAll(v4_short));
}

}  // namespace
}  // namespace quiver::ipc

namespace quiver::ipc {

namespace {

// A stored compressed buffer: the int64 uncompressed length, then `packed`.
BufferPtr Stored(int64_t claimed, const std::vector<uint8_t>& packed) {
  std::vector<uint8_t> bytes(8 + packed.size());
  std::memcpy(bytes.data(), &claimed, 8);
  std::memcpy(bytes.data() + 8, packed.data(), packed.size());
  return test::BufferOf(bytes);
}

}  // namespace

// Buffers compressed in parts (shared piece by piece), one large frame
// (prefaulted beside its decoder), small and raw ones, decoded together:
// the same bytes as one at a time; a corrupt piece gets the error the
// buffer read alone gets, and the lowest failing buffer's is returned.
TEST(BodyLayout, StoredBuffersDecodedTogetherMatchOneAtATime) {
  for (Compression codec : {Compression::kLz4Frame, Compression::kZstd}) {
    if (!HasCodec(codec)) continue;
    SCOPED_TRACE(CodecName(codec));
    std::vector<uint8_t> data(size_t{40} << 20);
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 7 / 1000 % 251);
    const auto size = static_cast<int64_t>(data.size());
    ASSERT_OK_AND_ASSIGN(PartCompressor parts, PartCompressor::Make(codec, 1, data.data(), size));
    std::vector<uint8_t> in_parts;
    auto append = [&](const BufferPtr& piece) {
      if (piece) in_parts.insert(in_parts.end(), piece->data(), piece->data() + piece->size());
    };
    append(parts.Head());
    for (int64_t k = 0; k < parts.parts(); ++k) {
      ASSERT_OK_AND_ASSIGN(BufferPtr part, parts.Part(k));
      append(part);
    }
    append(parts.Tail());
    ASSERT_OK_AND_ASSIGN(BufferPtr one_frame, Compress(codec, 1, data.data(), size));
    const std::vector<uint8_t> frame(one_frame->data(), one_frame->data() + one_frame->size());
    const std::vector<uint8_t> small(data.begin(), data.begin() + 1000);
    ASSERT_OK_AND_ASSIGN(BufferPtr small_packed, Compress(codec, 1, small.data(), 1000));
    const std::vector<BufferPtr> stored = {
        Stored(size, in_parts), Stored(size, frame),
        Stored(1000, std::vector<uint8_t>(small_packed->data(),
                                          small_packed->data() + small_packed->size())),
        Stored(-1, small), test::BufferOf(std::vector<uint8_t>{})};
    const auto where = [](int64_t i) { return "buffer " + std::to_string(i); };
    for (int threads : {1, 2, 4}) {
      ASSERT_OK_AND_ASSIGN(std::vector<BufferPtr> out,
                           DecodeStoredBuffers(stored, codec, where, ReadOptions{}, threads));
      ASSERT_EQ(out.size(), stored.size());
      for (size_t i = 0; i < 2; ++i) {
        ASSERT_EQ(out[i]->size(), size);
        EXPECT_EQ(std::memcmp(out[i]->data(), data.data(), data.size()), 0) << i;
      }
      EXPECT_EQ(std::vector<uint8_t>(out[2]->data(), out[2]->data() + 1000), small);
      EXPECT_EQ(std::vector<uint8_t>(out[3]->data(), out[3]->data() + 1000), small);
      EXPECT_EQ(out[4]->size(), 0);
    }
    // Corrupt bytes in the middle of the parts, and a claim one byte short
    // of the frame's: each fails as the buffer read alone fails.
    std::vector<uint8_t> bad = in_parts;
    for (size_t at = bad.size() / 2; at < bad.size() / 2 + 64; ++at) bad[at] ^= 0xA5;
    const std::vector<BufferPtr> hostile = {stored[2], Stored(size, bad), Stored(size - 1, frame)};
    for (size_t i = 1; i < hostile.size(); ++i) {
      const Status alone = test::StatusOf(DecodeStoredBuffer(hostile[i], codec, where(i), {}));
      ASSERT_FALSE(alone.ok()) << i;
      const std::vector<BufferPtr> from_here(hostile.begin() + static_cast<std::ptrdiff_t>(i),
                                             hostile.end());
      const Status together = test::StatusOf(DecodeStoredBuffers(
          from_here, codec, [&](int64_t k) { return where(k + static_cast<int64_t>(i)); }, {}, 2));
      EXPECT_EQ(together.message(), alone.message()) << i;
    }
  }
}

}  // namespace quiver::ipc
