// C Data Interface export + import of a fixed_shape_tensor column, with
// validation levels: minimal is O(1); full walks validity bitmaps.
#include <benchmark/benchmark.h>

#include "quiver/c_data.h"
#include "quiver/fixed_shape_tensor.h"

namespace {

using namespace quiver;

FixedShapeTensorArray MakeColumn(int64_t rows) {
  BufferPtr buffer = *Buffer::Allocate(rows * 16 * 4);
  return *FixedShapeTensorArray::FromTensor(*Tensor::Make(float32(), buffer, {rows, 4, 4}));
}

void ExportImport(benchmark::State& state, ValidationLevel level) {
  FixedShapeTensorArray column = MakeColumn(state.range(0));
  for (auto _ : state) {
    ArrowSchema schema;
    ArrowArray array;
    (void)ExportType(*column.type().data_type(), &schema);
    (void)ExportArray(column.data(), &array);
    auto type = ImportType(&schema);
    auto data = ImportArray(&array, *type, level);
    benchmark::DoNotOptimize(data);
  }
}

void BM_CDataRoundTripMinimal(benchmark::State& state) {
  ExportImport(state, ValidationLevel::kMinimal);
}
void BM_CDataRoundTripFull(benchmark::State& state) { ExportImport(state, ValidationLevel::kFull); }
BENCHMARK(BM_CDataRoundTripMinimal)->RangeMultiplier(10)->Range(1000, 1000000);
BENCHMARK(BM_CDataRoundTripFull)->RangeMultiplier(10)->Range(1000, 1000000);

void BM_CDataExportOnly(benchmark::State& state) {
  FixedShapeTensorArray column = MakeColumn(state.range(0));
  for (auto _ : state) {
    ArrowArray array;
    (void)ExportArray(column.data(), &array);
    array.release(&array);
  }
}
BENCHMARK(BM_CDataExportOnly)->RangeMultiplier(10)->Range(1000, 1000000);

}  // namespace
