// Internal: what an HTTP response's status line and headers say, and
// whether a range response carries the bytes that were asked for. Pure
// functions over untrusted text (fuzzed: fuzz/http_response_fuzz.cc).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "quiver/status.h"

namespace quiver::io::internal {

// A Content-Range header: "bytes START-END/TOTAL" (TOTAL may be "*"), or
// the "bytes */TOTAL" a 416 answer carries (unsatisfied).
struct ContentRange {
  int64_t start = -1;
  int64_t end = -1;
  int64_t total = -1;  // -1: "*", not known
  bool unsatisfied = false;
};

// Invalid for anything else: signs, overflow past int64, end < start,
// end >= total, a unit other than bytes.
Result<ContentRange> ParseContentRange(std::string_view value);

// What the status line and the headers of the final response said.
struct ResponseHead {
  int status = 0;
  std::string reason;  // empty for HTTP/2, which has none
  bool has_content_range = false;
  std::string content_range;  // the header's text
  int64_t content_length = -1;
};

// Gathers a ResponseHead from the header lines as libcurl hands them over,
// one at a time. A new status line starts over: a redirect or a
// "100 Continue" comes before the response that counts.
class ResponseHeadParser {
 public:
  void Feed(std::string_view line);
  const ResponseHead& head() const { return head_; }

 private:
  ResponseHead head_;
};

// "Not Found" for 404: the reason phrase HTTP/2 leaves out, for messages.
std::string_view StandardReason(int status);
// "HTTP 404 Not Found".
std::string StatusText(const ResponseHead& head);

// Whether a failed response is worth another try (5xx, a short body, a
// Content-Range that does not match the request) or final (4xx, a changed
// object, a server without range requests).
struct Verdict {
  Status status;
  bool retry = false;
  static Verdict Ok() { return {Status::OK(), false}; }
};

// The answer to a plain GET: 200, else the status (5xx retried).
Verdict CheckOkResponse(const ResponseHead& head);

// The answer to "Range: bytes=OFFSET-(OFFSET+LENGTH-1)" of an object of
// `size` bytes, whose body had `body_size` bytes. Messages leave out the
// URL (the caller adds it).
Verdict CheckRangeResponse(const ResponseHead& head, int64_t body_size, int64_t offset,
                           int64_t length, int64_t size);

// The answer to "Range: bytes=-TAIL" sent at open: sets `size` and
// `tail_offset` (where the body starts in the object).
Verdict CheckTailResponse(const ResponseHead& head, int64_t body_size, int64_t tail, int64_t* size,
                          int64_t* tail_offset);

}  // namespace quiver::io::internal
