// HTTP GETs through libcurl: one easy handle per transfer, taken from a
// pool kept per object and per process, all sharing one connection cache;
// retries with exponential backoff; parallel range requests on threads of
// their own (each blocked in the network, not in the CPU pool).
#include "quiver/io/http_client.h"

#ifdef QUIVER_HAVE_CURL

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <mutex>
#include <system_error>
#include <thread>

#include "quiver/io/curl_library.h"
#include "quiver/io/s3_listing.h"

namespace quiver::io::internal {

namespace {

// Error bodies (S3's XML) are kept up to this size, for their <Code>.
constexpr int64_t kMaxErrorBody = int64_t{64} << 10;

// libcurl where it is known to be loaded: by HttpClient::Perform, which
// returns Curl()'s error before anything here runs.
const CurlLibrary& Loaded() { return **Curl(); }

// Failures of the transport worth another try: the server went away,
// stalled or cut the body short.
bool Retryable(CURLcode code) {
  switch (code) {
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM: return true;
    default: return false;
  }
}

// Where a response's bytes go: a buffer of the expected size (range
// reads), or a string (tails, listings, error bodies).
struct Body {
  ResponseHeadParser head;
  BufferPtr buffer;  // preallocated for an exact-length 2xx body
  int64_t filled = 0;
  std::string text;
  int64_t limit = 0;
  bool too_long = false;

