// Large buffers compressed in parts and split again for threads: the parts
// joined are one buffer that the codec's own one-shot decoder reads (an
// LZ4 frame, a ZSTD stream of frames), the pieces decompress to the same
// bytes, one frame or linked LZ4 blocks do not split, and bytes that lie
// about their sizes fail as Invalid, never out of bounds.
#ifdef QUIVER_HAVE_LZ4
#include <lz4.h>
#include <lz4frame.h>
#endif

#include <cstring>
#include <random>
#include <vector>

#include "quiver/build_info.h"
#include "quiver/ipc.h"
#include "quiver/ipc/codec.h"
#include "test_util.h"

namespace quiver::ipc {
namespace {

// Compressible runs with incompressible noise between them, so that some
// LZ4 blocks are stored raw.
std::vector<uint8_t> Mixed(size_t n) {
  std::vector<uint8_t> data(n);
  std::mt19937 random(7);
  for (size_t i = 0; i < n; ++i) {
    const bool noise = (i >> 20) % 3 == 1;
    data[i] = noise ? static_cast<uint8_t>(random()) : static_cast<uint8_t>(i % 97 / 5);
  }
  return data;
}

std::vector<uint8_t> Joined(const PartCompressor& parts) {
  std::vector<uint8_t> out;
  auto append = [&](const BufferPtr& piece) {
    if (piece) out.insert(out.end(), piece->data(), piece->data() + piece->size());
  };
  append(parts.Head());
  for (int64_t k = 0; k < parts.parts(); ++k) {
    auto part = parts.Part(k);
    EXPECT_TRUE(part.ok()) << part.status().message();
    if (part.ok()) append(*part);
  }
  append(parts.Tail());
  return out;
}

std::vector<Compression> Codecs();

// Each codec this build has with each block size.
std::vector<std::pair<Compression, int64_t>> Cases(std::initializer_list<int64_t> blocks) {
  std::vector<std::pair<Compression, int64_t>> out;
  for (Compression codec : Codecs()) {
    for (int64_t block : blocks) out.emplace_back(codec, block);
  }
  return out;
}

std::vector<Compression> Codecs() {
  std::vector<Compression> out;
  for (Compression codec : {Compression::kLz4Frame, Compression::kZstd}) {
    if (HasCodec(codec)) out.push_back(codec);
  }
  return out;
}

}  // namespace

TEST(CodecParts, JoinedPartsAreOneBufferAndSplitAgain) {
  if (Codecs().empty()) GTEST_SKIP() << "this build has neither codec";
  const std::vector<uint8_t> data = Mixed(3 * kPartBytes + 12345);
  const auto size = static_cast<int64_t>(data.size());
  EXPECT_TRUE(CompressesInParts(size));
  EXPECT_FALSE(CompressesInParts(2 * kPartBytes - 1));
  for (Compression codec : Codecs()) {
    for (int level : {WriteOptions::kDefaultLevel, 1, 9}) {
      SCOPED_TRACE(std::string(CodecName(codec)) + " level " + std::to_string(level));
      ASSERT_OK_AND_ASSIGN(PartCompressor parts,
                           PartCompressor::Make(codec, level, data.data(), size));
      EXPECT_EQ(parts.parts(), 4);
      const std::vector<uint8_t> packed = Joined(parts);
      const auto packed_size = static_cast<int64_t>(packed.size());
      EXPECT_LT(packed_size, size);
      // The codec's own decoder reads the joined parts as one buffer.
      ASSERT_OK_AND_ASSIGN(BufferPtr whole, Decompress(codec, packed.data(), packed_size, size));
      EXPECT_EQ(std::memcmp(whole->data(), data.data(), data.size()), 0);
      // And they split again into pieces that cover the output in order.
      const std::vector<DecompressPiece> pieces =
          SplitCompressed(codec, packed.data(), packed_size, size, kPartBytes);
      ASSERT_GE(pieces.size(), 2u);
      std::vector<uint8_t> out(data.size(), 0xEE);
      int64_t next = 0;
      for (const DecompressPiece& piece : pieces) {
        EXPECT_EQ(piece.dst_offset, next);
        next += piece.dst_length;
        ASSERT_OK(DecompressPieceInto(codec, packed.data(), piece, out.data()));
      }
      EXPECT_EQ(next, size);
      EXPECT_EQ(out, data);
      // A claimed size the pieces do not add up to: no split (the whole
      // path then names the mismatch).
      EXPECT_TRUE(SplitCompressed(codec, packed.data(), packed_size, size + 1, kPartBytes).empty());
      EXPECT_TRUE(SplitCompressed(codec, packed.data(), packed_size, size - 1, kPartBytes).empty());
    }
  }
}

// compression_block_bytes: every buffer larger than a block is cut into
// blocks of that size (LZ4 blocks, ZSTD frames), which split one by one.
TEST(CodecParts, BlocksOfTheSizeAskedSplitOneByOne) {
  if (Codecs().empty()) GTEST_SKIP() << "this build has neither codec";
  EXPECT_TRUE(CompressesInParts(4097, 4096));
  EXPECT_FALSE(CompressesInParts(4096, 4096));
  EXPECT_FALSE(CompressesInParts(4097, 0));
  const std::vector<uint8_t> data = Mixed(kPartBytes + 12345);
  const auto size = static_cast<int64_t>(data.size());
  // 16 KiB and 4 KiB: LZ4 blocks under the smallest maximum a frame header
  // names (64 KiB).
  for (const auto& [codec, block] :
       Cases({int64_t{4} << 10, int64_t{16} << 10, int64_t{64} << 10, int64_t{1} << 20})) {
    SCOPED_TRACE(std::string(CodecName(codec)) + " blocks of " + std::to_string(block));
    ASSERT_OK_AND_ASSIGN(PartCompressor parts,
                         PartCompressor::Make(codec, 1, data.data(), size, block));
    EXPECT_EQ(parts.parts(), 2);
    const std::vector<uint8_t> packed = Joined(parts);
    const auto packed_size = static_cast<int64_t>(packed.size());
    ASSERT_OK_AND_ASSIGN(BufferPtr whole, Decompress(codec, packed.data(), packed_size, size));
    EXPECT_EQ(std::memcmp(whole->data(), data.data(), data.size()), 0);
    const std::vector<DecompressPiece> pieces =
        SplitCompressed(codec, packed.data(), packed_size, size, 1);
    ASSERT_EQ(static_cast<int64_t>(pieces.size()), (size + block - 1) / block);
    std::vector<uint8_t> out(data.size(), 0xEE);
    for (size_t k = 0; k < pieces.size(); ++k) {
      EXPECT_EQ(pieces[k].dst_offset, static_cast<int64_t>(k) * block);
      EXPECT_EQ(pieces[k].dst_length, std::min(block, size - pieces[k].dst_offset));
    }
    // One block alone decodes to its bytes, leaving the others untouched.
    ASSERT_OK(DecompressPieceInto(codec, packed.data(), pieces[3], out.data()));
    EXPECT_EQ(std::memcmp(out.data() + 3 * block, data.data() + 3 * block, block), 0);
    EXPECT_EQ(out[0], 0xEE);
    EXPECT_EQ(out[4 * block], 0xEE);
    // A claimed size that would put the blocks elsewhere: no split.
    EXPECT_TRUE(SplitCompressed(codec, packed.data(), packed_size, size + block, 1).empty());
  }
}

TEST(CodecParts, BlockSizesArePowersOfTwoFrom4KiBTo4MiB) {
  for (int64_t ok : {int64_t{0}, int64_t{4096}, int64_t{16384}, int64_t{65536}, int64_t{1} << 20,
                     int64_t{4} << 20}) {
    ASSERT_OK(CheckBlockBytes(ok));
  }
  for (int64_t bad : {int64_t{-1}, int64_t{1000}, int64_t{2048}, int64_t{65535}, int64_t{12288},
                      int64_t{8} << 20}) {
    Status st = CheckBlockBytes(bad);
    EXPECT_EQ(st.code(), StatusCode::kInvalid);
    EXPECT_NE(st.message().find("compression_block_bytes"), std::string::npos) << st.message();
    EXPECT_NE(st.message().find(std::to_string(bad)), std::string::npos) << st.message();
  }
  // A writer refuses it when it opens, before writing anything.
  auto sink = std::make_shared<io::BufferSink>();
  WriteOptions options;
  options.compression_block_bytes = 1000;
  auto schema = std::make_shared<Schema>(Schema{{Field{"x", int64()}}});
  auto opened = FileWriter::Open(sink, schema, options);
  ASSERT_FALSE(opened.ok());
  EXPECT_NE(opened.status().message().find("compression_block_bytes"), std::string::npos);
  EXPECT_EQ(sink->position(), 0);
}

#ifdef QUIVER_HAVE_LZ4
namespace {

// An LZ4 frame of independent blocks of the sizes given (decoded bytes,
// each at most 64 KiB; a block listed negative is stored raw), as a
// streaming LZ4 writer may cut one; without a content size unless given.
std::vector<uint8_t> Lz4FrameOfBlocks(const std::vector<uint8_t>& data,
                                      const std::vector<int64_t>& sizes,
                                      unsigned long long content_size = 0) {
  LZ4F_cctx* context = nullptr;
  EXPECT_FALSE(LZ4F_isError(LZ4F_createCompressionContext(&context, LZ4F_VERSION)));
  LZ4F_preferences_t preferences{};
  preferences.frameInfo.blockSizeID = LZ4F_max64KB;
  preferences.frameInfo.blockMode = LZ4F_blockIndependent;
  preferences.frameInfo.contentSize = content_size;
  std::vector<uint8_t> out(LZ4F_HEADER_SIZE_MAX);
  const size_t head = LZ4F_compressBegin(context, out.data(), out.size(), &preferences);
  LZ4F_freeCompressionContext(context);
  EXPECT_FALSE(LZ4F_isError(head));
  out.resize(head);
  size_t from = 0;
  for (int64_t size : sizes) {
    const bool raw = size < 0;
    const auto n = static_cast<int>(raw ? -size : size);
    std::vector<char> packed(static_cast<size_t>(LZ4_compressBound(n)));
    const int written =
        raw ? 0
            : LZ4_compress_default(reinterpret_cast<const char*>(data.data() + from), packed.data(),
                                   n, static_cast<int>(packed.size()));
    const uint32_t word =
        raw ? (static_cast<uint32_t>(n) | 0x80000000u) : static_cast<uint32_t>(written);
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(word >> (8 * i)));
    if (raw) {
      out.insert(out.end(), data.begin() + static_cast<std::ptrdiff_t>(from),
                 data.begin() + static_cast<std::ptrdiff_t>(from) + n);
    } else {
      out.insert(out.end(), packed.begin(), packed.begin() + written);
    }
    from += static_cast<size_t>(n);
  }
  out.insert(out.end(), 4, 0);  // end mark
  return out;
}

}  // namespace

