#include "py_bindings.h"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "quiver/build_info.h"

namespace quiver::python {

namespace nb = nanobind;

void BindBuildInfo(nb::module_& m) {
  m.def(
      "build_info",
      [] {
        nb::dict info;
        info["version"] = Version();
        info["codecs"] = ipc::AvailableCodecs();
        const std::string curl = CurlVersion();
        info["curl"] = curl.empty() ? nb::none() : nb::object(nb::str(curl.c_str()));
        // The tool is a separate executable in the scripts folder
        // (quiver._cli finds it); the library cannot know whether the
        // build that installed it had CLI11.
        info["cli"] = nb::module_::import_("quiver._cli").attr("installed_executable")();
        return info;
      },
      "What this installation of quiver has: {'version': '0.1.0', 'codecs': ['lz4', 'zstd'], "
      "'curl': '7.88.1', 'cli': '/.../bin/quiver'}. 'curl' is the version of the "
      "libcurl that reads http://, https:// and s3:// data, or None in a source build without "
      "libcurl's development files (which reads local data only). 'codecs' lists the IPC "
      "compression codecs compiled "
      "in, by their compression= names; a source build without the ZSTD or LZ4 development "
      "files leaves that codec out. 'cli' is the path of the `quiver` command-line tool the "
      "installation put in its scripts folder (on PATH; `python -m quiver` runs it too), or "
      "None where a source build without CLI11 left it out.");
}

}  // namespace quiver::python
