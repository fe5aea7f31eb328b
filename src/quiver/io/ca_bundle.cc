// The certificates https requests trust: see ca_bundle.h.
#include "quiver/io/ca_bundle.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
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

// A path and what named it (an option or a variable).
struct Named {
  std::string path;
  std::string origin;
};

// The option where set, then each variable that is set and not empty.
std::vector<Named> Candidates(const std::string& option, const char* option_name,
                              const Environment& env, const std::vector<const char*>& variables) {
  std::vector<Named> out;
  if (!option.empty()) out.push_back({option, option_name});
  for (const char* variable : variables) {
    const char* value = env(variable);
    if (value != nullptr && value[0] != '\0') out.push_back({value, variable});
  }
  return out;
}

// Whether every folder of a colon-separated list (OpenSSL reads CAPATH and
// SSL_CERT_DIR so) is one.
bool AllFolders(const std::string& list, const PathKinds& paths) {
  size_t start = 0;
  while (start <= list.size()) {
    const size_t end = std::min(list.find(':', start), list.size());
    const std::string part = list.substr(start, end - start);
    if (!part.empty() && !paths.directory(part)) return false;
    start = end + 1;
  }
  return true;
}

Status NotThere(const Named& named, bool bundle) {
  return Status::Invalid("the CA ", bundle ? "bundle" : "directory", " '", named.path, "' (from ",
                         named.origin, ") is not a ", bundle ? "file that can be read" : "folder");
}

}  // namespace

Result<CaBundle> ChooseCaBundle(const std::string& file_option, const std::string& directory_option,
                                bool s3, const Environment& env, const PathKinds& paths,
                                const std::string& libcurl_file, bool strict) {
  CaBundle out;
  std::vector<const char*> file_variables;
  if (s3) file_variables.push_back("AWS_CA_BUNDLE");
  file_variables.push_back("CURL_CA_BUNDLE");
  file_variables.push_back("SSL_CERT_FILE");
  for (const Named& file : Candidates(file_option, "ca_bundle", env, file_variables)) {
    if (paths.readable_file(file.path)) {
      out.file = file.path;
      break;
    }
    if (strict) return NotThere(file, true);
  }
  if (out.file.empty() && (libcurl_file.empty() || !paths.readable_file(libcurl_file))) {
    for (const std::string& path : SystemCaBundles()) {
      if (paths.readable_file(path)) {
        out.file = path;
        break;
      }
    }
  }
  // As the curl command: SSL_CERT_DIR is read where CURL_CA_BUNDLE is not set.
  const char* curl_bundle = env("CURL_CA_BUNDLE");
  const bool curl_named = curl_bundle != nullptr && curl_bundle[0] != '\0';
  std::vector<const char*> directory_variables;
  if (!curl_named) directory_variables.push_back("SSL_CERT_DIR");
  for (const Named& directory :
       Candidates(directory_option, "ca_directory", env, directory_variables)) {
    if (AllFolders(directory.path, paths)) {
      out.directory = directory.path;
      break;
    }
    if (strict) return NotThere(directory, false);
  }
  return out;
}

Result<CaBundle> CaBundleFor(const std::string& file_option, const std::string& directory_option,
                             bool s3, const std::string& libcurl_file, bool strict) {
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
  QUIVER_ASSIGN_OR_RETURN(CaBundle out, ChooseCaBundle(
                                            file_option, directory_option, s3,
                                            [](const char* name) { return std::getenv(name); },
                                            paths, libcurl_file, strict));
  for (std::string* path : {&out.file, &out.directory}) {
    std::error_code error;
    // (A list of folders is left as it is.)
    if (path->empty() || path->front() == '/' || path->find(':') != std::string::npos) continue;
    const std::filesystem::path absolute = std::filesystem::absolute(*path, error);
    if (!error) *path = absolute.string();
  }
  return out;
}

}  // namespace quiver::io::internal
