// Locations: what a path, a directory, a glob pattern or a URL names, and
// the source that reads it.
#include <glob.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "quiver/io.h"
#include "quiver/io/remote.h"

namespace quiver::io {

namespace fs = std::filesystem;

namespace {

bool StartsWith(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

bool HasExtension(const std::string& name, const std::vector<std::string>& extensions) {
  return std::any_of(extensions.begin(), extensions.end(),
                     [&](const std::string& ext) { return name.ends_with(ext); });
}

// A file:// URL's path (file:///data/x.arrow is /data/x.arrow); other
// locations as they are.
std::string LocalPath(const std::string& location) {
  if (StartsWith(location, "file://")) return location.substr(7);
  return location;
}

bool IsGlob(const std::string& path) { return path.find_first_of("*?[") != std::string::npos; }

std::string Joined(const std::vector<std::string>& extensions) {
  std::string out;
  for (size_t i = 0; i < extensions.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == extensions.size() ? " or " : ", ") + extensions[i];
  }
  return out;
}

Result<std::vector<std::string>> ListDirectory(const std::string& directory,
                                               const std::vector<std::string>& extensions) {
  std::vector<std::string> found;
  std::error_code error;
  for (fs::directory_iterator it(directory, error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (name.starts_with(".") || !HasExtension(name, extensions)) continue;
    if (it->is_regular_file(error)) found.push_back(it->path().string());
  }
  if (error) return Status::IOError(directory, ": ", error.message());
  if (found.empty()) {
    return Status::Invalid("directory ", directory, " holds no ", Joined(extensions), " files");
  }
  std::sort(found.begin(), found.end());
  return found;
}

Result<std::vector<std::string>> ListGlob(const std::string& pattern) {
  glob_t matches{};
  const int rc = glob(pattern.c_str(), GLOB_ERR, nullptr, &matches);
  std::vector<std::string> found;
  for (size_t i = 0; rc == 0 && i < matches.gl_pathc; ++i) {
    std::error_code error;
    if (fs::is_regular_file(matches.gl_pathv[i], error)) found.emplace_back(matches.gl_pathv[i]);
  }
  globfree(&matches);
  if (rc == GLOB_ABORTED) return Status::IOError(pattern, ": a directory could not be read");
  if (found.empty()) return Status::Invalid("the pattern ", pattern, " matches no file");
  std::sort(found.begin(), found.end());
  return found;
}

Status RemoteMissing(const std::string& location) {
  return Status::NotImplemented(
      location,
      ": this build of quiver reads no remote data (it was built without libcurl); install "
      "libcurl's development files (Debian: libcurl4-openssl-dev) and rebuild, or install the "
      "binary wheel, which includes it");
}

}  // namespace

bool IsRemoteLocation(const std::string& location) {
  return StartsWith(location, "http://") || StartsWith(location, "https://") ||
         StartsWith(location, "s3://");
}

bool RemoteAvailable() { return internal::RemoteBuilt(); }

Result<std::shared_ptr<InputSource>> OpenSource(const std::string& location,
                                                const SourceOptions& options) {
  if (IsRemoteLocation(location)) {
    if (!RemoteAvailable()) return RemoteMissing(location);
    return internal::OpenRemoteSource(location, options.remote);
  }
  return OpenFileSource(LocalPath(location), options.memory_map);
}

Result<std::vector<std::string>> ExpandLocations(const std::vector<std::string>& locations,
                                                 const std::vector<std::string>& extensions,
                                                 const SourceOptions& options) {
  if (locations.empty()) return Status::Invalid("no data to read (the source list is empty)");
  std::vector<std::string> out;
  for (const std::string& location : locations) {
    std::vector<std::string> found;
    if (IsRemoteLocation(location)) {
      if (!RemoteAvailable()) return RemoteMissing(location);
      if (StartsWith(location, "s3://") && location.ends_with("/")) {
        QUIVER_ASSIGN_OR_RETURN(found,
                                internal::ListRemotePrefix(location, extensions, options.remote));
      } else {
        found.push_back(location);
      }
    } else {
      const std::string path = LocalPath(location);
      std::error_code error;
      const fs::file_status status = fs::status(path, error);
      if (fs::exists(status) && fs::is_directory(status)) {
        QUIVER_ASSIGN_OR_RETURN(found, ListDirectory(path, extensions));
      } else if (fs::exists(status)) {
        found.push_back(path);
      } else if (IsGlob(path)) {
        QUIVER_ASSIGN_OR_RETURN(found, ListGlob(path));
      } else {
        return Status::IOError(path, ": no such file or directory");
      }
    }
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

}  // namespace quiver::io
