// DLPack: zero-copy tensor exchange with NumPy, PyTorch, JAX and others.
//
// quiver declares the DLPack 1.x ABI structs itself (docs/formats.md, "DLPack")
// and checks their layout at compile time. Exports always fill strides,
// fold any offset into `data` (byte_offset 0) and mark data quiver shares
// READ_ONLY. Imports check every field and call the producer's deleter
// exactly once: immediately when the import fails, otherwise when the last
// quiver buffer over the memory is released.
#pragma once

#include <cstddef>
#include <cstdint>

#include "quiver/conversion.h"
#include "quiver/status.h"
#include "quiver/tensor.h"

namespace quiver::dlpack {

extern "C" {

struct DLDevice {
  int32_t device_type;  // kDLCPU = 1, kDLCUDA = 2, ... (DLPack numbering)
  int32_t device_id;
};

struct DLDataType {
  uint8_t code;  // kDLInt, kDLUInt, kDLFloat, ...
  uint8_t bits;
  uint16_t lanes;
};

struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;    // ndim entries
  int64_t* strides;  // ndim entries, in ELEMENTS; NULL means row-major
  uint64_t byte_offset;
};

// The pre-1.0 ("legacy") managed tensor, still produced by JAX.
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor* self);
};

struct DLPackVersion {
  uint32_t major;
  uint32_t minor;
};

struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(DLManagedTensorVersioned* self);
  uint64_t flags;
  DLTensor dl_tensor;
};

}  // extern "C"

constexpr uint32_t kMajorVersion = 1;
constexpr uint32_t kMinorVersion = 1;
constexpr uint64_t kFlagReadOnly = 1;
constexpr uint64_t kFlagIsCopied = 2;
constexpr int32_t kDeviceCPU = 1;
constexpr uint8_t kCodeInt = 0, kCodeUInt = 1, kCodeFloat = 2, kCodeBfloat = 4, kCodeComplex = 5,
                  kCodeBool = 6;
// kDLFloat8_e4m3fn and kDLFloat8_e5m2 of dlpack.h 1.1 (docs/formats.md).
constexpr uint8_t kCodeFloat8E4M3FN = 10, kCodeFloat8E5M2 = 12;

static_assert(sizeof(DLDevice) == 8 && sizeof(DLDataType) == 4);
static_assert(sizeof(DLTensor) == 48 && offsetof(DLTensor, ndim) == 16 &&
              offsetof(DLTensor, dtype) == 20 && offsetof(DLTensor, shape) == 24 &&
              offsetof(DLTensor, strides) == 32 && offsetof(DLTensor, byte_offset) == 40);
static_assert(sizeof(DLManagedTensor) == 64 && offsetof(DLManagedTensor, deleter) == 56);
static_assert(sizeof(DLManagedTensorVersioned) == 80 &&
              offsetof(DLManagedTensorVersioned, flags) == 24 &&
              offsetof(DLManagedTensorVersioned, dl_tensor) == 32);

// --- Export -----------------------------------------------------------------
// Whether an export may copy (CopyMode semantics). A copy is needed only
// when a byte stride is not a whole number of elements; kAlways copies into
// a fresh row-major tensor that the consumer owns (IS_COPIED, writable).
// `copied`, when given, says whether a copy was made.
Result<DLManagedTensorVersioned*> Export(const Tensor& tensor, CopyMode copy = CopyMode::kIfNeeded,
                                         bool* copied = nullptr);
Result<DLManagedTensor*> ExportLegacy(const Tensor& tensor, CopyMode copy = CopyMode::kIfNeeded,
                                      bool* copied = nullptr);

// --- Import -----------------------------------------------------------------
// Takes ownership of `managed` on every path. A different major version is
// refused after calling only the deleter; NULL strides mean row-major;
// DLPack bool (8 bits) becomes bool8; negative strides, unsupported dtypes
// (complex, bfloat, lanes != 1) and
// shapes or strides that overflow are refused. Memory on another device is
// wrapped with that device and never read on the host.
// `flags`, when given, receives the producer's flags (READ_ONLY, IS_COPIED).
Result<Tensor> Import(DLManagedTensorVersioned* managed, uint64_t* flags = nullptr);
Result<Tensor> ImportLegacy(DLManagedTensor* managed);

// The DLPack data type of a quiver value type (TypeError for the rest).
Result<DLDataType> DataTypeOf(const DataType& type);
// The quiver value type of a DLPack data type: int/uint 8..64, float
// 16/32/64, 8-bit bool as bool8; TypeError for the rest.
Result<TypePtr> ValueTypeOf(DLDataType dtype);

}  // namespace quiver::dlpack
