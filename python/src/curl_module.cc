// libquiver_curl.so: a shared module that links libcurl and holds nothing
// else. quiver opens libcurl on the first remote read (io::SetCurlModule)
// instead of linking it, so `import quiver` and the `quiver` command never
// map libcurl and its libraries unless a URL is read; the package points
// the first remote read at this module, whose dependency is the libcurl the
// binary wheel carries (the wheel's repair step copies the dependencies of
// every shared object in the wheel, this one included).
#include <curl/curl.h>

// A use of libcurl, so that the linker keeps it as a dependency.
extern "C" __attribute__((visibility("default"))) const void* quiver_curl_module() {
  return reinterpret_cast<const void*>(&curl_version_info);
}
