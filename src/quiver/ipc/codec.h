// Internal: LZ4 frame and ZSTD compression of IPC body buffers.
#pragma once

#include <cstdint>
#include <vector>

#include "quiver/buffer.h"
#include "quiver/ipc.h"
#include "quiver/status.h"

namespace quiver::ipc {

// The compressed bytes of [data, data + size) (no length prefix): one
// frame, on the calling thread (large buffers: PartCompressor below).
Result<BufferPtr> Compress(Compression codec, int level, const uint8_t* data, int64_t size);

// Exactly `expected` decompressed bytes of [data, data + size); Invalid when
// the input is corrupt or decompresses to another size.
Result<BufferPtr> Decompress(Compression codec, const uint8_t* data, int64_t size,
                             int64_t expected);

// Decompress into caller memory: `expected` bytes at `out`.
Status DecompressInto(Compression codec, const uint8_t* data, int64_t size, int64_t expected,
                      uint8_t* out);

// --- Large buffers in parts that threads share (codec_parts.cc) ---------
//
// A buffer of kPartBytes or more is compressed in parts of kPartBytes (the
// last one shorter), each on its own, so that threads can share one
// buffer: one LZ4 frame whose blocks are independent (1 MiB blocks), or
// one ZSTD frame per part, the frames one after another. Both are what any
// reader of the codec reads (an LZ4 frame; a ZSTD stream of frames).
// Reading splits such a buffer at the same places (SplitCompressed).
//
// With WriteOptions::compression_block_bytes set, every buffer larger than
// that block is compressed so: LZ4 blocks of that size, ZSTD frames of that
// size; a reader that needs a few rows decodes only the blocks holding them.
constexpr int64_t kPartBytes = int64_t{4} << 20;

// Whether a buffer of `size` bytes is compressed in parts, for
// `block_bytes` (WriteOptions::compression_block_bytes; 0: unset).
inline bool CompressesInParts(int64_t size, int64_t block_bytes = 0) {
  return size >= 2 * kPartBytes || (block_bytes > 0 && size > block_bytes);
}

// OK when `block_bytes` is 0 (unset) or a power of two from 4 KiB to 4 MiB
// (an LZ4 frame's blocks may be smaller than the maximum its header names;
// a power of two lets a reader place them: SplitCompressed); Invalid
// naming the range otherwise.
constexpr int64_t kMinBlockBytes = WriteOptions::kMinCompressionBlockBytes;
constexpr int64_t kMaxBlockBytes = WriteOptions::kMaxCompressionBlockBytes;
Status CheckBlockBytes(int64_t block_bytes);

// The pieces of one buffer compressed in parts: Head(), then Part(k) for k
// in [0, parts()), then Tail(), concatenated, are the compressed buffer.
// Part() may run on several threads at once (each thread keeps its own
// codec context). A part of kPartBytes holds whole blocks of every size
// CheckBlockBytes allows.
class PartCompressor {
 public:
  // `block_bytes`: 0 (1 MiB LZ4 blocks, 4 MiB ZSTD frames) or a size that
  // CheckBlockBytes accepts.
  static Result<PartCompressor> Make(Compression codec, int level, const uint8_t* data,
                                     int64_t size, int64_t block_bytes = 0);
  int64_t parts() const { return (size_ + kPartBytes - 1) / kPartBytes; }
  const BufferPtr& Head() const { return head_; }  // nullptr: none
  const BufferPtr& Tail() const { return tail_; }  // nullptr: none
  Result<BufferPtr> Part(int64_t k) const;

 private:
  Compression codec_ = Compression::kNone;
  int level_ = 0;
  const uint8_t* data_ = nullptr;
  int64_t size_ = 0;
  int64_t block_ = 0;  // LZ4 block or ZSTD frame: decoded bytes
  BufferPtr head_, tail_;
};

// A run of compressed bytes that decompresses on its own to a run of the
// output: [src_offset, +src_length) of the compressed bytes, written to
// [dst_offset, +dst_length) of the output.
struct DecompressPiece {
  int64_t src_offset = 0, src_length = 0;
  int64_t dst_offset = 0, dst_length = 0;
  int64_t block = 0;  // LZ4: the frame's block size, which every block but the last fills
};

// Cuts [data, data + size), which claims `expected` decompressed bytes,
// into pieces of at least `min_piece` output bytes that decompress
// independently: at ZSTD frame boundaries, or at block boundaries of an LZ4
// frame of independent blocks without checksums, taking its blocks but the
// last to decode to the same power of two bytes (what quiver writes; a
// frame of other blocks fails in DecompressPieceInto, so a caller that
// decodes every piece and falls back to the whole buffer on a failure
// reads it right: a piece read alone needs CompressedBlocks). Empty when the buffer
// cannot be cut (one frame, linked LZ4 blocks, sizes that do not add up
// to `expected`, anything unusual): the caller then decompresses it whole
// (Decompress), which also names whatever is wrong with it.
std::vector<DecompressPiece> SplitCompressed(Compression codec, const uint8_t* data, int64_t size,
                                             int64_t expected, int64_t min_piece);

// Every block of [data, data + size) that decompresses on its own, with
// its exact place in the `expected` output bytes, one piece a block: ZSTD
// frames (their headers give their sizes), or the blocks of an LZ4 frame
// of independent blocks without checksums, whatever their sizes (each
// block's decoded size counted from its sequences, a pass over the block's
// tokens that writes nothing). For reading a few rows: unlike
// SplitCompressed, whose pieces are checked by decoding them all, a piece
// read alone must be where it says. Empty when the buffer is one block or
// frame, anything is malformed, the sizes do not add up to `expected`, or
// a block but the last decodes to fewer than kMinBlockBytes.
// `lz4_block` > 0: the writer declares that an LZ4 frame's blocks but the
// last decode to that many bytes (block_hint.h); where the frame's block
// count agrees, they are placed so without counting their sequences.
std::vector<DecompressPiece> CompressedBlocks(Compression codec, const uint8_t* data, int64_t size,
                                              int64_t expected, int64_t lz4_block = 0);

// Decompresses one piece of SplitCompressed into out + piece.dst_offset
// (`out` holds the whole output). Invalid when it does not decompress to
// exactly piece.dst_length bytes; the caller then decompresses the buffer
// whole for the error to report.
Status DecompressPieceInto(Compression codec, const uint8_t* data, const DecompressPiece& piece,
                           uint8_t* out);

// The first `prefix` bytes (0 < prefix <= piece.dst_length) of a piece of
// CompressedBlocks (one block), into out + piece.dst_offset: an LZ4 block
// stops decoding there, so a reader that needs the start of a block does
// not pay for the rest of it (nor checks it: the block's bytes past the
// prefix, and whether it decodes to its size, stay unknown); a ZSTD frame
// is decoded whole. Returns the bytes decoded; Invalid when the bytes
// read are malformed or do not hold `prefix` bytes.
Result<int64_t> DecompressBlockPrefix(Compression codec, const uint8_t* data,
                                      const DecompressPiece& piece, int64_t prefix, uint8_t* out);

// OK when this build has `codec` (kNone included); otherwise NotImplemented
// with a message that says how to get a quiver with that codec.
Status CheckCodec(Compression codec);

// OK when `level` is WriteOptions::kDefaultLevel or within the codec's
// levels (LZ4 frame 0 to 12, ZSTD -131072 to 22); Invalid naming the range
// otherwise.
Status CheckLevel(Compression codec, int64_t level);

// "LZ4_FRAME" / "ZSTD" for messages.
const char* CodecName(Compression codec);

}  // namespace quiver::ipc
