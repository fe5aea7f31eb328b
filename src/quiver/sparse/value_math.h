// Internal: the arithmetic sparse kernels do on values, per C type of a
// tensor value type (internal::VisitValueType): the zero test and the sum
// of duplicates.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "quiver/internal/value_types.h"
#include "quiver/tensor.h"

namespace quiver::sparse {

// arrow.bool8 values: one byte, 0 false, anything else true. Sparse
// kernels see them as this type, not as uint8, so sums become "or" and
// comparisons compare truth.
struct Bool8 {
  uint8_t byte;
};

// Calls fn(T{}) with T the C type of a tensor value type (Bool8 for bool8,
// internal::Half for float16, internal::BFloat16 and the float8 tags);
// nothing for other types, which sparse
// tensors cannot hold.
template <typename Fn>
void VisitSparseValueType(const DataType& type, Fn&& fn) {
  if (type.is_bool8()) {
    fn(Bool8{});
    return;
  }
  internal::VisitValueType(type, fn, [] {});
}

// float to IEEE half, rounding to nearest even (for summing float16).
uint16_t FloatToHalf(float value);

// Non-zero by value: -0.0 is zero, NaN is not; bool8 is any non-zero byte.
template <typename T>
inline bool IsNonZero(T v) {
  if constexpr (std::is_same_v<T, internal::Half>) {
    return (v.bits & 0x7FFF) != 0;
  } else if constexpr (internal::kIsLowFloat<T>) {
    // Every bit but the sign: -0.0 (the sign alone) is zero.
    constexpr unsigned kSign = 1u << (sizeof(v.bits) * 8 - 1);
    return (v.bits & ~kSign & 0xFFFFu) != 0;
  } else if constexpr (std::is_same_v<T, Bool8>) {
    return v.byte != 0;
  } else {
    return v != T{0};
  }
}

// a + b: integers wrap (computed unsigned, no undefined overflow), floats
// add in their precision (float16 through float; bfloat16 and float8 in
// float, rounded once to nearest even: internal::LowFloatFromDouble), bool8
// ors.
template <typename T>
inline T AddValues(T a, T b) {
  if constexpr (std::is_same_v<T, Bool8>) {
    return Bool8{static_cast<uint8_t>(a.byte | b.byte)};
  } else if constexpr (internal::kIsLowFloat<T>) {
    const double sum = static_cast<double>(internal::LowFloatToFloat(T::kFormat, a.bits)) +
                       internal::LowFloatToFloat(T::kFormat, b.bits);
    return T{static_cast<decltype(a.bits)>(internal::LowFloatFromDouble(T::kFormat, sum))};
  } else if constexpr (std::is_same_v<T, internal::Half>) {
    return internal::Half{FloatToHalf(HalfToFloat(a.bits) + HalfToFloat(b.bits))};
  } else if constexpr (std::is_floating_point_v<T>) {
    return a + b;
  } else {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  }
}

// Equal by value: floats compare as numbers (NaN != NaN, -0.0 == 0.0),
// integers exactly.
template <typename T>
inline bool ValuesEqual(T a, T b) {
  if constexpr (std::is_same_v<T, internal::Half>) {
    return HalfToFloat(a.bits) == HalfToFloat(b.bits);
  } else if constexpr (internal::kIsLowFloat<T>) {
    return internal::LowFloatToFloat(T::kFormat, a.bits) ==
           internal::LowFloatToFloat(T::kFormat, b.bits);
  } else if constexpr (std::is_same_v<T, Bool8>) {
    return (a.byte != 0) == (b.byte != 0);
  } else {
    return a == b;
  }
}

}  // namespace quiver::sparse
