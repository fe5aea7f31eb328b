// tools/text_format: sizes, shapes and NumPy-style tensors.
#include "text_format.h"

#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

namespace quiver::tools {
namespace {

Tensor Iota(TypePtr type, std::vector<int64_t> shape) {
  int64_t size = 1;
  for (int64_t s : shape) size *= s;
  auto buffer = *Buffer::Allocate(size * type->byte_width());
  for (int64_t i = 0; i < size; ++i) {
    const int32_t v = static_cast<int32_t>(i);
    std::memcpy(buffer->mutable_data() + i * 4, &v, 4);
  }
  return *Tensor::Make(std::move(type), buffer, shape);
}

TEST(TextFormat, Bytes) {
  EXPECT_EQ(FormatBytes(0), "0 B");
  EXPECT_EQ(FormatBytes(1023), "1023 B");
  EXPECT_EQ(FormatBytes(1536), "1.5 KiB");
  EXPECT_EQ(FormatBytes(int64_t{3} << 30), "3.0 GiB");
}

TEST(TextFormat, TensorLikeNumPy) {
  EXPECT_EQ(FormatTensor(Iota(int32(), {2, 3})), "[[0, 1, 2],\n [3, 4, 5]]");
  EXPECT_EQ(FormatTensor(Iota(int32(), {2, 1, 2})), "[[[0, 1]],\n\n [[2, 3]]]");
  EXPECT_EQ(FormatTensor(Iota(int32(), {})), "0");
  EXPECT_EQ(FormatTensor(Iota(int32(), {0})), "[]");
}

TEST(TextFormat, LongAxesAreCut) {
  EXPECT_EQ(FormatTensor(Iota(int32(), {2000})), "[0, 1, 2, ..., 1997, 1998, 1999]");
  EXPECT_EQ(FormatTensor(Iota(int32(), {10}), 3, 5), "[0, 1, 2, ..., 7, 8, 9]");
}

TEST(TextFormat, Floats) {
  float values[] = {1.0f, 0.5f, -2.25f};
  auto buffer = *Buffer::Allocate(sizeof(values));
  std::memcpy(buffer->mutable_data(), values, sizeof(values));
  EXPECT_EQ(FormatTensor(*Tensor::Make(float32(), buffer, {3})), "[1., 0.5, -2.25]");
}

}  // namespace
}  // namespace quiver::tools
