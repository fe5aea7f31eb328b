// Helpers shared by the C++ tests: status assertions, array builders,
// Iota tensors and the largest int64.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "quiver/array.h"
#include "quiver/buffer.h"
#include "quiver/status.h"
#include "quiver/tensor.h"

#define ASSERT_OK(expr)                      \
  do {                                       \
    ::quiver::Status _st = (expr);           \
    ASSERT_TRUE(_st.ok()) << _st.ToString(); \
  } while (false)

#define ASSERT_OK_AND_ASSIGN_IMPL(tmp, lhs, rexpr)  \
  auto tmp = (rexpr);                               \
  ASSERT_TRUE(tmp.ok()) << tmp.status().ToString(); \
  lhs = std::move(*tmp)

#define ASSERT_OK_AND_ASSIGN(lhs, rexpr) \
  ASSERT_OK_AND_ASSIGN_IMPL(QUIVER_CONCAT(_test_result_, __LINE__), lhs, rexpr)

// Asserts a failure with `code` whose message contains `fragment`.
#define EXPECT_ERROR(expected_code, fragment, expr)                               \
  do {                                                                            \
    auto _res = (expr);                                                           \
    ::quiver::Status _st = ::quiver::test::StatusOf(_res);                        \
    EXPECT_EQ(_st.code(), ::quiver::StatusCode::expected_code) << _st.ToString(); \
    EXPECT_NE(_st.message().find(fragment), std::string::npos) << _st.ToString(); \
  } while (false)

namespace quiver::test {

inline Status StatusOf(const Status& s) { return s; }
template <typename T>
Status StatusOf(const Result<T>& r) {
  return r.ok() ? Status::OK() : r.status();
}

// An owned buffer holding `bytes` bytes copied from `data`.
inline BufferPtr BufferFrom(const void* data, int64_t bytes) {
  BufferPtr buffer = *Buffer::Allocate(bytes);
  if (bytes > 0) std::memcpy(buffer->mutable_data(), data, bytes);
  return buffer;
}

template <typename T>
BufferPtr BufferOf(const std::vector<T>& values) {
  return BufferFrom(values.data(), static_cast<int64_t>(values.size() * sizeof(T)));
}

// A validity bitmap from flags (true = valid), or nullptr when all valid.
inline BufferPtr Bitmap(const std::vector<bool>& valid) {
  bool all = true;
  for (bool v : valid) all = all && v;
  if (all) return nullptr;
  BufferPtr buffer = *Buffer::Allocate((static_cast<int64_t>(valid.size()) + 7) / 8);
  for (size_t i = 0; i < valid.size(); ++i) {
    if (valid[i]) buffer->mutable_data()[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
  }
  return buffer;
}

template <typename T>
ArrayDataPtr Primitive(TypePtr type, const std::vector<T>& values,
                       const std::vector<bool>& valid = {}) {
  auto data = std::make_shared<ArrayData>();
  data->type = std::move(type);
  data->length = static_cast<int64_t>(values.size());
  data->buffers = {valid.empty() ? nullptr : Bitmap(valid), BufferOf(values)};
  data->null_count = valid.empty() ? 0 : kUnknownNullCount;
  return data;
}

inline ArrayDataPtr Utf8(const std::vector<std::optional<std::string>>& values) {
  std::vector<int32_t> offsets = {0};
  std::string bytes;
  std::vector<bool> valid;
  for (const auto& v : values) {
    if (v) bytes += *v;
    valid.push_back(v.has_value());
    offsets.push_back(static_cast<int32_t>(bytes.size()));
  }
  auto data = std::make_shared<ArrayData>();
  data->type = utf8();
  data->length = static_cast<int64_t>(values.size());
  data->buffers = {Bitmap(valid), BufferOf(offsets), BufferFrom(bytes.data(), bytes.size())};
  return data;
}

inline constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

// A row-major tensor of `type` (whose C type is T) and `shape` holding
// start, start + 1, ...
template <typename T>
Tensor IotaOf(const TypePtr& type, std::vector<int64_t> shape, T start = 0) {
  int64_t size = 1;
  for (int64_t s : shape) size *= s;
  std::vector<T> values(static_cast<size_t>(size));
  std::iota(values.begin(), values.end(), start);
  return *Tensor::Make(type, BufferOf(values), std::move(shape));
}

}  // namespace quiver::test
