#include "quiver/parquet/snappy_codec.h"

#include <cstring>
#include <vector>

#include "quiver/parquet/varint.h"

namespace quiver::parquet {

namespace {

Result<uint64_t> ReadVarint32(const uint8_t* data, int64_t size, int64_t* position) {
  uint64_t value = 0;
  for (int shift = 0; shift <= 28; shift += 7) {
    if (*position >= size) return Status::Invalid("the Snappy length ends early");
    const uint8_t byte = data[(*position)++];
    value |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if (!(byte & 0x80)) {
      if (value > UINT32_MAX) break;
      return value;
    }
  }
  return Status::Invalid("the Snappy length is not a 32-bit varint");
}

uint32_t LoadLittle(const uint8_t* p, int bytes) {
  uint32_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= static_cast<uint32_t>(p[i]) << (8 * i);
  return v;
}

}  // namespace

Result<int64_t> SnappyDecodedLength(const uint8_t* data, int64_t size) {
  int64_t position = 0;
  QUIVER_ASSIGN_OR_RETURN(uint64_t length, ReadVarint32(data, size, &position));
  return static_cast<int64_t>(length);
}

Status SnappyDecode(const uint8_t* data, int64_t size, uint8_t* out, int64_t out_size,
                    const std::string& what) {
  int64_t in = 0;
  auto declared = ReadVarint32(data, size, &in);
  if (!declared.ok()) return Status::Invalid(what, ": ", declared.status().message());
  if (static_cast<int64_t>(*declared) != out_size) {
    return Status::Invalid(what, ": the Snappy block holds ", *declared, " bytes, the page says ",
                           out_size);
  }
  auto fail = [&](const std::string& message) {
    return Status::Invalid(what, ": Snappy ", message, " at byte ", in);
  };
  int64_t produced = 0;
  while (in < size) {
    const uint8_t tag = data[in++];
    int64_t length = 0;
    int64_t offset = 0;
    switch (tag & 3) {
      case 0: {  // a literal
        length = (tag >> 2) + 1;
        if (length > 60) {
          const int bytes = static_cast<int>(length - 60);
          if (size - in < bytes) return fail("literal length runs past the input");
          length = static_cast<int64_t>(LoadLittle(data + in, bytes)) + 1;
          in += bytes;
        }
        if (length > size - in) return fail("literal runs past the input");
        if (length > out_size - produced) return fail("literal runs past the declared length");
        std::memcpy(out + produced, data + in, static_cast<size_t>(length));
        in += length;
        produced += length;
        continue;
      }
      case 1:
        if (size - in < 1) return fail("copy runs past the input");
        length = 4 + ((tag >> 2) & 7);
        offset = (static_cast<int64_t>(tag >> 5) << 8) | data[in];
        in += 1;
        break;
      case 2:
        if (size - in < 2) return fail("copy runs past the input");
        length = (tag >> 2) + 1;
        offset = LoadLittle(data + in, 2);
        in += 2;
        break;
      default:
        if (size - in < 4) return fail("copy runs past the input");
        length = (tag >> 2) + 1;
        offset = LoadLittle(data + in, 4);
        in += 4;
        break;
    }
    if (offset == 0 || offset > produced) return fail("copy reaches before the block's start");
    if (length > out_size - produced) return fail("copy runs past the declared length");
    // Copies may overlap what they write (offset < length repeats a pattern).
    uint8_t* to = out + produced;
    const uint8_t* from = to - offset;
    if (offset >= length) {
      std::memcpy(to, from, static_cast<size_t>(length));
    } else {
      for (int64_t i = 0; i < length; ++i) to[i] = from[i];
    }
    produced += length;
  }
  if (produced != out_size) {
    return Status::Invalid(what, ": the Snappy block ends after ", produced, " of its ", out_size,
                           " bytes");
  }
  return Status::OK();
}

namespace {

void PutLiteral(std::string& out, const uint8_t* p, int64_t length) {
  while (length > 0) {
    const int64_t n = length < 65536 ? length : 65536;
    if (n <= 60) {
      out.push_back(static_cast<char>((n - 1) << 2));
    } else if (n <= 256) {
      out.push_back(static_cast<char>(60 << 2));
      out.push_back(static_cast<char>(n - 1));
    } else {
      out.push_back(static_cast<char>(61 << 2));
      out.push_back(static_cast<char>((n - 1) & 0xff));
      out.push_back(static_cast<char>((n - 1) >> 8));
    }
    out.append(reinterpret_cast<const char*>(p), static_cast<size_t>(n));
    p += n;
    length -= n;
  }
}

// A copy of `length` bytes from `offset` back (offset < 65536: the
// encoder's window), as 2-byte-offset copies of at most 64 bytes.
void PutCopy(std::string& out, int64_t offset, int64_t length) {
  while (length > 0) {
    const int64_t n = length < 64 ? length : 64;
    out.push_back(static_cast<char>(((n - 1) << 2) | 2));
    out.push_back(static_cast<char>(offset & 0xff));
    out.push_back(static_cast<char>(offset >> 8));
    length -= n;
  }
}

}  // namespace

std::string SnappyEncode(const uint8_t* bytes, int64_t size) {
  std::string out;
  out.reserve(static_cast<size_t>(32 + size + size / 6));  // the format's worst case
  AppendVarint(out, static_cast<uint64_t>(size));
  constexpr int kHashBits = 14;
  constexpr int64_t kWindow = 65535;
  std::vector<int64_t> table(size_t{1} << kHashBits, -1);
  auto hash = [&](int64_t i) {
    uint32_t v;
    std::memcpy(&v, bytes + i, 4);
    return (v * 0x1e35a7bdu) >> (32 - kHashBits);
  };
  int64_t literal_start = 0;
  int64_t i = 0;
  // As Snappy's own compressor: after 32 positions without a match, look
  // at every second one, after 64 every third, ... so that bytes that do
  // not compress pass quickly (as literals); a match starts over.
  int64_t misses = 32;
  while (i + 4 <= size) {
    const uint32_t h = hash(i);
    const int64_t candidate = table[h];
    table[h] = i;
    if (candidate < 0 || i - candidate > kWindow ||
        std::memcmp(bytes + candidate, bytes + i, 4) != 0) {
      i += misses++ >> 5;
      continue;
    }
    misses = 32;
    int64_t length = 4;
    while (i + length < size && bytes[candidate + length] == bytes[i + length]) ++length;
    PutLiteral(out, bytes + literal_start, i - literal_start);
    PutCopy(out, i - candidate, length);
    i += length;
    literal_start = i;
  }
  PutLiteral(out, bytes + literal_start, size - literal_start);
  return out;
}

}  // namespace quiver::parquet
