// Moving and summing sparse values: the gathers behind every conversion
// that reorders non-zeros, and the duplicate sums of canonicalisation.
#include <cstring>
#include <type_traits>

#include "quiver/internal/checked_math.h"
#include "quiver/sparse/sparse_internal.h"
#include "quiver/sparse/value_math.h"

namespace quiver::sparse {

namespace {

template <typename T>
void Gather(const uint8_t* src, uint8_t* dst, std::span<const int64_t> perm) {
  const T* in = reinterpret_cast<const T*>(src);
  T* out = reinterpret_cast<T*>(dst);
  for (size_t i = 0; i < perm.size(); ++i) out[i] = in[perm[i]];
}

template <typename T>
void GatherSum(const uint8_t* src, uint8_t* dst, std::span<const int64_t> perm,
               std::span<const int64_t> runs) {
  const T* in = reinterpret_cast<const T*>(src);
  T* out = reinterpret_cast<T*>(dst);
  for (size_t j = 0; j + 1 < runs.size(); ++j) {
    T acc = in[perm[runs[j]]];
    for (int64_t i = runs[j] + 1; i < runs[j + 1]; ++i) acc = AddValues(acc, in[perm[i]]);
    out[j] = acc;
  }
}

}  // namespace

Result<Tensor> GatherValues(const Tensor& values, std::span<const int64_t> perm,
                            std::span<const int64_t> sum_runs) {
  const int64_t n = sum_runs.empty() ? static_cast<int64_t>(perm.size())
                                     : static_cast<int64_t>(sum_runs.size()) - 1;
  const int64_t width = values.type()->byte_width();
  QUIVER_ASSIGN_OR_RETURN(int64_t bytes, internal::MultiplyChecked(n, width, "sparse values"));
  QUIVER_ASSIGN_OR_RETURN(BufferPtr out, Buffer::AllocateUninitialized(bytes));
  const uint8_t* src = values.raw_data();
  uint8_t* dst = out->mutable_data();
  VisitSparseValueType(*values.type(), [&](auto tag) {
    using T = decltype(tag);
    if (sum_runs.empty()) {
      Gather<T>(src, dst, perm);
    } else {
      GatherSum<T>(src, dst, perm, sum_runs);
    }
  });
  return MakeVector(values.type(), std::move(out), n);
}

}  // namespace quiver::sparse

namespace quiver::sparse {

uint16_t FloatToHalf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  const uint32_t sign = (bits >> 16) & 0x8000u;
  const uint32_t abs = bits & 0x7FFFFFFFu;
  if (abs >= 0x7F800000u) {  // inf or NaN (NaN keeps a mantissa bit)
    return static_cast<uint16_t>(sign | 0x7C00u | (abs > 0x7F800000u ? 0x200u : 0u));
  }
  if (abs >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // rounds past 65504
  if (abs < 0x38800000u) {  // half subnormal or zero: scale by 2^24 and round
    float magnitude;
    std::memcpy(&magnitude, &abs, 4);
    const float scaled = magnitude * 16777216.0f;
    // Round half to even with the current (default) rounding mode.
    const float rounded = __builtin_nearbyintf(scaled);
    return static_cast<uint16_t>(sign | static_cast<uint32_t>(rounded));
  }
  // Normal: rebias the exponent, round the 13 dropped mantissa bits to even.
  const uint32_t mantissa_lsb = (abs >> 13) & 1u;
  const uint32_t rounded = abs + 0xFFFu + mantissa_lsb;
  return static_cast<uint16_t>(sign | ((rounded - 0x38000000u) >> 13));
}

}  // namespace quiver::sparse