// A frame whose blocks differ in size (valid LZ4; a count of blocks alone
// would place them at multiples of one size): CompressedBlocks counts each
// block's decoded bytes, so every block read alone lands where it belongs.
TEST(CodecParts, BlocksOfMixedSizesArePlacedByTheirOwnBytes) {
  const std::vector<uint8_t> data = Mixed(3 << 20);
  const std::vector<int64_t> sizes = {8192, 16384, 16384, -16384, 16384, 24576, 5000};
  int64_t expected = 0;
  for (int64_t size : sizes) expected += size < 0 ? -size : size;
  const std::vector<uint8_t> frame = Lz4FrameOfBlocks(data, sizes);
  const auto frame_size = static_cast<int64_t>(frame.size());
  // The whole frame decodes (any LZ4 reader reads it).
  ASSERT_OK_AND_ASSIGN(BufferPtr whole,
                       Decompress(Compression::kLz4Frame, frame.data(), frame_size, expected));
  ASSERT_EQ(std::memcmp(whole->data(), data.data(), static_cast<size_t>(expected)), 0);
  const std::vector<DecompressPiece> blocks =
      CompressedBlocks(Compression::kLz4Frame, frame.data(), frame_size, expected);
  ASSERT_EQ(blocks.size(), sizes.size());
  int64_t at = 0;
  for (size_t k = 0; k < blocks.size(); ++k) {
    SCOPED_TRACE("block " + std::to_string(k));
    EXPECT_EQ(blocks[k].dst_offset, at);
    EXPECT_EQ(blocks[k].dst_length, sizes[k] < 0 ? -sizes[k] : sizes[k]);
    std::vector<uint8_t> out(static_cast<size_t>(expected), 0xEE);
    ASSERT_OK(DecompressPieceInto(Compression::kLz4Frame, frame.data(), blocks[k], out.data()));
    EXPECT_EQ(
        std::memcmp(out.data() + at, data.data() + at, static_cast<size_t>(blocks[k].dst_length)),
        0);
    at += blocks[k].dst_length;
  }
  // A block under 4 KiB but the last: no blocks (an index of tiny blocks
  // would outweigh what it saves).
  const std::vector<uint8_t> tiny = Lz4FrameOfBlocks(data, {8192, 100, 8192});
  EXPECT_TRUE(CompressedBlocks(Compression::kLz4Frame, tiny.data(),
                               static_cast<int64_t>(tiny.size()), 8192 + 100 + 8192)
                  .empty());
  // Sizes that do not add up to the claim, and a block whose bytes are no
  // LZ4 sequences: no blocks.
  EXPECT_TRUE(
      CompressedBlocks(Compression::kLz4Frame, frame.data(), frame_size, expected + 1).empty());
  std::vector<uint8_t> bad = frame;
  bad[static_cast<size_t>(blocks[1].src_offset + 4)] = 0xFF;  // a token asking for more bytes
  for (size_t i = 5; i < 40; ++i) bad[static_cast<size_t>(blocks[1].src_offset) + i] = 0xFF;
  const std::vector<DecompressPiece> after = CompressedBlocks(
      Compression::kLz4Frame, bad.data(), static_cast<int64_t>(bad.size()), expected);
  for (const DecompressPiece& piece : after) {  // if it still counts, it must not misplace
    std::vector<uint8_t> out(static_cast<size_t>(expected));
    if (DecompressPieceInto(Compression::kLz4Frame, bad.data(), piece, out.data()).ok()) {
      EXPECT_LE(piece.dst_offset + piece.dst_length, expected);
    }
  }
}

