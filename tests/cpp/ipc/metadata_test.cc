// IPC schema metadata: schemas written as flatbuffers and read back
// (fields, nesting, dictionaries, key/value metadata), and the types and
// schemas that cannot be written.
#include "quiver/ipc/metadata.h"

#include <vector>

#include "quiver/ipc.h"
#include "quiver/ipc/encoder.h"
#include "quiver/ipc/message.h"
#include "test_util.h"

namespace quiver::ipc {
namespace {

// `schema` written with WriteSchema and read back with ReadSchema.
Result<SchemaPtr> RoundTrip(const Schema& schema, std::vector<int64_t>* dictionary_ids = nullptr) {
  flatbuffers::FlatBufferBuilder builder;
  QUIVER_ASSIGN_OR_RETURN(auto offset, WriteSchema(builder, schema));
  builder.Finish(offset);
  const fb::Schema* read = flatbuffers::GetRoot<fb::Schema>(builder.GetBufferPointer());
  if (dictionary_ids) *dictionary_ids = DictionaryIds(read);
  return ReadSchema(read);
}

}  // namespace

TEST(IpcMetadata, SchemasRoundTrip) {
  auto schema = std::make_shared<Schema>();
  ASSERT_OK_AND_ASSIGN(TypePtr cells, fixed_size_list(ListItem(float32()), 4));
  ASSERT_OK_AND_ASSIGN(TypePtr stamp, timestamp(TimeUnit::kMicro, "UTC"));
  ASSERT_OK_AND_ASSIGN(TypePtr words, dictionary(int16(), utf8()));
  schema->fields = {
      Field{"id", int64(), false, {{"role", "key"}}}, Field{"cells", cells}, Field{"at", stamp},
      Field{"word", words},
      Field{"nested", struct_({Field{"a", list(ListItem(int8()))}, Field{"b", words}})}};
  schema->metadata = {{"origin", "test"}, {"empty", ""}};
  std::vector<int64_t> ids;
  ASSERT_OK_AND_ASSIGN(SchemaPtr back, RoundTrip(*schema, &ids));
  EXPECT_TRUE(back->Equals(*schema));
  EXPECT_EQ(back->metadata, schema->metadata);
  EXPECT_EQ(back->fields[0].metadata, (KeyValueMetadata{{"role", "key"}}));
  EXPECT_FALSE(back->fields[0].nullable);
  // One id per dictionary-encoded field, in pre-order.
  EXPECT_EQ(ids, (std::vector<int64_t>{0, 1}));
}

TEST(IpcMetadata, KeyValuesKeepOrderAndBytes) {
  flatbuffers::FlatBufferBuilder builder;
  const KeyValueMetadata pairs = {{"b", "2"}, {"a", std::string("\0x", 2)}, {"b", "again"}};
  auto offset = WriteKeyValues(builder, pairs);
  builder.Finish(offset);
  const auto* read = flatbuffers::GetRoot<flatbuffers::Vector<flatbuffers::Offset<fb::KeyValue>>>(
      builder.GetBufferPointer());
  EXPECT_EQ(ReadKeyValues(read), pairs);
  EXPECT_TRUE(ReadKeyValues(nullptr).empty());
}

TEST(IpcMetadata, WhatCannotBeWritten) {
  Schema no_type;
  no_type.fields = {Field{"x", nullptr}};
  EXPECT_EQ(test::StatusOf(RoundTrip(no_type)).message(), "field 'x' has no type");
  ASSERT_OK_AND_ASSIGN(TypePtr ext, extension("my.ext", "", int32()));
  ASSERT_OK_AND_ASSIGN(TypePtr dict_of_ext, dictionary(int8(), ext));
  Schema ext_dict;
  ext_dict.fields = {Field{"d", dict_of_ext}};
  auto refused = RoundTrip(ext_dict);
  EXPECT_EQ(test::StatusOf(refused).code(), StatusCode::kNotImplemented);
  EXPECT_EQ(test::StatusOf(refused).message(),
            "field 'd': dictionaries of extension values cannot be written");
}

TEST(IpcMetadata, TensorValueTypesBothWays) {
  for (TypePtr type : {int8(), uint16(), int32(), uint64(), float16(), float32(), float64()}) {
    flatbuffers::FlatBufferBuilder builder;
    ASSERT_OK_AND_ASSIGN(auto written, WriteTensorValueType(builder, *type));
    builder.Finish(written.second);
    ASSERT_OK_AND_ASSIGN(
        TypePtr back,
        ReadTensorValueType(written.first,
                            flatbuffers::GetRoot<uint8_t>(builder.GetBufferPointer()), "tensor"));
    EXPECT_TRUE(back->Equals(*type)) << type->ToString();
  }
  flatbuffers::FlatBufferBuilder builder;
  auto bits = WriteTensorValueType(builder, *boolean());
  EXPECT_EQ(test::StatusOf(bits).code(), StatusCode::kTypeError);
  EXPECT_EQ(test::StatusOf(bits).message(), "the Tensor message holds numeric values, not bool");
  EXPECT_EQ(test::StatusOf(ReadTensorValueType(fb::Type::Int, nullptr, "tensor")).message(),
            "tensor: Int type without its table");
}

TEST(IpcHostile, DeepSchemasAreRefused) {
  TypePtr type = int8();
  for (int i = 0; i < 70; ++i) type = list(ListItem(type));
  auto schema = std::make_shared<Schema>();
  schema->fields = {Field{"deep", type}};
  BufferSink sink;
  EXPECT_ERROR(kInvalid, "nests more than 64 levels deep", WriteSchemaMessage(sink, *schema));
}

}  // namespace quiver::ipc
