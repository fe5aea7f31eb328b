// HTTP response heads: status lines, Content-Range, Content-Length, and the
// checks a range response must pass before its bytes are used.
#include "quiver/io/http_response.h"

#include <cctype>

namespace quiver::io::internal {

namespace {

std::string_view Trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  return text;
}

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

// Decimal digits only (no sign, no spaces), within int64; -1 otherwise.
int64_t ParseCount(std::string_view text) {
  if (text.empty() || text.size() > 19) return -1;
  int64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return -1;
    if (__builtin_mul_overflow(value, 10, &value) || __builtin_add_overflow(value, c - '0', &value))
      return -1;
  }
  return value;
}

Status BadRange(std::string_view value) {
  return Status::Invalid("malformed Content-Range '", std::string(value.substr(0, 100)), "'");
}

// "HTTP/1.1 206 Partial Content", "HTTP/2 200": the status and the reason.
bool ParseStatusLine(std::string_view line, int* status, std::string* reason) {
  if (!line.starts_with("HTTP/")) return false;
  const size_t space = line.find(' ');
  if (space == std::string_view::npos) return false;
  std::string_view rest = line.substr(space + 1);
  const int64_t code = ParseCount(rest.substr(0, 3));
  if (code < 100 || code > 999 || (rest.size() > 3 && rest[3] != ' ')) return false;
  *status = static_cast<int>(code);
  *reason = std::string(Trim(rest.substr(3)));
  return true;
}

std::string ContentRangeText(const ResponseHead& head) {
  return head.has_content_range ? "'" + head.content_range.substr(0, 100) + "'" : "none";
}

Verdict Retry(Status status) { return {std::move(status), true}; }
Verdict Fail(Status status) { return {std::move(status), false}; }

// 4xx and the rest are final; 5xx are retried.
Verdict StatusVerdict(const ResponseHead& head) {
  Status status = Status::IOError(StatusText(head));
  return head.status >= 500 && head.status <= 599 ? Retry(status) : Fail(status);
}

}  // namespace

Result<ContentRange> ParseContentRange(std::string_view value) {
  std::string_view text = Trim(value);
  if (!text.starts_with("bytes ")) return BadRange(value);
  text = Trim(text.substr(6));
  const size_t slash = text.find('/');
  if (slash == std::string_view::npos) return BadRange(value);
  const std::string_view span = text.substr(0, slash);
  const std::string_view total = text.substr(slash + 1);
  ContentRange out;
  if (total != "*") {
    out.total = ParseCount(total);
    if (out.total < 0) return BadRange(value);
  }
  if (span == "*") {
    if (out.total < 0) return BadRange(value);
    out.unsatisfied = true;
    return out;
  }
  const size_t dash = span.find('-');
  if (dash == std::string_view::npos) return BadRange(value);
  out.start = ParseCount(span.substr(0, dash));
  out.end = ParseCount(span.substr(dash + 1));
  if (out.start < 0 || out.end < out.start) return BadRange(value);
  if (out.total >= 0 && out.end >= out.total) return BadRange(value);
  return out;
}

void ResponseHeadParser::Feed(std::string_view line) {
  line = Trim(line);
  int status = 0;
  std::string reason;
  if (ParseStatusLine(line, &status, &reason)) {
    head_ = ResponseHead{};
    head_.status = status;
    head_.reason = std::move(reason);
    return;
  }
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) return;
  const std::string_view name = Trim(line.substr(0, colon));
  const std::string_view value = Trim(line.substr(colon + 1));
  if (EqualsIgnoringCase(name, "content-range")) {
    head_.has_content_range = true;
    head_.content_range = std::string(value);
  } else if (EqualsIgnoringCase(name, "content-length")) {
    head_.content_length = ParseCount(value);
  }
}

std::string_view StandardReason(int status) {
  switch (status) {
    case 200: return "OK";
    case 206: return "Partial Content";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 304: return "Not Modified";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 412: return "Precondition Failed";
    case 416: return "Range Not Satisfiable";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    default: return "";
  }
}

