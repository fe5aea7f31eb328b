// Internal: calling a generic function with the C type of a tensor value
// type, instead of a switch over TypeId in every kernel.
#pragma once

#include <cstdint>
#include <type_traits>

#include "quiver/internal/low_precision_float.h"
#include "quiver/type.h"

namespace quiver::internal {

// IEEE half precision, carried as its bits.
struct Half {
  uint16_t bits;
};

// Calls fn(T{}) with T the C type of `type` (int8_t .. double, Half for
// float16, uint8_t for bool8, BFloat16 / Float8E4M3FN / Float8E5M2 for the
// low-precision floats, so no kernel mistakes their bits for integers) and
// returns what it returns; calls fallback() for the other types
// (bit-packed bool, strings, nested).
template <typename Fn, typename Fallback>
auto VisitValueType(const DataType& type, Fn&& fn, Fallback&& fallback) {
  if (type.id() == TypeId::kExtension) {
    if (type.is_bool8()) return fn(uint8_t{});
    if (type.is_bfloat16()) return fn(BFloat16{});
    if (type.is_float8_e4m3fn()) return fn(Float8E4M3FN{});
    if (type.is_float8_e5m2()) return fn(Float8E5M2{});
    return fallback();
  }
  switch (type.id()) {
    case TypeId::kInt8: return fn(int8_t{});
    case TypeId::kInt16: return fn(int16_t{});
    case TypeId::kInt32: return fn(int32_t{});
    case TypeId::kInt64: return fn(int64_t{});
    case TypeId::kUInt8: return fn(uint8_t{});
    case TypeId::kUInt16: return fn(uint16_t{});
    case TypeId::kUInt32: return fn(uint32_t{});
    case TypeId::kUInt64: return fn(uint64_t{});
    case TypeId::kFloat16: return fn(Half{});
    case TypeId::kFloat32: return fn(float{});
    case TypeId::kFloat64: return fn(double{});
    default: return fallback();
  }
}

}  // namespace quiver::internal
