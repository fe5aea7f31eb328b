// Large buffers compressed and decompressed in parts that threads share
// (codec.h). LZ4: one frame of independent blocks, 1 MiB unless asked
// otherwise (LZ4 Frame Format 1.6: a block is a 4-byte little-endian size,
// its high bit set when the block is stored raw, then its bytes; a zero
// size ends the frame). ZSTD: one frame per part, 4 MiB unless asked
// otherwise, the frames one after another (RFC 8878: a stream of frames
// decompresses to the concatenation of theirs).
#include "quiver/ipc/codec.h"

#ifdef QUIVER_HAVE_LZ4
#include <lz4.h>
#include <lz4frame.h>
#include <lz4hc.h>
#endif
#ifdef QUIVER_HAVE_ZSTD
#include <zstd.h>
#endif

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>

namespace quiver::ipc {

namespace {

// The most blocks a buffer of `expected` bytes is split into: blocks (but
// the last) of kMinBlockBytes at least.
size_t MaxBlocks(int64_t expected) { return static_cast<size_t>(expected / kMinBlockBytes + 1); }

#ifdef QUIVER_HAVE_LZ4
constexpr uint32_t kLz4Raw = 0x80000000u;  // a block's size: stored raw

void PutLe32(uint8_t* at, uint32_t value) {
  for (int i = 0; i < 4; ++i) at[i] = static_cast<uint8_t>(value >> (8 * i));
}

uint32_t GetLe32(const uint8_t* at) {
  return uint32_t{at[0]} | uint32_t{at[1]} << 8 | uint32_t{at[2]} << 16 | uint32_t{at[3]} << 24;
}

// LZ4 frame levels below 3 are LZ4's fast mode, 3 and up its HC levels.
int Lz4Level(int level) { return level == WriteOptions::kDefaultLevel ? 0 : level; }

// The calling thread's compression state for `level` (fast or HC), made
// once per thread and reset by each call that uses it.
void* ThreadLz4State(bool hc) {
  thread_local std::unique_ptr<uint8_t[]> fast, high;
  std::unique_ptr<uint8_t[]>& state = hc ? high : fast;
  if (!state) {
    const int bytes = hc ? LZ4_sizeofStateHC() : LZ4_sizeofState();
    state.reset(new (std::nothrow) uint8_t[static_cast<size_t>(bytes) + 8]);
  }
  // 8-byte alignment, as both states require.
  if (!state) return nullptr;
  auto address = reinterpret_cast<uintptr_t>(state.get());
  return reinterpret_cast<void*>((address + 7) & ~uintptr_t{7});
}

// The frame's block size id for blocks of `block` bytes (a power of two,
// CheckBlockBytes): the smallest maximum that holds them.
LZ4F_blockSizeID_t Lz4BlockId(int64_t block) {
  if (block <= int64_t{64} << 10) return LZ4F_max64KB;
  if (block <= int64_t{256} << 10) return LZ4F_max256KB;
  if (block <= int64_t{1} << 20) return LZ4F_max1MB;
  return LZ4F_max4MB;
}

// The size of every block but the last of a frame of `blocks` blocks that
// decompresses to `expected` bytes: the one power of two `p` with
// (blocks - 1) * p < expected <= blocks * p (for 2 blocks or more the
// interval is narrower than a factor of 2, so there is at most one), no
// more than the frame's maximum. 0 when there is none. A frame whose
// blocks are of another size then fails to decode piece by piece, and the
// caller decodes it whole.
int64_t Lz4BlockSize(int64_t blocks, int64_t expected, int64_t maximum) {
  for (int64_t p = 1; p <= maximum; p <<= 1) {
    if (p <= (expected - 1) / blocks) continue;  // blocks * p < expected
    // (blocks - 1) * p < expected, without overflow.
    return blocks == 1 || p <= (expected - 1) / (blocks - 1) ? p : 0;
  }
  return 0;
}

// The frame header of a `size`-byte buffer in independent blocks of
// `block` bytes, written by liblz4 itself (so its header checksum is
// liblz4's).
Result<BufferPtr> Lz4Head(int level, int64_t block, int64_t size) {
  LZ4F_cctx* context = nullptr;
  if (LZ4F_isError(LZ4F_createCompressionContext(&context, LZ4F_VERSION))) {
    return Status::OutOfMemory("cannot create an LZ4 compression context");
  }
  LZ4F_preferences_t preferences{};
  preferences.compressionLevel = Lz4Level(level);
  preferences.autoFlush = 1;
  preferences.frameInfo.blockSizeID = Lz4BlockId(block);
  preferences.frameInfo.blockMode = LZ4F_blockIndependent;
  preferences.frameInfo.contentSize = static_cast<unsigned long long>(size);
  uint8_t header[LZ4F_HEADER_SIZE_MAX];
  const size_t written = LZ4F_compressBegin(context, header, sizeof(header), &preferences);
  LZ4F_freeCompressionContext(context);
  if (LZ4F_isError(written)) {
    return Status::IOError("LZ4 compression failed: ", LZ4F_getErrorName(written));
  }
  QUIVER_ASSIGN_OR_RETURN(BufferPtr out,
                          Buffer::AllocateUninitialized(static_cast<int64_t>(written)));
  std::memcpy(out->mutable_data(), header, written);
  return out;
}

// The blocks of [data, data + size), a whole number of `block`-byte blocks
// but for the frame's last part: each compressed when that is smaller, raw
// otherwise (as liblz4's frame writer decides).
Result<BufferPtr> Lz4Blocks(int level, int64_t block, const uint8_t* data, int64_t size) {
  const int64_t blocks = (size + block - 1) / block;
  QUIVER_ASSIGN_OR_RETURN(BufferPtr out, Buffer::AllocateUninitialized(size + 4 * blocks));
  const bool hc = Lz4Level(level) >= 3;
  void* state = ThreadLz4State(hc);
  if (state == nullptr) return Status::OutOfMemory("cannot create an LZ4 compression state");
  uint8_t* at = out->mutable_data();
  for (int64_t from = 0; from < size; from += block) {
    const int n = static_cast<int>(std::min(block, size - from));
    const auto* source = reinterpret_cast<const char*>(data + from);
    auto* target = reinterpret_cast<char*>(at + 4);
    // Room for one byte less than the block: a block that does not shrink
    // fails (0) and is stored raw.
    const int packed =
        n <= 1 ? 0
        : hc   ? LZ4_compress_HC_extStateHC(state, source, target, n, n - 1, Lz4Level(level))
               : LZ4_compress_fast_extState(state, source, target, n, n - 1,
                                          Lz4Level(level) < 0 ? -Lz4Level(level) : 1);
    if (packed > 0) {
      PutLe32(at, static_cast<uint32_t>(packed));
      at += 4 + packed;
    } else {
      PutLe32(at, static_cast<uint32_t>(n) | kLz4Raw);
      std::memcpy(at + 4, source, static_cast<size_t>(n));
      at += 4 + n;
    }
  }
  return Buffer::Slice(out, 0, at - out->data());
}

// An LZ4 frame's blocks: where each starts (its 4-byte size word), its
// stored bytes, whether it is stored raw; and the frame's maximum block
// size. Nothing unless liblz4 accepts the header and the frame is one of
// independent blocks without checksums or dictionary, of `expected` bytes
// where the header says, each block within the frame's bytes and maximum,
// and no more than `max_blocks` blocks (a frame of tiny blocks is read
// whole, not listed).
struct Lz4Block {
  int64_t at = 0;
  int64_t stored = 0;
  bool raw = false;
};
struct Lz4FrameBlocks {
  int64_t maximum = 0;
  std::vector<Lz4Block> blocks;
};

std::optional<Lz4FrameBlocks> ListLz4Blocks(const uint8_t* data, int64_t size, int64_t expected,
                                            size_t max_blocks) {
  struct Context {
    LZ4F_dctx* context = nullptr;
    ~Context() {
      if (context) LZ4F_freeDecompressionContext(context);
    }
  } owned;
  if (LZ4F_isError(LZ4F_createDecompressionContext(&owned.context, LZ4F_VERSION))) {
    return std::nullopt;
  }
  // liblz4 reads (and checks) the header, so only frames it accepts split.
  LZ4F_frameInfo_t info{};
  size_t consumed = static_cast<size_t>(size);
  if (LZ4F_isError(LZ4F_getFrameInfo(owned.context, &info, data, &consumed))) return std::nullopt;
  Lz4FrameBlocks out;
  switch (info.blockSizeID) {
    case LZ4F_max64KB: out.maximum = int64_t{64} << 10; break;
    case LZ4F_max256KB: out.maximum = int64_t{256} << 10; break;
    case LZ4F_max1MB: out.maximum = int64_t{1} << 20; break;
    case LZ4F_max4MB: out.maximum = int64_t{4} << 20; break;
    default: return std::nullopt;
  }
  if (info.blockMode != LZ4F_blockIndependent || info.blockChecksumFlag != LZ4F_noBlockChecksum ||
      info.contentChecksumFlag != LZ4F_noContentChecksum || info.dictID != 0 ||
      (info.contentSize != 0 && info.contentSize != static_cast<unsigned long long>(expected))) {
    return std::nullopt;
  }
  // One pass over the size words, each read once (the bytes may be a
  // mapped file's, changing under us).
  for (int64_t at = static_cast<int64_t>(consumed);;) {
    if (size - at < 4) return std::nullopt;
    const uint32_t word = GetLe32(data + at);
    if (word == 0) break;  // end mark
    const int64_t stored = word & ~kLz4Raw;
    if (stored == 0 || stored > size - at - 4 || stored > out.maximum) return std::nullopt;
    if (out.blocks.size() == max_blocks) return std::nullopt;
    out.blocks.push_back({at, stored, (word & kLz4Raw) != 0});
    at += 4 + stored;
  }
  return out;
}

// An LZ4 frame cut at block boundaries, or nothing (see SplitCompressed):
// every block but the last is taken to decode to the same power of two,
// which DecompressLz4Piece holds each block to.
std::vector<DecompressPiece> SplitLz4(const uint8_t* data, int64_t size, int64_t expected,
                                      int64_t min_piece) {
  const std::optional<Lz4FrameBlocks> frame =
      ListLz4Blocks(data, size, expected, MaxBlocks(expected));
  if (!frame || frame->blocks.size() < 2) return {};
  const int64_t block =
      Lz4BlockSize(static_cast<int64_t>(frame->blocks.size()), expected, frame->maximum);
  if (block == 0) return {};
  std::vector<DecompressPiece> out;
  DecompressPiece piece{frame->blocks[0].at, 0, 0, 0, block};
  int64_t produced = 0;
  for (const Lz4Block& next : frame->blocks) {
    const int64_t holds = std::min(block, expected - produced);
    if (holds <= 0 || (next.raw && next.stored != holds)) return {};
    produced += holds;
    piece.src_length = next.at + 4 + next.stored - piece.src_offset;
    piece.dst_length = produced - piece.dst_offset;
    if (piece.dst_length >= min_piece) {
      out.push_back(piece);
      piece = DecompressPiece{next.at + 4 + next.stored, 0, produced, 0, block};
    }
  }
  if (produced != expected) return {};
  if (piece.dst_length > 0) out.push_back(piece);
  if (out.size() < 2) return {};
  return out;
}

// The bytes one compressed LZ4 block decodes to, counted from its
// sequences (LZ4 Block Format: a token of two 4-bit lengths, literal
// length bytes while 255, the literals, then but for the last sequence a
// 2-byte offset and match length bytes while 255; a match is 4 bytes more
// than its length says) without decoding; -1 when the block is malformed,
// a match reaches before the block's start (blocks are independent), or
// the output passes `limit`.
int64_t Lz4DecodedSize(const uint8_t* in, int64_t size, int64_t limit) {
  const uint8_t* end = in + size;
  int64_t out = 0;
  auto length = [&](int64_t first, int64_t* total) {
    *total = first;
    if (first != 15) return true;
    uint8_t more = 255;
    while (more == 255) {
      if (in == end) return false;
      more = *in++;
      *total += more;
      if (*total > limit) return false;
    }
    return true;
  };
  while (in < end) {
    const uint8_t token = *in++;
    int64_t literals = 0, match = 0;
    if (!length(token >> 4, &literals) || literals > end - in) return -1;
    in += literals;
    out += literals;
    if (out > limit) return -1;
    if (in == end) return out;  // the last sequence: literals alone
    if (end - in < 2) return -1;
    const int64_t offset = in[0] | int64_t{in[1]} << 8;
    in += 2;
    if (offset == 0 || offset > out || !length(token & 15, &match)) return -1;
    out += match + 4;
    if (out > limit) return -1;
  }
  return -1;  // no last sequence of literals
}

// Each block of an LZ4 frame with the bytes it decodes to: `declared`
// (every block but the last; the last the rest) where the writer declared
// that size and the block count agrees, counted (Lz4DecodedSize)
// otherwise; nothing where a block is malformed or they do not add up to
// `expected`.
std::vector<DecompressPiece> ExactLz4Blocks(const uint8_t* data, int64_t size, int64_t expected,
                                            int64_t declared) {
  const std::optional<Lz4FrameBlocks> frame =
      ListLz4Blocks(data, size, expected, MaxBlocks(expected));
  if (!frame) return {};
  const auto count = static_cast<int64_t>(frame->blocks.size());
  const bool uniform = declared > 0 && Lz4BlockSize(count, expected, frame->maximum) == declared;
  std::vector<DecompressPiece> out;
  int64_t produced = 0;
  for (const Lz4Block& block : frame->blocks) {
    const int64_t placed = std::min(declared, expected - produced);  // where uniform
    const int64_t holds = block.raw ? block.stored
                          : uniform
                              ? placed
                              : Lz4DecodedSize(data + block.at + 4, block.stored, frame->maximum);
    if (holds <= 0 || (uniform && holds != placed)) return {};
    out.push_back({block.at, 4 + block.stored, produced, holds, holds});
    produced += holds;
  }
  if (produced != expected) return {};
  return out;
}

Status DecompressLz4Piece(const uint8_t* data, const DecompressPiece& piece, uint8_t* out) {
  const uint8_t* in = data + piece.src_offset;
  const uint8_t* end = in + piece.src_length;
  uint8_t* target = out + piece.dst_offset;
  int64_t left = piece.dst_length;
  // The block sizes were checked by ListLz4Blocks on the same bytes; they
  // are checked again here, in case the bytes (caller memory, a mapped
  // file) changed since.
  while (in < end) {
    if (end - in < 4) return Status::Invalid("LZ4 block header cut short");
    const uint32_t word = GetLe32(in);
    const int64_t stored = word & ~kLz4Raw;
    // Each block fills its share of the output exactly, as SplitLz4 (or
    // ExactLz4Blocks, a piece a block) placed it.
    const int64_t holds = std::min(piece.block, left);
    if (word == 0 || stored > end - in - 4 || holds <= 0) {
      return Status::Invalid("LZ4 blocks changed while read");
    }
    if (word & kLz4Raw) {
      if (stored != holds) return Status::Invalid("LZ4 raw block of another size");
      std::memcpy(target, in + 4, static_cast<size_t>(holds));
    } else {
      const int got = LZ4_decompress_safe(reinterpret_cast<const char*>(in + 4),
                                          reinterpret_cast<char*>(target), static_cast<int>(stored),
                                          static_cast<int>(holds));
      if (got != holds) return Status::Invalid("corrupt LZ4 block");
    }
    in += 4 + stored;
    target += holds;
    left -= holds;
  }
  if (left != 0) return Status::Invalid("LZ4 blocks decompress to another size");
  return Status::OK();
}

// One block (its size word, then its bytes), its first `prefix` bytes:
// the bytes decoded, `prefix` or, with a liblz4 before 1.8.3 (whose
// partial decode may finish its last sequence), up to the block's size.
Result<int64_t> DecompressLz4Prefix(const uint8_t* data, const DecompressPiece& piece,
                                    int64_t prefix, uint8_t* out) {
  const uint8_t* in = data + piece.src_offset;
  if (piece.src_length < 4) return Status::Invalid("LZ4 block header cut short");
  const uint32_t word = GetLe32(in);
  const int64_t stored = word & ~kLz4Raw;
  if (word == 0 || stored != piece.src_length - 4) {
    return Status::Invalid("LZ4 blocks changed while read");
  }
  if (prefix <= 0 || prefix > piece.dst_length) {
    return Status::Invalid("a prefix of ", prefix, " bytes of an LZ4 block of ", piece.dst_length);
  }
  uint8_t* target = out + piece.dst_offset;
  if (word & kLz4Raw) {
    if (stored != piece.dst_length) return Status::Invalid("LZ4 raw block of another size");
    std::memcpy(target, in + 4, static_cast<size_t>(prefix));
    return prefix;
  }
  const int got = LZ4_decompress_safe_partial(
      reinterpret_cast<const char*>(in + 4), reinterpret_cast<char*>(target),
      static_cast<int>(stored), static_cast<int>(prefix), static_cast<int>(piece.dst_length));
  if (got < prefix || got > piece.dst_length) return Status::Invalid("corrupt LZ4 block");
  return int64_t{got};
}
#endif  // QUIVER_HAVE_LZ4

#ifdef QUIVER_HAVE_ZSTD
struct ZstdContexts {
  ZSTD_CCtx* compress = nullptr;
  ZSTD_DCtx* decompress = nullptr;
  ~ZstdContexts() {
    ZSTD_freeCCtx(compress);
    ZSTD_freeDCtx(decompress);
  }
};

// The calling thread's ZSTD contexts, made on first use.
ZstdContexts& ThreadZstd() {
  thread_local ZstdContexts contexts;
  return contexts;
}

// [data, data + size) as ZSTD frames of `frame` bytes each (the last one
// shorter), one after another.
Result<BufferPtr> ZstdPart(int level, int64_t frame, const uint8_t* data, int64_t size) {
  ZstdContexts& contexts = ThreadZstd();
  if (contexts.compress == nullptr) contexts.compress = ZSTD_createCCtx();
  if (contexts.compress == nullptr) {
    return Status::OutOfMemory("cannot create a ZSTD compression context");
  }
  const int64_t frames = (size + frame - 1) / frame;
  const size_t bound = ZSTD_compressBound(static_cast<size_t>(std::min(frame, size)));
  QUIVER_ASSIGN_OR_RETURN(
      BufferPtr out,
      Buffer::AllocateUninitialized(static_cast<int64_t>(bound) * std::max<int64_t>(frames, 1)));
  const int zstd_level = level == WriteOptions::kDefaultLevel ? ZSTD_CLEVEL_DEFAULT : level;
  size_t at = 0;
  for (int64_t from = 0; from < size; from += frame) {
    const size_t n = static_cast<size_t>(std::min(frame, size - from));
    // One-shot compression writes the content size into the frame header,
    // which is what lets a reader split the frames again.
    const size_t written = ZSTD_compressCCtx(contexts.compress, out->mutable_data() + at, bound,
                                             data + from, n, zstd_level);
    if (ZSTD_isError(written)) {
      return Status::IOError("ZSTD compression failed: ", ZSTD_getErrorName(written));
    }
    at += written;
  }
  return Buffer::Slice(out, 0, static_cast<int64_t>(at));
}

// ZSTD frames grouped into pieces, or nothing (see SplitCompressed).
std::vector<DecompressPiece> SplitZstd(const uint8_t* data, int64_t size, int64_t expected,
                                       int64_t min_piece) {
  std::vector<DecompressPiece> out;
  DecompressPiece piece;
  int64_t at = 0, produced = 0;
  while (at < size) {
    const size_t frame = ZSTD_findFrameCompressedSize(data + at, static_cast<size_t>(size - at));
    if (ZSTD_isError(frame) || frame == 0) return {};
    const unsigned long long holds =
        ZSTD_getFrameContentSize(data + at, static_cast<size_t>(size - at));
    if (holds == ZSTD_CONTENTSIZE_UNKNOWN || holds == ZSTD_CONTENTSIZE_ERROR ||
        holds > static_cast<unsigned long long>(expected - produced)) {
      return {};
    }
    at += static_cast<int64_t>(frame);
    produced += static_cast<int64_t>(holds);
    piece.src_length = at - piece.src_offset;
    piece.dst_length = produced - piece.dst_offset;
    if (piece.dst_length >= min_piece) {
      if (out.size() == MaxBlocks(expected)) return {};  // tiny frames: read whole
      out.push_back(piece);
      piece = DecompressPiece{at, 0, produced, 0};
    }
  }
  if (produced != expected) return {};
  if (piece.src_length > 0) out.push_back(piece);
  if (out.size() < 2) return {};
  return out;
}

Status DecompressZstdPiece(const uint8_t* data, const DecompressPiece& piece, uint8_t* out) {
  ZstdContexts& contexts = ThreadZstd();
  if (contexts.decompress == nullptr) contexts.decompress = ZSTD_createDCtx();
  if (contexts.decompress == nullptr) {
    return Status::OutOfMemory("cannot create a ZSTD decompression context");
  }
  const size_t got = ZSTD_decompressDCtx(
      contexts.decompress, out + piece.dst_offset, static_cast<size_t>(piece.dst_length),
      data + piece.src_offset, static_cast<size_t>(piece.src_length));
  if (ZSTD_isError(got) || got != static_cast<size_t>(piece.dst_length)) {
    return Status::Invalid("ZSTD frames decompress to another size");
  }
  return Status::OK();
}
#endif  // QUIVER_HAVE_ZSTD

}  // namespace

Status CheckBlockBytes(int64_t block_bytes) {
  const bool power_of_two = block_bytes > 0 && (block_bytes & (block_bytes - 1)) == 0;
  if (block_bytes == 0 ||
      (power_of_two && block_bytes >= kMinBlockBytes && block_bytes <= kMaxBlockBytes)) {
    return Status::OK();
  }
  return Status::Invalid("compression_block_bytes must be a power of two from ", kMinBlockBytes,
                         " to ", kMaxBlockBytes, " (4 KiB to 4 MiB), or unset; got ", block_bytes);
}

Result<PartCompressor> PartCompressor::Make(Compression codec, int level, const uint8_t* data,
                                            int64_t size, int64_t block_bytes) {
  QUIVER_RETURN_NOT_OK(CheckCodec(codec));
  QUIVER_RETURN_NOT_OK(CheckBlockBytes(block_bytes));
  if (codec == Compression::kNone) return Status::Invalid("no codec to compress with");
  PartCompressor out;
  out.codec_ = codec;
  out.level_ = level;
  out.data_ = data;
  out.size_ = size;
  out.block_ = block_bytes > 0                   ? block_bytes
               : codec == Compression::kLz4Frame ? int64_t{1} << 20
                                                 : kPartBytes;
#ifdef QUIVER_HAVE_LZ4
  if (codec == Compression::kLz4Frame) {
    QUIVER_ASSIGN_OR_RETURN(out.head_, Lz4Head(level, out.block_, size));
    QUIVER_ASSIGN_OR_RETURN(out.tail_, Buffer::Allocate(4));  // the end mark: 0
  }
#endif
  return out;
}

Result<BufferPtr> PartCompressor::Part(int64_t k) const {
  const int64_t from = k * kPartBytes;
  const int64_t n = std::min(kPartBytes, size_ - from);
  switch (codec_) {
#ifdef QUIVER_HAVE_LZ4
    case Compression::kLz4Frame: return Lz4Blocks(level_, block_, data_ + from, n);
#endif
#ifdef QUIVER_HAVE_ZSTD
    case Compression::kZstd: return ZstdPart(level_, block_, data_ + from, n);
#endif
    default: break;
  }
  (void)from, (void)n;
  return Status::Invalid("no codec to compress with");
}

std::vector<DecompressPiece> SplitCompressed(Compression codec, const uint8_t* data, int64_t size,
                                             int64_t expected, int64_t min_piece) {
  if (expected < 2 * min_piece || !CheckCodec(codec).ok()) return {};
  switch (codec) {
#ifdef QUIVER_HAVE_LZ4
    case Compression::kLz4Frame: return SplitLz4(data, size, expected, min_piece);
#endif
#ifdef QUIVER_HAVE_ZSTD
    case Compression::kZstd: return SplitZstd(data, size, expected, min_piece);
#endif
    default: break;
  }
  (void)data, (void)size;
  return {};
}

std::vector<DecompressPiece> CompressedBlocks(Compression codec, const uint8_t* data, int64_t size,
                                              int64_t expected, int64_t lz4_block) {
  if (expected < 2 || !CheckCodec(codec).ok()) return {};
  std::vector<DecompressPiece> out;
  switch (codec) {
#ifdef QUIVER_HAVE_LZ4
    case Compression::kLz4Frame: out = ExactLz4Blocks(data, size, expected, lz4_block); break;
#endif
#ifdef QUIVER_HAVE_ZSTD
    case Compression::kZstd: out = SplitZstd(data, size, expected, 1); break;
#endif
    default: break;
  }
  (void)data, (void)size, (void)lz4_block;
  // Tiny blocks would make an index larger than what it saves.
  for (size_t i = 0; i + 1 < out.size(); ++i) {
    if (out[i].dst_length < kMinBlockBytes) return {};
  }
  if (out.size() < 2) return {};
  return out;
}

Status DecompressPieceInto(Compression codec, const uint8_t* data, const DecompressPiece& piece,
                           uint8_t* out) {
  switch (codec) {
#ifdef QUIVER_HAVE_LZ4
    case Compression::kLz4Frame: return DecompressLz4Piece(data, piece, out);
#endif
#ifdef QUIVER_HAVE_ZSTD
    case Compression::kZstd: return DecompressZstdPiece(data, piece, out);
#endif
    default: break;
  }
  (void)data, (void)piece, (void)out;
  return Status::Invalid("no codec to decompress with");
}

Result<int64_t> DecompressBlockPrefix(Compression codec, const uint8_t* data,
                                      const DecompressPiece& piece, int64_t prefix, uint8_t* out) {
#ifdef QUIVER_HAVE_LZ4
  if (codec == Compression::kLz4Frame) return DecompressLz4Prefix(data, piece, prefix, out);
#endif
  QUIVER_RETURN_NOT_OK(DecompressPieceInto(codec, data, piece, out));
  return piece.dst_length;
}

}  // namespace quiver::ipc
