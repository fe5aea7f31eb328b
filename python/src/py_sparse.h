// Sparse tensors in Python: the argument checks shared by the NumPy
// builders (py_sparse.cc) and the SciPy / pydata-sparse interop
// (py_sparse_interop.cc).
#pragma once

#include <nanobind/nanobind.h>

#include <string>

#include "quiver/sparse_tensor.h"
#include "quiver/tensor.h"

namespace quiver::python {

namespace nb = nanobind;

// An index argument as a zero-copy Tensor: any integer dtype (TypeError
// naming `what` and the dtype otherwise), `ndim` axes (ValueError). 1-D
// index arrays that are not contiguous are copied (the core needs them
// contiguous); 2-D COO coordinates keep their strides.
Tensor SparseIndexArg(nb::handle obj, const std::string& what, int ndim);
// The values argument: 1-D (or a (nnz, 1) column, as pyarrow hands out),
// numeric or bool (bool8), zero-copy unless it is not contiguous.
Tensor SparseValuesArg(nb::handle obj, const std::string& what);
// A shape argument: a sequence of ints (TypeError naming the entry).
std::vector<int64_t> ShapeArg(nb::handle shape);

// The COO tensor of SparseCOOTensor.from_numpy: `canonical` None lets the
// full validation find out whether the coordinates are sorted and unique.
SparseTensor MakeCOOFromPython(std::vector<int64_t> shape, Tensor coords, Tensor values,
                               nb::handle canonical, std::vector<std::string> dim_names);

// SciPy (coo/csr/csc arrays and matrices) and pydata sparse (COO).
nb::object SparseFromScipy(nb::handle obj, SparseFormat format);
nb::object SparseToScipy(const SparseTensor& tensor);
nb::object SparseFromPydata(nb::handle obj);
nb::object SparseToPydata(const SparseTensor& tensor);

}  // namespace quiver::python
