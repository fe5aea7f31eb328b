// Remote sources: a build without libcurl refuses URLs with an error that
// says how to get them; a build with it reads a loopback server's object
// with the requests the design promises (one at open, read-ahead blocks,
// coalesced ranges). The real-server tests (nginx, an S3 server, a fault
// proxy) run from the Python suite (tests/python/test_remote_sources.py).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "loopback_server.h"
#include "quiver/io.h"
#include "quiver/io/remote.h"
#include "test_util.h"

namespace quiver::io {
namespace {

using test::Expected;
using test::LoopbackServer;
using test::RangeAnswer;
using test::Text;

TEST(RemoteTest, UnbuiltRemoteSaysHowToGetIt) {
  if (RemoteAvailable()) GTEST_SKIP() << "this build reads remote data";
  EXPECT_ERROR(kNotImplemented, "libcurl", OpenSource("http://127.0.0.1:1/x.arrow"));
  EXPECT_ERROR(kNotImplemented, "libcurl", ExpandLocations({"s3://bucket/prefix/"}, {".arrow"}));
}

SourceOptions Small() {
  SourceOptions options;
  options.remote.tail_bytes = 100;
  options.remote.readahead_bytes = 64;
  options.remote.coalesce_gap = 16;
  options.remote.max_retries = 1;
  options.remote.retry_delay_seconds = 0.01;
  return options;
}

TEST(RemoteTest, OpenSendsOneRequestAndKeepsTheTail) {
  if (!RemoteAvailable()) GTEST_SKIP() << "built without libcurl";
  LoopbackServer server([](const std::string& request, int) { return RangeAnswer(request); });
  ASSERT_OK_AND_ASSIGN(auto source, OpenSource(server.url(), Small()));
  EXPECT_EQ(source->size(), 1000);
  EXPECT_EQ(source->name(), "'" + server.url() + "'");
  EXPECT_EQ(source->stats().requests, 1);
  EXPECT_EQ(source->stats().bytes_fetched, 100);
  ASSERT_OK_AND_ASSIGN(BufferPtr footer, source->ReadAt(950, 50));
  EXPECT_EQ(Text(footer), Expected(950, 50));
  EXPECT_EQ(source->stats().requests, 1);  // from the tail
}

TEST(RemoteTest, SmallReadsAreWidenedIntoKeptBlocks) {
  if (!RemoteAvailable()) GTEST_SKIP() << "built without libcurl";
  LoopbackServer server([](const std::string& request, int) { return RangeAnswer(request); });
  ASSERT_OK_AND_ASSIGN(auto source, OpenSource(server.url(), Small()));
  for (int64_t offset : {10, 20, 40, 70}) {
    ASSERT_OK_AND_ASSIGN(BufferPtr bytes, source->ReadAt(offset, 4));
    EXPECT_EQ(Text(bytes), Expected(offset, 4));
  }
  // 10-74 came with the first read; 70-74 too.
  EXPECT_EQ(source->stats().requests, 2);
  ASSERT_OK_AND_ASSIGN(BufferPtr large, source->ReadAt(100, 300));
  EXPECT_EQ(Text(large), Expected(100, 300));
  EXPECT_EQ(source->stats().requests, 3);
  EXPECT_ERROR(kIOError, "past the end", source->ReadAt(990, 11));
  EXPECT_ERROR(kIOError, "past the end", source->ReadAt(-1, 1));
}

TEST(RemoteTest, ReadRangesCoalescesNearbyRanges) {
  if (!RemoteAvailable()) GTEST_SKIP() << "built without libcurl";
  LoopbackServer server([](const std::string& request, int) { return RangeAnswer(request); });
  ASSERT_OK_AND_ASSIGN(auto source, OpenSource(server.url(), Small()));
  // 0-10 and 20-30 are 10 apart (one request), 300-310 another, 960-970
  // lies in the tail.
  const std::vector<ByteRange> ranges = {{300, 10}, {0, 10}, {960, 10}, {20, 10}, {5, 0}};
  ASSERT_OK_AND_ASSIGN(std::vector<BufferPtr> got, source->ReadRanges(ranges));
  ASSERT_EQ(got.size(), ranges.size());
  for (size_t i = 0; i < ranges.size(); ++i) {
    EXPECT_EQ(Text(got[i]), Expected(ranges[i].offset, ranges[i].length));
  }
  EXPECT_EQ(source->stats().requests, 3);
}

TEST(RemoteTest, ErrorsNameTheUrlAndStatus) {
  if (!RemoteAvailable()) GTEST_SKIP() << "built without libcurl";
  LoopbackServer missing([](const std::string&, int) {
    return std::string("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
  });
  EXPECT_ERROR(kIOError, missing.url() + ": HTTP 404 Not Found",
               OpenSource(missing.url(), Small()));
  // No range support: a small object is taken whole, a large one refused.
  LoopbackServer whole([](const std::string&, int) {
    return std::string("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello");
  });
  ASSERT_OK_AND_ASSIGN(auto source, OpenSource(whole.url(), Small()));
  ASSERT_OK_AND_ASSIGN(BufferPtr bytes, source->ReadAt(1, 3));
  EXPECT_EQ(Text(bytes), "ell");
  LoopbackServer large([](const std::string&, int) {
    return "HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n" + std::string(500, 'x');
  });
  EXPECT_ERROR(kIOError, "does not support range requests", OpenSource(large.url(), Small()));
}

TEST(RemoteTest, ChangedObjectIsAnError) {
  if (!RemoteAvailable()) GTEST_SKIP() << "built without libcurl";
  LoopbackServer server([](const std::string& request, int number) {
    return RangeAnswer(request, number == 0 ? 1000 : 2000);
  });
  ASSERT_OK_AND_ASSIGN(auto source, OpenSource(server.url(), Small()));
  EXPECT_ERROR(kIOError, "the object changed", source->ReadAt(0, 500));
}

TEST(RemoteTest, S3PrefixNamesAreNotObjects) {
  if (!RemoteAvailable()) GTEST_SKIP() << "built without libcurl";
  EXPECT_ERROR(kInvalid, "names a prefix", OpenSource("s3://bucket/dir/"));
  EXPECT_ERROR(kInvalid, "names no bucket", OpenSource("s3:///key"));
}

}  // namespace
}  // namespace quiver::io

namespace quiver::io::internal {
namespace {

TEST(RemoteUrlTest, ErrorsShowNoCredentials) {
  EXPECT_EQ(RedactedUrl("http://user:s3cret@host:80/a/b.arrow"), "http://...@host:80/a/b.arrow");
  EXPECT_EQ(RedactedUrl("https://host/b.arrow?X-Amz-Signature=abc&X-Amz-Credential=k"),
            "https://host/b.arrow?...");
  EXPECT_EQ(RedactedUrl("https://host/a@b.arrow"), "https://host/a@b.arrow");
  EXPECT_EQ(RedactedUrl("s3://bucket/key.arrow"), "s3://bucket/key.arrow");
}

TEST(RemoteUrlTest, OptionsOutOfRangeAreRefused) {
  RemoteOptions options;
  EXPECT_TRUE(CheckOptions(options).ok());
  options.timeout_seconds = std::numeric_limits<double>::infinity();
  EXPECT_ERROR(kInvalid, "timeout_seconds must be a finite number above 0", CheckOptions(options));
  options = {};
  options.timeout_seconds = std::nan("");
  EXPECT_ERROR(kInvalid, "timeout_seconds", CheckOptions(options));
  options = {};
  options.parallel_requests = 0;
  EXPECT_ERROR(kInvalid, "parallel_requests must be >= 1", CheckOptions(options));
  options = {};
  options.tail_bytes = -1;
  EXPECT_ERROR(kInvalid, "tail_bytes", CheckOptions(options));
  options = {};
  options.max_retries = -1;
  EXPECT_ERROR(kInvalid, "max_retries", CheckOptions(options));
}

}  // namespace
}  // namespace quiver::io::internal
