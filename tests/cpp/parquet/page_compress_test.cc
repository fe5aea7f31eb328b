// Page compression for the writer: each writable codec by name, pages that
// decompress to their bytes again, and codecs the writer refuses.
#include "quiver/parquet/page_compress.h"

#include <string>

#include "quiver/parquet/page_codec.h"
#include "test_util.h"

namespace quiver::parquet {
namespace {

TEST(PageCompressTest, EveryWritableCodecRoundTrips) {
  std::string page;
  for (int i = 0; i < 5000; ++i) page += "value " + std::to_string(i % 97) + ";";
  for (const char* name : {"UNCOMPRESSED", "SNAPPY", "ZSTD", "LZ4_RAW", "snappy"}) {
    auto codec = WritableCodec(name);
    if (!codec.ok()) {
      EXPECT_EQ(codec.status().code(), StatusCode::kNotImplemented) << name;
      continue;  // a build without that library
    }
    ASSERT_OK_AND_ASSIGN(std::string packed,
                         CompressPage(*codec, 0, reinterpret_cast<const uint8_t*>(page.data()),
                                      static_cast<int64_t>(page.size())));
    std::string back(page.size(), '\0');
    ASSERT_OK(DecompressPage(*codec, reinterpret_cast<const uint8_t*>(packed.data()),
                             static_cast<int64_t>(packed.size()),
                             reinterpret_cast<uint8_t*>(back.data()),
                             static_cast<int64_t>(back.size()), "page"));
    EXPECT_EQ(back, page) << name;
    if (*codec != Codec::kUncompressed) {
      EXPECT_LT(packed.size(), page.size()) << name;
    }
  }
}

TEST(PageCompressTest, UnknownAndUnwritableCodecsAreRefused) {
  EXPECT_ERROR(kInvalid, "BROTLY", WritableCodec("BROTLY"));
  EXPECT_FALSE(WritableCodec("LZO").ok());
}

}  // namespace
}  // namespace quiver::parquet
