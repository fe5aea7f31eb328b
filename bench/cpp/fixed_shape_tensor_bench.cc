// ToTensor / FromTensor cost against the rows in the column: both are views,
// so time should stay flat as rows grow. A memcpy of the same bytes is the
// peer measured in the same run.
#include <benchmark/benchmark.h>

#include <cstring>

#include "quiver/fixed_shape_tensor.h"

namespace {

using namespace quiver;

Tensor MakeTensor(int64_t rows) {
  BufferPtr buffer = *Buffer::Allocate(rows * 16 * 4);
  return *Tensor::Make(float32(), buffer, {rows, 4, 4});
}

void BM_FromTensor(benchmark::State& state) {
  Tensor t = MakeTensor(state.range(0));
  for (auto _ : state) {
    auto array = FixedShapeTensorArray::FromTensor(t);
    benchmark::DoNotOptimize(array);
  }
}
BENCHMARK(BM_FromTensor)->RangeMultiplier(10)->Range(1000, 1000000);

void BM_ToTensor(benchmark::State& state) {
  auto array = *FixedShapeTensorArray::FromTensor(MakeTensor(state.range(0)));
  for (auto _ : state) {
    auto tensor = array.ToTensor();
    benchmark::DoNotOptimize(tensor);
  }
}
BENCHMARK(BM_ToTensor)->RangeMultiplier(10)->Range(1000, 1000000);

// The copy a non-zero-copy library would make, for scale.
void BM_MemcpyPeer(benchmark::State& state) {
  Tensor t = MakeTensor(state.range(0));
  BufferPtr out = *Buffer::Allocate(t.buffer()->size());
  for (auto _ : state) {
    std::memcpy(out->mutable_data(), t.raw_data(), t.buffer()->size());
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_MemcpyPeer)->RangeMultiplier(10)->Range(1000, 1000000);

}  // namespace
