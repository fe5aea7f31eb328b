// Fuzzes the Parquet metadata reader (src/quiver/parquet/): any bytes read
// as a file's footer, and as a page header, give metadata or an error,
// never a crash; metadata that decodes encodes to bytes that decode to the
// same encoding again (nothing the writer writes is lost or misread); the
// same for the bytes read as a page index (OffsetIndex, ColumnIndex); and
// the same bytes opened as a ParquetFile (the schema tree, its Arrow types
// and the footer's checks against itself) give a file whose row groups
// add up and whose page indexes read within them, or an error.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "fuzz_targets.h"
#include "quiver/io.h"
#include "quiver/parquet.h"
#include "quiver/parquet/file_footer.h"
#include "quiver/parquet/metadata.h"

namespace quiver::fuzz {

namespace {

void CheckFooterRoundTrip(const parquet::FileMetaData& metadata) {
  const std::string encoded = parquet::EncodeFileMetaData(metadata);
  auto again = parquet::DecodeFileMetaData(reinterpret_cast<const uint8_t*>(encoded.data()),
                                           static_cast<int64_t>(encoded.size()), "re-encoded");
  if (!again.ok() || parquet::EncodeFileMetaData(*again) != encoded) __builtin_trap();
}

void CheckPageHeader(const uint8_t* data, size_t size) {
  int64_t header_size = -1;
  auto header =
      parquet::DecodePageHeader(data, static_cast<int64_t>(size), "fuzz page", &header_size);
  if (!header.ok()) return;
  if (header_size <= 0 || header_size > static_cast<int64_t>(size)) __builtin_trap();
  const std::string encoded = parquet::EncodePageHeader(*header);
  int64_t again_size = -1;
  auto again =
      parquet::DecodePageHeader(reinterpret_cast<const uint8_t*>(encoded.data()),
                                static_cast<int64_t>(encoded.size()), "re-encoded", &again_size);
  if (!again.ok() || again_size != static_cast<int64_t>(encoded.size()) ||
      parquet::EncodePageHeader(*again) != encoded) {
    __builtin_trap();
  }
}

void CheckPageIndexes(const uint8_t* data, size_t size) {
  auto offsets = parquet::DecodeOffsetIndex(data, static_cast<int64_t>(size), "fuzz index");
  if (offsets.ok()) {
    const std::string encoded = parquet::EncodeOffsetIndex(*offsets);
    auto again = parquet::DecodeOffsetIndex(reinterpret_cast<const uint8_t*>(encoded.data()),
                                            static_cast<int64_t>(encoded.size()), "re-encoded");
    if (!again.ok() || parquet::EncodeOffsetIndex(*again) != encoded) __builtin_trap();
  }
  auto columns = parquet::DecodeColumnIndex(data, static_cast<int64_t>(size), "fuzz index");
  if (columns.ok()) {
    if (columns->min_values.size() != columns->null_pages.size() ||
        columns->max_values.size() != columns->null_pages.size()) {
      __builtin_trap();
    }
    const std::string encoded = parquet::EncodeColumnIndex(*columns);
    auto again = parquet::DecodeColumnIndex(reinterpret_cast<const uint8_t*>(encoded.data()),
                                            static_cast<int64_t>(encoded.size()), "re-encoded");
    if (!again.ok() || parquet::EncodeColumnIndex(*again) != encoded) __builtin_trap();
  }
}

void CheckFile(const std::shared_ptr<io::InputSource>& source) {
  auto file = parquet::ParquetFile::Open(source);
  if (!file.ok()) return;
  int64_t rows = 0;
  for (int g = 0; g < (*file)->num_row_groups(); ++g) {
    const parquet::RowGroupInfo& group = (*file)->row_group(g);
    if (group.columns.size() != (*file)->column_paths().size()) __builtin_trap();
    rows += group.num_rows;
    for (int c = 0; c < static_cast<int>(group.columns.size()); ++c) {
      auto offsets = (*file)->ReadOffsetIndex(g, c);
      if (offsets.ok() && offsets->has_value()) {
        for (const parquet::PageLocation& page : (*offsets)->page_locations) {
          if (page.first_row_index >= group.num_rows || page.offset < 4) __builtin_trap();
        }
      }
      (void)(*file)->ReadColumnIndex(g, c);
    }
  }
  if (rows != (*file)->num_rows() || (*file)->schema() == nullptr) __builtin_trap();
}

}  // namespace

int FuzzParquetMetadata(const uint8_t* data, size_t size) {
  // A copy the source owns, as a file's bytes would be.
  auto bytes = Buffer::Allocate(static_cast<int64_t>(size));
  if (!bytes.ok()) return 0;
  if (size > 0) std::memcpy((*bytes)->mutable_data(), data, size);
  auto source = io::BufferSource(*bytes);
  auto footer = parquet::ReadFileFooter(*source);
  if (footer.ok()) {
    if (footer->metadata_offset < 4 ||
        footer->metadata_offset + footer->metadata_length + 8 != static_cast<int64_t>(size)) {
      __builtin_trap();
    }
    CheckFooterRoundTrip(footer->metadata);
    CheckFile(source);
  }
  CheckPageHeader((*bytes)->data(), size);
  CheckPageIndexes((*bytes)->data(), size);
  return 0;
}

}  // namespace quiver::fuzz
