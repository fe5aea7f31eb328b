// The Arrow C Device Data Interface: ArrowDeviceArray and
// ArrowDeviceArrayStream, the C Data structs of c_data.h plus the device
// their buffers live on (docs/formats.md, "C Data Interface";
// docs/c_device.md). Device types use DLPack's numbers.
//
// Ownership is as in c_data.h: export fills caller-provided structs that
// the consumer releases once through `array.release` (or the stream's
// `release`); Import* takes ownership of the struct on success AND on
// failure, so the caller never releases after calling it.
//
// quiver reads Arrow arrays in host memory only:
// - Export of quiver's arrays, batches and streams: device_type
//   ARROW_DEVICE_CPU, device_id -1 (the CPU has no device number),
//   sync_event NULL, reserved zero.
// - Import accepts arrays whose memory the host can read: ARROW_DEVICE_CPU
//   (a sync_event is ignored there: no CPU event type exists), and pinned
//   host memory (CUDA_HOST, ROCM_HOST) without a sync_event. Every other
//   device, and pinned memory that still has an event to wait on, is
//   NotImplemented naming the device; the struct is released without one
//   of its buffers being read.
// - Device memory reaches quiver only as a Tensor imported through DLPack;
//   ExportDeviceTensor hands it on as an Arrow array on that device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "quiver/array.h"
#include "quiver/c_data.h"
#include "quiver/status.h"
#include "quiver/tensor.h"
#include "quiver/type.h"

extern "C" {
#ifndef ARROW_C_DEVICE_DATA_INTERFACE
#define ARROW_C_DEVICE_DATA_INTERFACE

// Where an array's buffers live: DLPack's DLDeviceType numbers.
typedef int32_t ArrowDeviceType;

#define ARROW_DEVICE_CPU 1
#define ARROW_DEVICE_CUDA 2
#define ARROW_DEVICE_CUDA_HOST 3  // pinned host memory (cudaMallocHost)
#define ARROW_DEVICE_OPENCL 4
#define ARROW_DEVICE_VULKAN 7
#define ARROW_DEVICE_METAL 8
#define ARROW_DEVICE_VPI 9
#define ARROW_DEVICE_ROCM 10
#define ARROW_DEVICE_ROCM_HOST 11  // pinned host memory (hipMallocHost)
#define ARROW_DEVICE_EXT_DEV 12
#define ARROW_DEVICE_CUDA_MANAGED 13
#define ARROW_DEVICE_ONEAPI 14
#define ARROW_DEVICE_WEBGPU 15
#define ARROW_DEVICE_HEXAGON 16

struct ArrowDeviceArray {
  // Its buffers (and its children's) are device pointers; the structs
  // themselves are in host memory. `array.release` frees everything,
  // the sync event included.
  struct ArrowArray array;
  int64_t device_id;
  ArrowDeviceType device_type;
  // NULL, or a pointer to the device's event type (cudaEvent_t* for CUDA)
  // that a consumer waits on before it reads the buffers.
  void* sync_event;
  int64_t reserved[3];  // zero
};
#endif  // ARROW_C_DEVICE_DATA_INTERFACE

#ifndef ARROW_C_DEVICE_STREAM_INTERFACE
#define ARROW_C_DEVICE_STREAM_INTERFACE
// ArrowArrayStream for ArrowDeviceArrays, every one of them on `device_type`.
struct ArrowDeviceArrayStream {
  ArrowDeviceType device_type;
  int (*get_schema)(struct ArrowDeviceArrayStream* self, struct ArrowSchema* out);
  // The end of the stream is a released array (out->array.release == NULL).
  int (*get_next)(struct ArrowDeviceArrayStream* self, struct ArrowDeviceArray* out);
  const char* (*get_last_error)(struct ArrowDeviceArrayStream* self);
  void (*release)(struct ArrowDeviceArrayStream* self);
  void* private_data;
};
#endif  // ARROW_C_DEVICE_STREAM_INTERFACE
}

static_assert(sizeof(ArrowDeviceArray) == 128 && offsetof(ArrowDeviceArray, device_id) == 80 &&
                  offsetof(ArrowDeviceArray, device_type) == 88 &&
                  offsetof(ArrowDeviceArray, sync_event) == 96,
              "ArrowDeviceArray must match the C Device Data Interface ABI");
static_assert(sizeof(ArrowDeviceArrayStream) == 48 &&
                  offsetof(ArrowDeviceArrayStream, get_schema) == 8,
              "ArrowDeviceArrayStream must match the C Device Data Interface ABI");

namespace quiver {

// The device_id quiver writes for the CPU.
constexpr int64_t kCpuDeviceId = -1;

// DeviceTypeName(device_type) for messages: quiver/buffer.h.
// Whether the host reads memory of `device_type` directly: the CPU and
// pinned host memory (CUDA_HOST, ROCM_HOST).
bool IsHostMemory(int32_t device_type);

// --- export -----------------------------------------------------------------

// Zero-copy, as ExportArray. The device is the one every buffer of `data`
// (children and dictionary included) lives on: Invalid when they differ.
Status ExportDeviceArray(const ArrayDataPtr& data, ArrowDeviceArray* out);

// `tensor` as an arrow.fixed_shape_tensor array of shape()[0] rows, each a
// cell of shape()[1:] named dim_names()[1:] (Invalid for a 0-d tensor),
// with its type in `schema`. On the CPU this is
// FixedShapeTensorArray::FromTensor with CopyMode::kIfNeeded. On another
// device the tensor must be row-major (NotImplemented otherwise: quiver
// does not copy device memory) and is exported zero-copy with its device
// type and id and a NULL sync_event, its memory never read. Nothing is
// left to release in `schema` or `out` when this fails.
Status ExportDeviceTensor(const Tensor& tensor, ArrowSchema* schema, ArrowDeviceArray* out);

// A stream on the CPU over `reader`'s arrays.
Status ExportDeviceArrayStream(std::shared_ptr<ArrayReader> reader, ArrowDeviceArrayStream* out);

// --- import -----------------------------------------------------------------

// Takes ownership of `array`. Host memory (see above) is imported as
// ImportArray does it, validated at `level`; any other device is
// NotImplemented naming it.
Result<ArrayDataPtr> ImportDeviceArray(ArrowDeviceArray* array, const TypePtr& type,
                                       ValidationLevel level = ValidationLevel::kFull);

// Takes ownership of `stream`. A stream whose device_type is not host
// memory is refused at once (NotImplemented); each array read is checked
// and validated as ImportDeviceArray does.
Result<std::shared_ptr<ArrayReader>> ImportDeviceArrayStream(
    ArrowDeviceArrayStream* stream, ValidationLevel level = ValidationLevel::kFull);

}  // namespace quiver
