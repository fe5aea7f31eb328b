// Compressed body buffers decoded block by block for a few rows: the
// blocks that hold the pieces asked decode to the right bytes and only
// their bytes are read, a buffer stored raw is its bytes, one frame
// decodes whole, blocks decoded before are not read again, and what does
// not pay (most of the bytes) or does not hold up (a cut prefix, a wild
// size, a corrupt block) is nullopt, for the whole read to handle.
#include "quiver/dataset/row_blocks.h"

#include <gtest/gtest.h>

#include <cstring>

#include "quiver/build_info.h"
#include "quiver/ipc/codec.h"
#include "test_util.h"

namespace quiver::dataset {
namespace {

constexpr int64_t kBlock = 64 << 10;

std::vector<uint8_t> Pattern(int64_t n) {
  std::vector<uint8_t> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) out[static_cast<size_t>(i)] = static_cast<uint8_t>(i * 7 / 3);
  return out;
}

// A stored body buffer: the 8-byte decoded length, then `bytes`.
BufferPtr Stored(int64_t prefix, const std::vector<uint8_t>& bytes) {
  BufferPtr out = *Buffer::Allocate(8 + static_cast<int64_t>(bytes.size()));
  std::memcpy(out->mutable_data(), &prefix, 8);
  if (!bytes.empty()) std::memcpy(out->mutable_data() + 8, bytes.data(), bytes.size());
  return out;
}

// `data` compressed in blocks of kBlock, as a writer with
// compression_block_bytes writes it.
BufferPtr InBlocks(ipc::Compression codec, const std::vector<uint8_t>& data) {
  const auto size = static_cast<int64_t>(data.size());
  auto parts = *ipc::PartCompressor::Make(codec, 1, data.data(), size, kBlock);
  std::vector<uint8_t> joined;
  auto append = [&](const BufferPtr& piece) {
    if (piece) joined.insert(joined.end(), piece->data(), piece->data() + piece->size());
  };
  append(parts.Head());
  for (int64_t k = 0; k < parts.parts(); ++k) append(*parts.Part(k));
  append(parts.Tail());
  return Stored(size, joined);
}

std::vector<ipc::Compression> Codecs() {
  std::vector<ipc::Compression> out;
  for (auto codec : {ipc::Compression::kLz4Frame, ipc::Compression::kZstd}) {
    if (ipc::HasCodec(codec)) out.push_back(codec);
  }
  return out;
}

using Indexes = std::vector<std::shared_ptr<const BufferBlocks>>;

Indexes IndexesOf(ipc::Compression codec, const std::vector<BufferPtr>& stored) {
  const std::vector<StoredPrefix> prefixes = *ReadPrefixes(stored, int64_t{1} << 30);
  Indexes out;
  for (size_t i = 0; i < stored.size(); ++i) {
    out.push_back(
        std::make_shared<const BufferBlocks>(IndexBlocks(codec, *stored[i], prefixes[i])));
  }
  return out;
}

// Reads ranges of `stored` (copies, as a remote source would), counting
// the bytes.
struct Fetcher {
  std::vector<BufferPtr> stored;
  int64_t bytes = 0;
  int64_t reads = 0;  // ranges
  Result<std::vector<BufferPtr>> operator()(const std::vector<StoredRange>& ranges) {
    std::vector<BufferPtr> out;
    reads += static_cast<int64_t>(ranges.size());
    for (const StoredRange& range : ranges) {
      BufferPtr copy = *Buffer::Allocate(range.length);
      std::memcpy(copy->mutable_data(), stored[range.buffer]->data() + range.offset,
                  static_cast<size_t>(range.length));
      bytes += range.length;
      out.push_back(std::move(copy));
    }
    return out;
  }
};

std::optional<int64_t> Decode(ipc::Compression codec, std::span<const int64_t> wanted,
                              const Indexes& indexes, std::span<const BufferPiece> pieces,
                              Fetcher* fetcher, RecentBlocks* recent, const BlockKey& where,
                              std::vector<BufferPtr>* out, bool keep_blocks = true) {
  auto decoded = DecodeRowBlocks(
      codec, wanted, indexes, pieces,
      [fetcher](const std::vector<StoredRange>& ranges) { return (*fetcher)(ranges); }, recent,
      keep_blocks, where, out);
  EXPECT_TRUE(decoded.ok()) << decoded.status().message();
  return decoded.ok() ? *decoded : std::nullopt;
}

}  // namespace

