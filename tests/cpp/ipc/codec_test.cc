// LZ4 frame and ZSTD compression of IPC body buffers: round trips on
// several threads, corrupt frames and wrong sizes as Invalid, the level
// ranges, and the names used in messages. (A build without a codec is
// covered in core/build_info_test.cc.)
#include "quiver/ipc/codec.h"

#include <vector>

#include "quiver/build_info.h"
#include "quiver/ipc.h"
#include "test_util.h"

namespace quiver::ipc {
namespace {

std::vector<uint8_t> Compressible(size_t n) {
  std::vector<uint8_t> data(n);
  for (size_t i = 0; i < n; ++i) data[i] = static_cast<uint8_t>(i % 97 / 5);
  return data;
}

}  // namespace

TEST(Codec, NamesAndNone) {
  EXPECT_STREQ(CodecName(Compression::kLz4Frame), "LZ4_FRAME");
  EXPECT_STREQ(CodecName(Compression::kZstd), "ZSTD");
  ASSERT_OK(CheckCodec(Compression::kNone));
  const uint8_t byte = 1;
  EXPECT_EQ(test::StatusOf(Compress(Compression::kNone, 0, &byte, 1)).message(),
            "no codec to compress with");
  EXPECT_EQ(test::StatusOf(Decompress(Compression::kNone, &byte, 1, 1)).message(),
            "no codec to decompress with");
}

TEST(Codec, LevelRanges) {
  ASSERT_OK(CheckLevel(Compression::kLz4Frame, WriteOptions::kDefaultLevel));
  ASSERT_OK(CheckLevel(Compression::kNone, 1000));
  ASSERT_OK(CheckLevel(Compression::kLz4Frame, 0));
  ASSERT_OK(CheckLevel(Compression::kLz4Frame, 12));
  ASSERT_OK(CheckLevel(Compression::kZstd, -131072));
  ASSERT_OK(CheckLevel(Compression::kZstd, 22));
  EXPECT_EQ(CheckLevel(Compression::kLz4Frame, 13).message(),
            "compression level 13 is outside LZ4_FRAME's range 0 to 12");
  EXPECT_EQ(CheckLevel(Compression::kLz4Frame, -1).message(),
            "compression level -1 is outside LZ4_FRAME's range 0 to 12");
  EXPECT_EQ(CheckLevel(Compression::kZstd, 23).message(),
            "compression level 23 is outside ZSTD's range -131072 to 22");
  EXPECT_EQ(CheckLevel(Compression::kZstd, -131073).code(), StatusCode::kInvalid);
}

TEST(Codec, RoundTripsAtLevels) {
  const std::vector<uint8_t> data = Compressible(3 << 20);
  const auto size = static_cast<int64_t>(data.size());
  int tested = 0;
  for (Compression codec : {Compression::kLz4Frame, Compression::kZstd}) {
    if (!HasCodec(codec)) continue;
    ++tested;
    for (int level : {WriteOptions::kDefaultLevel, 1, 9}) {
      SCOPED_TRACE(std::string(CodecName(codec)) + " level " + std::to_string(level));
      ASSERT_OK_AND_ASSIGN(BufferPtr packed, Compress(codec, level, data.data(), size));
      EXPECT_LT(packed->size(), size / 4);
      ASSERT_OK_AND_ASSIGN(BufferPtr unpacked,
                           Decompress(codec, packed->data(), packed->size(), size));
      ASSERT_EQ(unpacked->size(), size);
      EXPECT_EQ(std::vector<uint8_t>(unpacked->data(), unpacked->data() + size), data);
    }
  }
  if (tested == 0) GTEST_SKIP() << "this build has neither codec";
}

TEST(Codec, CorruptFramesAndWrongSizesAreInvalid) {
  const std::vector<uint8_t> data = Compressible(4096);
  const auto size = static_cast<int64_t>(data.size());
  int tested = 0;
  for (Compression codec : {Compression::kLz4Frame, Compression::kZstd}) {
    if (!HasCodec(codec)) continue;
    ++tested;
    const std::string name = CodecName(codec) == std::string("ZSTD") ? "ZSTD" : "LZ4";
    SCOPED_TRACE(name);
    ASSERT_OK_AND_ASSIGN(BufferPtr packed,
                         Compress(codec, WriteOptions::kDefaultLevel, data.data(), size));
    // A frame claiming another size than the buffer says.
    EXPECT_EQ(test::StatusOf(Decompress(codec, packed->data(), packed->size(), size + 1)).message(),
              name + " frame decompresses to 4096 bytes, the buffer claims 4097");
    // A frame holding more than the buffer claims: LZ4 stops with the output
    // full, ZSTD refuses the too-small destination.
    EXPECT_EQ(test::StatusOf(Decompress(codec, packed->data(), packed->size(), size - 1)).message(),
              name == "LZ4" ? "LZ4 frame decompresses to 4095+ bytes, the buffer claims 4095"
                            : "corrupt ZSTD frame: Destination buffer is too small");
    // Bytes that are no frame at all.
    const std::vector<uint8_t> garbage(64, 0xAB);
    EXPECT_ERROR(kInvalid, "corrupt " + name + " frame: ",
                 Decompress(codec, garbage.data(), static_cast<int64_t>(garbage.size()), size));
  }
  if (tested == 0) GTEST_SKIP() << "this build has neither codec";
}

}  // namespace quiver::ipc
