// Variable-shape tensor columns: building from tensors, padding, row views
// and take, on ragged rows of 3 x [8..64] x [8..64] float32. A memcpy of the
// same bytes into fresh memory is the bound measured in the same run.
#include <benchmark/benchmark.h>

#include <cstring>
#include <random>

#include "quiver/variable_shape_tensor.h"

namespace {

using namespace quiver;

std::vector<std::optional<Tensor>> RaggedRows(int64_t rows) {
  std::mt19937 rng(0);
  std::uniform_int_distribution<int64_t> size(8, 64);
  std::vector<std::optional<Tensor>> out;
  for (int64_t i = 0; i < rows; ++i) {
    std::vector<int64_t> shape = {3, size(rng), size(rng)};
    BufferPtr buffer = *Buffer::Allocate(shape[0] * shape[1] * shape[2] * 4);
    out.emplace_back(*Tensor::Make(float32(), buffer, shape));
  }
  return out;
}

int64_t TotalBytes(const std::vector<std::optional<Tensor>>& rows) {
  int64_t bytes = 0;
  for (const auto& row : rows) bytes += row->size() * 4;
  return bytes;
}

const VariableShapeTensorType& Float32Type() {
  static const VariableShapeTensorType type = *VariableShapeTensorType::Make(float32(), 3);
  return type;
}

void BM_FromTensors(benchmark::State& state) {
  auto rows = RaggedRows(state.range(0));
  for (auto _ : state) {
    auto array = VariableShapeTensorArray::FromTensors(Float32Type(), rows);
    benchmark::DoNotOptimize(array);
  }
  state.SetBytesProcessed(state.iterations() * TotalBytes(rows));
}
BENCHMARK(BM_FromTensors)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

void BM_ToPadded(benchmark::State& state) {
  auto array = *VariableShapeTensorArray::FromTensors(Float32Type(), RaggedRows(state.range(0)));
  for (auto _ : state) {
    auto padded = array.ToPadded(0);
    benchmark::DoNotOptimize(padded);
  }
  state.SetBytesProcessed(state.iterations() * state.range(0) * 3 * 64 * 64 * 4);
}
BENCHMARK(BM_ToPadded)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

// Copying `bytes` into newly allocated memory: what any copying build pays.
void BM_FreshMemcpyBound(benchmark::State& state) {
  const int64_t bytes = TotalBytes(RaggedRows(state.range(0)));
  BufferPtr source = *Buffer::Allocate(bytes);
  for (auto _ : state) {
    BufferPtr out = *Buffer::AllocateUninitialized(bytes);
    std::memcpy(out->mutable_data(), source->data(), bytes);
    benchmark::DoNotOptimize(out);
  }
  state.SetBytesProcessed(state.iterations() * bytes);
}
BENCHMARK(BM_FreshMemcpyBound)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

void BM_RowTensor(benchmark::State& state) {
  auto array = *VariableShapeTensorArray::FromTensors(Float32Type(), RaggedRows(state.range(0)));
  int64_t i = 0;
  for (auto _ : state) {
    auto row = array.RowTensor(i);
    benchmark::DoNotOptimize(row);
    if (++i == array.length()) i = 0;
  }
}
BENCHMARK(BM_RowTensor)->Arg(1000)->Arg(10000);

void BM_TakeReversed(benchmark::State& state) {
  auto array = *VariableShapeTensorArray::FromTensors(Float32Type(), RaggedRows(state.range(0)));
  std::vector<int64_t> indices(array.length());
  for (int64_t i = 0; i < array.length(); ++i) indices[i] = array.length() - 1 - i;
  for (auto _ : state) {
    auto taken = array.Take(indices);
    benchmark::DoNotOptimize(taken);
  }
}
BENCHMARK(BM_TakeReversed)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

}  // namespace
