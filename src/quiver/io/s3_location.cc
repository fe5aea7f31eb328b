// s3:// URLs to HTTP URLs, and the S3 settings of the environment.
#include "quiver/io/s3_location.h"

namespace quiver::io::internal {

namespace {

std::string Get(const Environment& env, const char* name) {
  const char* value = env(name);
  return value == nullptr ? std::string() : std::string(value);
}

std::string FirstSet(const Environment& env, const char* a, const char* b) {
  std::string value = Get(env, a);
  return value.empty() ? Get(env, b) : value;
}

Result<S3Settings::Addressing> AddressingFrom(const std::string& value) {
  if (value.empty()) return S3Settings::Addressing::kAuto;
  if (value == "path") return S3Settings::Addressing::kPath;
  if (value == "virtual") return S3Settings::Addressing::kVirtual;
  return Status::Invalid("QUIVER_S3_ADDRESSING is '", value, "': path or virtual");
}

// "scheme://" and the host (with its port) of an endpoint.
void SplitEndpoint(const std::string& endpoint, std::string* scheme, std::string* host) {
  const size_t colon = endpoint.find("://");
  *scheme = endpoint.substr(0, colon + 3);
  *host = endpoint.substr(colon + 3);
}

// The URL that reaches `bucket`'s root, ending in '/'.
std::string BucketBase(const S3Settings& settings, std::string_view bucket) {
  if (UsesPathStyle(settings, bucket)) {
    return settings.endpoint + "/" + UriEncode(bucket, false) + "/";
  }
  if (!settings.custom_endpoint) {
    return "https://" + std::string(bucket) + ".s3." + settings.region + ".amazonaws.com/";
  }
  std::string scheme, host;
  SplitEndpoint(settings.endpoint, &scheme, &host);
  return scheme + std::string(bucket) + "." + host + "/";
}

}  // namespace

Result<S3Settings> S3SettingsFrom(const Environment& env) {
  S3Settings settings;
  settings.region = FirstSet(env, "AWS_REGION", "AWS_DEFAULT_REGION");
  if (settings.region.empty()) settings.region = "us-east-1";
  settings.endpoint = FirstSet(env, "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL");
  settings.custom_endpoint = !settings.endpoint.empty();
  if (!settings.custom_endpoint) {
    settings.endpoint = "https://s3." + settings.region + ".amazonaws.com";
  }
  while (settings.endpoint.ends_with("/")) settings.endpoint.pop_back();
  const std::string& endpoint = settings.endpoint;
  const size_t scheme_end = endpoint.find("://");
  if ((!endpoint.starts_with("http://") && !endpoint.starts_with("https://")) ||
      endpoint.size() == scheme_end + 3 ||
      endpoint.find('/', scheme_end + 3) != std::string::npos) {
    return Status::Invalid(
        "the S3 endpoint '", endpoint,
        "' (AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL) is not http(s)://host[:port]");
  }
  settings.access_key = Get(env, "AWS_ACCESS_KEY_ID");
  settings.secret_key = Get(env, "AWS_SECRET_ACCESS_KEY");
  settings.session_token = Get(env, "AWS_SESSION_TOKEN");
  if (settings.access_key.empty() != settings.secret_key.empty()) {
    return Status::Invalid(
        "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set together (one of them is empty)");
  }
  QUIVER_ASSIGN_OR_RETURN(settings.addressing, AddressingFrom(Get(env, "QUIVER_S3_ADDRESSING")));
  return settings;
}

Result<S3Object> ParseS3Url(std::string_view url) {
  if (!url.starts_with("s3://")) return Status::Invalid("'", std::string(url), "' is no s3:// URL");
  std::string_view rest = url.substr(5);
  const size_t slash = rest.find('/');
  S3Object object;
  object.bucket = std::string(rest.substr(0, slash));
  if (slash != std::string_view::npos) object.key = std::string(rest.substr(slash + 1));
  if (object.bucket.empty()) {
    return Status::Invalid("'", std::string(url), "' names no bucket (s3://bucket/key)");
  }
  return object;
}

std::string UriEncode(std::string_view text, bool keep_slash) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    const bool unreserved = (byte >= 'A' && byte <= 'Z') || (byte >= 'a' && byte <= 'z') ||
                            (byte >= '0' && byte <= '9') || byte == '-' || byte == '_' ||
                            byte == '.' || byte == '~' || (keep_slash && byte == '/');
    if (unreserved) {
      out += c;
    } else {
      out += '%';
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
    }
  }
  return out;
}

bool UsesPathStyle(const S3Settings& settings, std::string_view bucket) {
  switch (settings.addressing) {
    case S3Settings::Addressing::kPath: return true;
    case S3Settings::Addressing::kVirtual: return false;
    case S3Settings::Addressing::kAuto: break;
  }
  return settings.custom_endpoint || bucket.find('.') != std::string_view::npos;
}

std::string S3ObjectUrl(const S3Settings& settings, const S3Object& object) {
  return BucketBase(settings, object.bucket) + UriEncode(object.key, true);
}

std::string S3ListUrl(const S3Settings& settings, const std::string& bucket,
                      const std::string& prefix, const std::string& continuation_token) {
  // Sorted by name: continuation-token < list-type < prefix.
  std::string query;
  if (!continuation_token.empty()) {
    query += "continuation-token=" + UriEncode(continuation_token, false) + "&";
  }
  query += "list-type=2&prefix=" + UriEncode(prefix, false);
  return BucketBase(settings, bucket) + "?" + query;
}

}  // namespace quiver::io::internal
