#include "quiver/parquet/page_compress.h"

// QUIVER_HAVE_LZ4 / QUIVER_HAVE_ZSTD come from the build (CMakeLists.txt).
#ifdef QUIVER_HAVE_LZ4
#include <lz4.h>
#endif
#ifdef QUIVER_HAVE_ZSTD
#include <zstd.h>
#endif

#include <algorithm>
#include <cctype>

#include "quiver/parquet/snappy_codec.h"

namespace quiver::parquet {

Result<Codec> WritableCodec(const std::string& name) {
  std::string upper = name;
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  if (upper == "UNCOMPRESSED" || upper == "NONE") return Codec::kUncompressed;
  if (upper == "SNAPPY") return Codec::kSnappy;
  if (upper == "ZSTD") {
#ifdef QUIVER_HAVE_ZSTD
    return Codec::kZstd;
#else
    return Status::NotImplemented("Parquet compression ZSTD: this build of quiver lacks zstd");
#endif
  }
  if (upper == "LZ4_RAW" || upper == "LZ4") {
#ifdef QUIVER_HAVE_LZ4
    return Codec::kLz4Raw;
#else
    return Status::NotImplemented("Parquet compression LZ4_RAW: this build of quiver lacks lz4");
#endif
  }
  return Status::Invalid("unknown Parquet compression '", name,
                         "' (UNCOMPRESSED, SNAPPY, ZSTD or LZ4_RAW)");
}

Result<std::string> CompressPage(Codec codec, int level, const uint8_t* data, int64_t size) {
  switch (codec) {
    case Codec::kUncompressed:
      return std::string(reinterpret_cast<const char*>(data), static_cast<size_t>(size));
    case Codec::kSnappy: return SnappyEncode(data, size);
#ifdef QUIVER_HAVE_ZSTD
    case Codec::kZstd: {
      std::string out(ZSTD_compressBound(static_cast<size_t>(size)), '\0');
      const size_t n = ZSTD_compress(out.data(), out.size(), data, static_cast<size_t>(size),
                                     level == 0 ? 1 : level);
      if (ZSTD_isError(n)) {
        return Status::IOError("ZSTD compression of a Parquet page failed: ", ZSTD_getErrorName(n));
      }
      out.resize(n);
      return out;
    }
#endif
#ifdef QUIVER_HAVE_LZ4
    case Codec::kLz4Raw: {
      if (size > LZ4_MAX_INPUT_SIZE) {
        return Status::Invalid("a Parquet page of ", size, " bytes is too large for LZ4");
      }
      std::string out(static_cast<size_t>(LZ4_compressBound(static_cast<int>(size))), '\0');
      const int n = LZ4_compress_default(reinterpret_cast<const char*>(data), out.data(),
                                         static_cast<int>(size), static_cast<int>(out.size()));
      if (n <= 0) return Status::IOError("LZ4 compression of a Parquet page failed");
      out.resize(static_cast<size_t>(n));
      return out;
    }
#endif
    default: break;
  }
  return Status::NotImplemented("Parquet compression ", CodecName(codec), " is not written");
}

}  // namespace quiver::parquet
