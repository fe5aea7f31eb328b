// quiver._quiver: the compiled core of the quiver Python package.
#include <nanobind/nanobind.h>

#include "py_bindings.h"

NB_MODULE(_quiver, m) {
  m.doc() = "quiver: tensors on Apache Arrow (compiled core).";
  // project(VERSION) in CMakeLists.txt, the package's one version number.
  m.attr("__version__") = QUIVER_VERSION;
  quiver::python::BindTypes(m);
  quiver::python::BindArray(m);
  quiver::python::BindFixedShapeTensorArray(m);
  quiver::python::BindTensor(m);
  quiver::python::BindSparse(m);
  quiver::python::BindVariableShapeTensorArray(m);
  quiver::python::BindDLPack(m);
  quiver::python::BindRecordBatch(m);
  quiver::python::BindChunkedArray(m);
  quiver::python::BindTable(m);
  quiver::python::BindIpc(m);
  quiver::python::BindDataset(m);
  quiver::python::BindIo(m);
  quiver::python::BindData(m);
  quiver::python::BindPickle(m);
  quiver::python::BindShapePattern(m);
  quiver::python::BindSafetensors(m);
  quiver::python::BindParquet(m);
  quiver::python::BindBuildInfo(m);
  quiver::python::BindMemory(m);
}