  bool success() const { return head.head().status >= 200 && head.head().status < 300; }
  size_t Write(const char* data, size_t size) {
    const auto n = static_cast<int64_t>(size);
    if (success() && buffer) {
      if (filled + n > buffer->size()) return Overflow();
      std::memcpy(buffer->mutable_data() + filled, data, size);
      filled += n;
      return size;
    }
    // One byte past the limit is kept, so that a check sees the body was
    // longer than allowed.
    const int64_t limit_now = success() ? limit : kMaxErrorBody;
    const int64_t room = limit_now + 1 - static_cast<int64_t>(text.size());
    text.append(data, static_cast<size_t>(std::min(n, room)));
    return n <= room - 1 ? size : Overflow();
  }
  size_t Overflow() {
    too_long = true;
    return 0;  // libcurl stops the transfer: CURLE_WRITE_ERROR
  }
};

size_t OnHeader(char* data, size_t size, size_t count, void* user) {
  static_cast<Body*>(user)->head.Feed(std::string_view(data, size * count));
  return size * count;
}

size_t OnBody(char* data, size_t size, size_t count, void* user) {
  return static_cast<Body*>(user)->Write(data, size * count);
}

// libcurl's share lock callbacks: one mutex per kind of shared data.
struct ShareLocks {
  std::mutex locks[CURL_LOCK_DATA_LAST];
};
void Lock(CURL*, curl_lock_data data, curl_lock_access, void* user) {
  static_cast<ShareLocks*>(user)->locks[data].lock();
}
void Unlock(CURL*, curl_lock_data data, void* user) {
  static_cast<ShareLocks*>(user)->locks[data].unlock();
}

Result<BufferPtr> BufferOf(const std::string& text) {
  QUIVER_ASSIGN_OR_RETURN(BufferPtr out,
                          Buffer::AllocateUninitialized(static_cast<int64_t>(text.size())));
  if (!text.empty()) std::memcpy(out->mutable_data(), text.data(), text.size());
  return out;
}

}  // namespace

// This process's easy handles and the connection cache they share, one set
// for every client: a dataset of many remote objects keeps at most
// kMaxCachedConnections connections open, not a few per object (hundreds of
// objects would otherwise run out of file descriptors).
struct HttpClient::Handles {
  Handles() {
    const CurlLibrary& curl = Loaded();
    share = curl.share_init();
    curl.share_setopt(share, CURLSHOPT_LOCKFUNC, &Lock);
    curl.share_setopt(share, CURLSHOPT_UNLOCKFUNC, &Unlock);
    curl.share_setopt(share, CURLSHOPT_USERDATA, &locks);
    curl.share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
    curl.share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
    curl.share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
  }
  ~Handles() {
    const CurlLibrary& curl = Loaded();
    for (CURL* easy : idle) curl.easy_cleanup(easy);
    curl.share_cleanup(share);
  }
  ShareLocks locks;
  CURLSH* share = nullptr;
  std::mutex mutex;
  std::vector<CURL*> idle;
};

struct HttpClient::HeaderList {
  curl_slist* list = nullptr;
  ~HeaderList() {
    if (list != nullptr) Loaded().slist_free_all(list);
  }
};

struct HttpClient::Attempt {
  Verdict verdict;  // of the transport; OK when a response came
  HttpResponse response;
};

HttpClient::HttpClient(std::string name, RemoteOptions options, HttpAuth auth)
    : name_(std::move(name)),
      options_(options),
      auth_(std::move(auth)),
      header_list_(std::make_unique<HeaderList>()) {
  // Without libcurl the client is made all the same; each request then
  // fails with Curl()'s error, saying how to get it.
  auto curl = Curl();
  if (!curl.ok()) return;
  for (const std::string& header : auth_.headers) {
    header_list_->list = (*curl)->slist_append(header_list_->list, header.c_str());
  }
}

HttpClient::~HttpClient() = default;

namespace {

// Idle connections kept for reuse, over all remote objects of the process.
constexpr long kMaxCachedConnections = 32;

}  // namespace

// Made once and never destroyed: clients may still be in use while static
// objects are destroyed at exit, and curl_share_cleanup fails while a
// handle uses the share.
quiver::internal::ForkLocal<HttpClient::Handles>& HttpClient::ProcessHandles() {
  static auto* handles = new quiver::internal::ForkLocal<Handles>();
  return *handles;
}

void* HttpClient::Acquire(Handles** handles) {
  Handles& current = ProcessHandles().Get();
  *handles = &current;
  {
    std::lock_guard<std::mutex> lock(current.mutex);
    if (!current.idle.empty()) {
      CURL* easy = current.idle.back();
      current.idle.pop_back();
      return easy;
    }
  }
  return Loaded().easy_init();
}

void HttpClient::Release(Handles* handles, void* easy) {
  // A handle from before a fork stays with the parent's pool: leaked.
  if (!ProcessHandles().Current(*handles)) return;
  std::lock_guard<std::mutex> lock(handles->mutex);
  handles->idle.push_back(static_cast<CURL*>(easy));
}

void HttpClient::Backoff(int attempt) const {
  const double seconds =
      std::min(options_.retry_delay_seconds * std::ldexp(1.0, attempt - 1), 30.0);
  if (seconds > 0) std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

HttpClient::Attempt HttpClient::Perform(const Request& request) {
  Attempt attempt;
  auto loaded = Curl();
  if (!loaded.ok()) {
    attempt.verdict = {loaded.status(), false};
    return attempt;
  }
  const CurlLibrary& curl = **loaded;
  Handles* handles = nullptr;
  CURL* easy = static_cast<CURL*>(Acquire(&handles));
  if (easy == nullptr) {
    attempt.verdict = {Status::OutOfMemory("curl_easy_init failed"), false};
    return attempt;
  }
  Body body;
  body.limit = request.max_body;
  // A range read fills a buffer of its size; an open range ("-N") and a
  // plain GET fill a string.
  if (request.exact) {
    auto buffer = Buffer::AllocateUninitialized(request.max_body);
    if (!buffer.ok()) {
      Release(handles, easy);
      attempt.verdict = {buffer.status(), false};
      return attempt;
    }
    body.buffer = *buffer;
  }
  char error[CURL_ERROR_SIZE] = {0};
  curl.easy_reset(easy);
  const auto timeout_ms = static_cast<long>(std::max(options_.timeout_seconds, 0.001) * 1000);
  curl.easy_setopt(easy, CURLOPT_URL, request.url.c_str());
  curl.easy_setopt(easy, CURLOPT_SHARE, handles->share);
  curl.easy_setopt(easy, CURLOPT_MAXCONNECTS, kMaxCachedConnections);
  curl.easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl.easy_setopt(easy, CURLOPT_ERRORBUFFER, error);
  curl.easy_setopt(easy, CURLOPT_HEADERFUNCTION, &OnHeader);
  curl.easy_setopt(easy, CURLOPT_HEADERDATA, &body);
  curl.easy_setopt(easy, CURLOPT_WRITEFUNCTION, &OnBody);
  curl.easy_setopt(easy, CURLOPT_WRITEDATA, &body);
  curl.easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
  // A transfer slower than 1 KiB/s for timeout_seconds (whole seconds, at
  // least one: libcurl's granularity) is cut off: a server that stalls,
  // and one that drips a few bytes a second to keep the request alive.
  curl.easy_setopt(easy, CURLOPT_LOW_SPEED_LIMIT, 1024L);
  curl.easy_setopt(easy, CURLOPT_LOW_SPEED_TIME,
                   std::max(1L, static_cast<long>(std::ceil(options_.timeout_seconds))));
  curl.easy_setopt(easy, CURLOPT_TCP_KEEPALIVE, 1L);
  curl.easy_setopt(easy, CURLOPT_BUFFERSIZE, 256L << 10);
  curl.easy_setopt(easy, CURLOPT_PATH_AS_IS, 1L);  // S3 keys may hold "..": sent as they are
  curl.easy_setopt(easy, CURLOPT_USERAGENT, "quiver");
  if (!options_.ca_bundle.empty()) {
    curl.easy_setopt(easy, CURLOPT_CAINFO, options_.ca_bundle.c_str());
  }
  if (!options_.ca_directory.empty()) {
    curl.easy_setopt(easy, CURLOPT_CAPATH, options_.ca_directory.c_str());
  }
#if LIBCURL_VERSION_NUM >= 0x075500
  curl.easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
  curl.easy_setopt(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
#else
  curl.easy_setopt(easy, CURLOPT_PROTOCOLS, CURLPROTO_HTTP | CURLPROTO_HTTPS);
  curl.easy_setopt(easy, CURLOPT_REDIR_PROTOCOLS, CURLPROTO_HTTP | CURLPROTO_HTTPS);
#endif
  if (!request.range.empty()) curl.easy_setopt(easy, CURLOPT_RANGE, request.range.c_str());
  if (header_list_->list != nullptr) curl.easy_setopt(easy, CURLOPT_HTTPHEADER, header_list_->list);
  if (auth_.aws_sigv4.empty()) {
    // Plain HTTP(S) objects may redirect (a CDN); signed S3 requests do not.
    curl.easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 1L);
    curl.easy_setopt(easy, CURLOPT_MAXREDIRS, 5L);
  } else {
    curl.easy_setopt(easy, CURLOPT_AWS_SIGV4, auth_.aws_sigv4.c_str());
    curl.easy_setopt(easy, CURLOPT_USERPWD, auth_.user_password.c_str());
  }
  const CURLcode code = curl.easy_perform(easy);
  // The error buffer lives on this stack frame: detach it before the
  // handle goes back to the pool.
  curl.easy_setopt(easy, CURLOPT_ERRORBUFFER, nullptr);
  Release(handles, easy);

  requests_.fetch_add(1, std::memory_order_relaxed);
  bytes_fetched_.fetch_add(
      body.buffer && body.success() ? body.filled : static_cast<int64_t>(body.text.size()),
      std::memory_order_relaxed);
  attempt.response.head = body.head.head();
  const bool got_response = attempt.response.head.status != 0;
  if (body.too_long && body.success() && body.buffer) {
    attempt.verdict = {Status::IOError("the server sent more bytes than were asked for"), true};
    return attempt;
  }
  if (code != CURLE_OK && !(code == CURLE_WRITE_ERROR && body.too_long && got_response)) {
    attempt.verdict = {
        Status::IOError(curl.easy_strerror(code), error[0] != 0 ? std::string(": ") + error : ""),
        Retryable(code)};
    return attempt;
  }
  if (body.buffer && body.success()) {
    auto slice = Buffer::Slice(body.buffer, 0, body.filled);
    attempt.response.body = slice.ok() ? *slice : body.buffer;
  } else {
    auto copy = BufferOf(body.text);
    if (!copy.ok()) {
      attempt.verdict = {copy.status(), false};
      return attempt;
    }
    attempt.response.body = *copy;
  }
  attempt.verdict = Verdict::Ok();
  return attempt;
}

Result<HttpResponse> HttpClient::Get(const Request& request, const Check& check) {
  Verdict last;
  for (int attempt = 0; attempt <= std::max(options_.max_retries, 0); ++attempt) {
    if (attempt > 0) {
      retries_.fetch_add(1, std::memory_order_relaxed);
      Backoff(attempt);
    }
    Attempt result = Perform(request);
    last = result.verdict.status.ok() ? check(result.response) : std::move(result.verdict);
    if (last.status.ok()) return std::move(result.response);
    if (result.response.head.status >= 400 && result.response.body) {
      // S3 says why in its XML error body: <Code>NoSuchKey</Code>.
      const std::string code =
          S3ErrorCode(std::string_view(reinterpret_cast<const char*>(result.response.body->data()),
                                       static_cast<size_t>(result.response.body->size())));
      if (!code.empty()) last.status = Status::IOError(last.status.message(), " (", code, ")");
    }
    if (!last.retry) break;
  }
  if (!last.retry || options_.max_retries <= 0) {
    return Status::IOError(name_, ": ", last.status.message());
  }
  return Status::IOError(name_, ": ", last.status.message(), " (after ", options_.max_retries,
                         " retries)");
}

Result<BufferPtr> HttpClient::GetRange(const std::string& url, int64_t offset, int64_t length,
                                       int64_t size) {
  const std::string range = std::to_string(offset) + "-" + std::to_string(offset + length - 1);
  QUIVER_ASSIGN_OR_RETURN(HttpResponse response,
                          Get({url, range, length, true}, [&](const HttpResponse& r) {
                            return CheckRangeResponse(r.head, r.body->size(), offset, length, size);
                          }));
  return std::move(response.body);
}

Result<std::vector<BufferPtr>> HttpClient::GetRanges(const std::string& url,
                                                     const std::vector<ByteRange>& ranges,
                                                     int64_t size) {
  std::vector<BufferPtr> out(ranges.size());
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex failure_mutex;
  Status failure;
  auto work = [&] {
    for (size_t i = next++; i < ranges.size() && !failed.load(); i = next++) {
      auto got = GetRange(url, ranges[i].offset, ranges[i].length, size);
      if (got.ok()) {
        out[i] = std::move(*got);
        continue;
      }
      std::lock_guard<std::mutex> lock(failure_mutex);
      if (!failed.exchange(true)) failure = got.status();
    }
  };
  const size_t threads =
      std::min(ranges.size(), static_cast<size_t>(std::max(options_.parallel_requests, 1)));
  std::vector<std::thread> helpers;
  for (size_t t = 1; t < threads; ++t) {
    try {
      helpers.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // no more threads: those running (and this one) do the rest
    }
  }
  work();
  for (std::thread& helper : helpers) helper.join();
  if (failed.load()) return failure;
  return out;
}

IoStats HttpClient::stats() const {
  return {requests_.load(std::memory_order_relaxed), bytes_fetched_.load(std::memory_order_relaxed),
          retries_.load(std::memory_order_relaxed)};
}

}  // namespace quiver::io::internal

#endif  // QUIVER_HAVE_CURL
