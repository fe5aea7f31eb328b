// Remote sources: http://, https:// and s3:// objects read with range
// requests through libcurl (QUIVER_HAVE_CURL). Opening sends one request,
// for the object's last bytes, which gives its size and (for an IPC file)
// its footer; small reads are widened into read-ahead blocks kept for the
// reads that follow; ReadRanges merges nearby ranges and fetches the
// merged ones in parallel.
#include "quiver/io/remote.h"

#include <cmath>
#include <string>

#ifdef QUIVER_HAVE_CURL

#include <algorithm>
#include <cstdlib>
#include <list>
#include <mutex>
#include <set>
#include <string>
#include <utility>

#include "quiver/internal/fork_local.h"
#include "quiver/io/ca_bundle.h"
#include "quiver/io/curl_library.h"
#include "quiver/io/http_client.h"
#include "quiver/io/range_coalescer.h"
#include "quiver/io/s3_listing.h"
#include "quiver/io/s3_location.h"

namespace quiver::io::internal {

namespace {

// SHA-256 of the empty payload: every request here is a GET without a
// body, and S3 wants the hash in x-amz-content-sha256 (signed with the rest).
constexpr const char* kEmptyPayloadHash =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
// Read-ahead blocks a source keeps (least recently used dropped first).
constexpr size_t kMaxBlocks = 8;
// A ListObjectsV2 page is about 1000 keys; far below this.
constexpr int64_t kMaxListPage = int64_t{64} << 20;

Result<S3Settings> SettingsFromEnvironment() {
  return S3SettingsFrom([](const char* name) { return std::getenv(name); });
}

HttpAuth AuthFor(const S3Settings& settings) {
  HttpAuth auth;
  if (settings.access_key.empty()) return auth;  // unsigned: a public bucket
  auth.aws_sigv4 = "aws:amz:" + settings.region + ":s3";
  auth.user_password = settings.access_key + ":" + settings.secret_key;
  auth.headers.push_back(std::string("x-amz-content-sha256: ") + kEmptyPayloadHash);
  if (!settings.session_token.empty()) {
    auth.headers.push_back("x-amz-security-token: " + settings.session_token);
  }
  return auth;
}

// What to request for a URL the user gave, and how to sign it.
struct Target {
  std::string url;
  HttpAuth auth;
};

Result<Target> TargetOf(const std::string& url) {
  if (!url.starts_with("s3://")) return Target{url, {}};
  QUIVER_ASSIGN_OR_RETURN(S3Settings settings, SettingsFromEnvironment());
  QUIVER_ASSIGN_OR_RETURN(S3Object object, ParseS3Url(url));
  if (object.key.empty() || object.key.ends_with("/")) {
    return Status::Invalid(url, " names a prefix, not an object (s3://bucket/key)");
  }
  return Target{S3ObjectUrl(settings, object), AuthFor(settings)};
}

// Read-ahead blocks by offset, most recently used first.
class BlockCache {
 public:
  // The bytes from a block that holds them all, or null.
  BufferPtr Find(int64_t offset, int64_t length) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = blocks_.begin(); it != blocks_.end(); ++it) {
      if (offset < it->first || offset + length > it->first + it->second->size()) continue;
      auto slice = Buffer::Slice(it->second, offset - it->first, length);
      if (!slice.ok()) return nullptr;
      blocks_.splice(blocks_.begin(), blocks_, it);
      return *slice;
    }
    return nullptr;
  }
  void Insert(int64_t offset, BufferPtr block) {
    std::lock_guard<std::mutex> lock(mutex_);
    blocks_.emplace_front(offset, std::move(block));
    if (blocks_.size() > kMaxBlocks) blocks_.pop_back();
  }

 private:
  std::mutex mutex_;
  std::list<std::pair<int64_t, BufferPtr>> blocks_;
};

class RemoteSource final : public InputSource {
 public:
  RemoteSource(std::string name, Target target, const RemoteOptions& options)
      : name_(std::move(name)),
        url_(std::move(target.url)),
        options_(options),
        client_(name_, options, std::move(target.auth)) {}

  // The one request at open: the last tail_bytes, with the size.
  Status Open() {
    const int64_t tail = std::max<int64_t>(options_.tail_bytes, 1);
    QUIVER_ASSIGN_OR_RETURN(
        HttpResponse response,
        client_.Get({url_, "-" + std::to_string(tail), tail, false}, [&](const HttpResponse& r) {
          return CheckTailResponse(r.head, r.body->size(), tail, &size_, &tail_offset_);
        }));
    tail_ = std::move(response.body);
    return Status::OK();
  }

  int64_t size() const override { return size_; }
  bool zero_copy() const override { return false; }
  std::string name() const override { return "'" + name_ + "'"; }
  IoStats stats() const override { return client_.stats(); }

