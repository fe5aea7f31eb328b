// Compressing Parquet pages: SNAPPY (quiver's own encoder), ZSTD and
// LZ4_RAW (the LZ4 block format, no framing) when the build has their
// libraries. docs/parquet.md, "Writing".
#pragma once

#include <cstdint>
#include <string>

#include "quiver/parquet/metadata.h"
#include "quiver/status.h"

namespace quiver::parquet {

// The codec a compression name means (any case): Invalid naming it for
// one quiver does not write, NotImplemented for one this build lacks.
Result<Codec> WritableCodec(const std::string& name);

// `size` bytes compressed with `codec` (UNCOMPRESSED: copied); `level` 0
// takes the codec's default.
Result<std::string> CompressPage(Codec codec, int level, const uint8_t* data, int64_t size);

}  // namespace quiver::parquet