// Blocks of the size the writer declares are placed without counting
// their sequences, where the frame's block count agrees; a declaration
// that lies misplaces no byte outside the buffer, and the block whose
// size it gets wrong fails to decode.
TEST(CodecParts, DeclaredBlockSizesPlaceBlocksWithoutCounting) {
  const std::vector<uint8_t> data = Mixed(1 << 20);
  const int64_t size = 5 * 16384 + 777;
  ASSERT_OK_AND_ASSIGN(PartCompressor parts,
                       PartCompressor::Make(Compression::kLz4Frame, 1, data.data(), size, 16384));
  std::vector<uint8_t> frame;
  for (const BufferPtr& piece : {parts.Head(), *parts.Part(0), parts.Tail()}) {
    if (piece) frame.insert(frame.end(), piece->data(), piece->data() + piece->size());
  }
  const auto frame_size = static_cast<int64_t>(frame.size());
  const std::vector<DecompressPiece> counted =
      CompressedBlocks(Compression::kLz4Frame, frame.data(), frame_size, size);
  ASSERT_EQ(counted.size(), 6u);
  const std::vector<DecompressPiece> declared =
      CompressedBlocks(Compression::kLz4Frame, frame.data(), frame_size, size, 16384);
  ASSERT_EQ(declared.size(), counted.size());
  for (size_t k = 0; k < counted.size(); ++k) {
    EXPECT_EQ(declared[k].src_offset, counted[k].src_offset);
    EXPECT_EQ(declared[k].src_length, counted[k].src_length);
    EXPECT_EQ(declared[k].dst_offset, counted[k].dst_offset);
    EXPECT_EQ(declared[k].dst_length, counted[k].dst_length);
  }
  // A size the block count does not allow: counted as without one.
  const std::vector<DecompressPiece> other =
      CompressedBlocks(Compression::kLz4Frame, frame.data(), frame_size, size, 8192);
  ASSERT_EQ(other.size(), counted.size());
  EXPECT_EQ(other[1].dst_offset, counted[1].dst_offset);

  // A lie: blocks of 8192, 16384, 16384, 16384 bytes declared as 16384
  // each (the count allows it).
  const std::vector<int64_t> sizes = {8192, 16384, 16384, 16384};
  const std::vector<uint8_t> mixed = Lz4FrameOfBlocks(data, sizes);
  const int64_t expected = 8192 + 3 * 16384;
  const std::vector<DecompressPiece> lied = CompressedBlocks(
      Compression::kLz4Frame, mixed.data(), static_cast<int64_t>(mixed.size()), expected, 16384);
  ASSERT_EQ(lied.size(), 4u);
  std::vector<uint8_t> out(static_cast<size_t>(expected));
  for (const DecompressPiece& piece : lied) {
    EXPECT_GE(piece.dst_offset, 0);
    EXPECT_LE(piece.dst_offset + piece.dst_length, expected);
  }
  EXPECT_FALSE(DecompressPieceInto(Compression::kLz4Frame, mixed.data(), lied[0], out.data()).ok());
  // Decoded only in part, the block is not held to its size: its first
  // bytes come out (block 0 starts where it is placed).
  ASSERT_OK_AND_ASSIGN(
      const int64_t start,
      DecompressBlockPrefix(Compression::kLz4Frame, mixed.data(), lied[0], 100, out.data()));
  EXPECT_EQ(start, 100);
  EXPECT_EQ(std::memcmp(out.data(), data.data(), 100), 0);
}

