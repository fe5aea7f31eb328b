// Helpers for the SparseTensor message tests: dense tensors of any value
// type, writing and reading back, and an exact comparison of two sparse
// tensors (same index arrays, not only the same values).
#pragma once

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "quiver/ipc.h"
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
inline Tensor DenseOf(const TypePtr& type, const std::vector<double>& values, std::vector<int64_t> shape) {
  const int64_t width = type->byte_width();
  std::vector<uint8_t> bytes(values.size() * static_cast<size_t>(width));
  for (size_t i = 0; i < values.size(); ++i) {
    uint8_t* at = &bytes[i * static_cast<size_t>(width)];
    auto put = [at](auto x) { std::memcpy(at, &x, sizeof(x)); };
    if (type->is_bool8()) {
      put(static_cast<uint8_t>(values[i] != 0));
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
  EXPECT_TRUE(a.type()->Equals(*b.type())) << what << ": " << a.type()->ToString() << " vs " << b.type()->ToString();
  EXPECT_EQ(a.shape(), b.shape()) << what;
  EXPECT_EQ(Values<double>(a), Values<double>(b)) << what;
}

// The same tensor: format, value type, shape, names, flags, every index
// array and every value as stored, and equal by value.
inline void ExpectSameSparse(const SparseTensor& a, const SparseTensor& b) {
  EXPECT_EQ(a.format(), b.format());
  EXPECT_TRUE(a.type()->Equals(*b.type())) << a.type()->ToString() << " vs " << b.type()->ToString();
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
    for (size_t k = 0; k < x.indptr.size(); ++k) ExpectSameArray(x.indptr[k], y.indptr[k], "indptr " + std::to_string(k));
    for (size_t k = 0; k < x.indices.size(); ++k) ExpectSameArray(x.indices[k], y.indices[k], "indices " + std::to_string(k));
    EXPECT_EQ(x.axis_order, y.axis_order);
  }
  EXPECT_TRUE(a.Equals(b)) << a.ToString() << " vs " << b.ToString();
}

}  // namespace quiver::test
