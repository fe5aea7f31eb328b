// The Python DLPack protocol: __dlpack__ / __dlpack_device__ for quiver
// tensors and quiver.from_dlpack for anything that speaks it.
#pragma once

#include <nanobind/nanobind.h>

#include "quiver/fixed_shape_tensor.h"
#include "quiver/tensor.h"

namespace quiver::python {

namespace nb = nanobind;

// __dlpack__(stream, max_version, dl_device, copy) for `tensor`: a
// "dltensor_versioned" capsule when max_version asks for 1.x, else a legacy
// "dltensor" capsule. Raises BufferError where the protocol says so.
// `fresh` says the tensor's memory was made for this export alone (sets
// IS_COPIED and never copies again).
nb::object DLPackCapsule(const Tensor& tensor, nb::handle stream, nb::handle max_version,
                         nb::handle dl_device, nb::handle copy, bool fresh = false);
// __dlpack__ for a whole fixed-shape column: null rows raise BufferError;
// bit-packed bools are unpacked into a copy (BufferError with copy=False).
nb::object ColumnDLPackCapsule(const FixedShapeTensorArray& array, nb::handle stream,
                               nb::handle max_version, nb::handle dl_device, nb::handle copy);
// __dlpack_device__(): (device_type, device_id).
nb::tuple DLPackDevice(const Device& device);

// Adds __dlpack__ to the Tensor / FixedShapeTensorArray class as a
// vectorcall method (consumers call it once per exchange).
void AddTensorDLPack(nb::handle cls);
void AddColumnDLPack(nb::handle cls);

}  // namespace quiver::python