// The start of a block decodes alone: an LZ4 block stops where asked, a
// raw one is copied that far; a piece of two blocks, or a prefix outside
// the block, is refused.
TEST(CodecParts, TheStartOfABlockDecodesAlone) {
  const std::vector<uint8_t> data = Mixed(1 << 20);
  const std::vector<int64_t> sizes = {16384, -16384, 16384, 5000};
  int64_t expected = 0;
  for (int64_t size : sizes) expected += size < 0 ? -size : size;
  const std::vector<uint8_t> frame = Lz4FrameOfBlocks(data, sizes);
  const std::vector<DecompressPiece> blocks = CompressedBlocks(
      Compression::kLz4Frame, frame.data(), static_cast<int64_t>(frame.size()), expected);
  ASSERT_EQ(blocks.size(), sizes.size());
  for (size_t k = 0; k < blocks.size(); ++k) {
    for (int64_t prefix : {int64_t{1}, blocks[k].dst_length / 3, blocks[k].dst_length}) {
      SCOPED_TRACE("block " + std::to_string(k) + ", prefix " + std::to_string(prefix));
      std::vector<uint8_t> out(static_cast<size_t>(expected), 0xEE);
      ASSERT_OK_AND_ASSIGN(const int64_t decoded,
                           DecompressBlockPrefix(Compression::kLz4Frame, frame.data(), blocks[k],
                                                 prefix, out.data()));
      EXPECT_EQ(decoded, prefix);
      const int64_t at = blocks[k].dst_offset;
      EXPECT_EQ(std::memcmp(out.data() + at, data.data() + at, static_cast<size_t>(prefix)), 0);
      // Nothing past the prefix is written (liblz4 1.8.3 on stops there).
      if (LZ4_versionNumber() >= 10803 && prefix < blocks[k].dst_length) {
        EXPECT_EQ(out[static_cast<size_t>(at + prefix)], 0xEE);
      }
    }
    std::vector<uint8_t> out(static_cast<size_t>(expected));
    for (int64_t prefix : {int64_t{0}, blocks[k].dst_length + 1}) {
      EXPECT_FALSE(
          DecompressBlockPrefix(Compression::kLz4Frame, frame.data(), blocks[k], prefix, out.data())
              .ok());
    }
  }
  DecompressPiece two = blocks[0];
  two.src_length += blocks[1].src_length;
  two.dst_length += blocks[1].dst_length;
  std::vector<uint8_t> out(static_cast<size_t>(expected));
  EXPECT_FALSE(
      DecompressBlockPrefix(Compression::kLz4Frame, frame.data(), two, 10, out.data()).ok());
  // Bytes that are no LZ4 sequences: an error, not a read out of bounds.
  std::vector<uint8_t> bad = frame;
  for (int64_t i = 4; i < blocks[0].src_length; ++i) {
    bad[static_cast<size_t>(blocks[0].src_offset + i)] = 0xFF;
  }
  EXPECT_FALSE(
      DecompressBlockPrefix(Compression::kLz4Frame, bad.data(), blocks[0], 8000, out.data()).ok());
#ifdef QUIVER_HAVE_ZSTD
  // A ZSTD frame decodes whole.
  ASSERT_OK_AND_ASSIGN(PartCompressor parts,
                       PartCompressor::Make(Compression::kZstd, 1, data.data(), 3 * 16384, 16384));
  std::vector<uint8_t> zstd;
  for (int64_t k = 0; k < parts.parts(); ++k) {
    ASSERT_OK_AND_ASSIGN(BufferPtr part, parts.Part(k));
    zstd.insert(zstd.end(), part->data(), part->data() + part->size());
  }
  const std::vector<DecompressPiece> frames = CompressedBlocks(
      Compression::kZstd, zstd.data(), static_cast<int64_t>(zstd.size()), 3 * 16384);
  ASSERT_EQ(frames.size(), 3u);
  std::vector<uint8_t> whole(3 * 16384);
  ASSERT_OK_AND_ASSIGN(const int64_t decoded, DecompressBlockPrefix(Compression::kZstd, zstd.data(),
                                                                    frames[1], 10, whole.data()));
  EXPECT_EQ(decoded, 16384);
  EXPECT_EQ(std::memcmp(whole.data() + 16384, data.data() + 16384, 16384), 0);
#endif
}

