// Sparse tensors on 10^7-element float64 tensors at densities 10^-1, 10^-2
// and 10^-4 (the argument is -log10 of the density): dense to COO, CSR and
// CSF, COO to CSR, CSR to dense. BM_DenseReadBound reads the same dense
// tensor once, the memory-bandwidth bound the scans are held to.
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>

#include "quiver/sparse_tensor.h"

namespace {

using namespace quiver;

constexpr int64_t kRows = 1000, kCols = 10000;  // 10^7 elements

Tensor RandomDense(int64_t exponent, std::vector<int64_t> shape = {kRows, kCols}) {
  const double density = std::pow(10.0, -static_cast<double>(exponent));
  BufferPtr buffer = *Buffer::Allocate(kRows * kCols * 8);
  double* values = reinterpret_cast<double*>(buffer->mutable_data());
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int64_t i = 0; i < kRows * kCols; ++i)
    values[i] = unit(rng) < density ? 1.0 + unit(rng) : 0.0;
  return *Tensor::Make(float64(), buffer, std::move(shape));
}

void FromDense(benchmark::State& state, SparseFormat format, std::vector<int64_t> shape) {
  const Tensor dense = RandomDense(state.range(0), std::move(shape));
  for (auto _ : state) {
    auto sparse = SparseTensor::FromDense(dense, format);
    benchmark::DoNotOptimize(sparse);
  }
  state.SetBytesProcessed(state.iterations() * kRows * kCols * 8);
}

void BM_DenseToCOO(benchmark::State& state) {
  FromDense(state, SparseFormat::kCOO, {kRows, kCols});
}
void BM_DenseToCSR(benchmark::State& state) {
  FromDense(state, SparseFormat::kCSR, {kRows, kCols});
}
void BM_DenseToCSF3D(benchmark::State& state) {
  FromDense(state, SparseFormat::kCSF, {100, 100, 1000});
}
BENCHMARK(BM_DenseToCOO)->DenseRange(1, 2)->Arg(4)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DenseToCSR)->DenseRange(1, 2)->Arg(4)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DenseToCSF3D)->DenseRange(1, 2)->Arg(4)->Unit(benchmark::kMillisecond);

void BM_COOToCSR(benchmark::State& state) {
  const SparseTensor coo =
      *SparseTensor::FromDense(RandomDense(state.range(0)), SparseFormat::kCOO);
  for (auto _ : state) {
    auto csr = coo.ToCSR();
    benchmark::DoNotOptimize(csr);
  }
}
BENCHMARK(BM_COOToCSR)->DenseRange(1, 2)->Arg(4)->Unit(benchmark::kMillisecond);

void BM_CSRToDense(benchmark::State& state) {
  const SparseTensor csr =
      *SparseTensor::FromDense(RandomDense(state.range(0)), SparseFormat::kCSR);
  for (auto _ : state) {
    auto dense = csr.ToDense();
    benchmark::DoNotOptimize(dense);
  }
  state.SetBytesProcessed(state.iterations() * kRows * kCols * 8);
}
BENCHMARK(BM_CSRToDense)->DenseRange(1, 2)->Arg(4)->Unit(benchmark::kMillisecond);

void BM_DenseReadBound(benchmark::State& state) {
  const Tensor dense = RandomDense(1);
  // The bits or-ed together: vectorises, so only memory limits it.
  const uint64_t* words = reinterpret_cast<const uint64_t*>(dense.raw_data());
  for (auto _ : state) {
    uint64_t any = 0;
    for (int64_t i = 0; i < dense.size(); ++i) any |= words[i];
    benchmark::DoNotOptimize(any);
  }
  state.SetBytesProcessed(state.iterations() * kRows * kCols * 8);
}
BENCHMARK(BM_DenseReadBound)->Unit(benchmark::kMillisecond);

}  // namespace
