// Internal: LZ4 frame and ZSTD compression of IPC body buffers.
#pragma once

#include <cstdint>

#include "quiver/buffer.h"
#include "quiver/ipc.h"
#include "quiver/status.h"

namespace quiver::ipc {

// The compressed bytes of [data, data + size) (no length prefix). ZSTD
// spreads one buffer over `workers` threads when more than one is given
// (one standard frame either way); LZ4 frames always use one.
Result<BufferPtr> Compress(Compression codec, int level, const uint8_t* data, int64_t size,
                           int workers = 1);

// Exactly `expected` decompressed bytes of [data, data + size); Invalid when
// the input is corrupt or decompresses to another size.
Result<BufferPtr> Decompress(Compression codec, const uint8_t* data, int64_t size,
                             int64_t expected);

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
