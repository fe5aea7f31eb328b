// The HTTP client against a loopback server written here: range reads,
// retries of 5xx and dropped connections, final 4xx errors (with S3's
// <Code>), timeouts, parallel ranges and a forked child making its own
// connections. Without libcurl there is no client to test.
#ifdef QUIVER_HAVE_CURL

#include "quiver/io/http_client.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "loopback_server.h"
#include "test_util.h"

namespace quiver::io::internal {
namespace {

using test::Expected;
using test::LoopbackServer;
using test::RangeAnswer;
using test::Text;

RemoteOptions Fast() {
  RemoteOptions options;
  options.timeout_seconds = 1;
  options.max_retries = 2;
  options.retry_delay_seconds = 0.01;
  return options;
}

TEST(HttpClientTest, ReadsRangesAndReusesTheConnection) {
  LoopbackServer server([](const std::string& request, int) { return RangeAnswer(request); });
  HttpClient client(server.url(), Fast(), {});
  for (int i = 0; i < 3; ++i) {
    ASSERT_OK_AND_ASSIGN(BufferPtr bytes, client.GetRange(server.url(), 100 + i, 50, 1000));
    EXPECT_EQ(Text(bytes), Expected(100 + i, 50));
  }
  EXPECT_EQ(client.stats().requests, 3);
  EXPECT_EQ(client.stats().bytes_fetched, 150);
  EXPECT_EQ(client.stats().retries, 0);
}

TEST(HttpClientTest, RetriesServerErrorsAndDroppedConnections) {
  LoopbackServer server([](const std::string& request, int number) -> std::string {
    // Dropped first: on a fresh connection (libcurl itself resends a
    // request once when a reused connection turns out closed).
    if (number == 0) return "";
    if (number == 1) return "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n";
    return RangeAnswer(request);
  });
  HttpClient client(server.url(), Fast(), {});
  ASSERT_OK_AND_ASSIGN(BufferPtr bytes, client.GetRange(server.url(), 7, 20, 1000));
  EXPECT_EQ(Text(bytes), Expected(7, 20));
  EXPECT_EQ(client.stats().requests, 3);
  EXPECT_EQ(client.stats().retries, 2);
}

TEST(HttpClientTest, GivesUpAfterMaxRetries) {
  LoopbackServer server([](const std::string&, int) {
    return std::string("HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n");
  });
  HttpClient client(server.url(), Fast(), {});
  EXPECT_ERROR(kIOError, server.url() + ": HTTP 500 Internal Server Error (after 2 retries)",
               client.GetRange(server.url(), 0, 10, 1000));
  EXPECT_EQ(server.requests(), 3);
}

TEST(HttpClientTest, ClientErrorsAreFinalAndNameTheS3Code) {
  LoopbackServer server([](const std::string&, int) {
    const std::string body =
        "<?xml version=\"1.0\"?><Error><Code>NoSuchKey</Code><Message>no</Message></Error>";
    return "HTTP/1.1 404 Not Found\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" +
           body;
  });
  HttpClient client("s3://bucket/key", Fast(), {});
  auto got = client.GetRange(server.url(), 0, 10, 1000);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().message(), "s3://bucket/key: HTTP 404 Not Found (NoSuchKey)");
  EXPECT_EQ(server.requests(), 1);
}

TEST(HttpClientTest, WrongContentRangeIsRetriedThenRefused) {
  LoopbackServer server([](const std::string&, int) {
    return std::string(
        "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 0-9/1000\r\nContent-Length: "
        "10\r\n\r\n0123456789");
  });
  HttpClient client(server.url(), Fast(), {});
  EXPECT_ERROR(kIOError, "the server sent Content-Range 'bytes 0-9/1000'",
               client.GetRange(server.url(), 10, 10, 1000));
  EXPECT_EQ(client.stats().retries, 2);
}

TEST(HttpClientTest, StalledServerTimesOut) {
  LoopbackServer server([](const std::string&, int) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2500));
    return std::string("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n");
  });
  RemoteOptions options = Fast();
  options.max_retries = 0;
  HttpClient client(server.url(), options, {});
  const auto start = std::chrono::steady_clock::now();
  EXPECT_ERROR(kIOError, "Timeout was reached", client.GetRange(server.url(), 0, 10, 1000));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(2400));
}

TEST(HttpClientTest, ParallelRangesComeBackInOrder) {
  LoopbackServer server([](const std::string& request, int) { return RangeAnswer(request); });
  RemoteOptions options = Fast();
  options.parallel_requests = 4;
  HttpClient client(server.url(), options, {});
  std::vector<ByteRange> ranges;
  for (int64_t i = 0; i < 20; ++i) ranges.push_back({i * 37, 11 + i});
  ASSERT_OK_AND_ASSIGN(std::vector<BufferPtr> got, client.GetRanges(server.url(), ranges, 1000));
  ASSERT_EQ(got.size(), ranges.size());
  for (size_t i = 0; i < ranges.size(); ++i) {
    EXPECT_EQ(Text(got[i]), Expected(ranges[i].offset, ranges[i].length));
  }
  EXPECT_EQ(client.stats().requests, 20);
}

#if !defined(__SANITIZE_THREAD__) && !defined(__SANITIZE_ADDRESS__)
// A forked child leaves the parent's handles and connections alone and
// reads through new ones (sanitizer runtimes do not survive fork here:
// see batch_reader_test.cc).
TEST(HttpClientTest, ForkedChildMakesItsOwnConnections) {
  LoopbackServer server([](const std::string& request, int) { return RangeAnswer(request); });
  HttpClient client(server.url(), Fast(), {});
  ASSERT_OK(client.GetRange(server.url(), 0, 10, 1000).status());
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    auto got = client.GetRange(server.url(), 5, 10, 1000);
    _exit(got.ok() && Text(*got) == Expected(5, 10) ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  // The parent's connection still works.
  ASSERT_OK_AND_ASSIGN(BufferPtr bytes, client.GetRange(server.url(), 20, 10, 1000));
  EXPECT_EQ(Text(bytes), Expected(20, 10));
}
#endif

}  // namespace
}  // namespace quiver::io::internal

#endif  // QUIVER_HAVE_CURL