TEST(RowBlocks, PrefixesGiveLengthsAndRawness) {
  const std::vector<uint8_t> five = {1, 2, 3, 4, 5};
  const auto read = ReadPrefixes({Stored(100, five), Stored(-1, five), *Buffer::Allocate(0)}, 1000);
  ASSERT_TRUE(read);
  ASSERT_EQ(read->size(), 3u);
  EXPECT_EQ((*read)[0].length, 100);
  EXPECT_FALSE((*read)[0].raw);
  EXPECT_EQ((*read)[1].length, 5);
  EXPECT_TRUE((*read)[1].raw);
  EXPECT_EQ((*read)[2].length, 0);
  EXPECT_FALSE(ReadPrefixes({*Buffer::Allocate(7)}, 1000));  // a prefix cut short
  EXPECT_FALSE(ReadPrefixes({Stored(-2, five)}, 1000));
  EXPECT_FALSE(ReadPrefixes({Stored(1001, five)}, 1000));  // over the limit
}

TEST(RowBlocks, OnlyTheBlocksOfThePiecesDecode) {
  if (Codecs().empty()) GTEST_SKIP() << "this build has neither codec";
  const std::vector<uint8_t> data = Pattern(10 * kBlock + 100);
  const auto size = static_cast<int64_t>(data.size());
  const std::vector<uint8_t> small = Pattern(300);
  for (ipc::Compression codec : Codecs()) {
    SCOPED_TRACE(ipc::CodecName(codec));
    // Buffer 2 in blocks, buffer 5 one small frame, buffer 7 stored raw.
    ASSERT_OK_AND_ASSIGN(BufferPtr frame, ipc::Compress(codec, 1, small.data(), 300));
    const std::vector<BufferPtr> stored = {
        InBlocks(codec, data),
        Stored(300, std::vector<uint8_t>(frame->data(), frame->data() + frame->size())),
        Stored(-1, small)};
    const std::vector<int64_t> wanted = {2, 5, 7};
    const Indexes indexes = IndexesOf(codec, stored);
    ASSERT_EQ(indexes[0]->blocks.size(), 11u);
    EXPECT_TRUE(indexes[1]->blocks.empty());  // one frame
    EXPECT_TRUE(indexes[2]->prefix.raw);
    // A piece across the boundary of blocks 3 and 4, one inside block 9.
    const std::vector<BufferPiece> pieces = {
        {2, 4 * kBlock - 10, 20}, {2, 9 * kBlock + 5, 10}, {5, 0, 300}, {7, 0, 300}};
    std::vector<BufferPtr> out(8);
    Fetcher fetcher{stored};
    const std::optional<int64_t> decoded =
        Decode(codec, wanted, indexes, pieces, &fetcher, nullptr, {}, &out);
    ASSERT_TRUE(decoded);
    // Blocks 3, 4 and 9, and the small frame; an LZ4 block decodes only
    // up to the end of the last piece in it: block 3 whole, 10 bytes of
    // block 4, 15 of block 9.
    const int64_t lz4_bytes = kBlock + 10 + 15 + 300;
    EXPECT_EQ(*decoded, codec == ipc::Compression::kLz4Frame ? lz4_bytes : 3 * kBlock + 300);
    // Only those blocks' bytes were read, the raw buffer's and the frame's.
    int64_t expected_bytes = stored[1]->size() - 8 + 300;
    for (size_t b : {3, 4, 9}) expected_bytes += indexes[0]->blocks[b].src_length;
    EXPECT_EQ(fetcher.bytes, expected_bytes);
    // Neighbouring blocks 3 and 4 in one read: three of buffer 2's
    // blocks, the frame and the raw buffer in four.
    EXPECT_EQ(fetcher.reads, 4);
    ASSERT_EQ(out[2]->size(), size);
    for (const BufferPiece& piece : {pieces[0], pieces[1]}) {
      EXPECT_EQ(std::memcmp(out[2]->data() + piece.offset, data.data() + piece.offset,
                            static_cast<size_t>(piece.length)),
                0);
    }
    EXPECT_EQ(std::memcmp(out[5]->data(), small.data(), 300), 0);
    EXPECT_EQ(std::memcmp(out[7]->data(), small.data(), 300), 0);

    // Kept among the recent blocks, the same pieces decode nothing the
    // second time, and come out the same.
    RecentBlocks recent(1 << 20, 1 << 20);
    int source = 0;
    const BlockKey where{&source, 4, 0, 0};
    std::vector<BufferPtr> first(8), second(8);
    EXPECT_EQ(Decode(codec, wanted, indexes, pieces, &fetcher, &recent, where, &first),
              3 * kBlock + 300);
    fetcher.bytes = 0;
    EXPECT_EQ(Decode(codec, wanted, indexes, pieces, &fetcher, &recent, where, &second), 0);
    EXPECT_EQ(fetcher.bytes, 300);  // the raw buffer alone
    EXPECT_EQ(std::memcmp(second[2]->data() + 3 * kBlock, data.data() + 3 * kBlock, 2 * kBlock), 0);
    EXPECT_EQ(std::memcmp(second[5]->data(), small.data(), 300), 0);
    // Another batch's key finds none of them.
    EXPECT_EQ(Decode(codec, wanted, indexes, pieces, &fetcher, &recent, BlockKey{&source, 5, 0, 0},
                     &second),
              3 * kBlock + 300);
    // Without keep_blocks, the blocks kept are still found, and the ones
    // decoded afresh are not kept.
    const int64_t kept = recent.block_bytes();
    std::vector<BufferPtr> third(8);
    EXPECT_EQ(Decode(codec, wanted, indexes, pieces, &fetcher, &recent, where, &third,
                     /*keep_blocks=*/false),
              0);
    for (const BufferPiece& piece : {pieces[0], pieces[1]}) {
      EXPECT_EQ(std::memcmp(third[2]->data() + piece.offset, data.data() + piece.offset,
                            static_cast<size_t>(piece.length)),
                0);
    }
    const BlockKey elsewhere{&source, 6, 0, 0};
    for (int time = 0; time < 2; ++time) {
      EXPECT_EQ(Decode(codec, wanted, indexes, pieces, &fetcher, &recent, elsewhere, &second,
                       /*keep_blocks=*/false),
                *decoded);
      EXPECT_EQ(std::memcmp(second[2]->data() + 9 * kBlock + 5, data.data() + 9 * kBlock + 5, 10),
                0);
    }
    EXPECT_EQ(recent.block_bytes(), kept);

    // Pieces in most of the blocks: the whole read is the better buy.
    std::vector<BufferPiece> most;
    for (int64_t b = 0; b < 6; ++b) most.push_back({2, b * kBlock, 1});
    EXPECT_FALSE(Decode(codec, wanted, indexes, most, &fetcher, nullptr, {}, &out));

    // A corrupt block the pieces need: nullopt, for the whole read to name.
    std::vector<BufferPtr> bad = stored;
    bad[0] = *Buffer::Allocate(stored[0]->size());
    std::memcpy(bad[0]->mutable_data(), stored[0]->data(), stored[0]->size());
    // Block 9's ZSTD magic or LZ4 block size (the codecs check no
    // content without checksums), changed after the index was made.
    uint8_t* head = bad[0]->mutable_data() + 8 + indexes[0]->blocks[9].src_offset;
    for (int i = 0; i < 4; ++i) head[i] = 0x7F;
    Fetcher bad_fetcher{bad};
    EXPECT_FALSE(Decode(codec, wanted, indexes, pieces, &bad_fetcher, nullptr, {}, &out));
  }
}

TEST(RowBlocks, OneLargeFrameDecodesWholeAndSoDoesNotPay) {
  if (Codecs().empty()) GTEST_SKIP() << "this build has neither codec";
  const std::vector<uint8_t> data = Pattern(4 * kBlock);
  for (ipc::Compression codec : Codecs()) {
    SCOPED_TRACE(ipc::CodecName(codec));
    ASSERT_OK_AND_ASSIGN(BufferPtr frame, ipc::Compress(codec, 1, data.data(), 4 * kBlock));
    const std::vector<BufferPtr> stored = {
        Stored(4 * kBlock, std::vector<uint8_t>(frame->data(), frame->data() + frame->size()))};
    const std::vector<int64_t> wanted = {0};
    std::vector<BufferPtr> out(1);
    const std::vector<BufferPiece> one_row = {{0, 100, 10}};
    Fetcher fetcher{stored};
    EXPECT_FALSE(
        Decode(codec, wanted, IndexesOf(codec, stored), one_row, &fetcher, nullptr, {}, &out));
    EXPECT_EQ(fetcher.bytes, 0);
  }
}

}  // namespace quiver::dataset
