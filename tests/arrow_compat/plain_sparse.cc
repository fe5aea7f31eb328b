// Value decoding shared by both halves of the compatibility program.
#include <cmath>
#include <cstring>

#include "plain_sparse.h"

namespace compat {

int64_t WidthOf(const std::string& type) {
  if (type == "int8" || type == "uint8" || type == "bool8") return 1;
  if (type == "int16" || type == "uint16" || type == "float16") return 2;
  if (type == "int32" || type == "uint32" || type == "float32") return 4;
  return 8;
}

namespace {

template <typename T>
double Load(const uint8_t* bytes, int64_t i) {
  T value;
  std::memcpy(&value, bytes + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return static_cast<double>(value);
}

double HalfToDouble(uint16_t bits) {
  const int exponent = (bits >> 10) & 0x1f;
  const double mantissa = bits & 0x3ff;
  const double magnitude =
      exponent == 0 ? std::ldexp(mantissa, -24) : std::ldexp(1024 + mantissa, exponent - 25);
  return (bits & 0x8000) ? -magnitude : magnitude;
}

}  // namespace

double ValueAt(const std::string& type, const uint8_t* bytes, int64_t i) {
  if (type == "int8" || type == "bool8") return Load<int8_t>(bytes, i);
  if (type == "int16") return Load<int16_t>(bytes, i);
  if (type == "int32") return Load<int32_t>(bytes, i);
  if (type == "int64") return Load<int64_t>(bytes, i);
  if (type == "uint8") return Load<uint8_t>(bytes, i);
  if (type == "uint16") return Load<uint16_t>(bytes, i);
  if (type == "uint32") return Load<uint32_t>(bytes, i);
  if (type == "uint64") return Load<uint64_t>(bytes, i);
  if (type == "float16") return HalfToDouble(static_cast<uint16_t>(Load<uint16_t>(bytes, i)));
  if (type == "float32") return Load<float>(bytes, i);
  return Load<double>(bytes, i);
}

}  // namespace compat
