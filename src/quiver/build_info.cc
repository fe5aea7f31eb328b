#include "quiver/build_info.h"

// QUIVER_VERSION_STRING, QUIVER_HAVE_LZ4 and QUIVER_HAVE_ZSTD come from
// CMakeLists.txt (set on this file and on ipc/codec.cc only). CurlVersion
// is defined beside the code that opens libcurl (io/curl_library.cc).

namespace quiver {

const char* Version() { return QUIVER_VERSION_STRING; }

namespace ipc {

bool HasCodec(Compression codec) {
  switch (codec) {
    case Compression::kNone: return true;
#ifdef QUIVER_HAVE_LZ4
    case Compression::kLz4Frame: return true;
#endif
#ifdef QUIVER_HAVE_ZSTD
    case Compression::kZstd: return true;
#endif
    default: return false;
  }
}

std::vector<std::string> AvailableCodecs() {
  std::vector<std::string> names;
  if (HasCodec(Compression::kLz4Frame)) names.emplace_back("lz4");
  if (HasCodec(Compression::kZstd)) names.emplace_back("zstd");
  return names;
}

}  // namespace ipc
}  // namespace quiver
