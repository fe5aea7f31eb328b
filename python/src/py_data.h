// quiver._quiver.data (py_data.cc): the BatchReader of quiver/data.h.
#pragma once

#include <nanobind/nanobind.h>

namespace quiver::python {

void BindData(nanobind::module_& m);

}  // namespace quiver::python
