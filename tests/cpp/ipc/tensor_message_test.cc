// The Tensor IPC message: dense tensors written and read back.
#include "quiver/ipc.h"

#include <cstdio>
#include <cstring>
#include <string>
#include <unistd.h>

#include "no_threads.h"
#include "quiver/fixed_shape_tensor.h"
#include "quiver/variable_shape_tensor.h"
#include "test_util.h"

namespace quiver::ipc {

using test::BufferOf;

TEST(Ipc, TensorMessageRoundTrip) {
  std::vector<int32_t> values(24);
  for (int i = 0; i < 24; ++i) values[static_cast<size_t>(i)] = i;
  ASSERT_OK_AND_ASSIGN(Tensor tensor, Tensor::Make(int32(), BufferOf(values), {2, 3, 4}, {},
                                                   {"a", "b", "c"}));
  // Row-major, a column-major view of the same bytes, and a strided slice.
  ASSERT_OK_AND_ASSIGN(Tensor fortran, Tensor::Make(int32(), tensor.buffer(), {4, 3, 2}, {4, 16, 48}));
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

}  // namespace quiver::ipc
