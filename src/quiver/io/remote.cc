// Remote sources: http://, https:// and s3:// objects read with range
// requests through libcurl (QUIVER_HAVE_CURL).
#include "quiver/io/remote.h"

namespace quiver::io::internal {

bool RemoteBuilt() { return false; }

Result<std::shared_ptr<InputSource>> OpenRemoteSource(const std::string& url,
                                                      const RemoteOptions&) {
  return Status::NotImplemented(url, ": remote sources are not built");
}

Result<std::vector<std::string>> ListRemotePrefix(const std::string& url,
                                                  const std::vector<std::string>&,
                                                  const RemoteOptions&) {
  return Status::NotImplemented(url, ": remote sources are not built");
}

}  // namespace quiver::io::internal
