// quiver._quiver: the compiled core of the quiver Python package.
#include <nanobind/nanobind.h>

#include "py_dlpack.h"
#include "py_objects.h"

NB_MODULE(_quiver, m) {
  m.doc() = "quiver: tensors on Apache Arrow (compiled core).";
  // project(VERSION) in CMakeLists.txt, the package's one version number.
  m.attr("__version__") = QUIVER_VERSION;
  quiver::python::BindTypes(m);
  quiver::python::BindArrays(m);
  quiver::python::BindTensor(m);
  quiver::python::BindVariableShapeTensorArray(m);
  quiver::python::BindDLPack(m);
}
