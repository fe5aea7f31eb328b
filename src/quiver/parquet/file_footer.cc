#include "quiver/parquet/file_footer.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace quiver::parquet {

namespace {

constexpr int64_t kMagicSize = 4;
constexpr int64_t kTailSize = 8;  // the footer's length word, then the magic

uint32_t LoadLittleEndian32(const uint8_t* bytes) {
  return static_cast<uint32_t>(bytes[0]) | static_cast<uint32_t>(bytes[1]) << 8 |
         static_cast<uint32_t>(bytes[2]) << 16 | static_cast<uint32_t>(bytes[3]) << 24;
}

}  // namespace

std::string SourceName(const io::InputSource& source) {
  const std::string name = source.name();
  return name.empty() ? std::string("the input") : name;
}

Result<FileFooter> ReadFileFooter(io::InputSource& source) {
  const std::string name = SourceName(source);
  const int64_t size = source.size();
  if (size < kMagicSize + kTailSize) {
    return Status::Invalid(name, " is not a Parquet file: ", size,
                           " bytes, fewer than the 12 of its magic numbers and footer length");
  }
  const int64_t tail_length = std::min(size, kFooterReadAhead);
  // The leading magic and the tail in one call (a remote source sends both
  // requests at once).
  QUIVER_ASSIGN_OR_RETURN(std::vector<BufferPtr> parts,
                          source.ReadRanges({{0, kMagicSize}, {size - tail_length, tail_length}}));
  const BufferPtr& tail = parts[1];
  const uint8_t* end = tail->data() + tail_length;
  if (std::memcmp(end - kMagicSize, "PARE", 4) == 0) {
    return Status::NotImplemented(name, " is a Parquet file with an encrypted footer, which ",
                                  "quiver does not read");
  }
  if (std::memcmp(end - kMagicSize, "PAR1", 4) != 0) {
    return Status::Invalid(name, " is not a Parquet file: it does not end with the magic PAR1");
  }
  const int64_t length = LoadLittleEndian32(end - kTailSize);
  if (length > size - kMagicSize - kTailSize) {
    return Status::Invalid(name, ": the Parquet footer's length, ", length,
                           " bytes, runs past the start of the ", size, "-byte file");
  }
  FileFooter footer;
  footer.metadata_offset = size - kTailSize - length;
  footer.metadata_length = length;
  BufferPtr bytes = tail;
  int64_t start = tail_length - kTailSize - length;  // within `tail`
  if (start < 0) {  // a footer larger than the read-ahead: one more read
    QUIVER_ASSIGN_OR_RETURN(bytes, source.ReadAt(footer.metadata_offset, length));
    start = 0;
  }
  if (std::memcmp(parts[0]->data(), "PAR1", 4) != 0) {
    return Status::Invalid(name, " is not a Parquet file: it does not start with the magic PAR1");
  }
  QUIVER_ASSIGN_OR_RETURN(footer.metadata, DecodeFileMetaData(bytes->data() + start, length,
                                                              name + ": the Parquet footer"));
  return footer;
}

}  // namespace quiver::parquet
