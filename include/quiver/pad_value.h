// PadValue: the value padded batches fill their padding with, as the
// caller wrote it (VariableShapeTensorArray::ToPadded, the loader's
// pad_value).
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

namespace quiver {

// A pad value as the caller wrote it: integers travel exactly (int64 or
// uint64), so 2^53 + 1 pads int64 data with 2^53 + 1; floating-point
// values as double.
class PadValue {
 public:
  enum class Kind { kInt64, kUInt64, kDouble };
  template <typename T>
  requires std::is_arithmetic_v<T> PadValue(
      T value) {  // NOLINT: implicit, so ToPadded(0) and ToPadded(0.5) read naturally
    if constexpr (std::is_floating_point_v<T>) {
      kind_ = Kind::kDouble;
      double_ = static_cast<double>(value);
    } else if constexpr (std::is_signed_v<T>) {
      kind_ = Kind::kInt64;
      int64_ = static_cast<int64_t>(value);
    } else {
      kind_ = Kind::kUInt64;
      uint64_ = static_cast<uint64_t>(value);
    }
  }
  Kind kind() const { return kind_; }
  int64_t int64_value() const { return int64_; }
  uint64_t uint64_value() const { return uint64_; }
  double double_value() const { return double_; }
  // The value as written: "9007199254740993", "0.5".
  std::string ToString() const;

 private:
  Kind kind_ = Kind::kInt64;
  int64_t int64_ = 0;
  uint64_t uint64_ = 0;
  double double_ = 0;
};

}  // namespace quiver
