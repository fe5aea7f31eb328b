// Large buffers compressed in parts and split again for threads: the parts
// joined are one buffer that the codec's own one-shot decoder reads (an
// LZ4 frame, a ZSTD stream of frames), the pieces decompress to the same
// bytes, one frame or linked LZ4 blocks do not split, and bytes that lie
// about their sizes fail as Invalid, never out of bounds.
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
