// Fuzzes the HTTP response head reader and the range checks
// (src/quiver/io/http_response.h): any header lines must give a head or be
// ignored, never a crash; a Content-Range that parses is well-formed; and
// a response the checks accept carries exactly the bytes asked for.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_input.h"
#include "fuzz_targets.h"
#include "quiver/io/http_response.h"

namespace quiver::fuzz {

namespace {

using io::internal::ContentRange;
using io::internal::ResponseHead;

void CheckContentRange(std::string_view line) {
  auto range = io::internal::ParseContentRange(line);
  if (!range.ok()) return;
  if (range->unsatisfied) {
    if (range->total < 0) __builtin_trap();
    return;
  }
  if (range->start < 0 || range->end < range->start) __builtin_trap();
  if (range->total >= 0 && range->end >= range->total) __builtin_trap();
}

// An accepted range response is a 206 whose Content-Range is exactly the
// request, or a 200 for the whole object.
void CheckRange(const ResponseHead& head, int64_t body, int64_t offset, int64_t length,
                int64_t size) {
  if (!io::internal::CheckRangeResponse(head, body, offset, length, size).status.ok()) return;
  if (body != length) __builtin_trap();
  if (head.status == 200 && (offset != 0 || length != size)) __builtin_trap();
  if (head.status == 206) {
    auto range = io::internal::ParseContentRange(head.content_range);
    if (!range.ok() || range->start != offset || range->end != offset + length - 1)
      __builtin_trap();
  } else if (head.status != 200) {
    __builtin_trap();
  }
}

// An accepted tail response gives a size and the tail's place in it.
void CheckTail(const ResponseHead& head, int64_t body, int64_t tail) {
  int64_t size = -1, offset = -1;
  if (!io::internal::CheckTailResponse(head, body, tail, &size, &offset).status.ok()) return;
  if (size < 0 || offset < 0 || offset > size) __builtin_trap();
  if (head.status != 416 && (body != size - offset || body > tail)) __builtin_trap();
}

}  // namespace

int FuzzHttpResponse(const uint8_t* data, size_t size) {
  Input numbers(data, size < 8 ? size : 8);
  const int64_t offset = numbers.Int(0, 5000);
  const int64_t length = numbers.Int(0, 5000);
  const int64_t object = offset + length + numbers.Int(0, 5000);
  const int64_t body = numbers.Int(0, 11000);
  const std::string_view text(reinterpret_cast<const char*>(data),
                              size);  // the whole input is also the head
  io::internal::ResponseHeadParser parser;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    parser.Feed(line);
    CheckContentRange(line);
    start = end + 1;
  }
  const ResponseHead& head = parser.head();
  (void)io::internal::StatusText(head);
  CheckRange(head, body, offset, length, object);
  CheckTail(head, body, length);
  return 0;
}

}  // namespace quiver::fuzz
