// Fuzzes the IPC file reader (footer, the row counts its custom_metadata
// lists, dictionary blocks, random access to batches, batch layouts,
// single body buffers, and every batch at kMinimal checked afterwards):
// any bytes must give batches or an error, never a crash.
#include "fuzz_targets.h"
#include "ipc_fuzz_common.h"

namespace quiver::fuzz {

int FuzzIpcFile(const uint8_t* data, size_t size) {
  ipc::ReadOptions options;
  options.max_decompressed_buffer = int64_t{1} << 24;
  auto reader = ipc::FileReader::Open(ipc::BufferSource(InputBuffer(data, size)), options);
  if (!reader.ok()) return 0;
  const int count = (*reader)->num_record_batches();
  // The footer's row counts are parsed from the input: one per batch, none
  // negative, or none at all.
  if (auto rows = (*reader)->FooterRecordBatchRows()) {
    if (rows->size() != static_cast<size_t>(count)) abort();
    for (int64_t n : *rows) {
      if (n < 0) abort();
    }
  }
  for (int i = count - 1; i >= 0 && i >= count - 64; --i) {  // backwards: random access
    auto batch = (*reader)->ReadRecordBatch(i);
    if (batch.ok()) UseBatch(**batch);
    auto layout = (*reader)->RecordBatchLayout(i);
    if (layout.ok()) {
      UseLayout(
          *layout, [&](int64_t b) { return (*reader)->ReadBodyBuffer(i, b); },
          [&](int64_t b) { return (*reader)->ReadBodyBufferSize(i, b); });
    }
  }
  // As read_all(validate="lazy") reads it: values checked after.
  if (auto all = (*reader)->ReadAllRecordBatches(1, ValidationLevel::kMinimal); all.ok()) {
    UseLazyBatches((*reader)->schema(), *all);
  }
  return 0;
}

}  // namespace quiver::fuzz
