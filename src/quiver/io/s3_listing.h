// Internal: the XML S3 answers with, read by a small parser of its own:
// ListObjectsV2 pages (keys, truncation, continuation token) and the <Code>
// of an error body. Pure functions over untrusted text (fuzzed:
// fuzz/s3_listing_fuzz.cc).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "quiver/status.h"

namespace quiver::io::internal {

struct ListPage {
  std::vector<std::string> keys;  // <Contents><Key>, entities unescaped
  bool truncated = false;         // <IsTruncated>true</IsTruncated>
  std::string next_token;         // <NextContinuationToken>
};

// A <ListBucketResult> document; Invalid for malformed XML (unbalanced or
// mismatched tags, an unknown entity, nesting deeper than 32).
Result<ListPage> ParseListObjectsV2(std::string_view xml);

// The <Code> of an S3 <Error> body ("NoSuchKey", "SignatureDoesNotMatch"),
// or empty where the body is not one.
std::string S3ErrorCode(std::string_view xml);

// Text with &amp; &lt; &gt; &quot; &apos; &#N; &#xH; replaced (code points
// as UTF-8); Invalid for anything else after '&'.
Result<std::string> XmlUnescape(std::string_view text);

}  // namespace quiver::io::internal
