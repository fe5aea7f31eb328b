// A Parquet file's footer: the "PAR1" magic at both ends, the FileMetaData
// before the trailing length word, read from any InputSource with one
// ReadRanges call (the leading magic and the file's last 64 KiB, which
// holds most footers whole), plus one read for a larger footer. docs/formats.md, "Parquet: file
// layout".
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "quiver/io.h"
#include "quiver/parquet/metadata.h"
#include "quiver/status.h"

namespace quiver::parquet {

// The bytes a first footer read takes from the file's end.
inline constexpr int64_t kFooterReadAhead = int64_t{64} << 10;

struct FileFooter {
  FileMetaData metadata;
  int64_t metadata_offset = 0;  // where the FileMetaData starts in the file
  int64_t metadata_length = 0;
};

// What errors call a source: its name, or "the input" for memory.
std::string SourceName(const io::InputSource& source);

// Invalid naming the source for a file too short, a missing magic, or a
// footer length past the file; NotImplemented for an encrypted footer
// ("PARE"); the decoder's errors for the FileMetaData itself.
Result<FileFooter> ReadFileFooter(io::InputSource& source);

}  // namespace quiver::parquet
