// A dense strided tensor over a shared buffer.
//
// Units: shape in elements, strides in BYTES (as NumPy and Arrow's Tensor
// message), byte_offset in bytes from the buffer start. Strides may be
// negative or zero; Make checks that every element lies inside the buffer.
// The value type is one of the numeric types (int8..uint64, float16/32/64)
// or bool8 (one byte per value).
#pragma once

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "quiver/buffer.h"
#include "quiver/conversion.h"
#include "quiver/dims.h"
#include "quiver/status.h"
#include "quiver/type.h"

namespace quiver {

// Row-major (C order) byte strides for `shape` with elements of `byte_width`.
Result<std::vector<int64_t>> RowMajorStrides(int64_t byte_width, std::span<const int64_t> shape);

// One entry of a NumPy basic index (Tensor::View): an integer picks one
// position and drops its axis; a slice keeps the axis (start, stop and step
// as Python's slice.indices reads them: an absent bound is the end the step
// walks from or to, a negative one counts from the end, one out of range is
// clamped; the step is non-zero and may be negative); a new axis inserts an
// axis of size 1; an ellipsis stands for every axis the other entries leave.
struct TensorIndex {
  enum class Kind : uint8_t { kInteger, kSlice, kNewAxis, kEllipsis };

  static TensorIndex Integer(int64_t i) {
    return {Kind::kInteger, i, std::nullopt, std::nullopt, 1};
  }
  static TensorIndex Slice(std::optional<int64_t> start = std::nullopt,
                           std::optional<int64_t> stop = std::nullopt, int64_t step = 1) {
    return {Kind::kSlice, 0, start, stop, step};
  }
  static TensorIndex NewAxis() { return {Kind::kNewAxis, 0, std::nullopt, std::nullopt, 1}; }
  static TensorIndex Ellipsis() { return {Kind::kEllipsis, 0, std::nullopt, std::nullopt, 1}; }

  Kind kind = Kind::kEllipsis;
  int64_t index = 0;                   // kInteger: the position; negative counts from the end
  std::optional<int64_t> start, stop;  // kSlice
  int64_t step = 1;                    // kSlice
};

class Tensor {
 public:
  // An empty placeholder (no type, no buffer) to assign a made tensor to.
  Tensor() = default;
  // Empty `strides` means row-major. `dim_names` is empty or one per axis.
  static Result<Tensor> Make(TypePtr type, BufferPtr buffer, Dims shape, Dims strides = {},
                             std::vector<std::string> dim_names = {}, int64_t byte_offset = 0);

  // A tensor over memory someone else owns (a DLPack producer, a NumPy
  // array): `first` is the address of element [0, ...] as an integer (it
  // may be device memory, or 0 for an empty tensor), `strides` are in
  // bytes and may be negative. The buffer covers exactly the bytes the
  // elements span, and every check is made once, here. `release` runs once:
  // when the last reference to the buffer goes, or before an error returns.
  static Result<Tensor> Wrap(TypePtr type, uintptr_t first, Dims&& shape, Dims&& strides,
                             Buffer::ReleaseHook release, Device device = {},
                             std::vector<std::string> dim_names = {});

  const TypePtr& type() const { return type_; }
  const BufferPtr& buffer() const { return buffer_; }
  const Dims& shape() const { return shape_; }
  const Dims& strides() const { return strides_; }
  const std::vector<std::string>& dim_names() const { return dim_names_; }
  int64_t byte_offset() const { return byte_offset_; }
  int ndim() const { return static_cast<int>(shape_.size()); }
  // Number of elements.
  int64_t size() const { return size_; }
  // Address of element [0, 0, ...].
  const uint8_t* raw_data() const { return buffer_->data() + byte_offset_; }
  // The bytes of buffer() the elements cover, [begin, end) from the
  // buffer's start: from the lowest element (negative strides reach below
  // byte_offset()) to the end of the highest, gaps between them included.
  // {byte_offset(), byte_offset()} for a tensor with no elements. Make and
  // Wrap have checked that it lies inside the buffer, so it never overflows.
  Range ByteSpan() const;

