// Internal: which file of certificates an https request trusts. libcurl
// has a default compiled in, the bundle's path on the system it was built
// for; the binary wheel carries one built on Debian, whose path does not
// exist on Fedora, RHEL or Alpine, where every https request would then fail
// its certificate check. So the path is chosen here: the caller's, the
// environment's, or the first of the usual system bundles that exists.
// Pure functions: the environment and the file system are passed in.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "quiver/io/s3_location.h"
#include "quiver/status.h"

namespace quiver::io::internal {

struct CaBundle {
  std::string path;    // empty: libcurl's compiled-in default
  std::string origin;  // what named it, for errors: "ca_bundle", "SSL_CERT_FILE", ...
};

// Whether a path names a file that can be read.
using FileReadable = std::function<bool(const std::string&)>;

// The system bundles looked for, in order (Debian and Ubuntu, Fedora and
// RHEL, openSUSE, RHEL's extracted trust store, Alpine and the BSDs).
const std::vector<std::string>& SystemCaBundles();

// In order: `option` (RemoteOptions::ca_bundle); for s3:// objects
// AWS_CA_BUNDLE; SSL_CERT_FILE; CURL_CA_BUNDLE; the first readable
// SystemCaBundles(); else none (libcurl's default). A path named by the
// option or a variable that is not a readable file is Invalid, naming the
// path and where it came from.
Result<CaBundle> ChooseCaBundle(const std::string& option, bool s3, const Environment& env,
                                const FileReadable& readable);

// ChooseCaBundle with the process's environment and file system.
Result<CaBundle> CaBundleFor(const std::string& option, bool s3);

}  // namespace quiver::io::internal
