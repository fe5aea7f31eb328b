// What this build of quiver has: its version and the IPC compression
// codecs compiled in.
//
// ZSTD and LZ4 are optional when quiver is built from source: a build
// that did not find their development files (Debian: libzstd-dev,
// liblz4-dev) still reads and writes uncompressed IPC, and writing or
// reading a body compressed with a missing codec fails with
// NotImplemented and a message saying how to get it. The binary wheel
// and a build with both packages installed have both codecs.
#pragma once

#include <string>
#include <vector>

#include "quiver/ipc.h"

namespace quiver {

// The library's version, "major.minor.patch" (project VERSION in
// CMakeLists.txt, the one place it is set).
const char* Version();

// The version of the libcurl the remote sources (http://, https://, s3://:
// quiver/io.h) run on, "7.88.1", or empty in a build without libcurl
// (which reads local data only; io::RemoteAvailable() is then false) or
// where it cannot be loaded. libcurl is opened on first use
// (io::SetCurlModule): this call opens it.
std::string CurlVersion();

namespace ipc {

// Whether this build can compress and decompress with `codec`.
// Compression::kNone is always available.
bool HasCodec(Compression codec);

// The codecs this build has, by the names the Python API takes for
// `compression=`: a subset of {"lz4", "zstd"}, in that order.
std::vector<std::string> AvailableCodecs();

}  // namespace ipc
}  // namespace quiver
