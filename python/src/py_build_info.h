// quiver.build_info(): what this build has (include/quiver/build_info.h).
#pragma once

#include <nanobind/nanobind.h>

namespace quiver::python {

void BindBuildInfo(nanobind::module_& m);

}  // namespace quiver::python
