// The C++ objects behind quiver's Python classes.
#pragma once

#include <nanobind/nanobind.h>

#include "quiver/array.h"
#include "quiver/fixed_shape_tensor.h"
#include "quiver/tensor.h"
#include "quiver/type.h"

namespace quiver::python {

namespace nb = nanobind;

struct PyDataType {
  TypePtr type;
};

struct PyFixedShapeTensorType {
  FixedShapeTensorType type;
};

// Any Arrow array quiver holds without a more specific class.
struct PyArray {
  ArrayDataPtr data;
};

struct PyFixedShapeTensorArray {
  FixedShapeTensorArray array;
};

struct PyTensor {
  Tensor tensor;
};

// The Python type object for a quiver type: FixedShapeTensorType for the
// fixed-shape tensor extension, DataType otherwise.
nb::object WrapType(const TypePtr& type);
// The Python array object for imported data: FixedShapeTensorArray for
// the fixed-shape tensor extension, Array otherwise.
nb::object WrapArray(ArrayDataPtr data);
// A DataType from a name ("float32"), a DataType, or a NumPy dtype-like.
TypePtr TypeFromPython(nb::handle value);

void BindTypes(nb::module_& m);
void BindArrays(nb::module_& m);
void BindTensor(nb::module_& m);

}  // namespace quiver::python
