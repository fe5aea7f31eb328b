// Decoding record batch messages: a batch crafted field by field with the
// generated flatbuffer code reads back as written; bodies of the other byte
// order are decompressed, then swapped; dictionary ids from schemas crafted
// the same way (ids shared by fields, nested dictionaries); nested
// dictionaries written and read back.
#include "quiver/ipc/decoder.h"

#include <cstring>
#include <map>
#include <vector>

#include "ipc_test_util.h"
#include "quiver/build_info.h"
#include "quiver/ipc.h"
#include "quiver/ipc/encoder.h"
#include "quiver/ipc/message.h"
#include "quiver/ipc/metadata.h"

namespace quiver::ipc {

using test::CraftStream;
using test::Int32Body;
using test::Int32Schema;
using test::ReadAll;

TEST(IpcHostile, HonestCraftedBatchReads) {
  ASSERT_OK(ReadAll(CraftStream(Int32Schema(), 2, {{2, 0}}, {{0, 0}, {0, 8}}, Int32Body({1, 2}))));
}

TEST(DecodeSwapped, CompressedBuffersAreDecompressedThenSwapped) {
  // A little-endian stream decoded as if it were big-endian: each value
  // comes out byte-reversed, compressed or not (the length prefix of a
  // compressed buffer is little-endian in either byte order).
  SchemaPtr schema = Int32Schema();
  std::vector<int32_t> values(1000);
  for (size_t i = 0; i < values.size(); ++i) values[i] = 0x01020300 + static_cast<int32_t>(i % 4);
  ASSERT_OK_AND_ASSIGN(
      RecordBatchPtr batch,
      RecordBatch::Make(schema, 1000, {test::Primitive<int32_t>(int32(), values)}));
  const int64_t plain_size = test::WriteStream({batch})->size();
  for (Compression codec : {Compression::kNone, Compression::kLz4Frame, Compression::kZstd}) {
    if (!HasCodec(codec)) continue;
    WriteOptions options;
    options.compression = codec;
    BufferPtr bytes = test::WriteStream({batch}, options);
    if (codec != Compression::kNone) {
      EXPECT_LT(bytes->size(), plain_size);  // really compressed
    }
    auto stream = SourceStream(BufferSource(bytes));
    ASSERT_OK_AND_ASSIGN(std::optional<Message> first, ReadMessage(*stream));  // the schema
    ASSERT_OK_AND_ASSIGN(std::optional<Message> message, ReadMessage(*stream));
    ASSERT_TRUE(message.has_value());
    DictionaryMemo memo;
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr swapped,
                         DecodeRecordBatch(*message, schema, memo, ReadOptions{}, true));
    const auto* got = reinterpret_cast<const int32_t*>(swapped->column(0)->buffers[1]->data());
    for (size_t i = 0; i < values.size(); ++i) {
      ASSERT_EQ(got[i], static_cast<int32_t>(__builtin_bswap32(static_cast<uint32_t>(values[i]))))
          << "row " << i << ", codec " << static_cast<int>(codec);
    }
  }
}

namespace {

using FbField = flatbuffers::Offset<fb::Field>;

// Schemas crafted with the generated code, so that ids can be chosen (the
// writer numbers them 0, 1, ... and never shares one).
class SchemaCraft {
 public:
  // A utf8 (or float64) field dictionary-encoded with int32 indices under `id`.
  FbField Utf8Dict(const char* name, int64_t id) {
    return fb::CreateField(b_, b_.CreateString(name), true, fb::Type::Utf8,
                           fb::CreateUtf8(b_).Union(), Encoding(id));
  }
  FbField Float64Dict(const char* name, int64_t id) {
    return fb::CreateField(b_, b_.CreateString(name), true, fb::Type::FloatingPoint,
                           fb::CreateFloatingPoint(b_, fb::Precision::DOUBLE).Union(),
                           Encoding(id));
  }
  // A field dictionary-encoded under `id` whose values are lists of `item`.
  FbField ListDict(const char* name, int64_t id, FbField item) {
    return fb::CreateField(b_, b_.CreateString(name), true, fb::Type::List,
                           fb::CreateList(b_).Union(), Encoding(id), b_.CreateVector(&item, 1));
  }
  FbField Struct(const char* name, std::vector<FbField> children) {
    return fb::CreateField(b_, b_.CreateString(name), true, fb::Type::Struct_,
                           fb::CreateStruct_(b_).Union(), 0, b_.CreateVector(children));
  }

  // InitDictionaryMemo on a schema of `fields` (read as a reader reads it).
  Status Init(std::vector<FbField> fields, DictionaryMemo* memo) {
    b_.Finish(fb::CreateSchema(b_, fb::Endianness::Little, b_.CreateVector(fields)));
    const auto* schema = flatbuffers::GetRoot<fb::Schema>(b_.GetBufferPointer());
    QUIVER_ASSIGN_OR_RETURN(SchemaPtr read, ReadSchema(schema));
    return InitDictionaryMemo(schema, *read, memo);
  }

