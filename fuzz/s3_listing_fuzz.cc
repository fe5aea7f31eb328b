// Fuzzes the S3 XML reader (src/quiver/io/s3_listing.h): any bytes must
// give a listing page or an error, never a crash or a hang; a page that
// parses, written back out with its text escaped, parses to the same page;
// an error code is a short word or nothing.
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_targets.h"
#include "quiver/io/s3_listing.h"

namespace quiver::fuzz {

namespace {

std::string Escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '&')
      out += "&amp;";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else
      out += c;
  }
  return out;
}

std::string Document(const io::internal::ListPage& page) {
  std::string out = "<ListBucketResult><IsTruncated>";
  out += page.truncated ? "true" : "false";
  out += "</IsTruncated><NextContinuationToken>" + Escaped(page.next_token) +
         "</NextContinuationToken>";
  for (const std::string& key : page.keys)
    out += "<Contents><Key>" + Escaped(key) + "</Key></Contents>";
  return out + "</ListBucketResult>";
}

}  // namespace

int FuzzS3Listing(const uint8_t* data, size_t size) {
  const std::string_view xml(reinterpret_cast<const char*>(data), size);
  const std::string code = io::internal::S3ErrorCode(xml);
  if (code.size() > 64) __builtin_trap();
  for (char c : code) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') {
      __builtin_trap();
    }
  }
  (void)io::internal::XmlUnescape(xml);
  auto page = io::internal::ParseListObjectsV2(xml);
  if (!page.ok()) return 0;
  auto again = io::internal::ParseListObjectsV2(Document(*page));
  if (!again.ok() || again->keys != page->keys || again->truncated != page->truncated ||
      again->next_token != page->next_token) {
    __builtin_trap();
  }
  return 0;
}

}  // namespace quiver::fuzz
