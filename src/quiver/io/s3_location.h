// Internal: where an s3://bucket/key object lives over HTTP, and the
// settings (region, endpoint, credentials, addressing) the environment
// gives. Pure functions: the environment is passed in.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "quiver/status.h"

namespace quiver::io::internal {

struct S3Settings {
  std::string region;    // AWS_REGION, AWS_DEFAULT_REGION, else us-east-1
  std::string endpoint;  // "scheme://host[:port]", no trailing slash
  bool custom_endpoint = false;
  std::string access_key;  // empty: unsigned requests (public buckets)
  std::string secret_key;
  std::string session_token;
  enum class Addressing { kAuto, kPath, kVirtual } addressing = Addressing::kAuto;
};

// getenv's shape: the value of a variable, or nullptr when it is unset.
using Environment = std::function<const char*(const char*)>;

// Settings from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN,
// AWS_REGION / AWS_DEFAULT_REGION, AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL and
// QUIVER_S3_ADDRESSING (path or virtual). Invalid for an addressing or an
// endpoint that is not an http(s):// URL, or a key without its secret.
Result<S3Settings> S3SettingsFrom(const Environment& env);

struct S3Object {
  std::string bucket;
  std::string key;  // as written in the URL; empty or ending in '/' for a prefix
};

// s3://bucket/key; Invalid without a bucket.
Result<S3Object> ParseS3Url(std::string_view url);

// RFC 3986 percent-encoding as AWS Signature V4 wants it: everything but
// A-Z a-z 0-9 - _ . ~ (and '/' where `keep_slash`) as %XX, upper-case hex.
std::string UriEncode(std::string_view text, bool keep_slash);

// Path style (ENDPOINT/bucket/key) for a custom endpoint or a bucket name
// with dots (its certificate would not match), else virtual-host style
// (https://bucket.s3.REGION.amazonaws.com/key); QUIVER_S3_ADDRESSING wins.
bool UsesPathStyle(const S3Settings& settings, std::string_view bucket);

// The object's HTTP URL, its key encoded segment by segment.
std::string S3ObjectUrl(const S3Settings& settings, const S3Object& object);

// A ListObjectsV2 page: the query parameters encoded and sorted by name,
// as Signature V4 signs them.
std::string S3ListUrl(const S3Settings& settings, const std::string& bucket,
                      const std::string& prefix, const std::string& continuation_token);

}  // namespace quiver::io::internal