 private:
  flatbuffers::Offset<fb::DictionaryEncoding> Encoding(int64_t id) {
    return fb::CreateDictionaryEncoding(b_, id, fb::CreateInt(b_, 32, true));
  }
  flatbuffers::FlatBufferBuilder b_;
};

}  // namespace

TEST(DictionaryMemo, FieldsOfEqualValueTypesShareAnId) {
  SchemaCraft craft;
  std::vector<FbField> fields = {
      craft.Utf8Dict("a", 4), craft.Utf8Dict("b", 4),
      craft.Struct("s", {craft.Utf8Dict("c", 4), craft.Utf8Dict("d", 9)})};
  DictionaryMemo memo;
  ASSERT_OK(craft.Init(std::move(fields), &memo));
  EXPECT_EQ(memo.ids, (std::vector<int64_t>{4, 4, 4, 9}));  // one per field, in pre-order
  ASSERT_EQ(memo.types.size(), 2u);
  EXPECT_TRUE(memo.types.at(4)->Equals(*utf8()));
  EXPECT_TRUE(memo.nested_ids.at(4).empty());
  EXPECT_TRUE(memo.nested_ids.at(9).empty());
}

TEST(DictionaryMemo, ASharedIdWithAnotherValueTypeIsInvalid) {
  SchemaCraft craft;
  std::vector<FbField> fields = {craft.Utf8Dict("a", 0), craft.Float64Dict("b", 0)};
  DictionaryMemo memo;
  Status st = craft.Init(std::move(fields), &memo);
  EXPECT_EQ(st.code(), StatusCode::kInvalid);
  EXPECT_EQ(st.message(),
            "the schema uses dictionary id 0 for values of type utf8 and of type float64; fields "
            "sharing a dictionary id must have equal value types");
}

TEST(DictionaryMemo, NestedDictionariesGetTheirOwnIds) {
  SchemaCraft craft;
  // outer (id 3): lists of inner (id 7); then a plain dictionary (id 1)
  // and a second use of id 3 with the same nested id.
  std::vector<FbField> fields = {craft.ListDict("outer", 3, craft.Utf8Dict("inner", 7)),
                                 craft.Utf8Dict("plain", 1),
                                 craft.ListDict("again", 3, craft.Utf8Dict("inner", 7))};
  DictionaryMemo memo;
  ASSERT_OK(craft.Init(std::move(fields), &memo));
  // Record batches meet the top-level fields' ids; id 3's batch meets 7.
  EXPECT_EQ(memo.ids, (std::vector<int64_t>{3, 1, 3}));
  EXPECT_EQ(memo.nested_ids.at(3), (std::vector<int64_t>{7}));
  EXPECT_TRUE(memo.nested_ids.at(7).empty());
  EXPECT_TRUE(memo.types.at(7)->Equals(*utf8()));
  ASSERT_OK_AND_ASSIGN(TypePtr inner, dictionary(int32(), utf8()));
  EXPECT_TRUE(memo.types.at(3)->Equals(*list(Field{"inner", inner})))
      << memo.types.at(3)->ToString();
}

TEST(DictionaryMemo, ASharedIdWithOtherNestedIdsIsInvalid) {
  SchemaCraft craft;
  std::vector<FbField> fields = {craft.ListDict("x", 3, craft.Utf8Dict("inner", 7)),
                                 craft.ListDict("y", 3, craft.Utf8Dict("inner", 8))};
  DictionaryMemo memo;
  Status st = craft.Init(std::move(fields), &memo);
  EXPECT_EQ(st.code(), StatusCode::kInvalid);
  EXPECT_EQ(st.message(),
            "the schema uses dictionary id 3 for values whose nested dictionaries have different "
            "ids");
}

TEST(DictionaryMemo, AnIdInsideItsOwnValuesIsInvalid) {
  // Its inner use has other values (utf8) than its outer one (lists).
  SchemaCraft craft;
  std::vector<FbField> fields = {craft.ListDict("x", 5, craft.Utf8Dict("inner", 5))};
  DictionaryMemo memo;
  Status st = craft.Init(std::move(fields), &memo);
  EXPECT_EQ(st.code(), StatusCode::kInvalid);
  EXPECT_NE(st.message().find("the schema uses dictionary id 5 for values of type utf8 and of type "
                              "list<"),
            std::string::npos)
      << st.ToString();
}

