// The Tensor IPC message: dense tensors of any layout written and read
// back (zero-copy), messages one after another, and the errors for a
// missing sink and a message of another kind.
#include "quiver/ipc.h"

#include <unistd.h>
#include <cstdio>
#include <cstring>
#include <string>

#include "no_threads.h"
#include "quiver/fixed_shape_tensor.h"
#include "quiver/variable_shape_tensor.h"
#include "test_util.h"

namespace quiver::ipc {

using test::BufferOf;

TEST(Ipc, TensorMessageRoundTrip) {
  std::vector<int32_t> values(24);
  for (int i = 0; i < 24; ++i) values[static_cast<size_t>(i)] = i;
  ASSERT_OK_AND_ASSIGN(Tensor tensor,
                       Tensor::Make(int32(), BufferOf(values), {2, 3, 4}, {}, {"a", "b", "c"}));
  // Row-major, a column-major view of the same bytes, and a strided slice.
  ASSERT_OK_AND_ASSIGN(Tensor fortran,
                       Tensor::Make(int32(), tensor.buffer(), {4, 3, 2}, {4, 16, 48}));
  ASSERT_OK_AND_ASSIGN(Tensor strided, Tensor::Make(int32(), tensor.buffer(), {2, 2}, {48, 8}));
  for (const Tensor& t : {tensor, fortran, strided}) {
    BufferSink sink;
    ASSERT_OK(WriteTensor(t, &sink));
    ASSERT_OK_AND_ASSIGN(BufferPtr bytes, sink.Finish());
    ASSERT_OK_AND_ASSIGN(Tensor back, ReadTensor(BufferSource(bytes)));
    EXPECT_TRUE(back.Equals(t));
    EXPECT_EQ(back.dim_names(), t.dim_names());
    EXPECT_GE(back.raw_data(), bytes->data());  // zero-copy from memory
  }
}

// The Tensor message has no extension types: bool8 and the low-precision
// floats are written as their storage plus the message's metadata naming
// them, and read back as themselves.
TEST(IpcTensor, ExtensionValueTypesRoundTrip) {
  const std::vector<uint16_t> brains = {0x3F80, 0xC000, 0x8000, 0x7F80};
  const std::vector<uint8_t> eights = {0x38, 0xC0, 0x80, 0x7E};
  const std::pair<TypePtr, BufferPtr> cases[] = {
      {bfloat16(), BufferOf(brains)},
      {float8_e4m3fn(), BufferOf(eights)},
      {float8_e5m2(), BufferOf(eights)},
      {bool8(), BufferOf(eights)},
  };
  for (const auto& [type, buffer] : cases) {
    ASSERT_OK_AND_ASSIGN(Tensor t, Tensor::Make(type, buffer, {2, 2}));
    BufferSink sink;
    ASSERT_OK(WriteTensor(t, &sink));
    ASSERT_OK_AND_ASSIGN(BufferPtr bytes, sink.Finish());
    ASSERT_OK_AND_ASSIGN(Tensor back, ReadTensor(BufferSource(bytes)));
    EXPECT_TRUE(back.type()->Equals(*type)) << back.type()->ToString();
    EXPECT_EQ(std::memcmp(back.raw_data(), t.raw_data(), 4 * type->byte_width()), 0);
  }
}

TEST(IpcTensor, MessagesFollowEachOtherAndOtherKindsAreRefused) {
  BufferSink sink;
  ASSERT_OK_AND_ASSIGN(Tensor first,
                       Tensor::Make(float64(), BufferOf(std::vector<double>{1.5, -2}), {2}));
  ASSERT_OK_AND_ASSIGN(Tensor empty, Tensor::Make(int8(), BufferOf(std::vector<int8_t>{}), {0, 3}));
  ASSERT_OK(WriteTensor(first, &sink));
  const int64_t second_at = sink.position();
  EXPECT_EQ(second_at % 8, 0);
  ASSERT_OK(WriteTensor(empty, &sink));
  ASSERT_OK_AND_ASSIGN(BufferPtr bytes, sink.Finish());
  ASSERT_OK_AND_ASSIGN(Tensor a, ReadTensor(BufferSource(bytes)));
  EXPECT_TRUE(a.Equals(first));
  ASSERT_OK_AND_ASSIGN(Tensor b, ReadTensor(BufferSource(bytes), second_at));
  EXPECT_EQ(b.shape(), (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(b.type()->id(), TypeId::kInt8);
  EXPECT_EQ(WriteTensor(first, nullptr).message(), "WriteTensor needs a sink");
  // A schema message where a Tensor is expected.
  auto schema = std::make_shared<Schema>();
  schema->fields = {Field{"x", int32()}};
  auto stream_sink = std::make_shared<BufferSink>();
  ASSERT_OK(StreamWriter::Open(stream_sink, schema).status());
  EXPECT_ERROR(kInvalid, "message at byte 0 is a Schema message, not a Tensor",
               ReadTensor(BufferSource(*stream_sink->Finish())));
}

}  // namespace quiver::ipc
