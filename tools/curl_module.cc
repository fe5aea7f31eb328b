// Finding the package's libquiver_curl.so from the scripts folder
// (curl_module.h).
#include "curl_module.h"

#include <unistd.h>

#include <algorithm>

namespace quiver::tools {

std::vector<std::string> CurlModuleCandidates(std::string_view program_folder,
                                              std::string_view platlib_dirs) {
  std::vector<std::string> candidates;
  if (program_folder.empty()) return candidates;
  size_t begin = 0;
  while (begin <= platlib_dirs.size()) {
    const size_t end = std::min(platlib_dirs.find(':', begin), platlib_dirs.size());
    const std::string_view dir = platlib_dirs.substr(begin, end - begin);
    if (!dir.empty()) {
      std::string path = dir.front() == '/' ? std::string(dir)
                                            : std::string(program_folder) + "/" + std::string(dir);
      candidates.push_back(path + "/quiver/libquiver_curl.so");
    }
    begin = end + 1;
  }
  return candidates;
}

std::string FindCurlModule(std::string_view program_folder, std::string_view platlib_dirs) {
  for (const std::string& candidate : CurlModuleCandidates(program_folder, platlib_dirs)) {
    if (access(candidate.c_str(), R_OK) == 0) return candidate;
  }
  return {};
}

std::string ProgramFolder() {
  // /proc/self/exe, not argv[0]: a program found on PATH or through a
  // symbolic link has argv[0] "quiver" or the link's name.
  char path[4096];
  const ssize_t length = readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (length <= 0) return {};
  const std::string program(path, static_cast<size_t>(length));
  const size_t slash = program.rfind('/');
  if (slash == std::string::npos) return {};
  return program.substr(0, slash);
}

}  // namespace quiver::tools