// A frame that fails to decode leaves no trace on the thread: the next
// frame, one without a content size (as pyarrow writes them), decodes.
TEST(CodecParts, AFailedLz4FrameDoesNotSpoilTheNext) {
  const std::vector<uint8_t> data = Mixed(100000);
  const std::vector<uint8_t> good = Lz4FrameOfBlocks(data, {65536, 34464});
  std::vector<uint8_t> cut = good;
  cut.resize(cut.size() / 2);  // inside the second block, or the first
  // A header claiming a byte more than the blocks hold.
  const std::vector<uint8_t> longer = Lz4FrameOfBlocks(data, {65536, 34464}, 100001);
  for (int round = 0; round < 3; ++round) {
    EXPECT_FALSE(Decompress(Compression::kLz4Frame, longer.data(),
                            static_cast<int64_t>(longer.size()), 100001)
                     .ok());
    ASSERT_OK_AND_ASSIGN(BufferPtr after, Decompress(Compression::kLz4Frame, good.data(),
                                                     static_cast<int64_t>(good.size()), 100000));
    EXPECT_EQ(std::memcmp(after->data(), data.data(), data.size()), 0);
    EXPECT_FALSE(
        Decompress(Compression::kLz4Frame, cut.data(), static_cast<int64_t>(cut.size()), 100000)
            .ok());
    ASSERT_OK_AND_ASSIGN(BufferPtr out, Decompress(Compression::kLz4Frame, good.data(),
                                                   static_cast<int64_t>(good.size()), 100000));
    EXPECT_EQ(std::memcmp(out->data(), data.data(), data.size()), 0);
    // The output full before the frame ends.
    EXPECT_FALSE(
        Decompress(Compression::kLz4Frame, good.data(), static_cast<int64_t>(good.size()), 99999)
            .ok());
    ASSERT_OK_AND_ASSIGN(out, Decompress(Compression::kLz4Frame, good.data(),
                                         static_cast<int64_t>(good.size()), 100000));
    EXPECT_EQ(std::memcmp(out->data(), data.data(), data.size()), 0);
  }
}
#endif  // QUIVER_HAVE_LZ4

