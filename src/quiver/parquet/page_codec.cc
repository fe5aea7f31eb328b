#include "quiver/parquet/page_codec.h"

// QUIVER_HAVE_ZSTD / QUIVER_HAVE_LZ4 / QUIVER_HAVE_ZLIB /
// QUIVER_HAVE_BROTLI come from the build (CMakeLists.txt): each codec is
// compiled in only when its development files were found.
#ifdef QUIVER_HAVE_LZ4
#include <lz4.h>
#endif
#ifdef QUIVER_HAVE_ZSTD
#include <zstd.h>
#endif
#ifdef QUIVER_HAVE_ZLIB
#include <zlib.h>
#endif
#ifdef QUIVER_HAVE_BROTLI
#include <brotli/decode.h>
#endif

#include <climits>
#include <cstring>
#include <string>

#include "quiver/parquet/snappy_codec.h"

namespace quiver::parquet {

namespace {

// The IPC codecs' advice (ipc/codec.cc), for a Parquet page.
[[maybe_unused]] Status MissingCodec(Codec codec, const char* library, const char* debian_package) {
  return Status::NotImplemented(
      "this build of quiver has no ", CodecName(codec),
      " codec for Parquet pages: it was built without the ", library,
      " development files. Install ", debian_package,
      " (Debian/Ubuntu; or your system's package of the library) and rebuild quiver (from "
      "its clone: pip install \".[arrow]\"), or build the binary wheel, which carries the ZSTD "
      "and LZ4 codecs (make wheel, then pip install dist/quiver_tensors-*.whl)");
}

Status SizeMismatch(const std::string& what, Codec codec, int64_t got, int64_t expected) {
  return Status::Invalid(what, ": the ", CodecName(codec), " page decompresses to ", got,
                         " bytes, its header says ", expected);
}

#ifdef QUIVER_HAVE_LZ4
// One LZ4 block into exactly `out_size` bytes; -1 when it is corrupt or
// has another size.
int64_t Lz4Block(const uint8_t* data, int64_t size, uint8_t* out, int64_t out_size) {
  if (size > INT_MAX || out_size > INT_MAX) return -1;
  const int got =
      LZ4_decompress_safe(reinterpret_cast<const char*>(data), reinterpret_cast<char*>(out),
                          static_cast<int>(size), static_cast<int>(out_size));
  return got;
}

inline uint32_t LoadBe32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) << 24 | static_cast<uint32_t>(p[1]) << 16 |
         static_cast<uint32_t>(p[2]) << 8 | static_cast<uint32_t>(p[3]);
}

// Hadoop's framing: [4-byte BE decompressed length][4-byte BE compressed
// length][LZ4 block], repeated to the end of the page. Whether the page so
// parses and fills exactly `out_size` bytes.
bool HadoopLz4(const uint8_t* data, int64_t size, uint8_t* out, int64_t out_size) {
  int64_t in = 0, written = 0;
  if (size < 8) return false;
  while (in < size) {
    if (size - in < 8) return false;
    const int64_t decompressed = LoadBe32(data + in);
    const int64_t compressed = LoadBe32(data + in + 4);
    in += 8;
    if (compressed > size - in || decompressed > out_size - written) return false;
    if (Lz4Block(data + in, compressed, out + written, decompressed) != decompressed) {
      return false;
    }
    in += compressed;
    written += decompressed;
  }
  return written == out_size;
}
#endif

#ifdef QUIVER_HAVE_ZLIB
// A gzip or zlib stream (or several gzip members back to back) into
// exactly `out_size` bytes.
Status Inflate(const uint8_t* data, int64_t size, uint8_t* out, int64_t out_size,
               const std::string& what) {
  if (size > UINT_MAX || out_size > UINT_MAX) {
    return Status::Invalid(what, ": a GZIP page of ", size, " bytes to ", out_size,
                           " bytes (4 GiB at most)");
  }
  z_stream stream{};
  // 15 + 32: the largest window, and a gzip or zlib header detected.
  if (inflateInit2(&stream, 15 + 32) != Z_OK) {
    return Status::IOError(what, ": zlib could not start: ", stream.msg ? stream.msg : "");
  }
  stream.next_in = const_cast<Bytef*>(data);
  stream.avail_in = static_cast<uInt>(size);
  stream.next_out = out;
  stream.avail_out = static_cast<uInt>(out_size);
  Status status = Status::OK();
  while (true) {
    const int result = inflate(&stream, Z_FINISH);
    if (result == Z_STREAM_END) {
      // Another gzip member may follow.
      if (stream.avail_in > 0 && stream.avail_out > 0 && inflateReset(&stream) == Z_OK) continue;
      break;
    }
    if (result == Z_BUF_ERROR && stream.avail_out == 0) {
      status = Status::Invalid(what, ": the GZIP page decompresses to more than its header's ",
                               out_size, " bytes");
    } else {
      status = Status::Invalid(what, ": a corrupt GZIP page (zlib: ",
                               stream.msg ? stream.msg : std::to_string(result), ")");
    }
    break;
  }
  const int64_t got = out_size - static_cast<int64_t>(stream.avail_out);
  inflateEnd(&stream);
  QUIVER_RETURN_NOT_OK(status);
  if (got != out_size) return SizeMismatch(what, Codec::kGzip, got, out_size);
  return Status::OK();
}
#endif

}  // namespace

