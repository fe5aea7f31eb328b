// Fuzzes the IPC stream reader: any bytes must give batches or an error,
// never a crash, and every batch it returns must be usable to its last byte.
#include "fuzz_targets.h"
#include "ipc_fuzz_common.h"

namespace quiver::fuzz {

int FuzzIpcStream(const uint8_t* data, size_t size) {
  ipc::ReadOptions options;
  options.max_decompressed_buffer = int64_t{1} << 24;  // keep allocations small
  auto reader = ipc::StreamReader::Open(ipc::BufferSource(InputBuffer(data, size)), options);
  if (!reader.ok()) return 0;
  for (int k = 0; k < 64; ++k) {
    auto batch = (*reader)->Next();
    if (!batch.ok() || !*batch) break;
    UseBatch(**batch);
  }
  // Again as read_all(validate="lazy") reads it: values checked after.
  reader = ipc::StreamReader::Open(ipc::BufferSource(InputBuffer(data, size)), options);
  if (!reader.ok()) return 0;
  if (auto all = (*reader)->ReadAll(1, ValidationLevel::kMinimal); all.ok()) {
    UseLazyBatches((*reader)->schema(), *all);
  }
  // Again through layouts and single body buffers (what quiver inspect reads).
  reader = ipc::StreamReader::Open(ipc::BufferSource(InputBuffer(data, size)), options);
  if (!reader.ok()) return 0;
  for (int k = 0; k < 64; ++k) {
    auto layout = (*reader)->NextLayout();
    if (!layout.ok() || !*layout) break;
    UseLayout(
        **layout, [&](int64_t b) { return (*reader)->ReadBodyBuffer(b); },
        [&](int64_t b) { return (*reader)->ReadBodyBufferSize(b); });
  }
  return 0;
}

}  // namespace quiver::fuzz