TEST(CodecParts, OneFrameDoesNotSplit) {
  if (Codecs().empty()) GTEST_SKIP() << "this build has neither codec";
  // What Compress (and pyarrow) write: one frame; LZ4's blocks linked.
  const std::vector<uint8_t> data = Mixed(3 * kPartBytes);
  const auto size = static_cast<int64_t>(data.size());
  for (Compression codec : Codecs()) {
    SCOPED_TRACE(CodecName(codec));
    ASSERT_OK_AND_ASSIGN(BufferPtr packed,
                         Compress(codec, WriteOptions::kDefaultLevel, data.data(), size));
    EXPECT_TRUE(SplitCompressed(codec, packed->data(), packed->size(), size, kPartBytes).empty());
  }
}

TEST(CodecParts, LyingBytesFailWithoutReadingOutOfBounds) {
  if (Codecs().empty()) GTEST_SKIP() << "this build has neither codec";
  const std::vector<uint8_t> data = Mixed(2 * kPartBytes + 4096);
  const auto size = static_cast<int64_t>(data.size());
  for (Compression codec : Codecs()) {
    SCOPED_TRACE(CodecName(codec));
    ASSERT_OK_AND_ASSIGN(PartCompressor parts, PartCompressor::Make(codec, 1, data.data(), size));
    const std::vector<uint8_t> packed = Joined(parts);
    const auto packed_size = static_cast<int64_t>(packed.size());
    const std::vector<DecompressPiece> pieces =
        SplitCompressed(codec, packed.data(), packed_size, size, kPartBytes);
    ASSERT_GE(pieces.size(), 2u);
    // Every byte of the second piece's first 64 flipped in turn: a piece
    // fails or decodes, within its own output, and never crashes.
    std::vector<uint8_t> out(data.size());
    for (int64_t at = 0; at < 64; ++at) {
      std::vector<uint8_t> bad = packed;
      bad[static_cast<size_t>(pieces[1].src_offset + at)] ^= 0x5A;
      (void)DecompressPieceInto(codec, bad.data(), pieces[1], out.data());
      // Split afresh on the changed bytes: what it finds must hold too.
      for (const DecompressPiece& piece :
           SplitCompressed(codec, bad.data(), packed_size, size, kPartBytes)) {
        EXPECT_LE(piece.dst_offset + piece.dst_length, size);
        EXPECT_LE(piece.src_offset + piece.src_length, packed_size);
        (void)DecompressPieceInto(codec, bad.data(), piece, out.data());
      }
    }
    // Cut short: no split.
    EXPECT_TRUE(SplitCompressed(codec, packed.data(), packed_size / 2, size, kPartBytes).empty());
    // A piece given fewer bytes than its blocks need fails.
    DecompressPiece shorter = pieces[0];
    shorter.src_length -= 5;
    EXPECT_EQ(DecompressPieceInto(codec, packed.data(), shorter, out.data()).code(),
              StatusCode::kInvalid);
  }
}

}  // namespace quiver::ipc
