#include "quiver/ipc/codec.h"

#include <lz4frame.h>
#include <zstd.h>

#include <string>

namespace quiver::ipc {

namespace {

Result<BufferPtr> CompressLz4(int level, const uint8_t* data, int64_t size) {
  LZ4F_preferences_t preferences{};
  preferences.compressionLevel = level == WriteOptions::kDefaultLevel ? 0 : level;
  preferences.frameInfo.contentSize = static_cast<unsigned long long>(size);
  const size_t bound = LZ4F_compressFrameBound(static_cast<size_t>(size), &preferences);
  QUIVER_ASSIGN_OR_RETURN(BufferPtr out, Buffer::AllocateUninitialized(static_cast<int64_t>(bound)));
  const size_t written = LZ4F_compressFrame(out->mutable_data(), bound, data,
                                            static_cast<size_t>(size), &preferences);
  if (LZ4F_isError(written)) {
    return Status::IOError(std::string("LZ4 compression failed: ") + LZ4F_getErrorName(written));
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
      return Status::Invalid(std::string("corrupt LZ4 frame: ") + LZ4F_getErrorName(hint));
    }
    in_pos += in_size;
    out_pos += out_size;
    if (in_size == 0 && out_size == 0) break;  // no progress: output full
  }
  LZ4F_freeDecompressionContext(context);
  if (hint != 0 || out_pos != static_cast<size_t>(expected)) {
    return Status::Invalid("LZ4 frame decompresses to " + std::to_string(out_pos) +
                           (hint != 0 ? "+" : "") + " bytes, the buffer claims " +
                           std::to_string(expected));
  }
  return out;
}

// One frame, compressed by `workers` threads inside libzstd when it was
// built with them (otherwise the setting is refused and one thread does
// it): a single large buffer then uses every core.
size_t ZstdFrame(uint8_t* out, size_t bound, const uint8_t* data, size_t size, int level, int workers) {
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
  QUIVER_ASSIGN_OR_RETURN(BufferPtr out, Buffer::AllocateUninitialized(static_cast<int64_t>(bound)));
  const int zstd_level = level == WriteOptions::kDefaultLevel ? ZSTD_CLEVEL_DEFAULT : level;
  const size_t written = ZstdFrame(out->mutable_data(), bound, data, static_cast<size_t>(size),
                                   zstd_level, workers);
  if (ZSTD_isError(written)) {
    return Status::IOError(std::string("ZSTD compression failed: ") + ZSTD_getErrorName(written));
  }
  return Buffer::Slice(out, 0, static_cast<int64_t>(written));
}

Result<BufferPtr> DecompressZstd(const uint8_t* data, int64_t size, int64_t expected) {
  QUIVER_ASSIGN_OR_RETURN(BufferPtr out, Buffer::AllocateUninitialized(expected));
  const size_t got = ZSTD_decompress(out->mutable_data(), static_cast<size_t>(expected), data,
                                     static_cast<size_t>(size));
  if (ZSTD_isError(got)) {
    return Status::Invalid(std::string("corrupt ZSTD frame: ") + ZSTD_getErrorName(got));
  }
  if (got != static_cast<size_t>(expected)) {
    return Status::Invalid("ZSTD frame decompresses to " + std::to_string(got) +
                           " bytes, the buffer claims " + std::to_string(expected));
  }
  return out;
}

}  // namespace

const char* CodecName(Compression codec) {
  switch (codec) {
    case Compression::kLz4Frame: return "LZ4_FRAME";
    case Compression::kZstd: return "ZSTD";
    case Compression::kNone: return "none";
  }
  return "unknown";
}

Result<BufferPtr> Compress(Compression codec, int level, const uint8_t* data, int64_t size,
                           int workers) {
  switch (codec) {
    case Compression::kLz4Frame: return CompressLz4(level, data, size);
    case Compression::kZstd: return CompressZstd(level, data, size, workers);
    case Compression::kNone: break;
  }
  return Status::Invalid("no codec to compress with");
}

Result<BufferPtr> Decompress(Compression codec, const uint8_t* data, int64_t size, int64_t expected) {
  switch (codec) {
    case Compression::kLz4Frame: return DecompressLz4(data, size, expected);
    case Compression::kZstd: return DecompressZstd(data, size, expected);
    case Compression::kNone: break;
  }
  return Status::Invalid("no codec to decompress with");
}

}  // namespace quiver::ipc
