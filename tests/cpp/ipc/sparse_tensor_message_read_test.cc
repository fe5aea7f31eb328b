// Reading SparseTensor messages: crafted honest messages, memory-mapped
// files read zero-copy, messages off 8 bytes read through aligned copies,
// and other messages or missing arguments refused.
#include <unistd.h>

#include <cstdio>
#include <vector>
#include <functional>
#include <limits>
#include <optional>

#include "quiver/ipc.h"
#include "quiver/sparse_tensor.h"
#include "sparse_ipc_test_util.h"
#include "quiver/ipc/message.h"

namespace quiver::ipc {

namespace {

using test::Vec;

// A 2 x 3 x 4 dense tensor of `type` with six non-zeros (values 1..6; bits
// of small halves for float16, ones for bool8).
Tensor SampleDense(const TypePtr& type, int ndim) {
  const std::vector<int64_t> shape = ndim == 2 ? std::vector<int64_t>{4, 6} : std::vector<int64_t>{2, 3, 4};
  std::vector<double> dense(24, 0.0);
  const int positions[] = {1, 7, 10, 13, 22, 23};
  for (int i = 0; i < 6; ++i) dense[static_cast<size_t>(positions[i])] = i + 1;
  return test::DenseOf(type, dense, shape);
}

// The range of bytes a source holds in memory.
struct Span {
  const uint8_t* begin;
  const uint8_t* end;
  bool Holds(const Tensor& tensor) const {
    return tensor.size() == 0 || (tensor.raw_data() >= begin && tensor.raw_data() < end);
  }
};

// Whether the values and every index array point into `span`.
bool AllInside(const SparseTensor& tensor, const Span& span) {
  bool inside = span.Holds(tensor.values());
  if (const auto* coo = tensor.coo_index()) inside = inside && span.Holds(coo->coords);
  if (const auto* csx = tensor.csx_index()) {
    inside = inside && span.Holds(csx->indptr) && span.Holds(csx->indices);
  }
  if (const auto* csf = tensor.csf_index()) {
    for (const Tensor& array : csf->indptr) inside = inside && span.Holds(array);
    for (const Tensor& array : csf->indices) inside = inside && span.Holds(array);
  }
  return inside;
}

}  // namespace

TEST(SparseIpc, MemoryMappedFileIsReadZeroCopy) {
  char path[] = "/tmp/quiver_sparse_ipc_testXXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  const SparseFormat formats[] = {SparseFormat::kCOO, SparseFormat::kCSR, SparseFormat::kCSC, SparseFormat::kCSF};
  std::vector<SparseTensor> written;
  std::vector<int64_t> offsets;
  {
    ASSERT_OK_AND_ASSIGN(auto sink, OpenFileSink(path));
    for (SparseFormat format : formats) {
      const int ndim = format == SparseFormat::kCSR || format == SparseFormat::kCSC ? 2 : 3;
      ASSERT_OK_AND_ASSIGN(SparseTensor tensor, SparseTensor::FromDense(SampleDense(float64(), ndim), format));
      offsets.push_back(sink->position());
      ASSERT_OK(WriteSparseTensor(tensor, sink.get()));
      written.push_back(tensor);
    }
    ASSERT_OK(sink->Close());
  }
  std::vector<SparseTensor> read;
  {
    ASSERT_OK_AND_ASSIGN(auto source, OpenFileSource(path));
    ASSERT_TRUE(source->zero_copy());
    ASSERT_OK_AND_ASSIGN(BufferPtr mapping, source->ReadAt(0, source->size()));
    for (size_t i = 0; i < written.size(); ++i) {
      ASSERT_OK_AND_ASSIGN(SparseTensor tensor, ReadSparseTensor(source, offsets[i]));
      EXPECT_TRUE(AllInside(tensor, {mapping->data(), mapping->data() + mapping->size()}));
      read.push_back(tensor);
    }
  }
  std::remove(path);  // the tensors keep the mapping alive
  for (size_t i = 0; i < written.size(); ++i) test::ExpectSameSparse(written[i], read[i]);
}

TEST(SparseIpc, AMessageOffEightBytesIsReadThroughAlignedCopies) {
  ASSERT_OK_AND_ASSIGN(SparseTensor tensor, SparseTensor::FromDense(SampleDense(float64(), 3), SparseFormat::kCOO));
  ASSERT_OK_AND_ASSIGN(BufferPtr bytes, test::Written(tensor));
  std::vector<uint8_t> shifted(4, 0);
  shifted.insert(shifted.end(), bytes->data(), bytes->data() + bytes->size());
  BufferPtr source = test::BufferOf(shifted);
  ASSERT_OK_AND_ASSIGN(SparseTensor read, ReadSparseTensor(BufferSource(source), 4));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(read.values().raw_data()) % 8, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(read.coo_index()->coords.raw_data()) % 8, 0u);
  test::ExpectSameSparse(tensor, read);
}

