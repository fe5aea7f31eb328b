// VariableShapeTensorArray::ToPadded: every row copied into one dense
// batch, writing each output byte once (data or padding, never both).
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <type_traits>
#include <utility>

#include "quiver/extension/variable_shape_storage.h"
#include "quiver/internal/checked_math.h"
#include "quiver/internal/permutation.h"
#include "quiver/internal/threads.h"
#include "quiver/internal/value_types.h"
#include "quiver/variable_shape_tensor.h"

namespace quiver {

namespace {

// float -> IEEE half bits when the value is exactly representable.
std::optional<uint16_t> ExactHalf(double value) {
  if (std::isnan(value)) return uint16_t{0x7e00};
  const uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  double magnitude = std::fabs(value);
  if (std::isinf(magnitude)) return static_cast<uint16_t>(sign | 0x7c00);
  if (magnitude == 0) return sign;
  int exponent = std::ilogb(magnitude);  // magnitude = m * 2^exponent, m in [1, 2)
  if (exponent > 15) return std::nullopt;
  double mantissa;
  uint16_t biased = 0;
  if (exponent >= -14) {
    mantissa = (std::ldexp(magnitude, -exponent) - 1.0) * 1024.0;
    biased = static_cast<uint16_t>(exponent + 15);
  } else {
    mantissa = std::ldexp(magnitude, 24);  // subnormal: magnitude / 2^-24
  }
  if (mantissa != std::floor(mantissa) || mantissa >= 1024) return std::nullopt;
  return static_cast<uint16_t>(sign | (biased << 10) | static_cast<uint16_t>(mantissa));
}

template <typename T>
std::optional<T> ExactInteger(double value) {
  if (value != std::floor(value)) return std::nullopt;  // NaN and fractions
  // Bounds as doubles: min is exact; max + 1 is a power of two, also exact.
  const double low = static_cast<double>(std::numeric_limits<T>::min());
  const double high = std::ldexp(1.0, std::numeric_limits<T>::digits);
  if (value < low || value >= high) return std::nullopt;
  return static_cast<T>(value);
}

// An integer in integer type T, when it fits.
template <typename T, typename V>
std::optional<T> FitInteger(V value) {
  if (!std::in_range<T>(value)) return std::nullopt;
  return static_cast<T>(value);
}

// An integer as a double, when the double holds it exactly.
template <typename V>
std::optional<double> ExactDouble(V value) {
  const double d = static_cast<double>(value);
  // 2^64 and 2^63 are exact doubles just past the ranges: no round trip.
  if (d >= std::ldexp(1.0, std::numeric_limits<V>::digits)) return std::nullopt;
  if (static_cast<V>(d) != value) return std::nullopt;
  return d;
}

template <typename T>
std::optional<uint64_t> Pattern(std::optional<T> value) {
  if (!value) return std::nullopt;
  uint64_t bits = 0;
  std::memcpy(&bits, &*value, sizeof(T));
  return bits;
}

// The bits of `pad_value` in floating-point type T, when exact.
template <typename T>
std::optional<uint64_t> FloatPattern(double pad_value) {
  if constexpr (std::is_same_v<T, internal::Half>) {
    return Pattern(ExactHalf(pad_value));
  } else if constexpr (std::is_same_v<T, float>) {
    const float f = static_cast<float>(pad_value);
    if (static_cast<double>(f) != pad_value && !std::isnan(pad_value)) return std::nullopt;
    return Pattern(std::optional<float>(f));
  } else {
    return Pattern(std::optional<double>(pad_value));
  }
}

// The bits of integer `value` in value type T, when exact.
template <typename T, typename V>
std::optional<uint64_t> IntegerPattern(V value) {
  if constexpr (std::is_same_v<T, internal::Half> || std::is_floating_point_v<T>) {
    std::optional<double> d = ExactDouble(value);
    if (!d) return std::nullopt;
    return FloatPattern<T>(*d);
  } else {
    return Pattern(FitInteger<T>(value));
  }
}

// The bytes of `pad_value` in `type` (little-endian in the low bytes).
Result<uint64_t> PadPattern(const PadValue& pad_value, const DataType& type) {
  std::optional<uint64_t> bits;
  if (type.is_bool8()) {
    const bool zero = pad_value.kind() == PadValue::Kind::kDouble  ? pad_value.double_value() == 0
                      : pad_value.kind() == PadValue::Kind::kInt64 ? pad_value.int64_value() == 0
                                                                   : pad_value.uint64_value() == 0;
    const bool one = pad_value.kind() == PadValue::Kind::kDouble  ? pad_value.double_value() == 1
                     : pad_value.kind() == PadValue::Kind::kInt64 ? pad_value.int64_value() == 1
                                                                  : pad_value.uint64_value() == 1;
    if (zero || one) bits = one ? 1 : 0;
  } else {
    bits = internal::VisitValueType(
        type,
        [&pad_value](auto tag) -> std::optional<uint64_t> {
          using T = decltype(tag);
          switch (pad_value.kind()) {
            case PadValue::Kind::kInt64: return IntegerPattern<T>(pad_value.int64_value());
            case PadValue::Kind::kUInt64: return IntegerPattern<T>(pad_value.uint64_value());
            case PadValue::Kind::kDouble: break;
          }
          if constexpr (std::is_same_v<T, internal::Half> || std::is_floating_point_v<T>) {
            return FloatPattern<T>(pad_value.double_value());
          } else {
            return Pattern(ExactInteger<T>(pad_value.double_value()));
          }
        },
        []() -> std::optional<uint64_t> { return std::nullopt; });
  }
  if (!bits) {
    return Status::Invalid("pad value " + pad_value.ToString() + " is not exactly " +
                           "representable as " + type.ToString());
  }
  return *bits;
}

// Writes `count` copies of a `width`-byte pattern; a zero pattern writes
// nothing, as the output buffer starts zeroed then.
class Filler {
 public:
  // `write_zeros`: the destination is not known to be zeroed.
  Filler(uint64_t pattern, int64_t width, bool write_zeros = false)
      : pattern_(pattern), width_(width), write_zeros_(write_zeros) {}

