// Fuzzes DLPack import: every field of a versioned managed tensor comes from
// the input. Any input must give a tensor or an error, never a crash, and
// the producer's deleter must run exactly once either way. (The memory a
// producer describes is trusted, so the tensor is not read here.)
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "fuzz_targets.h"
#include "quiver/dlpack.h"

namespace {

using namespace quiver::dlpack;

int deleter_calls = 0;

template <typename T>
T Take(const uint8_t*& data, size_t& size) {
  T value{};
  const size_t n = size < sizeof(T) ? size : sizeof(T);
  std::memcpy(&value, data, n);
  data += n;
  size -= n;
  return value;
}

}  // namespace

namespace quiver::fuzz {

int FuzzDlpackImport(const uint8_t* data, size_t size) {
  static uint8_t memory[256];
  int64_t shape[4], strides[4];
  auto* managed = new DLManagedTensorVersioned{};
  managed->version.major = Take<uint8_t>(data, size) % 3;
  managed->version.minor = Take<uint8_t>(data, size);
  const int8_t ndim = Take<int8_t>(data, size);
  managed->dl_tensor.ndim = ndim % 5;  // -4..4: the arrays above hold 4
  for (int i = 0; i < 4; ++i) shape[i] = Take<int64_t>(data, size);
  for (int i = 0; i < 4; ++i) strides[i] = Take<int64_t>(data, size);
  const uint8_t pointers = Take<uint8_t>(data, size);
  managed->dl_tensor.shape = pointers & 1 ? shape : nullptr;
  managed->dl_tensor.strides = pointers & 2 ? strides : nullptr;
  managed->dl_tensor.data = pointers & 4 ? memory : nullptr;
  managed->dl_tensor.dtype = {Take<uint8_t>(data, size), Take<uint8_t>(data, size),
                              Take<uint16_t>(data, size)};
  managed->dl_tensor.byte_offset = Take<uint64_t>(data, size);
  managed->dl_tensor.device = {Take<int32_t>(data, size), 0};
  managed->deleter = [](DLManagedTensorVersioned* self) {
    ++deleter_calls;
    delete self;
  };
  deleter_calls = 0;
  {
    auto tensor = Import(managed);
    if (tensor.ok() && deleter_calls != 0) __builtin_trap();
  }
  if (deleter_calls != 1) __builtin_trap();
  return 0;
}

}  // namespace quiver::fuzz
