// The certificates https requests trust: see ca_bundle.h.
#include "quiver/io/ca_bundle.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <utility>
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

namespace {

// The first of `variables` that is set and not empty: its value and name.
std::pair<std::string, std::string> FirstSet(const Environment& env,
                                             const std::vector<const char*>& variables) {
  for (const char* variable : variables) {
    const char* value = env(variable);
    if (value != nullptr && value[0] != '\0') return {value, variable};
  }
  return {};
}

Status NotThere(const std::string& what, const std::string& path, const std::string& origin) {
  return Status::Invalid("the CA ", what, " '", path, "' (from ", origin, ") is not a ",
                         what == "bundle" ? "file that can be read" : "folder");
}

}  // namespace

Result<CaBundle> ChooseCaBundle(const std::string& file_option, const std::string& directory_option,
                                bool s3, const Environment& env, const PathKinds& paths,
                                const std::string& libcurl_file) {
  CaBundle out;
  std::vector<const char*> file_variables;
  if (s3) file_variables.push_back("AWS_CA_BUNDLE");
  file_variables.push_back("CURL_CA_BUNDLE");
  file_variables.push_back("SSL_CERT_FILE");
  using Named = std::pair<std::string, std::string>;  // a path and what named it
  auto [file, file_origin] =
      file_option.empty() ? FirstSet(env, file_variables) : Named(file_option, "ca_bundle");
  if (!file.empty()) {
    if (!paths.readable_file(file)) return NotThere("bundle", file, file_origin);
    out.file = file;
  } else if (libcurl_file.empty() || !paths.readable_file(libcurl_file)) {
    for (const std::string& path : SystemCaBundles()) {
      if (paths.readable_file(path)) {
        out.file = path;
        break;
      }
    }
  }
  auto [directory, directory_origin] = directory_option.empty()
                                           ? FirstSet(env, {"SSL_CERT_DIR"})
                                           : Named(directory_option, "ca_directory");
  if (!directory.empty()) {
    if (!paths.directory(directory)) return NotThere("directory", directory, directory_origin);
    out.directory = directory;
  }
  return out;
}

Result<CaBundle> CaBundleFor(const std::string& file_option, const std::string& directory_option,
                             bool s3, const std::string& libcurl_file) {
  PathKinds paths;
  paths.readable_file = [](const std::string& path) {
    struct stat info {};
    return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
           access(path.c_str(), R_OK) == 0;
  };
  paths.directory = [](const std::string& path) {
    struct stat info {};
    return stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
  };
  QUIVER_ASSIGN_OR_RETURN(
      CaBundle out, ChooseCaBundle(
                        file_option, directory_option, s3,
                        [](const char* name) { return std::getenv(name); }, paths, libcurl_file));
  for (std::string* path : {&out.file, &out.directory}) {
    std::error_code error;
    if (path->empty() || path->front() == '/') continue;
    const std::filesystem::path absolute = std::filesystem::absolute(*path, error);
    if (!error) *path = absolute.string();
  }
  return out;
}

}  // namespace quiver::io::internal
