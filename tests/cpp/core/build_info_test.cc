// The build-info query (quiver/build_info.h) against what the codecs do:
// a codec HasCodec reports round-trips bytes, a missing one fails with
// NotImplemented and says how to get it, before a writer writes anything.
#include "quiver/build_info.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "quiver/ipc/codec.h"
#include "quiver/quiver.h"

namespace quiver::ipc {
namespace {

struct CodecCase {
  Compression codec;
  const char* name;
  const char* debian_package;
};

const CodecCase kCodecs[] = {{Compression::kLz4Frame, "lz4", "liblz4-dev"},
                             {Compression::kZstd, "zstd", "libzstd-dev"}};

TEST(BuildInfo, VersionIsTheProjectVersion) { EXPECT_STREQ(Version(), QUIVER_TEST_VERSION); }

// A build has libcurl exactly when it reads remote data.
TEST(BuildInfo, CurlVersionMatchesRemoteAvailable) {
  EXPECT_EQ(!CurlVersion().empty(), io::RemoteAvailable());
  if (io::RemoteAvailable()) {
    EXPECT_NE(CurlVersion().find('.'), std::string::npos);
  }
}

TEST(BuildInfo, AvailableCodecsMatchHasCodec) {
  EXPECT_TRUE(HasCodec(Compression::kNone));
  std::vector<std::string> expected;
  for (const CodecCase& c : kCodecs) {
    if (HasCodec(c.codec)) expected.emplace_back(c.name);
  }
  EXPECT_EQ(AvailableCodecs(), expected);
}

TEST(BuildInfo, EachCodecWorksOrSaysHowToGetIt) {
  std::vector<uint8_t> data(100000);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i % 251 / 7);
  const auto size = static_cast<int64_t>(data.size());
  for (const CodecCase& c : kCodecs) {
    SCOPED_TRACE(c.name);
    auto packed = Compress(c.codec, WriteOptions::kDefaultLevel, data.data(), size);
    if (HasCodec(c.codec)) {
      ASSERT_TRUE(packed.ok()) << packed.status().ToString();
      EXPECT_LT((*packed)->size(), size);
      auto unpacked = Decompress(c.codec, (*packed)->data(), (*packed)->size(), size);
      ASSERT_TRUE(unpacked.ok()) << unpacked.status().ToString();
      EXPECT_EQ(std::vector<uint8_t>((*unpacked)->data(), (*unpacked)->data() + size), data);
      EXPECT_TRUE(CheckCodec(c.codec).ok());
    } else {
      for (const Status& st : {packed.status(), Decompress(c.codec, data.data(), 16, 16).status(),
                               CheckCodec(c.codec)}) {
        EXPECT_EQ(st.code(), StatusCode::kNotImplemented);
        EXPECT_NE(st.message().find("make wheel, then pip install dist/quiver_tensors-*.whl"),
                  std::string::npos)
            << st.message();
        EXPECT_NE(st.message().find("pip install \".[arrow]\""), std::string::npos) << st.message();
        EXPECT_NE(st.message().find(c.debian_package), std::string::npos) << st.message();
      }
      // The writer refuses before writing the schema.
      auto sink = std::make_shared<BufferSink>();
      auto schema = std::make_shared<Schema>();
      WriteOptions options;
      options.compression = c.codec;
      auto writer = StreamWriter::Open(sink, schema, options);
      EXPECT_EQ(writer.status().code(), StatusCode::kNotImplemented);
      EXPECT_EQ(sink->position(), 0);
    }
  }
}

}  // namespace
}  // namespace quiver::ipc