  Result<BufferPtr> ReadAt(int64_t offset, int64_t length) override {
    QUIVER_RETURN_NOT_OK(CheckRange(offset, length));
    if (BufferPtr held = Held(offset, length)) return held;
    if (length >= options_.readahead_bytes) return client_.GetRange(url_, offset, length, size_);
    // A small read: widened into a block kept for the reads after it.
    const int64_t block_length = std::min(options_.readahead_bytes, size_ - offset);
    QUIVER_ASSIGN_OR_RETURN(BufferPtr block, client_.GetRange(url_, offset, block_length, size_));
    blocks_.Get().Insert(offset, block);
    return Buffer::Slice(std::move(block), 0, length);
  }

  Result<std::vector<BufferPtr>> ReadRanges(const std::vector<ByteRange>& ranges) override {
    for (const ByteRange& r : ranges) QUIVER_RETURN_NOT_OK(CheckRange(r.offset, r.length));
    QUIVER_ASSIGN_OR_RETURN(CoalescedRanges plan, CoalesceRanges(ranges, options_.coalesce_gap));
    std::vector<BufferPtr> fetched(plan.merged.size());
    std::vector<ByteRange> missing;
    std::vector<size_t> missing_index;
    for (size_t i = 0; i < plan.merged.size(); ++i) {
      fetched[i] = Held(plan.merged[i].offset, plan.merged[i].length);
      if (fetched[i]) continue;
      missing.push_back(plan.merged[i]);
      missing_index.push_back(i);
    }
    QUIVER_ASSIGN_OR_RETURN(std::vector<BufferPtr> got, client_.GetRanges(url_, missing, size_));
    for (size_t i = 0; i < got.size(); ++i) fetched[missing_index[i]] = std::move(got[i]);
    return SliceCoalesced(plan, fetched);
  }

 private:
  Status CheckRange(int64_t offset, int64_t length) const {
    if (offset < 0 || length < 0 || offset > size_ || length > size_ - offset) {
      return Status::IOError("read of ", length, " bytes at offset ", offset,
                             " is past the end of ", name(), " (", size_, " bytes)");
    }
    return Status::OK();
  }

  // The bytes from the tail or a read-ahead block, or null.
  BufferPtr Held(int64_t offset, int64_t length) {
    if (length == 0) {
      auto empty = Buffer::Allocate(0);
      return empty.ok() ? *empty : nullptr;
    }
    if (tail_ && offset >= tail_offset_ && offset + length <= tail_offset_ + tail_->size()) {
      auto slice = Buffer::Slice(tail_, offset - tail_offset_, length);
      if (slice.ok()) return *slice;
    }
    return blocks_.Get().Find(offset, length);
  }

  std::string name_;
  std::string url_;
  RemoteOptions options_;
  HttpClient client_;
  int64_t size_ = 0;
  int64_t tail_offset_ = 0;
  BufferPtr tail_;
  quiver::internal::ForkLocal<BlockCache> blocks_;
};

std::string Joined(const std::vector<std::string>& extensions) {
  std::string out;
  for (size_t i = 0; i < extensions.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == extensions.size() ? " or " : ", ") + extensions[i];
  }
  return out;
}

bool Wanted(const std::string& key, const std::vector<std::string>& extensions) {
  if (key.empty() || key.ends_with("/")) return false;  // "folder" markers
  return std::any_of(extensions.begin(), extensions.end(),
                     [&](const std::string& ext) { return key.ends_with(ext); });
}

Result<ListPage> ListPageOf(HttpClient& client, const std::string& url,
                            const std::string& list_url) {
  QUIVER_ASSIGN_OR_RETURN(HttpResponse response, client.Get({list_url, "", kMaxListPage, false},
                                                            [](const HttpResponse& r) {
                                                              return CheckOkResponse(r.head);
                                                            }));
  auto page =
      ParseListObjectsV2(std::string_view(reinterpret_cast<const char*>(response.body->data()),
                                          static_cast<size_t>(response.body->size())));
  if (!page.ok()) return Status::IOError(url, ": listing: ", page.status().message());
  return page;
}

// libcurl opened (on the first remote read), or why not, naming `url`.
Status CurlFor(const std::string& url) {
  auto curl = Curl();
  return curl.ok() ? Status::OK() : curl.status().WithContext(RedactedUrl(url));
}

// The bundle libcurl was built to trust, where this libcurl says (7.70 on).
std::string LibcurlCaFile() {
  auto curl = Curl();
  if (!curl.ok()) return {};
#if LIBCURL_VERSION_NUM >= 0x074600  // 7.70: curl_version_info_data's cainfo
  const curl_version_info_data* info = (*curl)->version_info(CURLVERSION_NOW);
  if (info != nullptr && info->age >= CURLVERSION_SEVENTH && info->cainfo != nullptr) {
    return info->cainfo;
  }
#endif
  return {};
}

// `options` with the certificates that requests to `request_url` (the
// object's or the listing's http(s) URL; `url` is the user's) trust chosen
// once (ca_bundle.h), rather than looked up again for every request. A
// plain http URL gets them too, for a redirect to https, but a stale path
// does not stop it.
Result<RemoteOptions> WithCaBundle(const std::string& url, const std::string& request_url,
                                   RemoteOptions options) {
  auto bundle = CaBundleFor(options.ca_bundle, options.ca_directory, url.starts_with("s3://"),
                            LibcurlCaFile(), request_url.starts_with("https://"));
  if (!bundle.ok()) return bundle.status().WithContext(RedactedUrl(url));
  options.ca_bundle = bundle->file;
  options.ca_directory = bundle->directory;
  return options;
}

}  // namespace

