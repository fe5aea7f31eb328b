// Internal: a compressed record batch body decoded only where some rows
// need it. A buffer that a writer compressed in independent blocks (LZ4
// blocks of one frame, ZSTD frames one after another: WriteOptions::
// compression_block_bytes) decodes block by block, so a take of one 12 KiB
// row of a 1 MiB buffer in 16 KiB blocks decodes one or two blocks, not the
// megabyte.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "quiver/buffer.h"
#include "quiver/dataset/recent_blocks.h"
#include "quiver/dataset/row_ranges.h"
#include "quiver/ipc.h"

namespace quiver::dataset {

// The prefix of each stored body buffer `stored[i]` (its 8-byte length
// prefix, then its bytes; empty: absent), read once (the bytes may be a
// mapped file's); nullopt where a prefix is cut short, negative but -1, or
// over `max_decompressed`.
std::optional<std::vector<StoredPrefix>> ReadPrefixes(const std::vector<BufferPtr>& stored,
                                                      int64_t max_decompressed);

// Where the blocks of `stored` (a whole stored body buffer whose prefix
// says `prefix`) lie; `lz4_block`: the LZ4 block size its record batch
// declares (ipc/block_hint.h; 0: none).
BufferBlocks IndexBlocks(ipc::Compression codec, const Buffer& stored, StoredPrefix prefix,
                         int64_t lz4_block = 0);

// Bytes [offset, offset + length) of the stored buffer at position
// `buffer` of a take's `wanted` buffers, prefix included.
struct StoredRange {
  size_t buffer = 0;
  int64_t offset = 0;
  int64_t length = 0;
};
// Reads stored ranges, a buffer for each, in order.
using FetchStored = std::function<Result<std::vector<BufferPtr>>(const std::vector<StoredRange>&)>;

// Decodes, of each stored buffer `wanted[i]` (its blocks `*indexes[i]`),
// the blocks that hold `pieces` (ranges of the decoded buffers, by body
// buffer index), each into a buffer of the whole decoded length, placed at
// out[wanted[i]]; a buffer of one frame is decoded whole, one stored raw
// is its stored bytes. Neighbouring blocks of a buffer are fetched in one
// range. Without `keep_blocks` an LZ4 block is decoded only as far as the
// furthest piece in it reaches. Bytes outside the pieces' reach are left
// undefined: the caller keeps only the rows the pieces cover. Blocks in
// `recent` (keys: `where`'s source and batch, the buffer, the block's
// offset) are copied from there, the others' bytes read through `fetch`
// and decoded (and kept there too, whole, with `keep_blocks`). Returns the
// bytes decoded; nullopt where the blocks needed hold more than half of
// the buffers' decoded bytes (the whole batch, decoded once and cached, is
// the better buy) or a block does not decode (to its size, where decoded
// to its end: a whole decode then says what is wrong); fetch's errors.
Result<std::optional<int64_t>> DecodeRowBlocks(
    ipc::Compression codec, std::span<const int64_t> wanted,
    std::span<const std::shared_ptr<const BufferBlocks>> indexes,
    std::span<const BufferPiece> pieces, const FetchStored& fetch, RecentBlocks* recent,
    bool keep_blocks, const BlockKey& where, std::vector<BufferPtr>* out);

}  // namespace quiver::dataset
