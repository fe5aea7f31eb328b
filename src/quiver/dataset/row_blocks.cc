// Compressed buffers decoded block by block for a few rows (row_blocks.h).
#include "quiver/dataset/row_blocks.h"

#include <algorithm>
#include <cstring>
#include <functional>

#include "quiver/ipc/codec.h"

namespace quiver::dataset {

namespace {

constexpr int64_t kStoredRaw = -1;  // the prefix of a buffer stored uncompressed

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

}  // namespace

std::optional<std::vector<StoredPrefix>> ReadPrefixes(const std::vector<BufferPtr>& stored,
                                                      int64_t max_decompressed) {
  std::vector<StoredPrefix> out;
  out.reserve(stored.size());
  for (const BufferPtr& bytes : stored) {
    if (bytes->size() == 0) {  // absent (a bitmap of no nulls), or empty
      out.push_back({0, true});
      continue;
    }
    if (bytes->size() < 8) return std::nullopt;
    int64_t prefix = 0;
    std::memcpy(&prefix, bytes->data(), 8);  // little-endian, as the format writes it
    if (prefix == kStoredRaw) {
      out.push_back({bytes->size() - 8, true});
    } else if (prefix < 0 || prefix > max_decompressed) {
      return std::nullopt;
    } else {
      out.push_back({prefix, false});
    }
  }
  return out;
}

std::optional<int64_t> DecodeRowBlocks(ipc::Compression codec, std::span<const int64_t> wanted,
                                       const std::vector<BufferPtr>& stored,
                                       std::span<const StoredPrefix> prefixes,
                                       std::span<const BufferPiece> pieces, RecentBlocks* recent,
                                       const BlockKey& where, std::vector<BufferPtr>* out) {
  // Plan first: each compressed buffer's blocks and those the pieces
  // need. A buffer that does not split (one frame: small buffers, or a
  // writer that did not cut blocks) is decoded whole.
  struct Plan {
    std::vector<ipc::DecompressPiece> blocks;  // empty: decoded whole
    std::vector<char> needed;
  };
  std::vector<Plan> plans(wanted.size());
  int64_t needed_bytes = 0, total_bytes = 0;
  for (size_t i = 0; i < wanted.size(); ++i) {
    const BufferPtr& bytes = stored[i];
    const int64_t length = prefixes[i].length;
    if (prefixes[i].raw) continue;
    Plan& plan = plans[i];
    total_bytes += length;
    plan.blocks = ipc::SplitCompressed(codec, bytes->data() + 8, bytes->size() - 8, length, 1);
    if (plan.blocks.empty()) {
      needed_bytes += length;
      continue;
    }
    plan.needed.assign(plan.blocks.size(), 0);
    for (const BufferPiece& piece : pieces) {
      if (piece.buffer == wanted[i]) {
        MarkBlocks(plan.blocks, piece.offset, piece.offset + piece.length, &plan.needed);
      }
    }
    for (size_t b = 0; b < plan.blocks.size(); ++b) {
      if (plan.needed[b]) needed_bytes += plan.blocks[b].dst_length;
    }
  }
  // Most of the body anyway: the whole batch, decoded once and cached, is
  // the better buy.
  if (2 * needed_bytes > total_bytes) return std::nullopt;
  int64_t decoded = 0;
  // Output bytes [offset, offset + length) of buffer i: from the recent
  // blocks, or decoded by `decode` and kept there.
  auto fill = [&](size_t i, int64_t offset, int64_t length, uint8_t* target,
                  const std::function<Status()>& decode) -> bool {
    const BlockKey key{where.source, where.batch, wanted[i], offset};
    if (recent != nullptr) {
      if (BufferPtr kept = recent->Find(key); kept && kept->size() == length) {
        std::memcpy(target + offset, kept->data(), static_cast<size_t>(length));
        return true;
      }
    }
    if (!decode().ok()) return false;
    decoded += length;
    if (recent != nullptr && length <= recent->capacity()) {
      auto copy = Buffer::AllocateUninitialized(length);
      if (copy.ok()) {
        std::memcpy((*copy)->mutable_data(), target + offset, static_cast<size_t>(length));
        recent->Insert(key, std::move(*copy));
      }
    }
    return true;
  };
  for (size_t i = 0; i < wanted.size(); ++i) {
    const BufferPtr& bytes = stored[i];
    const int64_t length = prefixes[i].length;
    BufferPtr& target = (*out)[static_cast<size_t>(wanted[i])];
    Result<BufferPtr> made = bytes->size() == 0 ? Buffer::Allocate(0)
                             : prefixes[i].raw  ? Buffer::Slice(bytes, 8, length)
                                                : Buffer::AllocateUninitialized(length);
    if (!made.ok()) return std::nullopt;
    target = std::move(*made);
    if (prefixes[i].raw) continue;
    const uint8_t* data = bytes->data() + 8;
    uint8_t* into = target->mutable_data();
    const Plan& plan = plans[i];
    if (plan.blocks.empty()) {
      if (!fill(i, 0, length, into, [&] {
            return ipc::DecompressInto(codec, data, bytes->size() - 8, length, into);
          })) {
        return std::nullopt;
      }
      continue;
    }
    for (size_t b = 0; b < plan.blocks.size(); ++b) {
      const ipc::DecompressPiece& block = plan.blocks[b];
      if (plan.needed[b] && !fill(i, block.dst_offset, block.dst_length, into, [&] {
            return ipc::DecompressPieceInto(codec, data, block, into);
          })) {
        return std::nullopt;
      }
    }
  }
  return decoded;
}

}  // namespace quiver::dataset