bool HasPageCodec(Codec codec) {
  switch (codec) {
    case Codec::kUncompressed:
    case Codec::kSnappy: return true;
    case Codec::kZstd:
#ifdef QUIVER_HAVE_ZSTD
      return true;
#else
      return false;
#endif
    case Codec::kLz4:
    case Codec::kLz4Raw:
#ifdef QUIVER_HAVE_LZ4
      return true;
#else
      return false;
#endif
    case Codec::kGzip:
#ifdef QUIVER_HAVE_ZLIB
      return true;
#else
      return false;
#endif
    case Codec::kBrotli:
#ifdef QUIVER_HAVE_BROTLI
      return true;
#else
      return false;
#endif
    case Codec::kLzo: return false;
  }
  return false;
}

Status DecompressPage(Codec codec, const uint8_t* data, int64_t size, uint8_t* out,
                      int64_t out_size, const std::string& what) {
  if (size < 0 || out_size < 0) {
    return Status::Invalid(what, ": a page of ", size, " bytes to decompress to ", out_size);
  }
  switch (codec) {
    case Codec::kUncompressed:
      if (size != out_size) return SizeMismatch(what, codec, size, out_size);
      if (size > 0) std::memcpy(out, data, static_cast<size_t>(size));
      return Status::OK();
    case Codec::kSnappy: return SnappyDecode(data, size, out, out_size, what);
    case Codec::kZstd: {
#ifdef QUIVER_HAVE_ZSTD
      const size_t got =
          ZSTD_decompress(out, static_cast<size_t>(out_size), data, static_cast<size_t>(size));
      if (ZSTD_isError(got)) {
        return Status::Invalid(what, ": a corrupt ZSTD page (", ZSTD_getErrorName(got), ")");
      }
      if (static_cast<int64_t>(got) != out_size) {
        return SizeMismatch(what, codec, static_cast<int64_t>(got), out_size);
      }
      return Status::OK();
#else
      return MissingCodec(codec, "ZSTD", "libzstd-dev");
#endif
    }
    case Codec::kLz4Raw: {
#ifdef QUIVER_HAVE_LZ4
      if (Lz4Block(data, size, out, out_size) != out_size) {
        return Status::Invalid(what,
                               ": a corrupt LZ4_RAW page, or one that does not decompress "
                               "to its header's ",
                               out_size, " bytes");
      }
      return Status::OK();
#else
      return MissingCodec(codec, "LZ4", "liblz4-dev");
#endif
    }
    case Codec::kLz4: {
#ifdef QUIVER_HAVE_LZ4
      if (HadoopLz4(data, size, out, out_size)) return Status::OK();
      if (Lz4Block(data, size, out, out_size) == out_size) return Status::OK();
      return Status::Invalid(what,
                             ": a corrupt LZ4 page: neither Hadoop-framed LZ4 blocks nor "
                             "one LZ4 block of its header's ",
                             out_size, " bytes");
#else
      return MissingCodec(codec, "LZ4", "liblz4-dev");
#endif
    }
    case Codec::kGzip:
#ifdef QUIVER_HAVE_ZLIB
      return Inflate(data, size, out, out_size, what);
#else
      return Status::NotImplemented(
          what, ": GZIP pages need zlib: rebuild quiver with zlib installed (Debian zlib1g-dev)");
#endif
    case Codec::kBrotli: {
#ifdef QUIVER_HAVE_BROTLI
      // One call: the page's size is known, so the output is exactly it.
      size_t got = static_cast<size_t>(out_size);
      const BrotliDecoderResult result =
          BrotliDecoderDecompress(static_cast<size_t>(size), data, &got, out);
      if (result != BROTLI_DECODER_RESULT_SUCCESS) {
        return Status::Invalid(what,
                               ": a corrupt BROTLI page, or one that decompresses to more "
                               "than its header's ",
                               out_size, " bytes");
      }
      if (static_cast<int64_t>(got) != out_size) {
        return SizeMismatch(what, codec, static_cast<int64_t>(got), out_size);
      }
      return Status::OK();
#else
      return Status::NotImplemented(
          what,
          ": BROTLI pages need libbrotli: rebuild quiver with it installed (Debian "
          "libbrotli-dev), or install the binary wheel, which carries it");
#endif
    }
    case Codec::kLzo:
      return Status::NotImplemented(what, ": quiver does not read ", CodecName(codec),
                                    " pages (it reads UNCOMPRESSED, SNAPPY, GZIP, ZSTD, LZ4, "
                                    "LZ4_RAW and BROTLI)");
  }
  return Status::NotImplemented(what, ": pages in compression codec ", static_cast<int32_t>(codec),
                                ", which quiver does not know");
}

}  // namespace quiver::parquet
