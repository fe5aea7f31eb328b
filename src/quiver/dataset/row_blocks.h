// Internal: a compressed record batch body decoded only where some rows
// need it. A buffer that a writer compressed in independent blocks (LZ4
// blocks of one frame, ZSTD frames one after another: WriteOptions::
// compression_block_bytes) decodes block by block, so a take of one 12 KiB
// row of a 1 MiB buffer in 64 KiB blocks decodes one or two blocks, not the
// megabyte.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "quiver/buffer.h"
#include "quiver/dataset/recent_blocks.h"
#include "quiver/dataset/row_ranges.h"
#include "quiver/ipc.h"

namespace quiver::dataset {

// What the 8-byte prefix of a stored body buffer says: its decoded length,
// and whether its bytes are stored raw (prefix -1).
struct StoredPrefix {
  int64_t length = 0;
  bool raw = false;
};

// The prefix of each stored body buffer `stored[i]` (its 8-byte length
// prefix, then its bytes; empty: absent), read once (the bytes may be a
// mapped file's); nullopt where a prefix is cut short, negative but -1, or
// over `max_decompressed`.
std::optional<std::vector<StoredPrefix>> ReadPrefixes(const std::vector<BufferPtr>& stored,
                                                      int64_t max_decompressed);

// Decodes, of each stored buffer `stored[i]` (body buffer `wanted[i]`,
// `prefixes[i]` its prefix), the blocks that hold `pieces` (ranges of the
// decoded buffers, by body buffer index), each into a buffer of the whole
// decoded length, placed at out[wanted[i]]. Bytes outside those blocks are
// left undefined: the caller keeps only the rows the pieces cover. A
// buffer stored raw is a slice of its stored bytes; one that does not
// split into blocks (one frame) is decoded whole, as one block. Blocks in
// `recent` (when given; keys: `where`'s source and batch, the buffer, the
// block's offset) are copied from there, and those decoded are kept there.
// Returns the bytes decoded; nullopt where the blocks needed hold more than
// half of the buffers' decoded bytes (the whole batch, decoded once and
// cached, is the better buy) or a block does not decode to its size (a
// whole decode then says what is wrong).
std::optional<int64_t> DecodeRowBlocks(ipc::Compression codec, std::span<const int64_t> wanted,
                                       const std::vector<BufferPtr>& stored,
                                       std::span<const StoredPrefix> prefixes,
                                       std::span<const BufferPiece> pieces, RecentBlocks* recent,
                                       const BlockKey& where, std::vector<BufferPtr>* out);

}  // namespace quiver::dataset
