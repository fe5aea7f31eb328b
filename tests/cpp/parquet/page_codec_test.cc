// DecompressPage for each codec this build has: round trips through the
// libraries themselves, Hadoop's LZ4 framing and the bare block it falls
// back to, and corrupt pages or pages of another size.
#include "quiver/parquet/page_codec.h"

#ifdef QUIVER_HAVE_LZ4
#include <lz4.h>
#endif
#ifdef QUIVER_HAVE_ZSTD
#include <zstd.h>
#endif
#ifdef QUIVER_HAVE_ZLIB
#include <zlib.h>
#endif

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "quiver/parquet/snappy_codec.h"
#include "test_util.h"

namespace quiver::parquet {
namespace {

// A page's bytes: repetitive enough to compress, varied enough to matter.
std::string PageBytes(size_t size) {
  std::string out;
  for (size_t i = 0; out.size() < size; ++i) out += "value " + std::to_string(i % 97) + ";";
  out.resize(size);
  return out;
}

const uint8_t* U8(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }
int64_t Size(const std::string& s) { return static_cast<int64_t>(s.size()); }

// Decompresses into exactly `out_size` bytes.
Result<std::string> Decompress(Codec codec, const std::string& page, int64_t out_size) {
  std::string out(static_cast<size_t>(out_size), '\0');
  QUIVER_RETURN_NOT_OK(DecompressPage(codec, U8(page), Size(page),
                                      reinterpret_cast<uint8_t*>(out.data()), out_size, "page 3"));
  return out;
}

TEST(PageCodecTest, UncompressedPagesAreCopiedAtTheirSize) {
  const std::string bytes = PageBytes(1000);
  ASSERT_OK_AND_ASSIGN(std::string out, Decompress(Codec::kUncompressed, bytes, 1000));
  EXPECT_EQ(out, bytes);
  ASSERT_OK_AND_ASSIGN(std::string empty, Decompress(Codec::kUncompressed, "", 0));
  EXPECT_EQ(empty, "");
  EXPECT_ERROR(kInvalid,
               "page 3: the UNCOMPRESSED page decompresses to 1000 bytes, its header "
               "says 999",
               Decompress(Codec::kUncompressed, bytes, 999).status());
  EXPECT_TRUE(HasPageCodec(Codec::kUncompressed));
  EXPECT_TRUE(HasPageCodec(Codec::kSnappy));
}

TEST(PageCodecTest, Snappy) {
  const std::string bytes = PageBytes(5000);
  const std::string page = SnappyEncode(U8(bytes), Size(bytes));
  ASSERT_OK_AND_ASSIGN(std::string out, Decompress(Codec::kSnappy, page, 5000));
  EXPECT_EQ(out, bytes);
  EXPECT_ERROR(kInvalid, "page 3", Decompress(Codec::kSnappy, page, 4999).status());
  EXPECT_ERROR(kInvalid, "page 3", Decompress(Codec::kSnappy, page.substr(0, 40), 5000).status());
}

TEST(PageCodecTest, Zstd) {
#ifdef QUIVER_HAVE_ZSTD
  EXPECT_TRUE(HasPageCodec(Codec::kZstd));
  const std::string bytes = PageBytes(20000);
  std::string page(ZSTD_compressBound(bytes.size()), '\0');
  page.resize(ZSTD_compress(page.data(), page.size(), bytes.data(), bytes.size(), 3));
  ASSERT_OK_AND_ASSIGN(std::string out, Decompress(Codec::kZstd, page, 20000));
  EXPECT_EQ(out, bytes);
  EXPECT_ERROR(kInvalid, "page 3: a corrupt ZSTD page",
               Decompress(Codec::kZstd, page, 19999).status());
  EXPECT_ERROR(kInvalid, "page 3: the ZSTD page decompresses to 20000 bytes, its header says 20001",
               Decompress(Codec::kZstd, page, 20001).status());
  EXPECT_ERROR(kInvalid, "page 3: a corrupt ZSTD page",
               Decompress(Codec::kZstd, page.substr(0, page.size() / 2), 20000).status());
  std::string garbage = page;
  garbage[0] = 'x';
  EXPECT_ERROR(kInvalid, "a corrupt ZSTD page", Decompress(Codec::kZstd, garbage, 20000).status());
#else
  EXPECT_FALSE(HasPageCodec(Codec::kZstd));
  EXPECT_ERROR(kNotImplemented, "libzstd-dev", Decompress(Codec::kZstd, "abc", 3).status());
#endif
}

#ifdef QUIVER_HAVE_LZ4
std::string Lz4Block(const std::string& bytes) {
  std::string out(static_cast<size_t>(LZ4_compressBound(static_cast<int>(bytes.size()))), '\0');
  out.resize(static_cast<size_t>(LZ4_compress_default(
      bytes.data(), out.data(), static_cast<int>(bytes.size()), static_cast<int>(out.size()))));
  return out;
}

std::string Be32(uint32_t v) {
  return std::string{static_cast<char>(v >> 24), static_cast<char>(v >> 16),
                     static_cast<char>(v >> 8), static_cast<char>(v)};
}

std::string HadoopFrame(const std::string& bytes) {
  const std::string block = Lz4Block(bytes);
  return Be32(static_cast<uint32_t>(bytes.size())) + Be32(static_cast<uint32_t>(block.size())) +
         block;
}
#endif

TEST(PageCodecTest, Lz4RawIsOneBlock) {
#ifdef QUIVER_HAVE_LZ4
  EXPECT_TRUE(HasPageCodec(Codec::kLz4Raw));
  const std::string bytes = PageBytes(10000);
  const std::string page = Lz4Block(bytes);
  ASSERT_OK_AND_ASSIGN(std::string out, Decompress(Codec::kLz4Raw, page, 10000));
  EXPECT_EQ(out, bytes);
  EXPECT_ERROR(kInvalid,
               "page 3: a corrupt LZ4_RAW page, or one that does not decompress to its "
               "header's 10001 bytes",
               Decompress(Codec::kLz4Raw, page, 10001).status());
  EXPECT_ERROR(kInvalid, "LZ4_RAW", Decompress(Codec::kLz4Raw, page, 9999).status());
  EXPECT_ERROR(kInvalid, "LZ4_RAW",
               Decompress(Codec::kLz4Raw, page.substr(0, page.size() - 5), 10000).status());
#else
  EXPECT_FALSE(HasPageCodec(Codec::kLz4Raw));
  EXPECT_ERROR(kNotImplemented, "liblz4-dev", Decompress(Codec::kLz4Raw, "abc", 3).status());
#endif
}

TEST(PageCodecTest, LegacyLz4IsHadoopFramedOrABareBlock) {
#ifdef QUIVER_HAVE_LZ4
  EXPECT_TRUE(HasPageCodec(Codec::kLz4));
  const std::string first = PageBytes(7000);
  const std::string second = PageBytes(3000) + "tail";
  const std::string framed = HadoopFrame(first) + HadoopFrame(second);
  ASSERT_OK_AND_ASSIGN(std::string out, Decompress(Codec::kLz4, framed, 10004));
  EXPECT_EQ(out, first + second);
  // The bare block some writers left.
  ASSERT_OK_AND_ASSIGN(std::string bare, Decompress(Codec::kLz4, Lz4Block(first), 7000));
  EXPECT_EQ(bare, first);
  // Frames that fill too little, a frame cut short, a corrupt block.
  EXPECT_ERROR(kInvalid,
               "page 3: a corrupt LZ4 page: neither Hadoop-framed LZ4 blocks nor one "
               "LZ4 block of its header's 10005 bytes",
               Decompress(Codec::kLz4, framed, 10005).status());
  EXPECT_ERROR(kInvalid, "a corrupt LZ4 page",
               Decompress(Codec::kLz4, framed.substr(0, framed.size() - 3), 10004).status());
  EXPECT_ERROR(kInvalid, "a corrupt LZ4 page",
               Decompress(Codec::kLz4, Be32(7000) + Be32(4) + "\xff\xff\xff\xff", 7000).status());
#else
  EXPECT_FALSE(HasPageCodec(Codec::kLz4));
  EXPECT_ERROR(kNotImplemented, "liblz4-dev", Decompress(Codec::kLz4, "abc", 3).status());
#endif
}

#ifdef QUIVER_HAVE_ZLIB
// A zlib stream (window_bits 15) or a gzip member (15 + 16).
std::string Deflate(const std::string& bytes, int window_bits) {
  z_stream stream{};
  EXPECT_EQ(deflateInit2(&stream, 6, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&stream, static_cast<uLong>(bytes.size())) + 32, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  stream.avail_in = static_cast<uInt>(bytes.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&stream, Z_FINISH), Z_STREAM_END);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}
#endif

TEST(PageCodecTest, GzipTakesGzipAndZlibStreams) {
#ifdef QUIVER_HAVE_ZLIB
  EXPECT_TRUE(HasPageCodec(Codec::kGzip));
  const std::string bytes = PageBytes(30000);
  const std::string gzip = Deflate(bytes, 15 + 16);
  ASSERT_OK_AND_ASSIGN(std::string out, Decompress(Codec::kGzip, gzip, 30000));
  EXPECT_EQ(out, bytes);
  ASSERT_OK_AND_ASSIGN(std::string zlib, Decompress(Codec::kGzip, Deflate(bytes, 15), 30000));
  EXPECT_EQ(zlib, bytes);
  // Two gzip members back to back.
  const std::string more = PageBytes(500);
  ASSERT_OK_AND_ASSIGN(std::string two,
                       Decompress(Codec::kGzip, gzip + Deflate(more, 15 + 16), 30500));
  EXPECT_EQ(two, bytes + more);
  EXPECT_ERROR(kInvalid, "page 3: the GZIP page decompresses to 30000 bytes, its header says 30001",
               Decompress(Codec::kGzip, gzip, 30001).status());
  EXPECT_ERROR(kInvalid, "page 3: the GZIP page decompresses to more than its header's 29999 bytes",
               Decompress(Codec::kGzip, gzip, 29999).status());
  EXPECT_ERROR(kInvalid, "page 3: a corrupt GZIP page",
               Decompress(Codec::kGzip, "not a gzip stream at all", 30000).status());
  EXPECT_ERROR(kInvalid, "page 3",
               Decompress(Codec::kGzip, gzip.substr(0, gzip.size() / 2), 30000).status());
#else
  EXPECT_FALSE(HasPageCodec(Codec::kGzip));
  EXPECT_ERROR(kNotImplemented,
               "GZIP pages need zlib: rebuild quiver with zlib installed (Debian zlib1g-dev)",
               Decompress(Codec::kGzip, "abc", 3).status());
#endif
}

TEST(PageCodecTest, RandomAndTruncatedPagesAreErrorsNeverOverreads) {
  const std::string bytes = PageBytes(3000);
  std::vector<std::pair<Codec, std::string>> pages{
      {Codec::kSnappy, SnappyEncode(U8(bytes), Size(bytes))}};
#ifdef QUIVER_HAVE_ZSTD
  std::string zstd(ZSTD_compressBound(bytes.size()), '\0');
  zstd.resize(ZSTD_compress(zstd.data(), zstd.size(), bytes.data(), bytes.size(), 1));
  pages.emplace_back(Codec::kZstd, zstd);
#endif
#ifdef QUIVER_HAVE_LZ4
  pages.emplace_back(Codec::kLz4Raw, Lz4Block(bytes));
  pages.emplace_back(Codec::kLz4, HadoopFrame(bytes));
#endif
#ifdef QUIVER_HAVE_ZLIB
  pages.emplace_back(Codec::kGzip, Deflate(bytes, 15 + 16));
#endif
  for (const auto& [codec, page] : pages) {
    for (size_t cut = 0; cut < page.size(); cut += 1 + cut / 16) {
      // A heap copy of exactly the cut, for a sanitizer build to watch.
      std::unique_ptr<uint8_t[]> copy(new uint8_t[cut + 1]);
      std::memcpy(copy.get(), page.data(), cut);
      std::unique_ptr<uint8_t[]> out(new uint8_t[3000]);
      Status status =
          DecompressPage(codec, copy.get(), static_cast<int64_t>(cut), out.get(), 3000, "page 3");
      EXPECT_FALSE(status.ok()) << CodecName(codec) << " cut at " << cut;
    }
  }
  std::mt19937 random(23);
  for (int round = 0; round < 200; ++round) {
    std::string page(random() % 64, '\0');
    for (char& b : page) b = static_cast<char>(random());
    const int64_t out_size = random() % 100;
    for (int codec = 0; codec <= 7; ++codec) {
      std::unique_ptr<uint8_t[]> copy(new uint8_t[page.size() + 1]);
      std::memcpy(copy.get(), page.data(), page.size());
      std::unique_ptr<uint8_t[]> out(new uint8_t[static_cast<size_t>(out_size) + 1]);
      (void)DecompressPage(static_cast<Codec>(codec), copy.get(), static_cast<int64_t>(page.size()),
                           out.get(), out_size, "page 3");
    }
  }
}

TEST(PageCodecTest, BrotliPagesWhereTheBuildHasLibbrotli) {
  // 990 bytes ("row 0 of a brotli page; row 1 ...") as pyarrow's BROTLI
  // codec compresses them.
  const std::string page(
      "\x1b\xdd\x03\x00\x04\x92\xe9\x9a\xd6\x0c\x63\x73\xf1\xc5\x6d\xaa\xf0\x20\x08\x95\x22\x88"
      "\x2a\x1c\x00\x2c\xa0\x78\xac\xd3\xb3\xa8\xb6\x77\x6f\xbf\x8a\xda\xa9\xaa\xbd\xb7\xef\xb9"
      "\xf5\xd6\xeb\xd8\xd4\xc4\x82\x44\x06\x19\x65\x92\x59\x16\x59\x9b\xa7\x4f\x92\x25\x4b\x96"
      "\x2c\x59\xb2\x64\xc9\x08\x82\x20\x08\x82\x20\x08\x82\x42\xa1\x50\x28\x14\x0a\x85\x32\x03",
      88);
  std::string expected;
  for (int i = 0; i < 40; ++i) expected += "row " + std::to_string(i) + " of a brotli page; ";
  if (!HasPageCodec(Codec::kBrotli)) {
    EXPECT_ERROR(kNotImplemented, "libbrotli-dev", Decompress(Codec::kBrotli, page, 990).status());
    return;
  }
  ASSERT_OK_AND_ASSIGN(std::string out, Decompress(Codec::kBrotli, page, 990));
  EXPECT_EQ(out, expected);
  EXPECT_ERROR(kInvalid, "page 3: the BROTLI page decompresses to 990 bytes, its header says 991",
               Decompress(Codec::kBrotli, page, 991).status());
  EXPECT_ERROR(kInvalid, "page 3: a corrupt BROTLI page",
               Decompress(Codec::kBrotli, page, 989).status());
  EXPECT_ERROR(kInvalid, "page 3: a corrupt BROTLI page",
               Decompress(Codec::kBrotli, page.substr(0, 40), 990).status());
  EXPECT_ERROR(kInvalid, "page 3: a corrupt BROTLI page",
               Decompress(Codec::kBrotli, "not brotli at all", 990).status());
}

TEST(PageCodecTest, LzoAndUnknownCodecsAreNotRead) {
  EXPECT_FALSE(HasPageCodec(Codec::kLzo));
  EXPECT_ERROR(kNotImplemented, "page 3: quiver does not read LZO pages",
               Decompress(Codec::kLzo, "abc", 3).status());
  EXPECT_ERROR(kNotImplemented, "pages in compression codec 99",
               Decompress(static_cast<Codec>(99), "abc", 3).status());
  EXPECT_FALSE(HasPageCodec(static_cast<Codec>(99)));
  uint8_t out[4];
  EXPECT_ERROR(kInvalid, "page 3: a page of -1 bytes to decompress to 4",
               DecompressPage(Codec::kUncompressed, out, -1, out, 4, "page 3"));
}

}  // namespace
}  // namespace quiver::parquet
