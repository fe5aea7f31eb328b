// The Python DLPack protocol: __dlpack__ / __dlpack_device__ for quiver
// tensors and quiver.from_dlpack for anything that speaks it.
#pragma once

#include <nanobind/nanobind.h>

#include "quiver/tensor.h"

namespace quiver::python {

namespace nb = nanobind;

// __dlpack__(stream, max_version, dl_device, copy) for `tensor`: a
// "dltensor_versioned" capsule when max_version asks for 1.x, else a legacy
// "dltensor" capsule. Raises BufferError where the protocol says so.
nb::object DLPackCapsule(const Tensor& tensor, nb::handle stream, nb::handle max_version,
                         nb::handle dl_device, nb::handle copy);
// __dlpack_device__(): (device_type, device_id).
nb::tuple DLPackDevice(const Tensor& tensor);

void BindDLPack(nb::module_& m);

}  // namespace quiver::python
