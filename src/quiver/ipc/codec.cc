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

// The calling thread's decompression context, made once per thread (a
// context allocates its block buffers on first use; reusing it saves that
// for every buffer). Reset before each frame.
struct OwnedLz4Context {
  LZ4F_dctx* context = nullptr;
  ~OwnedLz4Context() { Drop(); }
  void Drop() {
    if (context) LZ4F_freeDecompressionContext(context);
    context = nullptr;
  }
};

OwnedLz4Context& ThreadLz4Owned() {
  thread_local OwnedLz4Context owned;
  return owned;
}

LZ4F_dctx* ThreadLz4Context() {
  OwnedLz4Context& owned = ThreadLz4Owned();
  if (owned.context == nullptr &&
      LZ4F_isError(LZ4F_createDecompressionContext(&owned.context, LZ4F_VERSION))) {
    owned.context = nullptr;
  }
  if (owned.context) LZ4F_resetDecompressionContext(owned.context);
  return owned.context;
}

Status DecompressLz4Frame(LZ4F_dctx* context, const uint8_t* data, int64_t size, int64_t expected,
                          uint8_t* out);

// A frame that fails or stops short leaves the context in a state its reset
// does not clear (a later frame without a content size then fails too): the
// thread's context is dropped, and the next frame makes a fresh one.
Status DecompressLz4(const uint8_t* data, int64_t size, int64_t expected, uint8_t* out) {
  LZ4F_dctx* context = ThreadLz4Context();
  if (context == nullptr) return Status::OutOfMemory("cannot create an LZ4 decompression context");
  Status st = DecompressLz4Frame(context, data, size, expected, out);
  if (!st.ok()) ThreadLz4Owned().Drop();
  return st;
}

Status DecompressLz4Frame(LZ4F_dctx* context, const uint8_t* data, int64_t size, int64_t expected,
                          uint8_t* out) {
  size_t in_pos = 0, out_pos = 0;
  size_t hint = 1;
  // A frame may hold several blocks: feed until the frame ends (hint 0),
  // the input runs out, or the output is full and the frame still wants more.
  while (hint != 0 && in_pos < static_cast<size_t>(size)) {
    size_t in_size = static_cast<size_t>(size) - in_pos;
    size_t out_size = static_cast<size_t>(expected) - out_pos;
    hint = LZ4F_decompress(context, out + out_pos, &out_size, data + in_pos, &in_size, nullptr);
    if (LZ4F_isError(hint)) {
      return Status::Invalid("corrupt LZ4 frame: ", LZ4F_getErrorName(hint));
    }
    in_pos += in_size;
    out_pos += out_size;
    if (in_size == 0 && out_size == 0) break;  // no progress: output full
  }
  if (hint != 0 || out_pos != static_cast<size_t>(expected)) {
    return Status::Invalid("LZ4 frame decompresses to ", out_pos, (hint != 0 ? "+" : ""),
                           " bytes, the buffer claims ", expected);
  }
  return Status::OK();
}
#endif  // QUIVER_HAVE_LZ4

#ifdef QUIVER_HAVE_ZSTD
Result<BufferPtr> CompressZstd(int level, const uint8_t* data, int64_t size) {
  const size_t bound = ZSTD_compressBound(static_cast<size_t>(size));
  QUIVER_ASSIGN_OR_RETURN(BufferPtr out,
                          Buffer::AllocateUninitialized(static_cast<int64_t>(bound)));
  const int zstd_level = level == WriteOptions::kDefaultLevel ? ZSTD_CLEVEL_DEFAULT : level;
  const size_t written =
      ZSTD_compress(out->mutable_data(), bound, data, static_cast<size_t>(size), zstd_level);
  if (ZSTD_isError(written)) {
    return Status::IOError("ZSTD compression failed: ", ZSTD_getErrorName(written));
  }
  return Buffer::Slice(out, 0, static_cast<int64_t>(written));
}

// The calling thread's decompression context, made once per thread.
ZSTD_DCtx* ThreadZstdContext() {
  struct Owned {
    ZSTD_DCtx* context = ZSTD_createDCtx();
    ~Owned() { ZSTD_freeDCtx(context); }
  };
  thread_local Owned owned;
  return owned.context;
}

Status DecompressZstd(const uint8_t* data, int64_t size, int64_t expected, uint8_t* out) {
  ZSTD_DCtx* context = ThreadZstdContext();
  const size_t got = context ? ZSTD_decompressDCtx(context, out, static_cast<size_t>(expected),
                                                   data, static_cast<size_t>(size))
                             : ZSTD_decompress(out, static_cast<size_t>(expected), data,
                                               static_cast<size_t>(size));
  if (ZSTD_isError(got)) {
    return Status::Invalid("corrupt ZSTD frame: ", ZSTD_getErrorName(got));
  }
  if (got != static_cast<size_t>(expected)) {
    return Status::Invalid("ZSTD frame decompresses to ", got, " bytes, the buffer claims ",
                           expected);
  }
  return Status::OK();
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

Result<BufferPtr> Compress(Compression codec, int level, const uint8_t* data, int64_t size) {
  QUIVER_RETURN_NOT_OK(CheckCodec(codec));
  switch (codec) {
#ifdef QUIVER_HAVE_LZ4
    case Compression::kLz4Frame: return CompressLz4(level, data, size);
#endif
#ifdef QUIVER_HAVE_ZSTD
    case Compression::kZstd: return CompressZstd(level, data, size);
#endif
    default: break;
  }
  (void)level, (void)data, (void)size;
  return Status::Invalid("no codec to compress with");
}

Status DecompressInto(Compression codec, const uint8_t* data, int64_t size, int64_t expected,
                      uint8_t* out) {
  QUIVER_RETURN_NOT_OK(CheckCodec(codec));
  switch (codec) {
#ifdef QUIVER_HAVE_LZ4
    case Compression::kLz4Frame: return DecompressLz4(data, size, expected, out);
#endif
#ifdef QUIVER_HAVE_ZSTD
    case Compression::kZstd: return DecompressZstd(data, size, expected, out);
#endif
    default: break;
  }
  (void)data, (void)size, (void)expected, (void)out;
  return Status::Invalid("no codec to decompress with");
}

Result<BufferPtr> Decompress(Compression codec, const uint8_t* data, int64_t size,
                             int64_t expected) {
  QUIVER_RETURN_NOT_OK(CheckCodec(codec));
  if (codec == Compression::kNone) return Status::Invalid("no codec to decompress with");
  QUIVER_ASSIGN_OR_RETURN(BufferPtr out, Buffer::AllocateUninitialized(expected));
  QUIVER_RETURN_NOT_OK(DecompressInto(codec, data, size, expected, out->mutable_data()));
  return out;
}

}  // namespace quiver::ipc
