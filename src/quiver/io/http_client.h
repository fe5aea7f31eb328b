// Internal: HTTP GETs through libcurl (built only with QUIVER_HAVE_CURL),
// for one remote object: its connections are kept and reused, failed
// requests are retried as RemoteOptions say, and every request and byte is
// counted (IoStats).
#pragma once

#ifdef QUIVER_HAVE_CURL

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "quiver/buffer.h"
#include "quiver/internal/fork_local.h"
#include "quiver/io.h"
#include "quiver/io/http_response.h"

namespace quiver::io::internal {

// How requests are signed: AWS Signature V4 by libcurl where `aws_sigv4`
// ("aws:amz:REGION:s3") is set; plus headers sent with every request.
struct HttpAuth {
  std::string aws_sigv4;
  std::string user_password;  // "KEY:SECRET" for Signature V4
  std::vector<std::string> headers;
};

struct HttpResponse {
  ResponseHead head;
  BufferPtr body;
};

class HttpClient {
 public:
  // `name` starts every error message (the URL the user gave).
  HttpClient(std::string name, RemoteOptions options, HttpAuth auth);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // What a response must pass; a failed verdict that says retry is retried.
  using Check = std::function<Verdict(const HttpResponse&)>;
  // A GET of `url` with "Range: bytes=RANGE" where `range` is set. The body
  // is kept up to `max_body` bytes (a longer one fails); `exact`: it should
  // have that many (a range read), and goes straight into a buffer.
  struct Request {
    std::string url;
    std::string range;
    int64_t max_body = 0;
    bool exact = false;
  };
  Result<HttpResponse> Get(const Request& request, const Check& check);
  // Bytes [offset, offset + length) of an object of `size` bytes.
  Result<BufferPtr> GetRange(const std::string& url, int64_t offset, int64_t length, int64_t size);
  // Several ranges, up to parallel_requests at once, in the order given.
  Result<std::vector<BufferPtr>> GetRanges(const std::string& url,
                                           const std::vector<ByteRange>& ranges, int64_t size);

  IoStats stats() const;

 private:
  struct Handles;
  static quiver::internal::ForkLocal<Handles>& ProcessHandles();
  struct Attempt;
  Attempt Perform(const Request& request);
  void* Acquire(Handles** handles);
  void Release(Handles* handles, void* easy);
  void Backoff(int attempt) const;

  std::string name_;
  RemoteOptions options_;
  HttpAuth auth_;
  struct HeaderList;
  std::unique_ptr<HeaderList> header_list_;
  std::atomic<int64_t> requests_{0};
  std::atomic<int64_t> bytes_fetched_{0};
  std::atomic<int64_t> retries_{0};
};

}  // namespace quiver::io::internal

#endif  // QUIVER_HAVE_CURL
