// Where the `quiver` executable of the binary wheel finds the package's
// libquiver_curl.so (the module that links libcurl, opened on the first
// URL read: docs/remote.md). The wheel installs the executable in the
// environment's scripts folder (venv/bin/quiver) and the package where the
// installation scheme puts packages (venv/lib/python3.X/site-packages/quiver),
// so the program looks for the module at each folder, relative to its own,
// where a scheme puts packages (a list fixed when the wheel is built:
// cmake/platlib_from_scripts.py).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace quiver::tools {

// The module's candidate paths, in order: for each folder of `platlib_dirs`
// (separated by ':', each relative to `program_folder`, or absolute),
// FOLDER/quiver/libquiver_curl.so.
std::vector<std::string> CurlModuleCandidates(std::string_view program_folder,
                                              std::string_view platlib_dirs);

// The first candidate that is a readable file, or "" when none is (or the
// program's folder is unknown: no /proc/self/exe).
std::string FindCurlModule(std::string_view program_folder, std::string_view platlib_dirs);

// The folder of the running program with symbolic links resolved (a link on
// PATH to venv/bin/quiver finds venv/bin), or "" where it cannot be read.
std::string ProgramFolder();

}  // namespace quiver::tools