std::string StatusText(const ResponseHead& head) {
  // The standard phrase where there is one: servers spell it as they like
  // ("NOT FOUND"), and messages should read the same whatever answered.
  std::string reason(StandardReason(head.status));
  if (reason.empty()) reason = head.reason.substr(0, 100);
  std::string out = "HTTP " + std::to_string(head.status);
  return reason.empty() ? out : out + " " + reason;
}

Verdict CheckOkResponse(const ResponseHead& head) {
  return head.status == 200 ? Verdict::Ok() : StatusVerdict(head);
}

Verdict CheckRangeResponse(const ResponseHead& head, int64_t body_size, int64_t offset,
                           int64_t length, int64_t size) {
  const bool whole = offset == 0 && length == size;
  if (head.status == 200 && whole && body_size == size) return Verdict::Ok();
  if (head.status == 200) {
    return Fail(
        Status::IOError("the server answered a range request with the whole object (HTTP "
                        "200): it does not support range requests"));
  }
  if (head.status != 206) return StatusVerdict(head);
  auto range = ParseContentRange(head.content_range);
  if (!head.has_content_range || !range.ok() || range->unsatisfied) {
    return Retry(Status::IOError("HTTP 206 with Content-Range ", ContentRangeText(head),
                                 " for bytes ", offset, "-", offset + length - 1));
  }
  if (range->total >= 0 && range->total != size) {
    return Fail(Status::IOError("the object changed while it was read: it had ", size,
                                " bytes when opened and has ", range->total, " now"));
  }
  if (range->start != offset || range->end != offset + length - 1) {
    return Retry(Status::IOError("asked for bytes ", offset, "-", offset + length - 1,
                                 ", the server sent Content-Range ", ContentRangeText(head)));
  }
  if (body_size != length) {
    return Retry(Status::IOError("short body: ", body_size, " of the ", length,
                                 " bytes asked for at offset ", offset));
  }
  return Verdict::Ok();
}

Verdict CheckTailResponse(const ResponseHead& head, int64_t body_size, int64_t tail, int64_t* size,
                          int64_t* tail_offset) {
  if (head.status == 200) {
    if (body_size > tail || head.content_length > tail) {
      return Fail(
          Status::IOError("the server does not support range requests (it answered "
                          "HTTP 200 with the whole object, more than the ",
                          tail, " bytes asked for)"));
    }
    if (head.content_length >= 0 && head.content_length != body_size) {
      return Retry(
          Status::IOError("short body: ", body_size, " of ", head.content_length, " bytes"));
    }
    *size = body_size;
    *tail_offset = 0;
    return Verdict::Ok();
  }
  auto range = ParseContentRange(head.content_range);
  if (head.status == 416 && range.ok() && range->unsatisfied && range->total == 0) {
    *size = 0;  // an empty object has no last bytes
    *tail_offset = 0;
    return Verdict::Ok();
  }
  if (head.status != 206) return StatusVerdict(head);
  if (!head.has_content_range || !range.ok() || range->unsatisfied || range->total < 0 ||
      range->end != range->total - 1 || range->end - range->start + 1 > tail) {
    return Retry(Status::IOError("HTTP 206 with Content-Range ", ContentRangeText(head),
                                 " for the last ", tail, " bytes"));
  }
  if (range->start != (range->total > tail ? range->total - tail : 0)) {
    return Retry(Status::IOError("asked for the last ", tail,
                                 " bytes, the server sent Content-Range ", ContentRangeText(head)));
  }
  if (body_size != range->end - range->start + 1) {
    return Retry(Status::IOError("short body: ", body_size, " of the ",
                                 range->end - range->start + 1, " bytes at the object's end"));
  }
  *size = range->total;
  *tail_offset = range->start;
  return Verdict::Ok();
}

}  // namespace quiver::io::internal