bool RemoteBuilt() { return true; }

Result<std::shared_ptr<InputSource>> OpenRemoteSource(const std::string& url,
                                                      const RemoteOptions& given) {
  QUIVER_RETURN_NOT_OK(CheckOptions(given));
  QUIVER_RETURN_NOT_OK(CurlFor(url));
  QUIVER_ASSIGN_OR_RETURN(Target target, TargetOf(url));
  QUIVER_ASSIGN_OR_RETURN(const RemoteOptions options, WithCaBundle(url, target.url, given));
  auto source = std::make_shared<RemoteSource>(RedactedUrl(url), std::move(target), options);
  QUIVER_RETURN_NOT_OK(source->Open());
  return std::shared_ptr<InputSource>(std::move(source));
}

Result<std::vector<std::string>> ListRemotePrefix(const std::string& url,
                                                  const std::vector<std::string>& extensions,
                                                  const RemoteOptions& given) {
  QUIVER_RETURN_NOT_OK(CheckOptions(given));
  QUIVER_RETURN_NOT_OK(CurlFor(url));
  QUIVER_ASSIGN_OR_RETURN(S3Settings settings, SettingsFromEnvironment());
  QUIVER_ASSIGN_OR_RETURN(const RemoteOptions options,
                          WithCaBundle(url, settings.endpoint + "/", given));
  QUIVER_ASSIGN_OR_RETURN(S3Object prefix, ParseS3Url(url));
  HttpClient client(url, options, AuthFor(settings));
  std::vector<std::string> found;
  std::string token;
  std::set<std::string> seen;  // tokens already followed
  while (true) {
    QUIVER_ASSIGN_OR_RETURN(
        ListPage page,
        ListPageOf(client, url, S3ListUrl(settings, prefix.bucket, prefix.key, token)));
    for (const std::string& key : page.keys) {
      if (Wanted(key, extensions)) found.push_back("s3://" + prefix.bucket + "/" + key);
    }
    if (!page.truncated) break;
    // A token that does not move on would loop forever.
    if (page.next_token.empty() || !seen.insert(page.next_token).second) {
      return Status::IOError(url, ": the listing is truncated but gives no new continuation token");
    }
    token = std::move(page.next_token);
  }
  if (found.empty()) {
    return Status::Invalid("the prefix ", url, " holds no ", Joined(extensions), " objects");
  }
  std::sort(found.begin(), found.end());
  return found;
}

}  // namespace quiver::io::internal

#else  // no libcurl: OpenSource refuses URLs before it gets here (location.cc)

namespace quiver::io::internal {

bool RemoteBuilt() { return false; }

Result<std::shared_ptr<InputSource>> OpenRemoteSource(const std::string& url,
                                                      const RemoteOptions&) {
  return Status::NotImplemented(url, ": this build of quiver has no remote sources (no libcurl)");
}

Result<std::vector<std::string>> ListRemotePrefix(const std::string& url,
                                                  const std::vector<std::string>&,
                                                  const RemoteOptions&) {
  return Status::NotImplemented(url, ": this build of quiver has no remote sources (no libcurl)");
}

}  // namespace quiver::io::internal

#endif  // QUIVER_HAVE_CURL

// What follows holds with or without libcurl.
namespace quiver::io::internal {

std::string RedactedUrl(const std::string& url) {
  std::string out = url;
  const size_t scheme = out.find("://");
  const size_t start = scheme == std::string::npos ? 0 : scheme + 3;
  const size_t path = out.find_first_of("/?#", start);
  const size_t at = out.rfind('@', path == std::string::npos ? out.size() : path);
  if (at != std::string::npos && at >= start) out.replace(start, at + 1 - start, "...@");
  const size_t query = out.find('?');
  if (query != std::string::npos) out.replace(query, std::string::npos, "?...");
  return out;
}

Status CheckOptions(const RemoteOptions& options) {
  const auto finite_positive = [](double v) { return std::isfinite(v) && v > 0; };
  if (!finite_positive(options.timeout_seconds)) {
    return Status::Invalid("timeout_seconds must be a finite number above 0, not ",
                           options.timeout_seconds);
  }
  if (!std::isfinite(options.retry_delay_seconds) || options.retry_delay_seconds < 0) {
    return Status::Invalid("retry_delay_seconds must be a finite number >= 0, not ",
                           options.retry_delay_seconds);
  }
  if (options.max_retries < 0) {
    return Status::Invalid("max_retries must be >= 0, not ", options.max_retries);
  }
  if (options.parallel_requests < 1) {
    return Status::Invalid("parallel_requests must be >= 1, not ", options.parallel_requests);
  }
  if (options.coalesce_gap < 0 || options.readahead_bytes < 0 || options.tail_bytes < 0) {
    return Status::Invalid("coalesce_gap, readahead_bytes and tail_bytes must be >= 0");
  }
  return Status::OK();
}

}  // namespace quiver::io::internal
