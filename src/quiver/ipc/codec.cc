#include "quiver/ipc/codec.h"

// QUIVER_HAVE_LZ4 / QUIVER_HAVE_ZSTD come from the build (CMakeLists.txt):
// each codec is compiled in only when its development files were found.
#ifdef QUIVER_HAVE_LZ4
#include <lz4frame.h>
#endif
#ifdef QUIVER_HAVE_ZSTD
#include <zstd.h>
#endif

#include <string>

#include "quiver/build_info.h"

namespace quiver::ipc {

namespace {

// A build without a codec's development files leaves that codec out; the
// error says how to get a quiver that has it.
Status MissingCodec(Compression codec, const char* debian_package) {
  return Status::NotImplemented(
      "this build of quiver has no ", CodecName(codec), " codec: it was built without the ",
      (codec == Compression::kZstd ? "ZSTD" : "LZ4"), " development files. Install ",
      debian_package,
      " (Debian/Ubuntu; or your system's package of the library) and rebuild quiver (from "
      "its clone: pip install \".[arrow]\"), or build the binary wheel, which carries both "
      "codecs (make wheel, then pip install dist/quiver_tensors-*.whl)");
}

#ifdef QUIVER_HAVE_LZ4
Result<BufferPtr> CompressLz4(int level, const uint8_t* data, int64_t size) {
  LZ4F_preferences_t preferences{};
  preferences.compressionLevel = level == WriteOptions::kDefaultLevel ? 0 : level;
  preferences.frameInfo.contentSize = static_cast<unsigned long long>(size);
  const size_t bound = LZ4F_compressFrameBound(static_cast<size_t>(size), &preferences);
  QUIVER_ASSIGN_OR_RETURN(BufferPtr out,
                          Buffer::AllocateUninitialized(static_cast<int64_t>(bound)));
  const size_t written =
      LZ4F_compressFrame(out->mutable_data(), bound, data, static_cast<size_t>(size), &preferences);
  if (LZ4F_isError(written)) {
    return Status::IOError("LZ4 compression failed: ", LZ4F_getErrorName(written));
  }
  return Buffer::Slice(out, 0, static_cast<int64_t>(written));
}

Result<BufferPtr> DecompressLz4(const uint8_t* data, int64_t size, int64_t expected) {
  LZ4F_dctx* context = nullptr;
  if (LZ4F_isError(LZ4F_createDecompressionContext(&context, LZ4F_VERSION))) {
    return Status::OutOfMemory("cannot create an LZ4 decompression context");
  }
  QUIVER_ASSIGN_OR_RETURN(BufferPtr out, Buffer::AllocateUninitialized(expected));
  size_t in_pos = 0, out_pos = 0;
  size_t hint = 1;
  // A frame may hold several blocks: feed until the frame ends (hint 0),
  // the input runs out, or the output is full and the frame still wants more.
  while (hint != 0 && in_pos < static_cast<size_t>(size)) {
    size_t in_size = static_cast<size_t>(size) - in_pos;
    size_t out_size = static_cast<size_t>(expected) - out_pos;
    hint = LZ4F_decompress(context, out->mutable_data() + out_pos, &out_size, data + in_pos,
                           &in_size, nullptr);
    if (LZ4F_isError(hint)) {
      LZ4F_freeDecompressionContext(context);
      return Status::Invalid("corrupt LZ4 frame: ", LZ4F_getErrorName(hint));
    }
    in_pos += in_size;
    out_pos += out_size;
    if (in_size == 0 && out_size == 0) break;  // no progress: output full
  }
  LZ4F_freeDecompressionContext(context);
  if (hint != 0 || out_pos != static_cast<size_t>(expected)) {
    return Status::Invalid("LZ4 frame decompresses to ", out_pos, (hint != 0 ? "+" : ""),
                           " bytes, the buffer claims ", expected);
  }
  return out;
}
#endif  // QUIVER_HAVE_LZ4

#ifdef QUIVER_HAVE_ZSTD
// One frame, compressed by `workers` threads inside libzstd when it was
// built with them (otherwise the setting is refused and one thread does
// it): a single large buffer then uses every core.
size_t ZstdFrame(uint8_t* out, size_t bound, const uint8_t* data, size_t size, int level,
                 int workers) {
  if (workers <= 1) return ZSTD_compress(out, bound, data, size, level);
  ZSTD_CCtx* context = ZSTD_createCCtx();
  if (context == nullptr) return ZSTD_compress(out, bound, data, size, level);
  ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, level);
  ZSTD_CCtx_setParameter(context, ZSTD_c_nbWorkers, workers);
  const size_t written = ZSTD_compress2(context, out, bound, data, size);
  ZSTD_freeCCtx(context);
  return written;
}

Result<BufferPtr> CompressZstd(int level, const uint8_t* data, int64_t size, int workers) {
  const size_t bound = ZSTD_compressBound(static_cast<size_t>(size));
  QUIVER_ASSIGN_OR_RETURN(BufferPtr out,
                          Buffer::AllocateUninitialized(static_cast<int64_t>(bound)));
  const int zstd_level = level == WriteOptions::kDefaultLevel ? ZSTD_CLEVEL_DEFAULT : level;
  const size_t written =
      ZstdFrame(out->mutable_data(), bound, data, static_cast<size_t>(size), zstd_level, workers);
  if (ZSTD_isError(written)) {
    return Status::IOError("ZSTD compression failed: ", ZSTD_getErrorName(written));
  }
  return Buffer::Slice(out, 0, static_cast<int64_t>(written));
}

Result<BufferPtr> DecompressZstd(const uint8_t* data, int64_t size, int64_t expected) {
  QUIVER_ASSIGN_OR_RETURN(BufferPtr out, Buffer::AllocateUninitialized(expected));
  const size_t got = ZSTD_decompress(out->mutable_data(), static_cast<size_t>(expected), data,
                                     static_cast<size_t>(size));
  if (ZSTD_isError(got)) {
    return Status::Invalid("corrupt ZSTD frame: ", ZSTD_getErrorName(got));
  }
  if (got != static_cast<size_t>(expected)) {
    return Status::Invalid("ZSTD frame decompresses to ", got, " bytes, the buffer claims ",
                           expected);
  }
  return out;
}
#endif  // QUIVER_HAVE_ZSTD

}  // namespace

