// Parquet's page compression codecs: UNCOMPRESSED, SNAPPY (quiver's own,
// snappy_codec.h), ZSTD, LZ4_RAW (an LZ4 block), the legacy LZ4 (Hadoop's
// framing: big-endian decompressed and compressed lengths before each
// block, or a bare LZ4 block as some writers left), GZIP (zlib) and
// BROTLI (libbrotli), each optional in a source build like the IPC codecs.
// docs/formats.md, "Parquet: codecs".
#pragma once

#include <cstdint>
#include <string>

#include "quiver/parquet/metadata.h"
#include "quiver/status.h"

namespace quiver::parquet {

// Decompresses a page's [data, data + size) into exactly `out_size` bytes
// at `out`. Invalid naming `what` when the bytes are corrupt or decompress
// to another size; NotImplemented naming the codec and how to get it when
// this build lacks it (LZO is not read).
Status DecompressPage(Codec codec, const uint8_t* data, int64_t size, uint8_t* out,
                      int64_t out_size, const std::string& what);

// Whether this build reads `codec`.
bool HasPageCodec(Codec codec);

}  // namespace quiver::parquet