  void operator()(uint8_t* dst, int64_t count) const {
    if (count <= 0 || (pattern_ == 0 && !write_zeros_)) return;
    if (pattern_ == 0) {
      std::memset(dst, 0, static_cast<size_t>(count * width_));
      return;
    }
    switch (width_) {
      case 1: std::memset(dst, static_cast<int>(pattern_ & 0xff), count); break;
      case 2: Fill<uint16_t>(dst, count); break;
      case 4: Fill<uint32_t>(dst, count); break;
      default: Fill<uint64_t>(dst, count); break;
    }
  }

 private:
  template <typename T>
  void Fill(uint8_t* dst, int64_t count) const {
    const T value = static_cast<T>(pattern_);
    for (int64_t e = 0; e < count; ++e) std::memcpy(dst + e * sizeof(T), &value, sizeof(T));
  }

  uint64_t pattern_;
  int64_t width_;
  bool write_zeros_;
};

// One row into its padded cell: the row's (logical) block at the origin,
// padding everywhere else. Strides in bytes; `out_strides` row-major over
// `cell`.
struct PadCopier {
  const Filler& fill;
  int64_t width;
  const int64_t* cell;
  const int64_t* out_strides;

  void Copy(const uint8_t* src, const int64_t* shape, const int64_t* strides, uint8_t* dst,
            int axis, int ndim) const {
    if (axis == ndim) {
      std::memcpy(dst, src, width);
      return;
    }
    const int64_t rows = shape[axis];
    if (axis == ndim - 1) {
      if (strides[axis] == width) {
        if (rows > 0) std::memcpy(dst, src, rows * width);
      } else {
        for (int64_t j = 0; j < rows; ++j)
          std::memcpy(dst + j * width, src + j * strides[axis], width);
      }
    } else {
      for (int64_t j = 0; j < rows; ++j) {
        Copy(src + j * strides[axis], shape, strides, dst + j * out_strides[axis], axis + 1, ndim);
      }
    }
    // The rest of this axis is padding: whole sub-blocks.
    fill(dst + rows * out_strides[axis], (cell[axis] - rows) * (out_strides[axis] / width));
  }
};

// What pass 1 learns: where each row starts, its logical shape, the
// padded shape. Pass 2 (Fill) copies using only this.
struct PaddedPlan {
  uint64_t pattern = 0;
  int64_t width = 0;
  std::vector<int64_t> begins;     // per row; -1: nothing to copy
  std::vector<int64_t> cell;       // largest logical size per axis
  std::vector<int64_t> out_shape;  // (N, *cell)
  int64_t out_bytes = 0;
  BufferPtr shapes;  // N x ndim int32, logical
};

// A padded batch is a dense tensor of ndim + 1 dimensions; past this many
// no consumer takes it (NumPy's limit is 64). The type's ndim costs a type
// nothing, while a plan holds a few vectors of ndim entries: without the
// bound, an empty column of 2^31 - 1 dimensions asked for gigabytes.
constexpr int kMaxPaddedDims = 64;

// Pass 1 reads and checks every row once: its start in the values and its
// logical shape (zeros for null rows), and the largest size per axis.
Result<PaddedPlan> Plan(const VariableShapeTensorArray& array, const PadValue& pad_value) {
  const VariableShapeTensorType& type = array.type();
  QUIVER_RETURN_NOT_OK(internal::CheckDenseValues(type, "pad"));
  if (type.ndim() >= kMaxPaddedDims) {  // ndim + 1 dimensions, without overflowing
    return Status::NotImplemented("padding a variable_shape_tensor of ", type.ndim(),
                                  " dimensions: a padded batch (rows plus those dimensions) "
                                  "may have at most ",
                                  kMaxPaddedDims, " dimensions");
  }
  PaddedPlan plan;
  plan.width = type.value_type()->byte_width();
  QUIVER_ASSIGN_OR_RETURN(plan.pattern, PadPattern(pad_value, *type.value_type()));
  const int ndim = type.ndim();
  const int64_t n = array.length();
  const internal::VariableShapeStorage storage(array);
  QUIVER_ASSIGN_OR_RETURN(plan.shapes, Buffer::Allocate(n * ndim * 4));
  int32_t* shapes = internal::MutableAs<int32_t>(plan.shapes);
  plan.begins.assign(static_cast<size_t>(n), -1);
  plan.cell.assign(static_cast<size_t>(ndim), 0);
  std::vector<int64_t> physical(static_cast<size_t>(ndim));
  for (int64_t i = 0; i < n; ++i) {
    if (!array.IsValid(i)) continue;
    QUIVER_ASSIGN_OR_RETURN(internal::RowRange range, storage.CheckedLayout(i, physical));
    QUIVER_RETURN_NOT_OK(internal::CheckNoNullElements(storage.values(), range.begin, range.end));
    if (range.size() > 0) plan.begins[i] = range.begin;
    for (int k = 0; k < ndim; ++k) {
      shapes[i * ndim + k] = static_cast<int32_t>(physical[type.physical_axis(k)]);
      plan.cell[k] = std::max<int64_t>(plan.cell[k], shapes[i * ndim + k]);
    }
  }
  plan.out_shape = plan.cell;
  plan.out_shape.insert(plan.out_shape.begin(), n);
  QUIVER_ASSIGN_OR_RETURN(int64_t out_elements,
                          internal::ShapeProduct(plan.out_shape, "padded batch"));
  QUIVER_ASSIGN_OR_RETURN(plan.out_bytes,
                          internal::MultiplyChecked(out_elements, plan.width, "padded batch"));
  return plan;
}

// Below this many output bytes one thread copies everything: starting a
// second one costs more than it saves.
constexpr int64_t kParallelBytes = int64_t{8} << 20;

// Pass 2: rows [first, last) into `out` (row-major over plan.out_shape).
void FillRows(const VariableShapeTensorArray& array, const PaddedPlan& plan, bool write_zeros,
              uint8_t* out, int64_t first, int64_t last) {
  const VariableShapeTensorType& type = array.type();
  const int ndim = type.ndim();
  const int64_t width = plan.width;
  const Filler fill(plan.pattern, width, write_zeros);
  std::vector<int64_t> out_strides(static_cast<size_t>(ndim));
  int64_t stride = width;
  for (int k = ndim; k-- > 0;) {
    out_strides[k] = stride;
    stride *= plan.cell[k];
  }
  const int64_t cell_bytes = stride;
  const PadCopier copier{fill, width, plan.cell.data(), out_strides.data()};
  const internal::VariableShapeStorage storage(array);
  const uint8_t* values =
      storage.values().buffers[1] ? storage.values().buffers[1]->data() : nullptr;
  const int32_t* shapes = reinterpret_cast<const int32_t*>(plan.shapes->data());
  std::vector<int64_t> logical(static_cast<size_t>(ndim)), physical(static_cast<size_t>(ndim));
  for (int64_t i = first; i < last; ++i) {
    uint8_t* dst = out + i * cell_bytes;
    if (plan.begins[i] < 0 || cell_bytes == 0) {
      fill(dst, cell_bytes / width);
      continue;
    }
    for (int k = 0; k < ndim; ++k) {
      logical[k] = shapes[i * ndim + k];
      physical[type.physical_axis(k)] = logical[k];
    }
    const std::vector<int64_t> strides =
        internal::LogicalStrides(width, physical, type.permutation());
    copier.Copy(values + plan.begins[i] * width, logical.data(), strides.data(), dst, 0, ndim);
  }
}

// Pass 2 over every row, on two threads when the batch is large.
void Fill(const VariableShapeTensorArray& array, const PaddedPlan& plan, bool write_zeros,
          uint8_t* out) {
  const int64_t n = array.length();
  if (plan.out_bytes < kParallelBytes || n < 2)
    return FillRows(array, plan, write_zeros, out, 0, n);
  const int64_t half = n / 2;
  internal::RunOnThreads(2, [&](int w) {
    if (w == 0) {
      FillRows(array, plan, write_zeros, out, 0, half);
    } else {
      FillRows(array, plan, write_zeros, out, half, n);
    }
  });
}

}  // namespace

std::string PadValue::ToString() const {
  switch (kind_) {
    case Kind::kInt64: return std::to_string(int64_);
    case Kind::kUInt64: return std::to_string(uint64_);
    case Kind::kDouble: break;
  }
  char text[32];
  auto written = std::to_chars(text, text + sizeof(text), double_);
  return std::string(text, written.ptr);
}

Result<VariableShapeTensorArray::Padded> VariableShapeTensorArray::ToPadded(
    PadValue pad_value, NullPolicy nulls) const {
  if (nulls == NullPolicy::kError) QUIVER_RETURN_NOT_OK(CheckNoNullRows());
  QUIVER_ASSIGN_OR_RETURN(PaddedPlan plan, Plan(*this, pad_value));
  // Zero padding needs no writes: a zeroed allocation of this size is
  // cheap (fresh pages from the OS), and only the data is then copied.
  QUIVER_ASSIGN_OR_RETURN(BufferPtr out, plan.pattern == 0
                                             ? Buffer::Allocate(plan.out_bytes)
                                             : Buffer::AllocateUninitialized(plan.out_bytes));
  Fill(*this, plan, /*write_zeros=*/false, out->mutable_data());
  std::vector<std::string> names = type_.logical_dim_names();
  if (!names.empty()) names.insert(names.begin(), "");
  const int64_t shape_rows[2] = {length(), type_.ndim()};
  QUIVER_ASSIGN_OR_RETURN(Tensor values_tensor, Tensor::Make(type_.value_type(), std::move(out),
                                                             plan.out_shape, {}, std::move(names)));
  QUIVER_ASSIGN_OR_RETURN(Tensor shapes_tensor, Tensor::Make(int32(), std::move(plan.shapes),
                                                             {shape_rows[0], shape_rows[1]}));
  return Padded{std::move(values_tensor), std::move(shapes_tensor)};
}

Result<Tensor> VariableShapeTensorArray::ToPaddedInto(uint8_t* out,
                                                      std::span<const int64_t> out_shape,
                                                      PadValue pad_value, NullPolicy nulls) const {
  if (nulls == NullPolicy::kError) QUIVER_RETURN_NOT_OK(CheckNoNullRows());
  QUIVER_ASSIGN_OR_RETURN(PaddedPlan plan, Plan(*this, pad_value));
  // Any cell at least as large as every row fits (chunked columns pad each
  // chunk into its rows of one batch padded to the largest of them all).
  bool fits = out_shape.size() == plan.out_shape.size() && out_shape[0] == plan.out_shape[0];
  for (size_t k = 1; fits && k < out_shape.size(); ++k) fits = out_shape[k] >= plan.out_shape[k];
  if (!fits) {
    return Status::Invalid("out has shape " + internal::FormatShape(out_shape) +
                           " but the padded batch has shape " +
                           internal::FormatShape(plan.out_shape));
  }
  plan.cell.assign(out_shape.begin() + 1, out_shape.end());
  plan.out_shape.assign(out_shape.begin(), out_shape.end());
  QUIVER_ASSIGN_OR_RETURN(int64_t out_elements,
                          internal::ShapeProduct(plan.out_shape, "padded batch"));
  QUIVER_ASSIGN_OR_RETURN(plan.out_bytes,
                          internal::MultiplyChecked(out_elements, plan.width, "padded batch"));
  if (out == nullptr && plan.out_bytes > 0) return Status::Invalid("out has no memory");
  Fill(*this, plan, /*write_zeros=*/true, out);
  return Tensor::Make(int32(), std::move(plan.shapes), {length(), type_.ndim()});
}

}  // namespace quiver
