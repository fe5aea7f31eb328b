// Internal: the remote sources behind io::OpenSource and
// io::ExpandLocations (http://, https://, s3://), built on libcurl where
// the build has it (QUIVER_HAVE_CURL).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "quiver/io.h"

namespace quiver::io::internal {

// `url` as errors show it: without a user and password ("user:pw@") and
// without its query (a presigned URL's signature and credential).
std::string RedactedUrl(const std::string& url);

// Invalid naming the first option out of range (a timeout that is not a
// finite positive number, negative counts or sizes).
Status CheckOptions(const RemoteOptions& options);

// Whether the build has libcurl.
bool RemoteBuilt();

// The object `url` names (http://, https:// or s3://bucket/key).
Result<std::shared_ptr<InputSource>> OpenRemoteSource(const std::string& url,
                                                      const RemoteOptions& options);

// The objects under s3://bucket/prefix/ whose keys end in one of
// `extensions`, sorted, as s3:// URLs.
Result<std::vector<std::string>> ListRemotePrefix(const std::string& url,
                                                  const std::vector<std::string>& extensions,
                                                  const RemoteOptions& options);

}  // namespace quiver::io::internal
