// Parquet test files made from a FileMetaData: the magic at both ends, the
// footer and its length word (tests/cpp/parquet/).
#pragma once

#include <cstdint>
#include <string>

#include "quiver/parquet/metadata.h"

namespace quiver::parquet::test {

// A little-endian 32-bit length word.
inline std::string LengthWord(uint32_t n) {
  std::string out(4, '\0');
  for (int i = 0; i < 4; ++i)
    out[static_cast<size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xff);
  return out;
}

// "PAR1", `body` (the column data), the encoded footer, its length, "PAR1".
inline std::string ParquetFileBytes(const FileMetaData& metadata, const std::string& body) {
  const std::string footer = EncodeFileMetaData(metadata);
  return "PAR1" + body + footer + LengthWord(static_cast<uint32_t>(footer.size())) + "PAR1";
}

}  // namespace quiver::parquet::test
