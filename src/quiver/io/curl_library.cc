// libcurl opened on first use (curl_library.h).
#ifdef QUIVER_HAVE_CURL  // (set on this file only where libcurl's headers were found)

#include "quiver/io/curl_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <vector>

#include "quiver/build_info.h"
#include "quiver/io.h"

namespace quiver::io::internal {

namespace {

std::mutex& ModuleMutex() {
  static std::mutex mutex;
  return mutex;
}

std::string& ModulePath() {
  static std::string path;
  return path;
}

// Fills `out` from `handle`; the name of the first symbol missing, or "".
std::string Resolve(void* handle, CurlLibrary* out) {
  struct Entry {
    const char* name;
    void** slot;
  };
  const Entry entries[] = {
      {"curl_global_init", reinterpret_cast<void**>(&out->global_init)},
      {"curl_easy_init", reinterpret_cast<void**>(&out->easy_init)},
      {"curl_easy_cleanup", reinterpret_cast<void**>(&out->easy_cleanup)},
      {"curl_easy_reset", reinterpret_cast<void**>(&out->easy_reset)},
      {"curl_easy_setopt", reinterpret_cast<void**>(&out->easy_setopt)},
      {"curl_easy_perform", reinterpret_cast<void**>(&out->easy_perform)},
      {"curl_easy_strerror", reinterpret_cast<void**>(&out->easy_strerror)},
      {"curl_share_init", reinterpret_cast<void**>(&out->share_init)},
      {"curl_share_setopt", reinterpret_cast<void**>(&out->share_setopt)},
      {"curl_share_cleanup", reinterpret_cast<void**>(&out->share_cleanup)},
      {"curl_slist_append", reinterpret_cast<void**>(&out->slist_append)},
      {"curl_slist_free_all", reinterpret_cast<void**>(&out->slist_free_all)},
      {"curl_version_info", reinterpret_cast<void**>(&out->version_info)},
  };
  for (const Entry& entry : entries) {
    *entry.slot = dlsym(handle, entry.name);
    if (*entry.slot == nullptr) return entry.name;
  }
  return "";
}

Result<CurlLibrary> Load() {
  std::vector<std::string> candidates;
  {
    std::lock_guard<std::mutex> lock(ModuleMutex());
    if (!ModulePath().empty()) candidates.push_back(ModulePath());
  }
  if (const char* env = std::getenv("QUIVER_CURL_MODULE"); env != nullptr && env[0] != '\0') {
    candidates.push_back(env);
  }
  candidates.push_back("libcurl.so.4");
  std::string tried;
  for (const std::string& candidate : candidates) {
    // RTLD_LOCAL: libcurl's symbols stay out of the global scope, where
    // they could meet another copy the process loads.
    void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* why = dlerror();
      tried += "\n  " + candidate + ": " + (why != nullptr ? why : "not found");
      continue;
    }
    CurlLibrary library{};
    const std::string missing = Resolve(handle, &library);
    if (missing.empty()) {
      // Kept open for the life of the process (handles and connections
      // point into it).
      if (library.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        return Status::IOError("libcurl (", candidate, ") failed to initialise");
      }
      return library;
    }
    tried += "\n  " + candidate + ": no symbol " + missing;
    dlclose(handle);
  }
  return Status::NotImplemented(
      "remote sources need libcurl, which could not be loaded; install it (Debian/Ubuntu: "
      "apt-get install libcurl4), use the binary wheel, which carries it, or set "
      "QUIVER_CURL_MODULE to a module that links it (the Python package's libquiver_curl.so). "
      "Tried:",
      tried);
}

}  // namespace

Result<const CurlLibrary*> Curl() {
  // Loaded once; a failure is kept too (the answer will not change).
  static const Result<CurlLibrary> library = Load();
  if (!library.ok()) return library.status();
  return &*library;
}

void SetCurlModule(std::string path) {
  std::lock_guard<std::mutex> lock(ModuleMutex());
  ModulePath() = std::move(path);
}

}  // namespace quiver::io::internal

namespace quiver::io {

void SetCurlModule(std::string path) { internal::SetCurlModule(std::move(path)); }

}  // namespace quiver::io

namespace quiver {

// build_info.h: the library opened at run time (this opens it), which may
// be newer than the headers; "" where it cannot be opened.
std::string CurlVersion() {
  auto curl = io::internal::Curl();
  if (!curl.ok()) return {};
  const curl_version_info_data* info = (*curl)->version_info(CURLVERSION_NOW);
  return info != nullptr && info->version != nullptr ? info->version : "";
}

}  // namespace quiver

#else  // no libcurl headers: no remote reads to open it for

#include "quiver/build_info.h"
#include "quiver/io.h"

namespace quiver::io {

void SetCurlModule(std::string) {}

}  // namespace quiver::io

namespace quiver {

std::string CurlVersion() { return {}; }

}  // namespace quiver

#endif  // QUIVER_HAVE_CURL
