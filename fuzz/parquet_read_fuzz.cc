// Fuzzes the Parquet reader's column data (src/quiver/parquet/): any bytes
// opened as a Parquet file and read row group by row group (page headers,
// decompression, levels, every value encoding, the assembly into arrays)
// give record batches that validate in full, or an error; never a crash.
// Runs of rows read through the offset index (ReadRowRange, ReadRowRanges)
// give batches of those rows, or an error.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "fuzz_targets.h"
#include "quiver/io.h"
#include "quiver/parquet.h"

namespace quiver::fuzz {

int FuzzParquetRead(const uint8_t* data, size_t size) {
  // A copy the source owns, as a file's bytes would be.
  auto bytes = Buffer::Allocate(static_cast<int64_t>(size));
  if (!bytes.ok()) return 0;
  if (size > 0) std::memcpy((*bytes)->mutable_data(), data, size);
  auto file = parquet::ParquetFile::Open(io::BufferSource(*bytes));
  if (!file.ok()) return 0;
  parquet::ParquetReadOptions options;
  options.threads = 1;
  for (int g = 0; g < (*file)->num_row_groups(); ++g) {
    // Bound the work an input can ask for: a footer may claim billions of
    // values that a few bytes of RLE runs would decode to.
    if ((*file)->row_group(g).num_rows > (int64_t{1} << 20)) continue;
    auto batch = (*file)->ReadRowGroup(g, options);
    if (!batch.ok()) continue;
    // RecordBatch::Make validated it in full; check the row count and schema.
    if ((*batch)->num_rows() != (*file)->row_group(g).num_rows) __builtin_trap();
    if ((*batch)->num_columns() != static_cast<int>((*file)->schema()->fields.size())) {
      __builtin_trap();
    }
    const int64_t rows = (*batch)->num_rows();
    auto part = (*file)->ReadRowRange(g, rows / 3, rows / 3, options);
    if (part.ok() && (*part)->num_rows() != rows / 3) __builtin_trap();
    // Two runs at once (each leaf's pages in one read), as a dataset's take
    // reads them between the page starts.
    const std::vector<std::pair<int64_t, int64_t>> runs{{0, rows / 4}, {rows / 2, rows - rows / 2}};
    auto parts = (*file)->ReadRowRanges(g, runs, options);
    if (parts.ok()) {
      if (parts->size() != runs.size()) __builtin_trap();
      for (size_t r = 0; r < runs.size(); ++r) {
        if ((*parts)[r]->num_rows() != runs[r].second) __builtin_trap();
      }
    }
    auto starts = (*file)->PageRowStarts(g, options);
    if (starts.ok() && *starts && (starts->value().empty() || starts->value()[0] != 0)) {
      __builtin_trap();
    }
  }
  return 0;
}

}  // namespace quiver::fuzz