TEST(SparseIpc, OtherMessagesAndMissingArgumentsAreRefused) {
  BufferSink sink;
  ASSERT_OK(WriteTensor(Vec<float>({1, 2}, {2}), &sink));
  ASSERT_OK_AND_ASSIGN(BufferPtr bytes, sink.Finish());
  EXPECT_ERROR(kInvalid, "message at byte 0 is a Tensor message, not a SparseTensor",
               ReadSparseTensor(BufferSource(bytes)));
  EXPECT_ERROR(kInvalid, "needs a source", ReadSparseTensor(nullptr));
  ASSERT_OK_AND_ASSIGN(SparseTensor tensor, SparseTensor::FromDense(SampleDense(float64(), 3), SparseFormat::kCOO));
  EXPECT_ERROR(kInvalid, "needs a sink", WriteSparseTensor(tensor, nullptr));
  BufferSink unused;
  EXPECT_ERROR(kInvalid, "default-made", WriteSparseTensor(SparseTensor(), &unused));
}

namespace {

using IndexBuilder = std::function<flatbuffers::Offset<void>(flatbuffers::FlatBufferBuilder&)>;

enum class ValueType { kFloat32, kInt8, kInt16, kUtf8, kBool };

// One SparseTensor message, every field chosen by the test.
struct Crafted {
  ValueType value_type = ValueType::kFloat32;
  std::vector<int64_t> shape = {2, 3};
  int64_t nnz = 2;
  fb::SparseTensorIndex index_type = fb::SparseTensorIndex::SparseTensorIndexCOO;
  IndexBuilder index;
  fb::Buffer data;
  std::vector<uint8_t> body;
  KeyValueMetadata custom;

  BufferPtr Build() const {
    flatbuffers::FlatBufferBuilder builder;
    auto [type_type, type] = WriteValueType(builder);
    std::vector<flatbuffers::Offset<fb::TensorDim>> dims;
    for (int64_t size : shape) dims.push_back(fb::CreateTensorDim(builder, size));
    auto shape_offset = builder.CreateVector(dims);
    auto index_offset = index(builder);
    auto sparse = fb::CreateSparseTensor(builder, type_type, type, shape_offset, nnz, index_type, index_offset, &data);
    builder.Finish(fb::CreateMessage(builder, fb::MetadataVersion::V5, fb::MessageHeader::SparseTensor,
                                     sparse.Union(), static_cast<int64_t>(body.size()),
                                     WriteKeyValues(builder, custom)));
    BufferPtr framed = *FrameMetadata(builder, 0, 8);
    std::vector<uint8_t> bytes(framed->data(), framed->data() + framed->size());
    bytes.insert(bytes.end(), body.begin(), body.end());
    return test::BufferOf(bytes);
  }

  std::pair<fb::Type, flatbuffers::Offset<void>> WriteValueType(flatbuffers::FlatBufferBuilder& builder) const {
    switch (value_type) {
      case ValueType::kInt8: return {fb::Type::Int, fb::CreateInt(builder, 8, true).Union()};
      case ValueType::kInt16: return {fb::Type::Int, fb::CreateInt(builder, 16, true).Union()};
      case ValueType::kUtf8: return {fb::Type::Utf8, fb::CreateUtf8(builder).Union()};
      case ValueType::kBool: return {fb::Type::Bool, fb::CreateBool(builder).Union()};
      default: return {fb::Type::FloatingPoint, fb::CreateFloatingPoint(builder, fb::Precision::SINGLE).Union()};
    }
  }

