// Compressed buffers decoded block by block for a few rows (row_blocks.h).
#include "quiver/dataset/row_blocks.h"

#include <algorithm>
#include <cstring>

#include "quiver/ipc/body_layout.h"
#include "quiver/ipc/codec.h"

namespace quiver::dataset {

namespace {

constexpr int64_t kStoredRaw = -1;  // the prefix of a buffer stored uncompressed
constexpr int64_t kPrefix = 8;

// Records, for each block of `blocks` (ascending, touching output ranges)
// that [begin, end) overlaps, how far into the block the range reaches.
void MarkBlocks(const std::vector<ipc::DecompressPiece>& blocks, int64_t begin, int64_t end,
                std::vector<int64_t>* reach) {
  auto first = std::upper_bound(
      blocks.begin(), blocks.end(), begin,
      [](int64_t at, const ipc::DecompressPiece& block) { return at < block.dst_offset; });
  if (first != blocks.begin()) --first;
  for (auto block = first; block != blocks.end() && block->dst_offset < end; ++block) {
    int64_t& to = (*reach)[static_cast<size_t>(block - blocks.begin())];
    to = std::max(to, std::min(end - block->dst_offset, block->dst_length));
  }
}

// What a take reads of one wanted buffer: a block of it (`block` >= 0), or
// all of it (-1: one frame, decoded whole, or raw bytes, kept as they are).
struct Need {
  size_t buffer = 0;
  int64_t block = -1;
  // The block's first bytes that the take needs (its whole length where
  // the block is kept for later takes): decoding stops there.
  int64_t reach = 0;
  BufferPtr kept;        // the decoded block, from the recent ones
  size_t range = 0;      // the fetched range that holds its stored bytes
  int64_t in_range = 0;  // where they start in it
};

// The needs of a take, and the decoded bytes they hold; nullopt where
// those are more than half of the buffers' decoded bytes. `whole_blocks`:
// every block needed is decoded to its end.
std::optional<std::vector<Need>> PlanNeeds(
    std::span<const int64_t> wanted, std::span<const std::shared_ptr<const BufferBlocks>> indexes,
    std::span<const BufferPiece> pieces, bool whole_blocks) {
  std::vector<Need> needs;
  int64_t needed_bytes = 0, total_bytes = 0;
  for (size_t i = 0; i < wanted.size(); ++i) {
    const BufferBlocks& index = *indexes[i];
    if (index.stored == 0) continue;  // absent, or empty
    if (index.prefix.raw) {
      needs.push_back({i, -1, index.prefix.length});
      continue;
    }
    total_bytes += index.prefix.length;
    if (index.blocks.empty()) {
      needs.push_back({i, -1, index.prefix.length});
      needed_bytes += index.prefix.length;
      continue;
    }
    std::vector<int64_t> reach(index.blocks.size(), 0);
    for (const BufferPiece& piece : pieces) {
      if (piece.buffer == wanted[i]) {
        MarkBlocks(index.blocks, piece.offset, piece.offset + piece.length, &reach);
      }
    }
    for (size_t b = 0; b < reach.size(); ++b) {
      if (reach[b] == 0) continue;
      const int64_t length = index.blocks[b].dst_length;
      needs.push_back({i, static_cast<int64_t>(b), whole_blocks ? length : reach[b]});
      needed_bytes += length;
    }
  }
  if (2 * needed_bytes > total_bytes) return std::nullopt;
  return needs;
}

// The output a need fills: its block, or the whole buffer.
ipc::DecompressPiece OutputOf(const Need& need, const BufferBlocks& index) {
  if (need.block < 0) return {0, index.stored - kPrefix, 0, index.prefix.length, 0};
  return index.blocks[static_cast<size_t>(need.block)];
}

// Decodes a need from `bytes`, its stored bytes alone, into the buffer's
// output `into`: the bytes decoded, or -1 where it does not decode to its
// size.
int64_t DecodeNeed(ipc::Compression codec, const Need& need, const BufferBlocks& index,
                   std::span<const uint8_t> bytes, uint8_t* into) {
  const auto size = static_cast<int64_t>(bytes.size());
  if (need.block < 0) {
    const Status st = ipc::DecompressInto(codec, bytes.data(), size, index.prefix.length, into);
    return st.ok() ? index.prefix.length : -1;
  }
  ipc::DecompressPiece alone = OutputOf(need, index);  // its bytes now start at 0
  alone.src_offset = 0;
  alone.src_length = size;
  if (need.reach < alone.dst_length) {
    const Result<int64_t> done =
        ipc::DecompressBlockPrefix(codec, bytes.data(), alone, need.reach, into);
    return done.ok() ? *done : -1;
  }
  return ipc::DecompressPieceInto(codec, bytes.data(), alone, into).ok() ? alone.dst_length : -1;
}

// The stored bytes a need reads (prefix included).
StoredRange RangeOf(const Need& need, const BufferBlocks& index) {
  if (need.block < 0) return {need.buffer, kPrefix, index.stored - kPrefix};
  const ipc::DecompressPiece& block = index.blocks[static_cast<size_t>(need.block)];
  return {need.buffer, kPrefix + block.src_offset, block.src_length};
}

}  // namespace

std::optional<std::vector<StoredPrefix>> ReadPrefixes(const std::vector<BufferPtr>& stored,
                                                      int64_t max_decompressed) {
  ipc::ReadOptions limits;
  limits.max_decompressed_buffer = max_decompressed;
  std::vector<StoredPrefix> out;
  out.reserve(stored.size());
  for (const BufferPtr& bytes : stored) {
    if (bytes->size() == 0) {
      out.push_back({0, true});
      continue;
    }
    // Errors are named by the whole decode a caller falls back to.
    const Result<int64_t> prefix = ipc::LengthPrefix(bytes->data(), bytes->size(), "", limits);
    if (!prefix.ok()) return std::nullopt;
    if (*prefix == kStoredRaw) {
      out.push_back({bytes->size() - kPrefix, true});
    } else {
      out.push_back({*prefix, false});
    }
  }
  return out;
}

BufferBlocks IndexBlocks(ipc::Compression codec, const Buffer& stored, StoredPrefix prefix,
                         int64_t lz4_block) {
  BufferBlocks out;
  out.prefix = prefix;
  out.stored = stored.size();
  if (!prefix.raw && stored.size() > kPrefix) {
    out.blocks = ipc::CompressedBlocks(codec, stored.data() + kPrefix, stored.size() - kPrefix,
                                       prefix.length, lz4_block);
  }
  return out;
}

Result<std::optional<int64_t>> DecodeRowBlocks(
    ipc::Compression codec, std::span<const int64_t> wanted,
    std::span<const std::shared_ptr<const BufferBlocks>> indexes,
    std::span<const BufferPiece> pieces, const FetchStored& fetch, RecentBlocks* recent,
    bool keep_blocks, const BlockKey& where, std::vector<BufferPtr>* out) {
  using Decoded = std::optional<int64_t>;
  const bool keeps = keep_blocks && recent != nullptr;
  std::optional<std::vector<Need>> planned = PlanNeeds(wanted, indexes, pieces, keeps);
  if (!planned) return Decoded();
  std::vector<Need>& needs = *planned;
  auto key = [&](const Need& need) {
    return BlockKey{where.source, where.batch, wanted[need.buffer],
                    OutputOf(need, *indexes[need.buffer]).dst_offset};
  };
  // The blocks decoded before are copied; the others' bytes read at once,
  // neighbouring blocks of a buffer (a row across a block boundary) in
  // one range.
  std::vector<StoredRange> ranges;
  const Need* last = nullptr;  // the need the last range was made or grown for
  for (Need& need : needs) {
    const BufferBlocks& index = *indexes[need.buffer];
    if (recent != nullptr && !index.prefix.raw) {
      need.kept = recent->FindBlock(key(need));
      if (need.kept && need.kept->size() != OutputOf(need, index).dst_length) need.kept = nullptr;
    }
    if (need.kept) continue;
    const StoredRange range = RangeOf(need, index);
    if (last != nullptr && last->buffer == need.buffer && need.block >= 0 &&
        ranges.back().offset + ranges.back().length == range.offset) {
      need.in_range = ranges.back().length;
      ranges.back().length += range.length;
    } else {
      ranges.push_back(range);
    }
    need.range = ranges.size() - 1;
    last = &need;
  }
  QUIVER_ASSIGN_OR_RETURN(std::vector<BufferPtr> fetched, fetch(ranges));
  for (size_t r = 0; r < ranges.size(); ++r) {
    if (fetched[r]->size() != ranges[r].length) return Decoded();
  }
  for (size_t i = 0; i < wanted.size(); ++i) {
    const BufferBlocks& index = *indexes[i];
    if (index.stored == 0 || !index.prefix.raw) {
      QUIVER_ASSIGN_OR_RETURN((*out)[static_cast<size_t>(wanted[i])],
                              Buffer::AllocateUninitialized(index.prefix.length));
    }
  }
  int64_t decoded = 0;
  for (const Need& need : needs) {
    const BufferBlocks& index = *indexes[need.buffer];
    BufferPtr& target = (*out)[static_cast<size_t>(wanted[need.buffer])];
    const ipc::DecompressPiece block = OutputOf(need, index);
    if (need.kept) {
      std::memcpy(target->mutable_data() + block.dst_offset, need.kept->data(),
                  static_cast<size_t>(need.reach));
      continue;
    }
    const BufferPtr& range = fetched[need.range];
    if (index.prefix.raw) {  // the stored bytes are the buffer (a range of its own)
      target = range;
      continue;
    }
    const std::span<const uint8_t> bytes(range->data() + need.in_range,
                                         static_cast<size_t>(RangeOf(need, index).length));
    const int64_t done = DecodeNeed(codec, need, index, bytes, target->mutable_data());
    if (done < 0) return Decoded();
    decoded += done;
    if (keeps && block.dst_length <= recent->block_capacity()) {
      QUIVER_ASSIGN_OR_RETURN(BufferPtr copy, Buffer::AllocateUninitialized(block.dst_length));
      std::memcpy(copy->mutable_data(), target->data() + block.dst_offset,
                  static_cast<size_t>(block.dst_length));
      recent->InsertBlock(key(need), std::move(copy));
    }
  }
  return Decoded(decoded);
}

}  // namespace quiver::dataset