const char* CodecName(Compression codec) {
  switch (codec) {
    case Compression::kLz4Frame: return "LZ4_FRAME";
    case Compression::kZstd: return "ZSTD";
    case Compression::kNone: return "none";
  }
  return "unknown";
}

Status CheckCodec(Compression codec) {
  switch (codec) {
    case Compression::kLz4Frame:
      if (!HasCodec(codec)) return MissingCodec(codec, "liblz4-dev");
      return Status::OK();
    case Compression::kZstd:
      if (!HasCodec(codec)) return MissingCodec(codec, "libzstd-dev");
      return Status::OK();
    case Compression::kNone: return Status::OK();
  }
  return Status::Invalid("unknown compression codec");
}

Status CheckLevel(Compression codec, int64_t level) {
  if (level == WriteOptions::kDefaultLevel || codec == Compression::kNone) return Status::OK();
  int64_t low = 0;
  int64_t high = 0;
  switch (codec) {
    case Compression::kLz4Frame:
      // 0 is LZ4's fast mode (1 and 2 mean the same), 3 to 12 its HC levels.
      low = 0;
      high = 12;
      break;
    case Compression::kZstd:
      // ZSTD's negative levels trade ratio for speed; 1 to 22 are its usual ones.
      low = -(int64_t{1} << 17);
      high = 22;
      break;
    case Compression::kNone: break;
  }
  if (level < low || level > high) {
    return Status::Invalid("compression level ", level, " is outside ", CodecName(codec),
                           "'s range ", low, " to ", high);
  }
  return Status::OK();
}

Result<BufferPtr> Compress(Compression codec, int level, const uint8_t* data, int64_t size,
                           int workers) {
  QUIVER_RETURN_NOT_OK(CheckCodec(codec));
  switch (codec) {
#ifdef QUIVER_HAVE_LZ4
    case Compression::kLz4Frame: return CompressLz4(level, data, size);
#endif
#ifdef QUIVER_HAVE_ZSTD
    case Compression::kZstd: return CompressZstd(level, data, size, workers);
#endif
    default: break;
  }
  (void)level, (void)data, (void)size, (void)workers;
  return Status::Invalid("no codec to compress with");
}

Result<BufferPtr> Decompress(Compression codec, const uint8_t* data, int64_t size,
                             int64_t expected) {
  QUIVER_RETURN_NOT_OK(CheckCodec(codec));
  switch (codec) {
#ifdef QUIVER_HAVE_LZ4
    case Compression::kLz4Frame: return DecompressLz4(data, size, expected);
#endif
#ifdef QUIVER_HAVE_ZSTD
    case Compression::kZstd: return DecompressZstd(data, size, expected);
#endif
    default: break;
  }
  (void)data, (void)size, (void)expected;
  return Status::Invalid("no codec to decompress with");
}

}  // namespace quiver::ipc
