// The table of contents of quiver._quiver: every Bind* entry point, with
// the file that holds it, in the order module.cc calls them (a class is
// bound before the ones whose signatures name it).
#pragma once

#include <nanobind/nanobind.h>

namespace quiver::python {

// DataType, Field-level type factories, fixed_shape_tensor and
// variable_shape_tensor types (py_types.cc).
void BindTypes(nanobind::module_& m);
// qv.Array and qv.array() (py_array.cc).
void BindArray(nanobind::module_& m);
// FixedShapeTensorArray (py_fixed_shape_tensor_array.cc).
void BindFixedShapeTensorArray(nanobind::module_& m);
// Tensor, the dense strided tensor (py_tensor.cc).
void BindTensor(nanobind::module_& m);
// SparseCOOTensor, SparseCSRMatrix, SparseCSCMatrix, SparseCSFTensor
// (py_sparse.cc, with SciPy and pydata sparse in py_sparse_interop.cc).
void BindSparse(nanobind::module_& m);
// VariableShapeTensorArray (py_variable_shape_tensor_array.cc).
void BindVariableShapeTensorArray(nanobind::module_& m);
// from_dlpack and the DLPack protocol of tensors and columns (py_dlpack.cc).
void BindDLPack(nanobind::module_& m);
// RecordBatch, Schema and Field (py_record_batch.cc).
void BindRecordBatch(nanobind::module_& m);
// ChunkedArray (py_chunked_array.cc).
void BindChunkedArray(nanobind::module_& m);
// Table and qv.table() (py_table.cc).
void BindTable(nanobind::module_& m);
// quiver._quiver.ipc: readers, writers, Tensor and SparseTensor messages,
// record batch layouts (py_ipc.cc, py_ipc_layout.cc).
void BindIpc(nanobind::module_& m);
// qv.dataset() and Dataset: random access to rows anywhere (py_dataset.cc).
void BindDataset(nanobind::module_& m);
// _io_read and _io_expand: the byte sources, local and remote, reached
// directly; internal, for the tests (py_io.cc).
void BindIo(nanobind::module_& m);
// quiver._quiver.data: the BatchReader (py_data.cc).
void BindData(nanobind::module_& m);
// Pickling of every object, protocol 5 out of band (py_pickle.cc).
void BindPickle(nanobind::module_& m);
// ShapePattern and enforce_shape (py_shape_pattern.cc).
void BindShapePattern(nanobind::module_& m);
// _safetensors_open and _safetensors_save, which quiver.safetensors wraps
// (py_safetensors.cc).
void BindSafetensors(nanobind::module_& m);
void BindParquet(nanobind::module_& m);
// build_info() (py_build_info.cc).
void BindBuildInfo(nanobind::module_& m);
// release_unused_memory() (py_memory.cc).
void BindMemory(nanobind::module_& m);

}  // namespace quiver::python
