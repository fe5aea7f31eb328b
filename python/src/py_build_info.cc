#include "py_build_info.h"

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
        return info;
      },
      "What this build of quiver has: {'version': '0.1.0', 'codecs': ['lz4', 'zstd']}. "
      "'codecs' lists the IPC compression codecs compiled in, by their compression= names; "
      "a source build without the ZSTD or LZ4 development files leaves that codec out.");
}

}  // namespace quiver::python
