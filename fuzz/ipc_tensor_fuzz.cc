// Fuzzes the Tensor message reader: any bytes must give a tensor whose
// every element lies inside its data, or an error.
#include "fuzz_targets.h"
#include "ipc_fuzz_common.h"

namespace quiver::fuzz {

int FuzzIpcTensor(const uint8_t* data, size_t size) {
  auto tensor = ipc::ReadTensor(ipc::BufferSource(InputBuffer(data, size)));
  if (!tensor.ok()) return 0;
  // Small tensors are read element by element and written back. Zero
  // strides can make a few bytes a huge tensor, whose dense copy is large
  // by right: those are only read, not expanded.
  if (tensor->size() > (int64_t{1} << 20)) return 0;
  if (!tensor->ToContiguous().ok()) abort();
  ipc::BufferSink out;
  if (!ipc::WriteTensor(*tensor, &out).ok()) abort();
  return 0;
}

}  // namespace quiver::fuzz
