// enforce_shape: one tensor shape per call, and a ragged column of 10^6
// rows (3 x [1..4] x [1..4]) whose two varying axes bind per-row sizes.
// The bound for the column is a plain loop reading the same shape buffer,
// measured in the same run; the `x_read_loop` counter is the ratio.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <random>

#include "quiver/shape_pattern.h"

namespace {

using namespace quiver;

VariableShapeTensorArray RaggedColumn(int64_t rows) {
  std::mt19937 rng(0);
  std::uniform_int_distribution<int32_t> size(1, 4);
  std::vector<int32_t> shapes(static_cast<size_t>(rows) * 3);
  int64_t elements = 0;
  for (int64_t i = 0; i < rows; ++i) {
    int32_t* s = &shapes[static_cast<size_t>(i) * 3];
    s[0] = 3, s[1] = size(rng), s[2] = size(rng);
    elements += int64_t{s[0]} * s[1] * s[2];
  }
  BufferPtr shape_buffer = *Buffer::Allocate(static_cast<int64_t>(shapes.size() * 4));
  std::memcpy(shape_buffer->mutable_data(), shapes.data(), shapes.size() * 4);
  Tensor shape_tensor = *Tensor::Make(int32(), shape_buffer, {rows, 3});
  Tensor values = *Tensor::Make(float32(), *Buffer::Allocate(elements * 4), {elements});
  auto type = *VariableShapeTensorType::Make(float32(), 3);
  return *VariableShapeTensorArray::FromJagged(type, values, shape_tensor);
}

// What reading the shape buffer costs: sum every entry of every row.
int64_t ReadLoop(const VariableShapeTensorArray& column) {
  // Shapes() is a zero-copy view of the storage without a permutation.
  const Tensor view = *column.Shapes();
  const auto* shapes = reinterpret_cast<const int32_t*>(view.raw_data());
  const int64_t n = column.length() * column.type().ndim();
  int64_t sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += shapes[i];
  return sum;
}

template <typename Fn>
double BestSeconds(Fn&& fn, int repeats) {
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    auto start = std::chrono::steady_clock::now();
    fn();
    best = std::min(
        best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

void BM_EnforceShapeTensorShape(benchmark::State& state) {
  const ShapePattern pattern = *ShapePattern::Parse("b h w 3");
  const std::vector<int64_t> shape = {8, 32, 32, 3};
  for (auto _ : state) {
    auto match = EnforceShape(shape, pattern);
    benchmark::DoNotOptimize(match);
  }
}
BENCHMARK(BM_EnforceShapeTensorShape);

void BM_EnforceShapeRaggedColumn(benchmark::State& state) {
  const VariableShapeTensorArray column = RaggedColumn(state.range(0));
  const ShapePattern pattern = *ShapePattern::Parse("n 3 h w");
  const int64_t shape_bytes = column.length() * 3 * 4;
  for (auto _ : state) {
    auto match = EnforceShape(column, pattern);
    if (!match.ok()) state.SkipWithError(match.status().ToString().c_str());
    benchmark::DoNotOptimize(match);
  }
  state.SetBytesProcessed(state.iterations() * shape_bytes);
  const double ours =
      BestSeconds([&] { benchmark::DoNotOptimize(EnforceShape(column, pattern)); }, 5);
  const double read = BestSeconds([&] { benchmark::DoNotOptimize(ReadLoop(column)); }, 5);
  state.counters["read_loop_ms"] = read * 1e3;
  state.counters["x_read_loop"] = ours / read;
}
BENCHMARK(BM_EnforceShapeRaggedColumn)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

// The bound: reading every entry of the same shape buffer once.
void BM_ShapeBufferReadLoop(benchmark::State& state) {
  const VariableShapeTensorArray column = RaggedColumn(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(ReadLoop(column));
  state.SetBytesProcessed(state.iterations() * column.length() * 3 * 4);
}
BENCHMARK(BM_ShapeBufferReadLoop)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

}  // namespace