  Result<SparseTensor> Read(ReadOptions options = {}) const {
    return ReadSparseTensor(BufferSource(Build()), 0, options);
  }
};

// Appends `values` to `body`, padded to 8 bytes; their Buffer (exact bytes).
template <typename T>
fb::Buffer Append(std::vector<uint8_t>* body, const std::vector<T>& values) {
  const int64_t offset = static_cast<int64_t>(body->size());
  const size_t bytes = values.size() * sizeof(T);
  body->resize(body->size() + bytes + (8 - bytes % 8) % 8, 0);
  if (bytes > 0) std::memcpy(body->data() + offset, values.data(), bytes);
  return fb::Buffer(offset, static_cast<int64_t>(bytes));
}

IndexBuilder Coo(int bits, fb::Buffer buffer, bool canonical = true,
                 std::optional<std::vector<int64_t>> strides = std::nullopt) {
  return [=](flatbuffers::FlatBufferBuilder& b) {
    auto type = fb::CreateInt(b, bits, true);
    flatbuffers::Offset<flatbuffers::Vector<int64_t>> stride_offset = 0;
    if (strides) stride_offset = b.CreateVector(*strides);
    return fb::CreateSparseTensorIndexCOO(b, type, stride_offset, &buffer, canonical).Union();
  };
}

IndexBuilder Csx(fb::SparseMatrixCompressedAxis axis, fb::Buffer indptr, fb::Buffer indices) {
  return [=](flatbuffers::FlatBufferBuilder& b) {
    auto indptr_type = fb::CreateInt(b, 32, true);
    auto indices_type = fb::CreateInt(b, 32, true);
    return fb::CreateSparseMatrixIndexCSX(b, axis, indptr_type, &indptr, indices_type, &indices).Union();
  };
}

IndexBuilder Csf(std::vector<fb::Buffer> indptr, std::vector<fb::Buffer> indices, std::vector<int32_t> axis_order,
                 int indices_bits = 16) {
  return [=](flatbuffers::FlatBufferBuilder& b) {
    auto indptr_type = fb::CreateInt(b, 32, true);
    auto indices_type = fb::CreateInt(b, indices_bits, true);
    return fb::CreateSparseTensorIndexCSF(b, indptr_type, b.CreateVectorOfStructs(indptr), indices_type,
                                          b.CreateVectorOfStructs(indices), b.CreateVector(axis_order))
        .Union();
  };
}

// A 2 x 3 float32 COO tensor with (0, 1) = 1 and (1, 2) = 2, int32 coordinates.
Crafted HonestCoo() {
  Crafted c;
  const fb::Buffer coords = Append<int32_t>(&c.body, {0, 1, 1, 2});
  c.data = Append<float>(&c.body, {1, 2});
  c.index = Coo(32, coords);
  return c;
}

// The same matrix as CSR.
Crafted HonestCsr() {
  Crafted c;
  c.index_type = fb::SparseTensorIndex::SparseMatrixIndexCSX;
  const fb::Buffer indptr = Append<int32_t>(&c.body, {0, 1, 2});
  const fb::Buffer indices = Append<int32_t>(&c.body, {1, 2});
  c.data = Append<float>(&c.body, {1, 2});
  c.index = Csx(fb::SparseMatrixCompressedAxis::Row, indptr, indices);
  return c;
}

// The same matrix as CSF (int32 indptr, int16 indices); `element_counts`
// records lengths as Arrow C++ does, otherwise in exact bytes.
Crafted HonestCsf(bool element_counts) {
  Crafted c;
  c.index_type = fb::SparseTensorIndex::SparseTensorIndexCSF;
  fb::Buffer indptr = Append<int32_t>(&c.body, {0, 1, 2});
  fb::Buffer rows = Append<int16_t>(&c.body, {0, 1});
  fb::Buffer columns = Append<int16_t>(&c.body, {1, 2});
  c.data = Append<float>(&c.body, {1, 2});
  if (element_counts) {
    indptr = fb::Buffer(indptr.offset(), 3);
    rows = fb::Buffer(rows.offset(), 2);
    columns = fb::Buffer(columns.offset(), 2);
  }
  c.index = Csf({indptr}, {rows, columns}, {0, 1});
  return c;
}

}  // namespace

TEST(SparseIpcHostile, CraftedHonestMessagesRead) {
  ASSERT_OK_AND_ASSIGN(SparseTensor coo, HonestCoo().Read());
  ASSERT_OK_AND_ASSIGN(Tensor dense, coo.ToDense());
  EXPECT_EQ(test::Values<double>(dense), (std::vector<double>{0, 1, 0, 0, 0, 2}));
  ASSERT_OK_AND_ASSIGN(SparseTensor csr, HonestCsr().Read());
  EXPECT_TRUE(csr.Equals(coo));
  // CSF lengths in elements (as Arrow C++ writes) and in bytes (the
  // format's unit) give the same tensor.
  ASSERT_OK_AND_ASSIGN(SparseTensor csf_elements, HonestCsf(true).Read());
  ASSERT_OK_AND_ASSIGN(SparseTensor csf_bytes, HonestCsf(false).Read());
  test::ExpectSameSparse(csf_elements, csf_bytes);
  EXPECT_TRUE(csf_elements.Equals(coo));
}

}  // namespace quiver::ipc
