// Internal: which certificates an https request trusts. libcurl has a
// bundle file compiled in, its path on the system it was built for; the
// binary wheel carries a libcurl built on Debian, whose path does not exist
// on Fedora, RHEL or Alpine, where every https request would then fail its
// certificate check. So the file is chosen here: the caller's, the
// environment's, libcurl's own where it exists, else the first of the
// usual system bundles that exists. Pure functions but CaBundleFor: the
// environment and the file system are passed in.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "quiver/io/s3_location.h"
#include "quiver/status.h"

namespace quiver::io::internal {

struct CaBundle {
  std::string file;       // CURLOPT_CAINFO; empty: libcurl's compiled-in default
  std::string directory;  // CURLOPT_CAPATH; empty: libcurl's compiled-in default
};

// What the file system holds at a path: a file that can be read, a folder.
struct PathKinds {
  std::function<bool(const std::string&)> readable_file;
  std::function<bool(const std::string&)> directory;
};

// The system bundles looked for, in order (Debian and Ubuntu, Fedora and
// RHEL, openSUSE, RHEL's extracted trust store, Alpine and the BSDs).
const std::vector<std::string>& SystemCaBundles();

// The file, in order: `file_option` (RemoteOptions::ca_bundle); for s3://
// objects AWS_CA_BUNDLE; CURL_CA_BUNDLE; SSL_CERT_FILE (curl's own order);
// none where `libcurl_file` (the bundle libcurl was built with; empty if
// unknown) is a readable file; the first readable SystemCaBundles(); none.
// The folder (or colon-separated folders, as OpenSSL reads them):
// `directory_option` (RemoteOptions::ca_directory), else SSL_CERT_DIR where
// CURL_CA_BUNDLE is not set (as the curl command), else none. `strict` (an
// https:// request): a file or folder the option or a variable names that
// is not there is Invalid, naming it and where it came from. Otherwise (a
// plain http:// request, which may still be redirected to https) such a
// name is passed over for the next.
Result<CaBundle> ChooseCaBundle(const std::string& file_option, const std::string& directory_option,
                                bool s3, const Environment& env, const PathKinds& paths,
                                const std::string& libcurl_file, bool strict = true);

// ChooseCaBundle with the process's environment and file system, relative
// paths made absolute (libcurl reads the file again for every new
// connection, maybe after the working folder changed).
Result<CaBundle> CaBundleFor(const std::string& file_option, const std::string& directory_option,
                             bool s3, const std::string& libcurl_file, bool strict = true);

}  // namespace quiver::io::internal
