// DLPack export (quiver memory to a consumer) and import (a producer's
// managed tensor into a quiver Tensor).
#include "quiver/dlpack.h"

#include <bit>
#include <limits>
#include <memory>
#include <type_traits>

#include "quiver/internal/checked_math.h"

namespace quiver::dlpack {

namespace {

// The DLPack code of a numeric or bool8 type, by one switch on the type's
// id (this runs on every export); bits 0 for any other type.
DLDataType TensorValueDataType(const DataType& type) {
  switch (type.id()) {
    case TypeId::kInt8: return {kCodeInt, 8, 1};
    case TypeId::kInt16: return {kCodeInt, 16, 1};
    case TypeId::kInt32: return {kCodeInt, 32, 1};
    case TypeId::kInt64: return {kCodeInt, 64, 1};
    case TypeId::kUInt8: return {kCodeUInt, 8, 1};
    case TypeId::kUInt16: return {kCodeUInt, 16, 1};
    case TypeId::kUInt32: return {kCodeUInt, 32, 1};
    case TypeId::kUInt64: return {kCodeUInt, 64, 1};
    case TypeId::kFloat16: return {kCodeFloat, 16, 1};
    case TypeId::kFloat32: return {kCodeFloat, 32, 1};
    case TypeId::kFloat64: return {kCodeFloat, 64, 1};
    case TypeId::kExtension:
      if (type.is_bool8()) return {kCodeBool, 8, 1};
      if (type.is_bfloat16()) return {kCodeBfloat, 16, 1};
      if (type.is_float8_e4m3fn()) return {kCodeFloat8E4M3FN, 8, 1};
      if (type.is_float8_e5m2()) return {kCodeFloat8E5M2, 8, 1};
      break;
    default: break;
  }
  return {kCodeUInt, 0, 1};
}

}  // namespace

Result<DLDataType> DataTypeOf(const DataType& type) {
  const DLDataType dtype = TensorValueDataType(type);
  if (dtype.bits == 0) {
    return Status::TypeError(
        "DLPack export needs a numeric, bool8 or low-precision float tensor, got ",
        type.ToString());
  }
  return dtype;
}

namespace {

// One allocation per export: the managed struct the consumer sees, plus
// what it points at and keeps alive until the consumer's deleter runs.
// Made by default-initialisation (`new ExportBlock`): ExportImpl sets every
// field of `managed`, and zeroing the block first (a `rep stos` of 250
// bytes) was a tenth of an export.
template <typename Managed>
struct ExportBlock {
  Managed managed;
  BufferPtr buffer;
  // Shape, then strides in elements: in place up to kInlineDims axes (no
  // second allocation for the usual tensor), on the heap beyond.
  static constexpr int kInlineDims = 8;
  int64_t inline_dims[2 * kInlineDims];
  std::vector<int64_t> heap_dims;
  int64_t* Dims(int ndim) {
    if (ndim <= kInlineDims) return inline_dims;
    heap_dims.resize(2 * static_cast<size_t>(ndim));
    return heap_dims.data();
  }
};

template <typename Managed>
void DeleteExport(Managed* self) {
  delete static_cast<ExportBlock<Managed>*>(self->manager_ctx);
}

// The managed struct over `source`, whose strides are whole elements of
// 2^shift bytes. Cannot fail but for memory (bad_alloc).
template <typename Managed>
Managed* NewExport(const Tensor& source, DLDataType dtype, int shift, bool copied) {
  const int ndim = source.ndim();
  auto* block = new ExportBlock<Managed>;
  block->buffer = source.buffer();
  int64_t* dims = block->Dims(ndim);
  for (int i = 0; i < ndim; ++i) {
    dims[i] = source.shape()[i];
    dims[ndim + i] = source.strides()[i] >> shift;  // exact: whole elements (arithmetic shift)
  }
  Managed* managed = &block->managed;
  DLTensor& out = managed->dl_tensor;
  out.data = const_cast<uint8_t*>(source.raw_data());  // consumers must honour READ_ONLY
  const Device& device = source.buffer()->device();
  out.device = DLDevice{device.type, device.id};
  out.ndim = ndim;
  out.dtype = dtype;
  out.shape = dims;
  out.strides = dims + ndim;
  out.byte_offset = 0;
  managed->manager_ctx = block;
  managed->deleter = &DeleteExport<Managed>;
  if constexpr (std::is_same_v<Managed, DLManagedTensorVersioned>) {
    managed->version = DLPackVersion{kMajorVersion, kMinorVersion};
    // A fresh copy belongs to the consumer alone; shared Arrow data does not.
    managed->flags = copied ? kFlagIsCopied : kFlagReadOnly;
  }
  return managed;
}

// The export of a contiguous copy. Kept out of line: the usual export
// shares memory, and a Tensor on its stack frame (zeroed by `rep stos`)
// cost a tenth of the call.
template <typename Managed>
[[gnu::noinline]] Result<Managed*> ExportCopy(const Tensor& tensor, DLDataType dtype, int shift) {
  QUIVER_ASSIGN_OR_RETURN(Tensor contiguous, tensor.ToContiguous());
  return NewExport<Managed>(contiguous, dtype, shift, true);
}

template <typename Managed>
Result<Managed*> ExportImpl(const Tensor& tensor, CopyMode copy, bool* copied) {
  const DLDataType dtype = TensorValueDataType(*tensor.type());
  if (dtype.bits == 0) return DataTypeOf(*tensor.type()).status();
  const int64_t width = dtype.bits / 8;
  // Every tensor value type is 1, 2, 4 or 8 bytes wide: strides become
  // elements by a shift, not a division (tens of cycles per axis, on a
  // call that takes a few hundred nanoseconds).
  const int shift = std::countr_zero(static_cast<uint64_t>(width));
  bool whole_elements = true;
  for (int64_t stride : tensor.strides())
    whole_elements = whole_elements && (stride & (width - 1)) == 0;
  const bool copy_needed = !whole_elements || copy == CopyMode::kAlways;
  if (copy_needed && copy == CopyMode::kNever) {
    return Status::Invalid("tensor strides ", internal::FormatShape(tensor.strides()),
                           " are not whole elements of ", width, " bytes; DLPack needs a copy");
  }
  if (copied) *copied = copy_needed;
  if (copy_needed) return ExportCopy<Managed>(tensor, dtype, shift);
  return NewExport<Managed>(tensor, dtype, shift, false);
}

}  // namespace

Result<TypePtr> ValueTypeOf(DLDataType dtype) {
  if (dtype.lanes == 1) {
    switch (dtype.code) {
      case kCodeInt:
        switch (dtype.bits) {
          case 8: return int8();
          case 16: return int16();
          case 32: return int32();
          case 64: return int64();
        }
        break;
      case kCodeUInt:
        switch (dtype.bits) {
          case 8: return uint8();
          case 16: return uint16();
          case 32: return uint32();
          case 64: return uint64();
        }
        break;
      case kCodeFloat:
        switch (dtype.bits) {
          case 16: return float16();
          case 32: return float32();
          case 64: return float64();
        }
        break;
      case kCodeBool:
        if (dtype.bits == 8) return bool8();
        break;
      case kCodeBfloat:
        if (dtype.bits == 16) return bfloat16();
        break;
      case kCodeFloat8E4M3FN:
        if (dtype.bits == 8) return float8_e4m3fn();
        break;
      case kCodeFloat8E5M2:
        if (dtype.bits == 8) return float8_e5m2();
        break;
    }
  }
  return Status::TypeError(
      "unsupported DLPack dtype (code ", dtype.code, ", ", dtype.bits, " bits, ", dtype.lanes,
      " lanes); quiver tensors hold int, uint, float, bool, bfloat16, float8_e4m3fn and "
      "float8_e5m2 values");
}

namespace {

// Checks the DLTensor and wraps its memory; `release` is handed to the
// buffer (or run here when anything is wrong), so it runs exactly once.
Result<Tensor> WrapDLTensor(const DLTensor& in, const std::function<void()>& release) {
  auto fail = [&](Status status) {
    release();
    return status;
  };
  if (in.ndim < 0) return fail(Status::Invalid("DLPack tensor has ndim ", in.ndim));
  if (in.ndim > 0 && in.shape == nullptr)
    return fail(Status::Invalid("DLPack tensor has no shape"));
  auto type = ValueTypeOf(in.dtype);
  if (!type.ok()) return fail(type.status());
  const int64_t width = (*type)->byte_width();
  const auto ndim = static_cast<size_t>(in.ndim);
  Dims shape(std::span<const int64_t>(in.shape, ndim));
  Dims strides;
  if (in.strides == nullptr) {  // row-major (DLPack before 1.0 allowed NULL)
    auto row_major = RowMajorStrides(width, shape);
    if (!row_major.ok()) return fail(row_major.status());
    strides = *row_major;
  } else {
    strides = Dims(std::span<const int64_t>(in.strides, ndim));
    bool overflow = false;
    for (int64_t& stride : strides)
      overflow |= __builtin_mul_overflow(stride, width, &stride);  // to bytes
    if (overflow) {
      return fail(Status::Invalid("a DLPack stride overflows int64 in bytes: strides ",
                                  internal::FormatShape(std::span<const int64_t>(in.strides, ndim)),
                                  " of ", width, "-byte elements"));
    }
  }
  if (in.byte_offset > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return fail(Status::Invalid("DLPack byte_offset ", in.byte_offset, " is out of range"));
  }
  const uintptr_t base = reinterpret_cast<uintptr_t>(in.data);
  if (base > std::numeric_limits<uintptr_t>::max() - in.byte_offset) {
    return fail(
        Status::Invalid("DLPack data pointer + byte_offset ", in.byte_offset, " wraps around"));
  }
  // A null data pointer is no data whatever the offset (Tensor::Wrap
  // refuses it unless the tensor is empty).
  const uintptr_t first = base == 0 ? 0 : base + in.byte_offset;
  return Tensor::Wrap(std::move(*type), first, std::move(shape), std::move(strides), release,
                      Device{in.device.device_type, in.device.device_id});
}

}  // namespace

Result<DLManagedTensorVersioned*> Export(const Tensor& tensor, CopyMode copy, bool* copied) {
  return ExportImpl<DLManagedTensorVersioned>(tensor, copy, copied);
}

Result<DLManagedTensor*> ExportLegacy(const Tensor& tensor, CopyMode copy, bool* copied) {
  return ExportImpl<DLManagedTensor>(tensor, copy, copied);
}

Result<Tensor> Import(DLManagedTensorVersioned* managed, uint64_t* flags) {
  if (managed == nullptr) return Status::Invalid("no DLPack tensor to import");
  auto release = [managed] {
    if (managed->deleter) managed->deleter(managed);
  };
  if (managed->version.major != kMajorVersion) {
    // A different major version may lay the struct out differently: only
    // the deleter is safe to touch.
    const uint32_t major = managed->version.major, minor = managed->version.minor;
    release();
    return Status::NotImplemented("DLPack version ", major, ".", minor,
                                  " is not supported (quiver reads ", kMajorVersion, ".x)");
  }
  if (flags) *flags = managed->flags;
  return WrapDLTensor(managed->dl_tensor, release);
}

Result<Tensor> ImportLegacy(DLManagedTensor* managed) {
  if (managed == nullptr) return Status::Invalid("no DLPack tensor to import");
  return WrapDLTensor(managed->dl_tensor, [managed] {
    if (managed->deleter) managed->deleter(managed);
  });
}

}  // namespace quiver::dlpack
