// The Arrow C Device Data Interface in Python: "arrow_device_array" and
// "arrow_device_array_stream" capsules (the device-aware half of the
// PyCapsule protocol), and imports that take a producer's plain protocol
// (__arrow_c_array__ / __arrow_c_stream__) when it has one, its device
// protocol otherwise.
#pragma once

#include <nanobind/nanobind.h>

#include <memory>
#include <utility>

#include "quiver/array.h"
#include "quiver/c_data.h"
#include "quiver/tensor.h"
#include "quiver/type.h"

namespace quiver::python {

namespace nb = nanobind;

// The device methods take future keywords only at their default, None
// (PyCapsule protocol): NotImplementedError names every other one.
void CheckDeviceKwargs(const nb::kwargs& kwargs);

// __arrow_c_device_array__: (schema, device array) capsules of `data` as
// ExportArrayWithSchema chooses it for `requested_schema`.
nb::tuple ExportDeviceArrayWithSchema(const ArrayDataPtr& data, nb::handle requested_schema,
                                      const nb::kwargs& kwargs);
// (schema, device array) capsules of `data` under `field` (record batches).
nb::tuple DeviceArrayCapsules(const Field& field, const ArrayDataPtr& data);
// __arrow_c_device_array__ of a Tensor: an arrow.fixed_shape_tensor array
// of shape[0] rows on the tensor's device (see ExportDeviceTensor).
nb::tuple TensorDeviceCapsules(const Tensor& tensor, const nb::kwargs& kwargs);
// __arrow_c_device_stream__: an "arrow_device_array_stream" capsule (CPU).
nb::object DeviceStreamCapsule(std::shared_ptr<ArrayReader> reader, const nb::kwargs& kwargs);

// Imports a pair as __arrow_c_device_array__() returns it (host memory
// only: NotImplementedError naming any other device).
std::pair<Field, ArrayDataPtr> ImportDeviceCapsules(nb::handle schema_capsule,
                                                    nb::handle array_capsule);
// The reader behind an "arrow_device_array_stream" capsule.
std::shared_ptr<ArrayReader> ImportDeviceStreamCapsule(nb::handle stream_capsule);

// Whether `obj` offers __arrow_c_array__ or __arrow_c_device_array__.
bool HasArrayProtocol(nb::handle obj);
// Whether `obj` offers __arrow_c_stream__ or __arrow_c_device_stream__.
bool HasStreamProtocol(nb::handle obj);
// The array of `obj`'s __arrow_c_array__, or of its __arrow_c_device_array__
// when it offers only that; validated fully.
std::pair<Field, ArrayDataPtr> ImportArrayFrom(nb::handle obj);
// The reader of `obj`'s __arrow_c_stream__, or of its
// __arrow_c_device_stream__ when it offers only that.
std::shared_ptr<ArrayReader> ImportStreamFrom(nb::handle obj);

}  // namespace quiver::python
