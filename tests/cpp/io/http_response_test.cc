// HTTP response heads: Content-Range parsing (hostile values included) and
// the checks that decide whether a range response's bytes are used.
#include "quiver/io/http_response.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace quiver::io::internal {
namespace {

ResponseHead Head(std::initializer_list<const char*> lines) {
  ResponseHeadParser parser;
  for (const char* line : lines) parser.Feed(line);
  return parser.head();
}

TEST(HttpResponseTest, ParsesContentRange) {
  ASSERT_OK_AND_ASSIGN(ContentRange r, ParseContentRange("bytes 0-99/100"));
  EXPECT_EQ(r.start, 0);
  EXPECT_EQ(r.end, 99);
  EXPECT_EQ(r.total, 100);
  ASSERT_OK_AND_ASSIGN(r, ParseContentRange(" bytes 5-9/*\r\n"));
  EXPECT_EQ(r.total, -1);
  ASSERT_OK_AND_ASSIGN(r, ParseContentRange("bytes */42"));
  EXPECT_TRUE(r.unsatisfied);
  EXPECT_EQ(r.total, 42);
  ASSERT_OK_AND_ASSIGN(r, ParseContentRange("bytes 9223372036854775806-9223372036854775806/"
                                            "9223372036854775807"));
  EXPECT_EQ(r.end, INT64_MAX - 1);
}

TEST(HttpResponseTest, RefusesHostileContentRange) {
  for (const char* bad :
       {"", "bytes", "bytes 0-99", "items 0-99/100", "bytes -1-99/100", "bytes 0--5/100",
        "bytes +0-99/100", "bytes 0-99/-100", "bytes 10-5/100", "bytes 0-100/100",
        "bytes 0-99/99999999999999999999", "bytes 99999999999999999999-1/2", "bytes */*",
        "bytes 0 - 99/100", "bytes 0-99/1x0", "bytes 0-9223372036854775808/9223372036854775807"}) {
    SCOPED_TRACE(bad);
    EXPECT_ERROR(kInvalid, "Content-Range", ParseContentRange(bad));
  }
}

TEST(HttpResponseTest, HeadKeepsTheLastResponse) {
  // A redirect and a 100 Continue come before the response that counts.
  ResponseHead head = Head({"HTTP/1.1 302 Found\r\n", "Content-Range: bytes 1-2/3\r\n", "\r\n",
                            "HTTP/1.1 206 Partial Content\r\n", "content-range: bytes 0-9/20\r\n",
                            "CONTENT-LENGTH:  10 \r\n", "\r\n"});
  EXPECT_EQ(head.status, 206);
  EXPECT_EQ(head.reason, "Partial Content");
  EXPECT_EQ(head.content_range, "bytes 0-9/20");
  EXPECT_EQ(head.content_length, 10);
  EXPECT_EQ(StatusText(Head({"HTTP/2 404\r\n"})), "HTTP 404 Not Found");
  EXPECT_EQ(StatusText(Head({"HTTP/1.1 599 Odd\r\n"})), "HTTP 599 Odd");
  EXPECT_EQ(StatusText(Head({"HTTP/1.1 403 FORBIDDEN\r\n"})), "HTTP 403 Forbidden");
  EXPECT_EQ(Head({"HTTP/1.1 20x OK"}).status, 0);
  EXPECT_EQ(Head({"HTTP/1.1 206", "Content-Length: -5"}).content_length, -1);
}

TEST(HttpResponseTest, RangeResponseMustMatchTheRequest) {
  auto check = [](std::initializer_list<const char*> lines, int64_t body) {
    return CheckRangeResponse(Head(lines), body, 10, 5, 100);
  };
  EXPECT_TRUE(check({"HTTP/1.1 206 Partial", "Content-Range: bytes 10-14/100"}, 5).status.ok());
  // Wrong or missing Content-Range, short body: retried.
  for (const char* range : {"bytes 10-15/100", "bytes 11-14/100", "bytes 0-4/100", "junk"}) {
    Verdict v =
        check({"HTTP/1.1 206 Partial", (std::string("Content-Range: ") + range).c_str()}, 5);
    EXPECT_TRUE(v.retry) << range;
    EXPECT_NE(v.status.message().find("Content-Range"), std::string::npos) << v.status.ToString();
  }
  Verdict v = check({"HTTP/1.1 206 Partial"}, 5);
  EXPECT_TRUE(v.retry);
  v = check({"HTTP/1.1 206 Partial", "Content-Range: bytes 10-14/100"}, 3);
  EXPECT_TRUE(v.retry);
  EXPECT_NE(v.status.message().find("short body: 3 of the 5"), std::string::npos);
  // The object changed size: final.
  v = check({"HTTP/1.1 206 Partial", "Content-Range: bytes 10-14/200"}, 5);
  EXPECT_FALSE(v.retry);
  EXPECT_NE(v.status.message().find("object changed"), std::string::npos);
  // Statuses: 5xx retried, 4xx not, 200 to a part of the object refused.
  v = check({"HTTP/1.1 503 Service Unavailable"}, 0);
  EXPECT_TRUE(v.retry);
  EXPECT_EQ(v.status.message(), "HTTP 503 Service Unavailable");
  v = check({"HTTP/1.1 404 Not Found"}, 0);
  EXPECT_FALSE(v.retry);
  EXPECT_EQ(v.status.message(), "HTTP 404 Not Found");
  v = check({"HTTP/1.1 200 OK"}, 100);
  EXPECT_FALSE(v.retry);
  EXPECT_NE(v.status.message().find("does not support range requests"), std::string::npos);
  // The whole object asked for and sent with 200: fine.
  EXPECT_TRUE(CheckRangeResponse(Head({"HTTP/1.1 200 OK"}), 100, 0, 100, 100).status.ok());
}

TEST(HttpResponseTest, TailResponseGivesTheSize) {
  int64_t size = -1, offset = -1;
  Verdict v = CheckTailResponse(Head({"HTTP/1.1 206 P", "Content-Range: bytes 90-99/100"}), 10, 10,
                                &size, &offset);
  ASSERT_OK(v.status);
  EXPECT_EQ(size, 100);
  EXPECT_EQ(offset, 90);
  // An object smaller than the tail: all of it.
  ASSERT_OK(CheckTailResponse(Head({"HTTP/1.1 206 P", "Content-Range: bytes 0-6/7"}), 7, 10, &size,
                              &offset)
                .status);
  EXPECT_EQ(size, 7);
  EXPECT_EQ(offset, 0);
  // A server without ranges: a small body is the object, a large one an error.
  ASSERT_OK(CheckTailResponse(Head({"HTTP/1.1 200 OK"}), 8, 10, &size, &offset).status);
  EXPECT_EQ(size, 8);
  v = CheckTailResponse(Head({"HTTP/1.1 200 OK", "Content-Length: 5000"}), 11, 10, &size, &offset);
  EXPECT_FALSE(v.retry);
  EXPECT_NE(v.status.message().find("does not support range requests"), std::string::npos);
  // An empty object: 416 with "bytes */0".
  ASSERT_OK(
      CheckTailResponse(Head({"HTTP/1.1 416 R", "Content-Range: bytes */0"}), 0, 10, &size, &offset)
          .status);
  EXPECT_EQ(size, 0);
  // Not the end of the object, no total, a short body: retried.
  for (const char* range : {"bytes 80-89/100", "bytes 90-99/*", "bytes 85-99/100"}) {
    v = CheckTailResponse(
        Head({"HTTP/1.1 206 P", (std::string("Content-Range: ") + range).c_str()}), 10, 10, &size,
        &offset);
    EXPECT_TRUE(v.retry) << range;
    EXPECT_FALSE(v.status.ok()) << range;
  }
  v = CheckTailResponse(Head({"HTTP/1.1 206 P", "Content-Range: bytes 90-99/100"}), 4, 10, &size,
                        &offset);
  EXPECT_TRUE(v.retry);
  v = CheckTailResponse(Head({"HTTP/1.1 403 Forbidden"}), 0, 10, &size, &offset);
  EXPECT_FALSE(v.retry);
  EXPECT_EQ(v.status.message(), "HTTP 403 Forbidden");
  EXPECT_TRUE(CheckOkResponse(Head({"HTTP/1.1 200 OK"})).status.ok());
  EXPECT_TRUE(CheckOkResponse(Head({"HTTP/1.1 500 Oops"})).retry);
}

}  // namespace
}  // namespace quiver::io::internal
