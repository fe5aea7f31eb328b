// Helpers for the SparseTensor message tests: dense tensors of any value
// type, writing and reading back, an exact comparison of two sparse
// tensors (same index arrays, not only the same values), whether a read
// tensor points into its source, and SparseTensor messages crafted field
// by field with the generated flatbuffer code.
#pragma once

#include <cmath>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "quiver/ipc.h"
#include "quiver/ipc/message.h"
#include "quiver/sparse_tensor.h"
#include "sparse_test_util.h"

namespace quiver::test {

// float16 bits of a small integer (|v| < 2048), exact.
inline uint16_t HalfBits(double v) {
  if (v == 0) return 0;
  const int64_t n = static_cast<int64_t>(std::fabs(v));
  int exponent = 0;
  while ((int64_t{1} << (exponent + 1)) <= n) ++exponent;
  const int64_t mantissa = (n - (int64_t{1} << exponent)) << (10 - exponent);
  return static_cast<uint16_t>((v < 0 ? 0x8000 : 0) | ((exponent + 15) << 10) | mantissa);
}

// A row-major tensor of `type` holding `values` (small integers; bool8
// stores 0 or 1).
inline Tensor DenseOf(const TypePtr& type, const std::vector<double>& values,
                      std::vector<int64_t> shape) {
  const int64_t width = type->byte_width();
  std::vector<uint8_t> bytes(values.size() * static_cast<size_t>(width));
  for (size_t i = 0; i < values.size(); ++i) {
    uint8_t* at = &bytes[i * static_cast<size_t>(width)];
    auto put = [at](auto x) { std::memcpy(at, &x, sizeof(x)); };
    if (type->is_bool8()) {
      put(static_cast<uint8_t>(values[i] != 0));
      continue;
    }
    if (type->is_low_precision_float()) {  // the bits, little-endian, of the nearest value
      const internal::LowFloatFormat kind = type->is_bfloat16() ? internal::kBFloat16Format
                                            : type->is_float8_e5m2()
                                                ? internal::kFloat8E5M2Format
                                                : internal::kFloat8E4M3FNFormat;
      const uint32_t bits = internal::LowFloatFromDouble(kind, values[i]);
      std::memcpy(at, &bits, static_cast<size_t>(width));
      continue;
    }
    switch (type->id()) {
      case TypeId::kInt8: put(static_cast<int8_t>(values[i])); break;
      case TypeId::kInt16: put(static_cast<int16_t>(values[i])); break;
      case TypeId::kInt32: put(static_cast<int32_t>(values[i])); break;
      case TypeId::kInt64: put(static_cast<int64_t>(values[i])); break;
      case TypeId::kUInt8: put(static_cast<uint8_t>(values[i])); break;
      case TypeId::kUInt16: put(static_cast<uint16_t>(values[i])); break;
      case TypeId::kUInt32: put(static_cast<uint32_t>(values[i])); break;
      case TypeId::kUInt64: put(static_cast<uint64_t>(values[i])); break;
      case TypeId::kFloat16: put(HalfBits(values[i])); break;
      case TypeId::kFloat32: put(static_cast<float>(values[i])); break;
      default: put(values[i]); break;
    }
  }
  auto made = Tensor::Make(type, BufferOf(bytes), std::move(shape));
  EXPECT_TRUE(made.ok()) << made.status().ToString();
  return *made;
}

inline Result<BufferPtr> Written(const SparseTensor& tensor) {
  ipc::BufferSink sink;
  QUIVER_RETURN_NOT_OK(ipc::WriteSparseTensor(tensor, &sink));
  return sink.Finish();
}

inline Result<SparseTensor> RoundTrip(const SparseTensor& tensor, ipc::ReadOptions options = {}) {
  QUIVER_ASSIGN_OR_RETURN(BufferPtr bytes, Written(tensor));
  return ipc::ReadSparseTensor(ipc::BufferSource(bytes), 0, options);
}

// Same type and entries, whatever the strides.
inline void ExpectSameArray(const Tensor& a, const Tensor& b, const std::string& what) {
  EXPECT_TRUE(a.type()->Equals(*b.type()))
      << what << ": " << a.type()->ToString() << " vs " << b.type()->ToString();
  EXPECT_EQ(a.shape(), b.shape()) << what;
  EXPECT_EQ(Values<double>(a), Values<double>(b)) << what;
}

// The same tensor: format, value type, shape, names, flags, every index
// array and every value as stored, and equal by value.
inline void ExpectSameSparse(const SparseTensor& a, const SparseTensor& b) {
  EXPECT_EQ(a.format(), b.format());
  EXPECT_TRUE(a.type()->Equals(*b.type()))
      << a.type()->ToString() << " vs " << b.type()->ToString();
  EXPECT_EQ(a.shape(), b.shape());
  EXPECT_EQ(a.dim_names(), b.dim_names());
  EXPECT_EQ(a.non_zero_length(), b.non_zero_length());
  ExpectSameArray(a.values(), b.values(), "values");
  if (a.coo_index() && b.coo_index()) {
    ExpectSameArray(a.coo_index()->coords, b.coo_index()->coords, "coords");
    EXPECT_EQ(a.coo_index()->canonical, b.coo_index()->canonical);
  }
  if (a.csx_index() && b.csx_index()) {
    ExpectSameArray(a.csx_index()->indptr, b.csx_index()->indptr, "indptr");
    ExpectSameArray(a.csx_index()->indices, b.csx_index()->indices, "indices");
  }
  if (a.csf_index() && b.csf_index()) {
    const SparseCSFIndex& x = *a.csf_index();
    const SparseCSFIndex& y = *b.csf_index();
    ASSERT_EQ(x.indptr.size(), y.indptr.size());
    ASSERT_EQ(x.indices.size(), y.indices.size());
    for (size_t k = 0; k < x.indptr.size(); ++k)
      ExpectSameArray(x.indptr[k], y.indptr[k], "indptr " + std::to_string(k));
    for (size_t k = 0; k < x.indices.size(); ++k)
      ExpectSameArray(x.indices[k], y.indices[k], "indices " + std::to_string(k));
    EXPECT_EQ(x.axis_order, y.axis_order);
  }
  EXPECT_TRUE(a.Equals(b)) << a.ToString() << " vs " << b.ToString();
}

// A 2 x 3 x 4 dense tensor of `type` with six non-zeros (values 1..6; bits
// of small halves for float16, ones for bool8); 4 x 6 when `ndim` is 2.
inline Tensor SampleDense(const TypePtr& type, int ndim) {
  const std::vector<int64_t> shape =
      ndim == 2 ? std::vector<int64_t>{4, 6} : std::vector<int64_t>{2, 3, 4};
  std::vector<double> dense(24, 0.0);
  const int positions[] = {1, 7, 10, 13, 22, 23};
  for (int i = 0; i < 6; ++i) dense[static_cast<size_t>(positions[i])] = i + 1;
  return DenseOf(type, dense, shape);
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
inline bool AllInside(const SparseTensor& tensor, const Span& span) {
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

// --- Crafted SparseTensor messages ------------------------------------

using IndexBuilder = std::function<flatbuffers::Offset<void>(flatbuffers::FlatBufferBuilder&)>;

enum class ValueType { kFloat32, kInt8, kInt16, kUtf8, kBool };

// One SparseTensor message, every field chosen by the test.
struct Crafted {
  ValueType value_type = ValueType::kFloat32;
  std::vector<int64_t> shape = {2, 3};
  int64_t nnz = 2;
  ipc::fb::SparseTensorIndex index_type = ipc::fb::SparseTensorIndex::SparseTensorIndexCOO;
  IndexBuilder index;
  ipc::fb::Buffer data;
  std::vector<uint8_t> body;
  KeyValueMetadata custom;

  BufferPtr Build() const {
    namespace fb = ipc::fb;
    flatbuffers::FlatBufferBuilder builder;
    auto [type_type, type] = WriteValueType(builder);
    std::vector<flatbuffers::Offset<fb::TensorDim>> dims;
    for (int64_t size : shape) dims.push_back(fb::CreateTensorDim(builder, size));
    auto shape_offset = builder.CreateVector(dims);
    auto index_offset = index(builder);
    auto sparse = fb::CreateSparseTensor(builder, type_type, type, shape_offset, nnz, index_type,
                                         index_offset, &data);
    builder.Finish(fb::CreateMessage(
        builder, fb::MetadataVersion::V5, fb::MessageHeader::SparseTensor, sparse.Union(),
        static_cast<int64_t>(body.size()), ipc::WriteKeyValues(builder, custom)));
    BufferPtr framed = *ipc::FrameMetadata(builder, 0, 8);
    std::vector<uint8_t> bytes(framed->data(), framed->data() + framed->size());
    bytes.insert(bytes.end(), body.begin(), body.end());
    return BufferOf(bytes);
  }

  std::pair<ipc::fb::Type, flatbuffers::Offset<void>> WriteValueType(
      flatbuffers::FlatBufferBuilder& builder) const {
    namespace fb = ipc::fb;
    switch (value_type) {
      case ValueType::kInt8: return {fb::Type::Int, fb::CreateInt(builder, 8, true).Union()};
      case ValueType::kInt16: return {fb::Type::Int, fb::CreateInt(builder, 16, true).Union()};
      case ValueType::kUtf8: return {fb::Type::Utf8, fb::CreateUtf8(builder).Union()};
      case ValueType::kBool: return {fb::Type::Bool, fb::CreateBool(builder).Union()};
      default:
        return {fb::Type::FloatingPoint,
                fb::CreateFloatingPoint(builder, fb::Precision::SINGLE).Union()};
    }
  }

  Result<SparseTensor> Read(ipc::ReadOptions options = {}) const {
    return ipc::ReadSparseTensor(ipc::BufferSource(Build()), 0, options);
  }
};

// Appends `values` to `body`, padded to 8 bytes; their Buffer (exact bytes).
template <typename T>
ipc::fb::Buffer Append(std::vector<uint8_t>* body, const std::vector<T>& values) {
  const int64_t offset = static_cast<int64_t>(body->size());
  const size_t bytes = values.size() * sizeof(T);
  body->resize(body->size() + bytes + (8 - bytes % 8) % 8, 0);
  if (bytes > 0) std::memcpy(body->data() + offset, values.data(), bytes);
  return ipc::fb::Buffer(offset, static_cast<int64_t>(bytes));
}

inline IndexBuilder Coo(int bits, ipc::fb::Buffer buffer, bool canonical = true,
                        std::optional<std::vector<int64_t>> strides = std::nullopt) {
  return [=](flatbuffers::FlatBufferBuilder& b) {
    auto type = ipc::fb::CreateInt(b, bits, true);
    flatbuffers::Offset<flatbuffers::Vector<int64_t>> stride_offset = 0;
    if (strides) stride_offset = b.CreateVector(*strides);
    return ipc::fb::CreateSparseTensorIndexCOO(b, type, stride_offset, &buffer, canonical).Union();
  };
}

inline IndexBuilder Csx(ipc::fb::SparseMatrixCompressedAxis axis, ipc::fb::Buffer indptr,
                        ipc::fb::Buffer indices) {
  return [=](flatbuffers::FlatBufferBuilder& b) {
    auto indptr_type = ipc::fb::CreateInt(b, 32, true);
    auto indices_type = ipc::fb::CreateInt(b, 32, true);
    return ipc::fb::CreateSparseMatrixIndexCSX(b, axis, indptr_type, &indptr, indices_type,
                                               &indices)
        .Union();
  };
}

inline IndexBuilder Csf(std::vector<ipc::fb::Buffer> indptr, std::vector<ipc::fb::Buffer> indices,
                        std::vector<int32_t> axis_order, int indices_bits = 16) {
  return [=](flatbuffers::FlatBufferBuilder& b) {
    auto indptr_type = ipc::fb::CreateInt(b, 32, true);
    auto indices_type = ipc::fb::CreateInt(b, indices_bits, true);
    return ipc::fb::CreateSparseTensorIndexCSF(b, indptr_type, b.CreateVectorOfStructs(indptr),
                                               indices_type, b.CreateVectorOfStructs(indices),
                                               b.CreateVector(axis_order))
        .Union();
  };
}

// A 2 x 3 float32 COO tensor with (0, 1) = 1 and (1, 2) = 2, int32 coordinates.
inline Crafted HonestCoo() {
  Crafted c;
  const ipc::fb::Buffer coords = Append<int32_t>(&c.body, {0, 1, 1, 2});
  c.data = Append<float>(&c.body, {1, 2});
  c.index = Coo(32, coords);
  return c;
}

// The same matrix as CSR.
inline Crafted HonestCsr() {
  Crafted c;
  c.index_type = ipc::fb::SparseTensorIndex::SparseMatrixIndexCSX;
  const ipc::fb::Buffer indptr = Append<int32_t>(&c.body, {0, 1, 2});
  const ipc::fb::Buffer indices = Append<int32_t>(&c.body, {1, 2});
  c.data = Append<float>(&c.body, {1, 2});
  c.index = Csx(ipc::fb::SparseMatrixCompressedAxis::Row, indptr, indices);
  return c;
}

// The same matrix as CSF (int32 indptr, int16 indices); `element_counts`
// records lengths as Arrow C++ does, otherwise in exact bytes.
inline Crafted HonestCsf(bool element_counts) {
  Crafted c;
  c.index_type = ipc::fb::SparseTensorIndex::SparseTensorIndexCSF;
  ipc::fb::Buffer indptr = Append<int32_t>(&c.body, {0, 1, 2});
  ipc::fb::Buffer rows = Append<int16_t>(&c.body, {0, 1});
  ipc::fb::Buffer columns = Append<int16_t>(&c.body, {1, 2});
  c.data = Append<float>(&c.body, {1, 2});
  if (element_counts) {
    indptr = ipc::fb::Buffer(indptr.offset(), 3);
    rows = ipc::fb::Buffer(rows.offset(), 2);
    columns = ipc::fb::Buffer(columns.offset(), 2);
  }
  c.index = Csf({indptr}, {rows, columns}, {0, 1});
  return c;
}

}  // namespace quiver::test
