// The unsigned LEB128 varint Parquet writes in three places: Thrift compact
// integers and lengths, RLE / bit-packed hybrid run headers, and a Snappy
// block's length. Seven bits a byte, least significant first, the high bit
// set on every byte but the last.
#pragma once

#include <cstdint>
#include <string>

namespace quiver::parquet {

inline void AppendVarint(std::string& out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

}  // namespace quiver::parquet
