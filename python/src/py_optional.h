// Optional Python packages (SciPy, pydata sparse, pyarrow), imported
// through quiver._optional so that a missing one says which quiver extra
// installs it.
#pragma once

#include <nanobind/nanobind.h>

namespace quiver::python {

namespace nb = nanobind;

// The module, or ModuleNotFoundError naming the extra to install.
inline nb::module_ ImportOptional(const char* module) {
  return nb::borrow<nb::module_>(
      nb::module_::import_("quiver._optional").attr("import_optional")(module));
}

}  // namespace quiver::python
