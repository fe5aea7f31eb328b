#include "quiver/build_info.h"

// QUIVER_VERSION_STRING, QUIVER_HAVE_LZ4 and QUIVER_HAVE_ZSTD come from
// CMakeLists.txt (set on this file and on ipc/codec.cc only), and
// QUIVER_HAVE_CURL (on this file and the io/ files that use libcurl).

#ifdef QUIVER_HAVE_CURL
#include "quiver/io/curl_library.h"
#endif

namespace quiver {

const char* Version() { return QUIVER_VERSION_STRING; }

std::string CurlVersion() {
#ifdef QUIVER_HAVE_CURL
  // The library opened at run time (this opens it), which may be newer
  // than the headers; "" where it cannot be opened.
  auto curl = io::internal::Curl();
  if (!curl.ok()) return {};
  const curl_version_info_data* info = (*curl)->version_info(CURLVERSION_NOW);
  return info != nullptr && info->version != nullptr ? info->version : "";
#else
  return {};
#endif
}

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