namespace {

// dictionary<int8, list<dictionary<int32, utf8>>>: rows pick lists of
// `words` by `rows` (outer indices) from [[0, 1], [1]] (inner indices).
ArrayDataPtr NestedDictionaryColumn(const std::vector<std::optional<std::string>>& words,
                                    const std::vector<int8_t>& rows) {
  TypePtr inner_type = *dictionary(int32(), utf8());
  auto inner = std::make_shared<ArrayData>(*test::Primitive<int32_t>(inner_type, {0, 1, 1}));
  inner->dictionary = test::Utf8(words);
  auto lists = std::make_shared<ArrayData>();
  lists->type = list(Field{"item", inner_type});
  lists->length = 2;
  lists->buffers = {nullptr, test::BufferOf(std::vector<int32_t>{0, 2, 3})};
  lists->children = {inner};
  auto outer =
      std::make_shared<ArrayData>(*test::Primitive<int8_t>(*dictionary(int8(), lists->type), rows));
  outer->dictionary = lists;
  return outer;
}

RecordBatchPtr NestedDictionaryBatch(const std::vector<std::optional<std::string>>& words,
                                     const std::vector<int8_t>& rows) {
  ArrayDataPtr column = NestedDictionaryColumn(words, rows);
  auto schema = std::make_shared<Schema>();
  schema->fields = {Field{"nested", column->type}};
  return *RecordBatch::Make(schema, static_cast<int64_t>(rows.size()), {column});
}

// The words row `row` of a nested dictionary column spells.
std::vector<std::string> WordsAt(const ArrayData& column, int64_t row) {
  int8_t index;
  std::memcpy(&index, column.buffers[1]->data() + row, 1);
  const ArrayData& lists = *column.dictionary;
  const auto* offsets = reinterpret_cast<const int32_t*>(lists.buffers[1]->data());
  const ArrayData& inner = *lists.children[0];
  const auto* inner_indices = reinterpret_cast<const int32_t*>(inner.buffers[1]->data());
  const ArrayData& words = *inner.dictionary;
  const auto* word_offsets = reinterpret_cast<const int32_t*>(words.buffers[1]->data());
  std::vector<std::string> out;
  for (int32_t k = offsets[index]; k < offsets[index + 1]; ++k) {
    const int32_t w = inner_indices[inner.offset + k];
    out.emplace_back(reinterpret_cast<const char*>(words.buffers[2]->data()) + word_offsets[w],
                     static_cast<size_t>(word_offsets[w + 1] - word_offsets[w]));
  }
  return out;
}

}  // namespace

TEST(DictionaryMemo, NestedDictionariesRoundTripThroughFilesAndStreams) {
  RecordBatchPtr batch = NestedDictionaryBatch({"a", "b"}, {1, 0, 1});
  for (bool file : {true, false}) {
    BufferPtr bytes = file ? test::WriteFile({batch}) : test::WriteStream({batch});
    RecordBatchPtr back;
    if (file) {
      ASSERT_OK_AND_ASSIGN(auto reader, FileReader::Open(BufferSource(bytes)));
      ASSERT_OK_AND_ASSIGN(back, reader->ReadRecordBatch(0));
    } else {
      ASSERT_OK_AND_ASSIGN(auto reader, StreamReader::Open(BufferSource(bytes)));
      ASSERT_OK_AND_ASSIGN(back, reader->Next());
    }
    ASSERT_NE(back, nullptr);
    EXPECT_TRUE(ArrayEquals(*back->column(0), *batch->column(0))) << (file ? "file" : "stream");
    EXPECT_EQ(WordsAt(*back->column(0), 0), (std::vector<std::string>{"b"}));
    EXPECT_EQ(WordsAt(*back->column(0), 1), (std::vector<std::string>{"a", "b"}));
  }
}

TEST(DictionaryMemo, AStreamReplacesANestedDictionaryAndItsOuterOne) {
  // The second batch's inner words differ, its outer lists do not: the
  // writer writes both again, so the reader sees the new words.
  RecordBatchPtr first = NestedDictionaryBatch({"a", "b"}, {0, 1});
  RecordBatchPtr second = NestedDictionaryBatch({"x", "y"}, {0, 1});
  BufferPtr bytes = test::WriteStream({first, second});
  ASSERT_OK_AND_ASSIGN(auto reader, StreamReader::Open(BufferSource(bytes)));
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr one, reader->Next());
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr two, reader->Next());
  ASSERT_NE(two, nullptr);
  EXPECT_EQ(WordsAt(*one->column(0), 0), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(WordsAt(*two->column(0), 0), (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(WordsAt(*two->column(0), 1), (std::vector<std::string>{"y"}));

  // A file holds one dictionary per id: the second batch is refused.
  auto sink = std::make_shared<BufferSink>();
  ASSERT_OK_AND_ASSIGN(auto writer, FileWriter::Open(sink, first->schema()));
  ASSERT_OK(writer->Write(*first));
  EXPECT_ERROR(kInvalid, "batch 1 brings a new dictionary for id 1", writer->Write(*second));
}

}  // namespace quiver::ipc
