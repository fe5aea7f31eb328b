#include "npz.h"

#include <algorithm>
#include <cstring>

#ifdef QUIVER_TOOLS_HAVE_ZLIB
#include <zlib.h>
#endif

namespace quiver::tools {
namespace {

constexpr uint32_t kEndOfDirectory = 0x06054b50;
constexpr uint32_t kZip64Locator = 0x07064b50;
constexpr uint32_t kZip64EndOfDirectory = 0x06064b50;
constexpr uint32_t kDirectoryEntry = 0x02014b50;
constexpr uint32_t kLocalHeader = 0x04034b50;
constexpr int64_t kEndBytes = 22;
constexpr int64_t kMaxComment = 65535;

uint64_t Load(const uint8_t* p, int bytes) {
  uint64_t value = 0;
  for (int i = bytes - 1; i >= 0; --i) value = value << 8 | p[i];
  return value;
}

// Bytes [offset, offset + length) of the source, or Invalid naming `what`.
Result<BufferPtr> Bytes(ipc::InputSource& source, int64_t offset, int64_t length,
                        const std::string& what) {
  if (offset < 0 || length < 0 || offset > source.size() || length > source.size() - offset) {
    return Status::Invalid("zip archive: ", what, " at byte ", offset, " (", length,
                           " bytes) lies outside the file of ", source.size(), " bytes");
  }
  return source.ReadAt(offset, length);
}

// Applies the zip64 extra field (id 1) to the sizes and offset that are
// saturated (0xFFFFFFFF) in a directory entry.
Status ApplyZip64(const uint8_t* extra, int64_t length, ZipMember* member, bool size_full,
                  bool compressed_full, bool offset_full) {
  int64_t at = 0;
  while (at + 4 <= length) {
    const uint64_t id = Load(extra + at, 2);
    const int64_t size = static_cast<int64_t>(Load(extra + at + 2, 2));
    if (at + 4 + size > length) break;
    if (id == 1) {
      const uint8_t* field = extra + at + 4;
      int64_t used = 0;
      auto next = [&](int64_t* out) -> Status {
        if (used + 8 > size)
          return Status::Invalid("zip archive: short zip64 field of '", member->name, "'");
        *out = static_cast<int64_t>(Load(field + used, 8));
        used += 8;
        return Status::OK();
      };
      if (size_full) QUIVER_RETURN_NOT_OK(next(&member->size));
      if (compressed_full) QUIVER_RETURN_NOT_OK(next(&member->compressed_size));
      if (offset_full) QUIVER_RETURN_NOT_OK(next(&member->local_header_offset));
      return Status::OK();
    }
    at += 4 + size;
  }
  if (size_full || compressed_full || offset_full) {
    return Status::Invalid("zip archive: '", member->name, "' lacks its zip64 sizes");
  }
  return Status::OK();
}

}  // namespace

bool HaveDeflate() {
#ifdef QUIVER_TOOLS_HAVE_ZLIB
  return true;
#else
  return false;
#endif
}

Result<std::vector<ZipMember>> ReadZipDirectory(ipc::InputSource& source) {
  const int64_t size = source.size();
  if (size < kEndBytes) return Status::Invalid("not a zip archive: ", size, " bytes is too short");
  // The end-of-directory record sits in the last 22 + comment bytes.
  const int64_t tail_length = std::min(size, kEndBytes + kMaxComment);
  QUIVER_ASSIGN_OR_RETURN(BufferPtr tail, Bytes(source, size - tail_length, tail_length, "end"));
  int64_t end = -1;
  for (int64_t at = tail_length - kEndBytes; at >= 0; --at) {
    if (Load(tail->data() + at, 4) == kEndOfDirectory) {
      end = at;
      break;
    }
  }
  if (end < 0) return Status::Invalid("not a zip archive: no end of central directory record");
  const uint8_t* record = tail->data() + end;
  int64_t entries = static_cast<int64_t>(Load(record + 10, 2));
  int64_t directory_size = static_cast<int64_t>(Load(record + 12, 4));
  int64_t directory_offset = static_cast<int64_t>(Load(record + 16, 4));
  if (entries == 0xFFFF || directory_size == 0xFFFFFFFF || directory_offset == 0xFFFFFFFF) {
    // zip64: a locator just before the record points at the zip64 record.
    const int64_t locator_at = size - tail_length + end - 20;
    QUIVER_ASSIGN_OR_RETURN(BufferPtr locator, Bytes(source, locator_at, 20, "zip64 locator"));
    if (Load(locator->data(), 4) != kZip64Locator) {
      return Status::Invalid("zip archive: the zip64 end of directory locator is missing");
    }
    const int64_t zip64_at = static_cast<int64_t>(Load(locator->data() + 8, 8));
    QUIVER_ASSIGN_OR_RETURN(BufferPtr zip64, Bytes(source, zip64_at, 56, "zip64 end record"));
    if (Load(zip64->data(), 4) != kZip64EndOfDirectory) {
      return Status::Invalid("zip archive: bad zip64 end of directory record");
    }
    entries = static_cast<int64_t>(Load(zip64->data() + 32, 8));
    directory_size = static_cast<int64_t>(Load(zip64->data() + 40, 8));
    directory_offset = static_cast<int64_t>(Load(zip64->data() + 48, 8));
  }
  QUIVER_ASSIGN_OR_RETURN(BufferPtr directory,
                          Bytes(source, directory_offset, directory_size, "central directory"));
  std::vector<ZipMember> members;
  int64_t at = 0;
  for (int64_t i = 0; i < entries; ++i) {
    const uint8_t* entry = directory->data() + at;
    if (at + 46 > directory_size || Load(entry, 4) != kDirectoryEntry) {
      return Status::Invalid("zip archive: central directory entry ", i, " is malformed");
    }
    const int64_t name_length = static_cast<int64_t>(Load(entry + 28, 2));
    const int64_t extra_length = static_cast<int64_t>(Load(entry + 30, 2));
    const int64_t comment_length = static_cast<int64_t>(Load(entry + 32, 2));
    if (at + 46 + name_length + extra_length + comment_length > directory_size) {
      return Status::Invalid("zip archive: central directory entry ", i,
                             " runs past the directory");
    }
    ZipMember member;
    member.name.assign(reinterpret_cast<const char*>(entry + 46), static_cast<size_t>(name_length));
    if (Load(entry + 8, 2) & 1) {
      return Status::NotImplemented("zip archive: '", member.name, "' is encrypted");
    }
    member.method = static_cast<int>(Load(entry + 10, 2));
    member.crc32 = static_cast<uint32_t>(Load(entry + 16, 4));
    member.compressed_size = static_cast<int64_t>(Load(entry + 20, 4));
    member.size = static_cast<int64_t>(Load(entry + 24, 4));
    member.local_header_offset = static_cast<int64_t>(Load(entry + 42, 4));
    QUIVER_RETURN_NOT_OK(ApplyZip64(entry + 46 + name_length, extra_length, &member,
                                    member.size == 0xFFFFFFFF, member.compressed_size == 0xFFFFFFFF,
                                    member.local_header_offset == 0xFFFFFFFF));
    if (member.size < 0 || member.compressed_size < 0 || member.local_header_offset < 0) {
      return Status::Invalid("zip archive: '", member.name, "' has a negative size or offset");
    }
    members.push_back(std::move(member));
    at += 46 + name_length + extra_length + comment_length;
  }
  return members;
}

namespace {

#ifdef QUIVER_TOOLS_HAVE_ZLIB
Result<BufferPtr> Inflate(const ZipMember& member, const BufferPtr& compressed, int64_t wanted) {
  QUIVER_ASSIGN_OR_RETURN(BufferPtr out, Buffer::AllocateUninitialized(wanted));
  z_stream stream{};
  if (inflateInit2(&stream, -MAX_WBITS) != Z_OK) {
    return Status::OutOfMemory("cannot start inflating '", member.name, "'");
  }
  int64_t in_done = 0, out_done = 0;
  int code = Z_OK;
  // zlib counts in 32-bit units: feed and drain in pieces.
  constexpr int64_t kPiece = int64_t{1} << 30;
  while (code == Z_OK && out_done < wanted) {
    const int64_t in_piece = std::min(kPiece, compressed->size() - in_done);
    const int64_t out_piece = std::min(kPiece, wanted - out_done);
    stream.next_in = const_cast<Bytef*>(compressed->data() + in_done);
    stream.avail_in = static_cast<uInt>(in_piece);
    stream.next_out = out->mutable_data() + out_done;
    stream.avail_out = static_cast<uInt>(out_piece);
    code = inflate(&stream, Z_NO_FLUSH);
    in_done += in_piece - stream.avail_in;
    out_done += out_piece - stream.avail_out;
    if (code == Z_BUF_ERROR && in_done == compressed->size()) break;
    if (code == Z_BUF_ERROR) code = Z_OK;
  }
  inflateEnd(&stream);
  if (code != Z_OK && code != Z_STREAM_END) {
    return Status::Invalid("zip archive: '", member.name, "' does not inflate (zlib error ", code,
                           stream.msg ? std::string(": ") + stream.msg : std::string(), ")");
  }
  if (out_done < wanted) {
    return Status::Invalid("zip archive: '", member.name, "' inflates to ", out_done,
                           " bytes, its directory entry says ", member.size);
  }
  return out;
}
#endif

}  // namespace

Result<BufferPtr> ReadZipMember(ipc::InputSource& source, const ZipMember& member, int64_t prefix) {
  QUIVER_ASSIGN_OR_RETURN(BufferPtr local, Bytes(source, member.local_header_offset, 30,
                                                 "local header of '" + member.name + "'"));
  if (Load(local->data(), 4) != kLocalHeader) {
    return Status::Invalid("zip archive: no local header for '", member.name, "' at byte ",
                           member.local_header_offset);
  }
  const int64_t data_at = member.local_header_offset + 30 +
                          static_cast<int64_t>(Load(local->data() + 26, 2)) +
                          static_cast<int64_t>(Load(local->data() + 28, 2));
  QUIVER_ASSIGN_OR_RETURN(BufferPtr compressed, Bytes(source, data_at, member.compressed_size,
                                                      "data of '" + member.name + "'"));
  const int64_t wanted = prefix < 0 ? member.size : std::min(prefix, member.size);
  BufferPtr out;
  if (member.method == 0) {
    if (member.compressed_size != member.size) {
      return Status::Invalid("zip archive: stored member '", member.name, "' has ",
                             member.compressed_size, " bytes, its directory entry says ",
                             member.size);
    }
    QUIVER_ASSIGN_OR_RETURN(out, Buffer::Slice(compressed, 0, wanted));
  } else if (member.method == 8) {
#ifdef QUIVER_TOOLS_HAVE_ZLIB
    // A deflated stream expands at most 1032:1: a larger claim is a lie,
    // refused before it is allocated.
    if (member.size / 1032 > member.compressed_size + 1) {
      return Status::Invalid("zip archive: '", member.name, "' claims ", member.size,
                             " bytes from ", member.compressed_size, " deflated ones");
    }
    QUIVER_ASSIGN_OR_RETURN(out, Inflate(member, compressed, wanted));
#else
    return Status::NotImplemented("zip archive: '", member.name,
                                  "' is deflated (np.savez_compressed) and this build of quiver "
                                  "has no zlib; rebuild with zlib (Debian: zlib1g-dev) or save "
                                  "with np.savez");
#endif
  } else {
    return Status::NotImplemented("zip archive: '", member.name, "' uses compression method ",
                                  member.method, " (quiver reads stored and deflated members)");
  }
#ifdef QUIVER_TOOLS_HAVE_ZLIB
  if (prefix < 0) {
    uLong crc = crc32(0L, Z_NULL, 0);
    for (int64_t at = 0; at < out->size(); at += int64_t{1} << 30) {
      crc = crc32(crc, out->data() + at,
                  static_cast<uInt>(std::min<int64_t>(int64_t{1} << 30, out->size() - at)));
    }
    if (static_cast<uint32_t>(crc) != member.crc32) {
      return Status::Invalid("zip archive: '", member.name, "' fails its CRC-32 check");
    }
  }
#endif
  return out;
}

}  // namespace quiver::tools
