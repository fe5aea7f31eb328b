// NumPy's .npz archives: zip files of .npy members, stored or deflated
// (np.savez / np.savez_compressed), read without NumPy.
//
// Only what np.savez writes is read: members stored (method 0) or
// deflated (method 8, needs zlib at build time; without it a deflated
// member is NotImplemented, saying so), zip64 sizes and offsets, no
// encryption and no multi-disk archives. Every offset and size is checked
// against the file, the claimed sizes against what the data inflates to,
// and each member's CRC-32 (when zlib is there).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "quiver/buffer.h"
#include "quiver/ipc.h"
#include "quiver/status.h"

namespace quiver::tools {

struct ZipMember {
  std::string name;  // as stored ("arr_0.npy")
  int method = 0;    // 0 stored, 8 deflated
  uint32_t crc32 = 0;
  int64_t compressed_size = 0;
  int64_t size = 0;  // uncompressed bytes
  int64_t local_header_offset = 0;
};

// Whether this build can read deflated members.
bool HaveDeflate();

// The members listed in the archive's central directory.
Result<std::vector<ZipMember>> ReadZipDirectory(ipc::InputSource& source);

// The bytes of `member`: zero-copy (a view of the source) when stored,
// inflated into a new buffer when deflated. With `prefix` >= 0 only the
// first `prefix` bytes are wanted (enough for a .npy header): a deflated
// member then inflates no further, and no CRC is checked.
Result<BufferPtr> ReadZipMember(ipc::InputSource& source, const ZipMember& member,
                                int64_t prefix = -1);

}  // namespace quiver::tools
