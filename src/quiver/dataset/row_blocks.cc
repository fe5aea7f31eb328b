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

// Marks the blocks of `blocks` (ascending, touching output ranges) that
// overlap [begin, end).
void MarkBlocks(const std::vector<ipc::DecompressPiece>& blocks, int64_t begin, int64_t end,
                std::vector<char>* needed) {
  auto first = std::upper_bound(
      blocks.begin(), blocks.end(), begin,
      [](int64_t at, const ipc::DecompressPiece& block) { return at < block.dst_offset; });
  if (first != blocks.begin()) --first;
  for (auto block = first; block != blocks.end() && block->dst_offset < end; ++block) {
    (*needed)[static_cast<size_t>(block - blocks.begin())] = 1;
  }
}

// What a take reads of one wanted buffer: a block of it (`block` >= 0), or
// all of it (-1: one frame, decoded whole, or raw bytes, kept as they are).
struct Need {
  size_t buffer = 0;
  int64_t block = -1;
  BufferPtr kept;  // the decoded block, from the recent ones
};

// The needs of a take, and the decoded bytes they hold; nullopt where
// those are more than half of the buffers' decoded bytes.
std::optional<std::vector<Need>> PlanNeeds(
    std::span<const int64_t> wanted, std::span<const std::shared_ptr<const BufferBlocks>> indexes,
    std::span<const BufferPiece> pieces) {
  std::vector<Need> needs;
  int64_t needed_bytes = 0, total_bytes = 0;
  for (size_t i = 0; i < wanted.size(); ++i) {
    const BufferBlocks& index = *indexes[i];
    if (index.stored == 0) continue;  // absent, or empty
    if (index.prefix.raw) {
      needs.push_back({i, -1, nullptr});
      continue;
    }
    total_bytes += index.prefix.length;
    if (index.blocks.empty()) {
      needs.push_back({i, -1, nullptr});
      needed_bytes += index.prefix.length;
      continue;
    }
    std::vector<char> marked(index.blocks.size(), 0);
    for (const BufferPiece& piece : pieces) {
      if (piece.buffer == wanted[i]) {
        MarkBlocks(index.blocks, piece.offset, piece.offset + piece.length, &marked);
      }
    }
    for (size_t b = 0; b < marked.size(); ++b) {
      if (!marked[b]) continue;
      needs.push_back({i, static_cast<int64_t>(b), nullptr});
      needed_bytes += index.blocks[b].dst_length;
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
// output `into`; false where it does not decode to its size.
bool DecodeNeed(ipc::Compression codec, const Need& need, const BufferBlocks& index,
                const Buffer& bytes, uint8_t* into) {
  if (need.block < 0) {
    return ipc::DecompressInto(codec, bytes.data(), bytes.size(), index.prefix.length, into).ok();
  }
  ipc::DecompressPiece alone = OutputOf(need, index);  // its bytes now start at 0
  alone.src_offset = 0;
  alone.src_length = bytes.size();
  return ipc::DecompressPieceInto(codec, bytes.data(), alone, into).ok();
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

BufferBlocks IndexBlocks(ipc::Compression codec, const Buffer& stored, StoredPrefix prefix) {
  BufferBlocks out;
  out.prefix = prefix;
  out.stored = stored.size();
  if (!prefix.raw && stored.size() > kPrefix) {
    out.blocks = ipc::CompressedBlocks(codec, stored.data() + kPrefix, stored.size() - kPrefix,
                                       prefix.length);
  }
  return out;
}

Result<std::optional<int64_t>> DecodeRowBlocks(
    ipc::Compression codec, std::span<const int64_t> wanted,
    std::span<const std::shared_ptr<const BufferBlocks>> indexes,
    std::span<const BufferPiece> pieces, const FetchStored& fetch, RecentBlocks* recent,
    bool keep_blocks, const BlockKey& where, std::vector<BufferPtr>* out) {
  using Decoded = std::optional<int64_t>;
  std::optional<std::vector<Need>> planned = PlanNeeds(wanted, indexes, pieces);
  if (!planned) return Decoded();
  std::vector<Need>& needs = *planned;
  auto key = [&](const Need& need) {
    return BlockKey{where.source, where.batch, wanted[need.buffer],
                    OutputOf(need, *indexes[need.buffer]).dst_offset};
  };
  // The blocks decoded before are copied; the others' bytes read at once.
  std::vector<StoredRange> ranges;
  for (Need& need : needs) {
    const BufferBlocks& index = *indexes[need.buffer];
    if (recent != nullptr && !index.prefix.raw) {
      need.kept = recent->FindBlock(key(need));
      if (need.kept && need.kept->size() != OutputOf(need, index).dst_length) need.kept = nullptr;
    }
    if (!need.kept) ranges.push_back(RangeOf(need, index));
  }
  QUIVER_ASSIGN_OR_RETURN(std::vector<BufferPtr> fetched, fetch(ranges));
  for (size_t i = 0; i < wanted.size(); ++i) {
    const BufferBlocks& index = *indexes[i];
    if (index.stored == 0 || !index.prefix.raw) {
      QUIVER_ASSIGN_OR_RETURN((*out)[static_cast<size_t>(wanted[i])],
                              Buffer::AllocateUninitialized(index.prefix.length));
    }
  }
  int64_t decoded = 0;
  size_t next = 0;  // into fetched
  for (const Need& need : needs) {
    const BufferBlocks& index = *indexes[need.buffer];
    BufferPtr& target = (*out)[static_cast<size_t>(wanted[need.buffer])];
    const ipc::DecompressPiece block = OutputOf(need, index);
    if (need.kept) {
      std::memcpy(target->mutable_data() + block.dst_offset, need.kept->data(),
                  static_cast<size_t>(block.dst_length));
      continue;
    }
    const BufferPtr& bytes = fetched[next++];
    if (bytes->size() != RangeOf(need, index).length) return Decoded();
    if (index.prefix.raw) {  // the stored bytes are the buffer
      target = bytes;
      continue;
    }
    if (!DecodeNeed(codec, need, index, *bytes, target->mutable_data())) return Decoded();
    decoded += block.dst_length;
    if (keep_blocks && recent != nullptr && block.dst_length <= recent->block_capacity()) {
      QUIVER_ASSIGN_OR_RETURN(BufferPtr copy, Buffer::AllocateUninitialized(block.dst_length));
      std::memcpy(copy->mutable_data(), target->data() + block.dst_offset,
                  static_cast<size_t>(block.dst_length));
      recent->InsertBlock(key(need), std::move(copy));
    }
  }
  return Decoded(decoded);
}

}  // namespace quiver::dataset
