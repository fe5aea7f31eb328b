// Fuzzes the `quiver` tool's .npy reader (tools/npy.h) and, for input
// that starts as a zip archive does ("PK"), its .npz reader (tools/npz.h):
// any bytes must give an array whose every element lies inside the input,
// or an error.
#include "fuzz_targets.h"
#include "ipc_fuzz_common.h"
#include "npy.h"
#include "npz.h"

namespace quiver::fuzz {

namespace {

void UseNpy(const BufferPtr& bytes) {
  auto array = tools::ReadNpy(bytes);
  if (!array.ok()) return;
  const Tensor& tensor = array->tensor;
  if (!tensor.IsContiguous()) abort();  // the reader hands out C order only
  volatile uint64_t sum = 0;
  const int64_t size = tensor.size() * tensor.type()->byte_width();
  for (int64_t i = 0; i < size; ++i) sum = sum + tensor.raw_data()[i];
  // What the writer makes of it parses back to the same dtype and shape.
  auto header = tools::NpyHeaderFor(*tensor.type(), tensor.shape());
  if (!header.ok()) abort();
  auto parsed = tools::ParseNpyHeader(reinterpret_cast<const uint8_t*>(header->data()),
                                      static_cast<int64_t>(header->size()));
  if (!parsed.ok() || parsed->shape != std::vector<int64_t>(tensor.shape()) ||
      !parsed->type->Equals(*tensor.type())) {
    abort();
  }
}

}  // namespace

int FuzzNpyReader(const uint8_t* data, size_t size) {
  BufferPtr input = InputBuffer(data, size);
  if (size >= 2 && data[0] == 'P' && data[1] == 'K') {
    auto source = ipc::BufferSource(input);
    auto members = tools::ReadZipDirectory(*source);
    if (!members.ok()) return 0;
    for (const tools::ZipMember& member : *members) {
      // Claims beyond the input's own size (times deflate's best ratio)
      // are refused by the reader; stay well below a fuzzer's memory limit.
      if (member.size > (int64_t{64} << 20)) continue;
      auto bytes = tools::ReadZipMember(*source, member);
      if (bytes.ok()) UseNpy(*bytes);
    }
    return 0;
  }
  UseNpy(input);
  return 0;
}

}  // namespace quiver::fuzz
