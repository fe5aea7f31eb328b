// VariableShapeTensorArray take, filter and concat: every one is a list of
// row runs gathered into fresh storage.
#include <cstring>
#include <vector>

#include "quiver/extension/row_runs.h"
#include "quiver/extension/variable_shape_storage.h"
#include "quiver/internal/bitmap.h"
#include "quiver/internal/permutation.h"
#include "quiver/variable_shape_tensor.h"

namespace quiver {

namespace {

using internal::MutableAs;

using RowRun = internal::RowRun<VariableShapeTensorArray>;

Status CheckGatherable(const VariableShapeTensorArray& array) {
  QUIVER_RETURN_NOT_OK(internal::CheckDenseValues(array.type(), "gather"));
  const ArrayData& values = internal::VariableShapeStorage(array).values();
  if (values.buffers[0] && values.null_count != 0) {
    return Status::NotImplemented("cannot gather rows whose data may hold null elements");
  }
  return Status::OK();
}

// Elements [first, last) of the values child that one run copies.
struct RunExtent {
  int64_t first = 0;
  int64_t last = 0;
};

Result<VariableShapeTensorArray> GatherRuns(const VariableShapeTensorType& type,
                                            std::span<const RowRun> runs) {
  int64_t rows = 0;
  bool any_nulls = false;
  for (const RowRun& run : runs) {
    QUIVER_RETURN_NOT_OK(CheckGatherable(*run.source));
    rows += run.end - run.begin;
    const ArrayData& data = *run.source->data();
    any_nulls = any_nulls || (data.buffers[0] && data.null_count != 0);
  }
  const int ndim = type.ndim();
  internal::VariableShapeParts parts;
  parts.length = rows;
  QUIVER_ASSIGN_OR_RETURN(parts.offsets, Buffer::Allocate((rows + 1) * 4));
  QUIVER_ASSIGN_OR_RETURN(parts.shapes, Buffer::Allocate(rows * ndim * 4));
  if (any_nulls) {
    QUIVER_ASSIGN_OR_RETURN(parts.validity, Buffer::Allocate(internal::BitmapBytes(rows)));
  }
  // Pass 1: every row's offsets are read once and checked against its
  // values, each valid row's shape against its length (the copy keeps both
  // as stored, so the output is as valid as Make(kFull) would want), the
  // output offsets, shapes and validity are written, and each run's extent
  // is recorded. Pass 2 copies exactly those extents.
  int32_t* offsets = MutableAs<int32_t>(parts.offsets);
  std::vector<RunExtent> extents;
  extents.reserve(runs.size());
  std::vector<int64_t> run_offsets;
  int64_t row = 0, total = 0;
  for (const RowRun& run : runs) {
    const internal::VariableShapeStorage storage(*run.source);
    run_offsets.resize(static_cast<size_t>(run.end - run.begin + 1));
    QUIVER_RETURN_NOT_OK(storage.CheckedOffsets(run.begin, run.end, run_offsets));
    const int64_t first = run_offsets.front();
    for (int64_t i = run.begin; i < run.end; ++i, ++row) {
      if (run.source->IsValid(i)) QUIVER_RETURN_NOT_OK(storage.CheckedRow(i));
      offsets[row] =
          static_cast<int32_t>(total + run_offsets[static_cast<size_t>(i - run.begin)] - first);
      if (ndim > 0)
        std::memcpy(MutableAs<int32_t>(parts.shapes) + row * ndim, storage.PhysicalShape(i).data(),
                    ndim * 4);
      if (!parts.validity) continue;
      if (run.source->IsValid(i)) {
        internal::SetBit(parts.validity->mutable_data(), row);
      } else {
        ++parts.null_count;
      }
    }
    const int64_t base = storage.values().offset;
    extents.push_back({base + first, base + run_offsets.back()});
    total += run_offsets.back() - first;
    QUIVER_RETURN_NOT_OK(internal::CheckListCapacity(total));
  }
  offsets[rows] = static_cast<int32_t>(total);
  const int64_t width = type.value_type()->byte_width();
  QUIVER_ASSIGN_OR_RETURN(BufferPtr values, Buffer::AllocateUninitialized(total * width));
  int64_t position = 0;
  for (size_t r = 0; r < runs.size(); ++r) {
    const int64_t count = extents[r].last - extents[r].first;
    if (count == 0) continue;
    const BufferPtr& source = internal::VariableShapeStorage(*runs[r].source).values().buffers[1];
    std::memcpy(values->mutable_data() + position * width,
                source->data() + extents[r].first * width, count * width);
    position += count;
  }
  parts.values = internal::MakeFlatArray(type.value_type(), total, std::move(values));
  return internal::Assemble(type, std::move(parts), ValidationLevel::kNone);
}

// uniform_shape of a concatenation: an axis keeps its size only where every
// input records the same one; nothing is recorded if an input records none.
UniformShape MergeUniformShapes(std::span<const VariableShapeTensorArray> arrays) {
  UniformShape merged = arrays[0].type().uniform_shape();
  for (const VariableShapeTensorArray& array : arrays) {
    const UniformShape& other = array.type().uniform_shape();
    if (other.empty()) return {};
    for (size_t k = 0; k < merged.size(); ++k) {
      if (merged[k] != other[k]) merged[k].reset();
    }
  }
  return merged;
}

}  // namespace

Result<VariableShapeTensorArray> VariableShapeTensorArray::Take(
    std::span<const int64_t> indices) const {
  QUIVER_ASSIGN_OR_RETURN(auto runs, internal::TakeRuns(*this, indices));
  return GatherRuns(type_, runs);
}

Result<VariableShapeTensorArray> VariableShapeTensorArray::Filter(
    std::span<const uint8_t> mask) const {
  QUIVER_ASSIGN_OR_RETURN(auto runs, internal::FilterRuns(*this, mask));
  return GatherRuns(type_, runs);
}

Result<VariableShapeTensorArray> VariableShapeTensorArray::Concat(
    std::span<const VariableShapeTensorArray> arrays) {
  if (arrays.empty()) return Status::Invalid("concat needs at least one array");
  const VariableShapeTensorType& first = arrays[0].type();
  for (size_t a = 0; a < arrays.size(); ++a) {
    const VariableShapeTensorType& type = arrays[a].type();
    if (!type.value_type()->Equals(*first.value_type()) || type.ndim() != first.ndim() ||
        type.dim_names() != first.dim_names() ||
        !internal::SamePermutation(type.permutation(), first.permutation())) {
      return Status::TypeError("cannot concat array ", std::to_string(a), " (", type.ToString(),
                               ") with array 0 (", first.ToString(),
                               "): value type, ndim, dim_names and permutation must match");
    }
  }
  QUIVER_ASSIGN_OR_RETURN(VariableShapeTensorType merged,
                          first.WithUniformShape(MergeUniformShapes(arrays)));
  return GatherRuns(merged, internal::ConcatRuns(arrays));
}

}  // namespace quiver
