// Fuzzes the dataset's index and its column-by-column reads: any bytes,
// opened as a dataset source (an IPC file by its footer and batch headers,
// an IPC stream by walking its message headers), must give an index or an
// error, never a crash; every row a take, a slice or a record batch then
// returns must be usable to its last byte (a take of a few rows first,
// which a pread source reads row by row, and of a few more, whose
// compressed blocks are decoded alone). Byte 0 picks how: bit 0 maps
// the source or reads it with pread, bit 1 projects every other column.
#include <sys/mman.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "fuzz_targets.h"
#include "ipc_fuzz_common.h"
#include "quiver/dataset.h"

namespace quiver::fuzz {

namespace {

// The bytes as a file the dataset opens by path (an anonymous memory
// file: no disk, gone when closed).
int MemoryFile(const uint8_t* data, size_t size) {
  const int fd = memfd_create("dataset_index_fuzz", 0);
  if (fd < 0) abort();
  size_t done = 0;
  while (done < size) {
    const ssize_t wrote = write(fd, data + done, size - done);
    if (wrote <= 0) abort();
    done += static_cast<size_t>(wrote);
  }
  return fd;
}

void UseTable(const Table& table) {
  volatile uint64_t sink = 0;
  for (int i = 0; i < table.num_columns(); ++i) {
    for (const ArrayDataPtr& chunk : table.column(i)->chunks()) sink = sink + Touch(*chunk);
  }
}

void Exercise(dataset::Dataset& dataset) {
  const int64_t rows = std::min<int64_t>(dataset.num_rows(), 256);
  if (rows > 0) {
    // A few rows first, before anything is cached: read alone (their bytes
    // only) from a pread source where the columns allow.
    const std::vector<int64_t> few = {rows - 1, rows / 2, 0};
    if (auto taken = dataset.Take(few); taken.ok()) UseTable(**taken);
    // Again, once the source is known to be compressed (a mapped one too):
    // the blocks of a few rows alone, then the same batch's blocks known.
    const std::vector<int64_t> others = {rows / 4, (3 * rows) / 4, rows / 4 + 1};
    for (int again = 0; again < 2; ++again) {
      if (auto taken = dataset.Take(others); taken.ok()) UseTable(**taken);
    }
  }
  std::vector<int64_t> reversed;
  for (int64_t i = rows; i-- > 0;) reversed.push_back(i);
  if (auto taken = dataset.Take(reversed); taken.ok()) UseTable(**taken);
  if (auto sliced = dataset.Slice(0, rows); sliced.ok()) UseTable(**sliced);
  for (int k = 0; k < dataset.num_record_batches() && k < 16; ++k) {
    if (auto batch = dataset.ReadRecordBatch(k); batch.ok()) UseBatch(**batch);
  }
}

}  // namespace

int FuzzDatasetIndex(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const int fd = MemoryFile(data + 1, size - 1);
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  dataset::DatasetOptions options;
  options.memory_map = (data[0] & 1) != 0;
  options.cache_bytes = int64_t{1} << 20;
  options.threads = 1;
  auto opened = dataset::Dataset::Open({path}, options);
  if (opened.ok() && (data[0] & 2) != 0) {
    // Every other column by name: projections read buffers alone.
    for (size_t i = 0; i < (*opened)->schema()->fields.size(); i += 2) {
      options.columns.push_back((*opened)->schema()->fields[i].name);
    }
    opened = dataset::Dataset::Open({path}, options);
  }
  if (opened.ok()) Exercise(**opened);
  close(fd);
  return 0;
}

}  // namespace quiver::fuzz
