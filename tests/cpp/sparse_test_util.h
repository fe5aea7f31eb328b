// Helpers for the sparse tensor tests: small tensors from vectors, element
// reads of any type, a NaN-aware dense comparison, random dense tensors
// and empty COO tensors of any shape.
#pragma once

#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "quiver/internal/value_types.h"
#include "quiver/sparse_tensor.h"
#include "quiver/tensor.h"
#include "test_util.h"

namespace quiver::test {

template <typename T>
TypePtr DefaultTypeFor() {
  if constexpr (std::is_same_v<T, int8_t>) return int8();
  if constexpr (std::is_same_v<T, int16_t>) return int16();
  if constexpr (std::is_same_v<T, int32_t>) return int32();
  if constexpr (std::is_same_v<T, int64_t>) return int64();
  if constexpr (std::is_same_v<T, uint8_t>) return uint8();
  if constexpr (std::is_same_v<T, uint16_t>) return uint16();
  if constexpr (std::is_same_v<T, uint32_t>) return uint32();
  if constexpr (std::is_same_v<T, uint64_t>) return uint64();
  if constexpr (std::is_same_v<T, float>) return float32();
  if constexpr (std::is_same_v<T, double>) return float64();
}

// A tensor over a copy of `values` (C type T; `type` may be float16 or
// bool8 over uint16 / uint8 storage), row-major unless `strides` (bytes).
template <typename T>
Tensor Vec(const std::vector<T>& values, std::vector<int64_t> shape, TypePtr type = nullptr,
           std::vector<int64_t> strides = {}, std::vector<std::string> names = {}) {
  auto made = Tensor::Make(type ? type : DefaultTypeFor<T>(), BufferOf(values), std::move(shape),
                           std::move(strides), std::move(names));
  EXPECT_TRUE(made.ok()) << made.status().ToString();
  return *made;
}

// The element at `p` of `type` as double; float16, bfloat16, float8 and
// bool8 as their raw bits / byte (so tests can check exact results).
inline double ElementAt(const DataType& type, const uint8_t* p) {
  if (type.is_bool8()) return *p;
  return internal::VisitValueType(
      type,
      [p](auto tag) -> double {
        using T = decltype(tag);
        if constexpr (std::is_same_v<T, internal::Half>) {
          uint16_t bits;
          std::memcpy(&bits, p, 2);
          return bits;
        } else if constexpr (internal::kIsLowFloat<T>) {
          T v;
          std::memcpy(&v.bits, p, sizeof v.bits);
          return v.bits;
        } else {
          T v;
          std::memcpy(&v, p, sizeof v);
          return static_cast<double>(v);
        }
      },
      [] { return 0.0; });
}

// Every element in row-major order, converted to R.
template <typename R>
std::vector<R> Values(const Tensor& t) {
  std::vector<R> out;
  if (t.size() == 0) return out;
  std::vector<int64_t> index(static_cast<size_t>(t.ndim()), 0);
  for (int64_t n = 0; n < t.size(); ++n) {
    out.push_back(static_cast<R>(ElementAt(*t.type(), *t.ElementPointer(index))));
    for (int k = t.ndim() - 1; k >= 0; --k) {
      if (++index[k] < t.shape()[k]) break;
      index[k] = 0;
    }
  }
  return out;
}

inline double AsNumber(const DataType& type, const uint8_t* p) {
  if (type.id() == TypeId::kFloat16) {
    uint16_t bits;
    std::memcpy(&bits, p, 2);
    return HalfToFloat(bits);
  }
  if (type.is_bool8()) return *p != 0 ? 1 : 0;
  return ElementAt(type, p);
}

// Same type and shape, and each element equal by value or NaN on both sides.
inline bool SameValues(const Tensor& a, const Tensor& b) {
  if (!a.type()->Equals(*b.type()) || a.shape() != b.shape()) return false;
  std::vector<int64_t> index(static_cast<size_t>(a.ndim()), 0);
  for (int64_t n = 0; n < a.size(); ++n) {
    const double x = AsNumber(*a.type(), *a.ElementPointer(index));
    const double y = AsNumber(*b.type(), *b.ElementPointer(index));
    if (!(x == y || (std::isnan(x) && std::isnan(y)))) return false;
    for (int k = a.ndim() - 1; k >= 0; --k) {
      if (++index[k] < a.shape()[k]) break;
      index[k] = 0;
    }
  }
  return true;
}

inline bool HasNaN(const Tensor& t) {
  for (double v : Values<double>(t)) {
    if (t.type()->is_floating() && t.type()->id() != TypeId::kFloat16 && std::isnan(v)) return true;
    if (t.type()->id() == TypeId::kFloat16 && (static_cast<uint16_t>(v) & 0x7C00) == 0x7C00 &&
        (static_cast<uint16_t>(v) & 0x3FF) != 0) {
      return true;
    }
  }
  return false;
}

inline std::string ShapeString(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

class Random {
 public:
  explicit Random(uint64_t seed) : engine_(seed) {}
  int64_t Uniform(int64_t n) { return static_cast<int64_t>(engine_() % static_cast<uint64_t>(n)); }
  double Unit() { return static_cast<double>(engine_() >> 11) / 9007199254740992.0; }

 private:
  std::mt19937_64 engine_;
};

inline std::vector<int64_t> RandomPermutation(Random& rng, int n) {
  std::vector<int64_t> p(static_cast<size_t>(n));
  std::iota(p.begin(), p.end(), int64_t{0});
  for (int i = n - 1; i > 0; --i) std::swap(p[i], p[rng.Uniform(i + 1)]);
  return p;
}

// nullptr (smallest that fits) or a type that holds every index of a
// tensor of `shape` (nnz never exceeds the size).
inline TypePtr RandomIndexType(Random& rng, const std::vector<int64_t>& shape) {
  int64_t size = 1;
  for (int64_t d : shape) size *= d;
  switch (rng.Uniform(6)) {
    case 0: return int64();
    case 1: return int32();
    case 2: return uint32();
    case 3: return size <= 255 ? uint8() : uint16();
    case 4: return uint64();
    default: return nullptr;
  }
}

// A random dense tensor: 1..6 dimensions (zero-size ones included), every
// value type, density from empty to full, -0.0 and NaN among float
// values, laid out row-major, column-major or with gaps (every other
// element of a larger buffer).
inline Tensor RandomDense(Random& rng) {
  const TypePtr types[] = {int8(),   int16(),  int32(),   int64(),   uint8(),   uint16(),
                           uint32(), uint64(), float16(), float32(), float64(), bool8()};
  const TypePtr type = types[rng.Uniform(12)];
  const int ndim = 1 + static_cast<int>(rng.Uniform(6));
  std::vector<int64_t> shape;
  int64_t size = 1;
  for (int k = 0; k < ndim; ++k) {
    const int64_t d = rng.Uniform(20) == 0 ? 0 : 1 + rng.Uniform(ndim <= 2 ? 12 : 4);
    shape.push_back(d);
    size *= d;
  }
  const double densities[] = {0.0, 0.02, 0.2, 0.6, 1.0};
  const double density = densities[rng.Uniform(5)];
  const int64_t width = type->byte_width();
  const int layout = static_cast<int>(rng.Uniform(3));  // row-major, column-major, gaps
  const int64_t spread = layout == 2 ? 2 : 1;
  BufferPtr buffer = *Buffer::Allocate(std::max<int64_t>(size * width * spread, 1));
  std::vector<int64_t> strides(static_cast<size_t>(ndim));
  int64_t step = width * spread;
  for (int k = 0; k < ndim; ++k) {
    const int axis = layout == 1 ? k : ndim - 1 - k;
    strides[axis] = step;
    step *= std::max<int64_t>(shape[axis], 1);
  }
  Tensor t = *Tensor::Make(type, buffer, shape, strides);
  if (size == 0) return t;
  std::vector<int64_t> index(static_cast<size_t>(ndim), 0);
  for (int64_t n = 0; n < size; ++n) {
    uint8_t* p = const_cast<uint8_t*>(*t.ElementPointer(index));
    if (rng.Unit() < density) {
      const int64_t v = 1 + rng.Uniform(100);
      const int64_t special = rng.Uniform(10);
      internal::VisitValueType(
          *type,
          [&](auto tag) {
            using T = decltype(tag);
            if constexpr (std::is_same_v<T, internal::Half>) {
              const uint16_t bits = special == 0 ? 0x7E00 : static_cast<uint16_t>(0x3C00 + v);
              std::memcpy(p, &bits, 2);
            } else if constexpr (internal::kIsLowFloat<T>) {
              const double x = special == 0 ? std::numeric_limits<double>::quiet_NaN()
                                            : static_cast<double>(v) / 4;
              const auto bits =
                  static_cast<decltype(tag.bits)>(internal::LowFloatFromDouble(T::kFormat, x));
              std::memcpy(p, &bits, sizeof bits);
            } else if constexpr (std::is_floating_point_v<T>) {
              T x = special == 0 ? std::numeric_limits<T>::quiet_NaN() : static_cast<T>(v) / 4;
              std::memcpy(p, &x, sizeof x);
            } else {
              T x = static_cast<T>(std::is_signed_v<T> && special == 1 ? -v : v);
              std::memcpy(p, &x, sizeof x);
            }
          },
          [] {});
    } else if ((type->is_floating() || type->is_low_precision_float()) && rng.Uniform(3) == 0) {
      if (type->is_low_precision_float()) {  // -0.0: the sign bit alone
        const uint16_t bits = type->is_bfloat16() ? 0x8000 : 0x80;
        std::memcpy(p, &bits, static_cast<size_t>(type->byte_width()));
      } else if (type->id() == TypeId::kFloat16) {
        const uint16_t bits = 0x8000;  // -0.0
        std::memcpy(p, &bits, 2);
      } else if (type->id() == TypeId::kFloat32) {
        const float z = -0.0f;
        std::memcpy(p, &z, 4);
      } else {
        const double z = -0.0;
        std::memcpy(p, &z, 8);
      }
    }
    for (int k = ndim - 1; k >= 0; --k) {
      if (++index[k] < shape[k]) break;
      index[k] = 0;
    }
  }
  return t;
}

// A COO tensor of `shape` with no non-zeros (float32 values).
inline SparseTensor EmptyCOO(std::vector<int64_t> shape) {
  const int64_t ndim = static_cast<int64_t>(shape.size());
  auto made = SparseTensor::MakeCOO(std::move(shape), Vec<int64_t>({}, {0, ndim}),
                                    Vec<float>({}, {0}), true);
  EXPECT_TRUE(made.ok()) << made.status().ToString();
  return *made;
}

}  // namespace quiver::test