  // Row-major with no gaps (size-1 axes may have any stride).
  bool IsContiguous() const;
  // Column-major (Fortran order) with no gaps, the same way.
  bool IsColumnMajor() const;
  // A row-major copy with the same shape, type and dim_names.
  Result<Tensor> ToContiguous() const;
  // The elements written row-major to `out` (a NumPy array's memory, a
  // pinned staging buffer), which must hold exactly size() * byte_width
  // bytes: one strided copy, nothing allocated.
  Status CopyToRowMajor(void* out, int64_t out_bytes) const;

  // NumPy basic indexing: a view of the elements `index` selects, sharing
  // this tensor's buffer (nothing is copied or read, so views of device
  // memory work too). Strides of sliced axes are multiplied by the step
  // (negative for a negative step; an axis left with at most one position
  // keeps its stride, never followed); axes taken by an integer are dropped
  // with their dim names; sliced axes keep their names and new axes are
  // named "" (when the tensor has names). Fewer entries than axes leave the
  // trailing axes whole. Errors: IndexError for an integer out of range
  // ("index 5 is out of bounds for axis 1 with size 4"), more integers and
  // slices than axes, or two ellipses; Invalid for a zero step.
  Result<Tensor> View(std::span<const TensorIndex> index) const;
  Result<Tensor> View(std::initializer_list<TensorIndex> index) const {
    return View(std::span<const TensorIndex>(index.begin(), index.size()));
  }

  // Address of the element at `index`, or IndexError naming the axis.
  Result<const uint8_t*> ElementPointer(std::span<const int64_t> index) const;

  // The element at `index` as C type T; TypeError unless T matches type().
  template <typename T>
  Result<T> Value(std::span<const int64_t> index) const {
    if (sizeof(T) != static_cast<size_t>(type_->byte_width()) || !MatchesCType<T>()) {
      return Status::TypeError("tensor holds " + type_->ToString() + ", not the requested C type");
    }
    QUIVER_ASSIGN_OR_RETURN(const uint8_t* ptr, ElementPointer(index));
    T out;
    std::memcpy(&out, ptr, sizeof(T));
    return out;
  }

  // Same type, shape and element values (strides, names and buffers may
  // differ). Floats compare by value: NaN != NaN, -0.0 == 0.0. Tensors
  // in device memory compare equal only when empty.
  bool Equals(const Tensor& other) const;

  // OK for CPU memory; NotImplemented for memory on another device, which
  // quiver wraps and passes on but never dereferences.
  Status CheckOnHost() const;

 private:
  template <typename T>
  bool MatchesCType() const {
    if constexpr (std::is_floating_point_v<T>) return type_->is_floating();
    if constexpr (std::is_signed_v<T>) return type_->is_signed_integer();
    return type_->is_integer() && !type_->is_signed_integer();
  }

  Tensor(TypePtr type, BufferPtr buffer, Dims shape, Dims strides,
         std::vector<std::string> dim_names, int64_t byte_offset, int64_t size)
      : type_(std::move(type)),
        buffer_(std::move(buffer)),
        shape_(std::move(shape)),
        strides_(std::move(strides)),
        dim_names_(std::move(dim_names)),
        byte_offset_(byte_offset),
        size_(size) {}

  TypePtr type_;
  BufferPtr buffer_;
  Dims shape_;
  Dims strides_;
  std::vector<std::string> dim_names_;
  int64_t byte_offset_ = 0;
  int64_t size_ = 0;
};

// IEEE half to float, for float16 element access.
float HalfToFloat(uint16_t half);
// The value of a bfloat16, float8_e4m3fn or float8_e5m2 element from its
// bits (exact: every such value is a float); NaN for any other type.
float LowPrecisionFloatToFloat(const DataType& type, uint32_t bits);

}  // namespace quiver
