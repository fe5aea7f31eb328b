// Fuzzes the Tensor message reader: any bytes must give a tensor whose
// every element lies inside its data, or an error.
#include "fuzz_targets.h"
#include "ipc_fuzz_common.h"

namespace quiver::fuzz {

int FuzzIpcTensor(const uint8_t* data, size_t size) {
  auto tensor = ipc::ReadTensor(ipc::BufferSource(InputBuffer(data, size)));
  if (!tensor.ok()) return 0;
  // Small tensors are read element by element and written back; large ones
  // (zero strides can make a few bytes a huge tensor) may rightly fail to
  // allocate a dense copy, which must then be an error, not a crash.
  const bool small = tensor->size() <= (int64_t{1} << 20);
  auto dense = small ? tensor->ToContiguous() : Result<Tensor>(Status::OutOfMemory("skipped"));
  if (small && !dense.ok()) abort();
  ipc::BufferSink out;
  Status written = ipc::WriteTensor(*tensor, &out);
  if (small && !written.ok()) abort();
  return 0;
}

}  // namespace quiver::fuzz
