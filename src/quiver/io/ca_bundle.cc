// The certificates https requests trust: see ca_bundle.h.
#include "quiver/io/ca_bundle.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <vector>

namespace quiver::io::internal {

const std::vector<std::string>& SystemCaBundles() {
  static const std::vector<std::string> paths = {
      "/etc/ssl/certs/ca-certificates.crt",
      "/etc/pki/tls/certs/ca-bundle.crt",
      "/etc/ssl/ca-bundle.pem",
      "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
      "/etc/ssl/cert.pem",
  };
  return paths;
}

Result<CaBundle> ChooseCaBundle(const std::string& option, bool s3, const Environment& env,
                                const FileReadable& readable) {
  auto named = [&](const std::string& path, const std::string& origin) -> Result<CaBundle> {
    if (!readable(path)) {
      return Status::Invalid("the CA bundle '", path, "' (from ", origin,
                             ") is not a file that can be read");
    }
    return CaBundle{path, origin};
  };
  if (!option.empty()) return named(option, "ca_bundle");
  std::vector<const char*> variables;
  if (s3) variables.push_back("AWS_CA_BUNDLE");
  variables.push_back("SSL_CERT_FILE");
  variables.push_back("CURL_CA_BUNDLE");
  for (const char* variable : variables) {
    const char* value = env(variable);
    if (value != nullptr && value[0] != '\0') return named(value, variable);
  }
  for (const std::string& path : SystemCaBundles()) {
    if (readable(path)) return CaBundle{path, "the system"};
  }
  return CaBundle{};
}

Result<CaBundle> CaBundleFor(const std::string& option, bool s3) {
  return ChooseCaBundle(
      option, s3, [](const char* name) { return std::getenv(name); },
      [](const std::string& path) {
        struct stat info {};
        return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
               access(path.c_str(), R_OK) == 0;
      });
}

}  // namespace quiver::io::internal
