// VariableShapeTensorArray::ToPadded: every row copied into one dense
// batch, writing each output byte once (data or padding, never both).
#include <algorithm>
#include <cstring>
#include <utility>

#include "quiver/extension/variable_shape_storage.h"
#include "quiver/internal/checked_math.h"
#include "quiver/internal/padding.h"
#include "quiver/internal/permutation.h"
#include "quiver/internal/threads.h"
#include "quiver/variable_shape_tensor.h"

namespace quiver {

namespace {

// What pass 1 learns: where each row starts, its logical shape, the
// padded shape. Pass 2 (Fill) copies using only this.
struct PaddedPlan {
  uint64_t pattern = 0;
  int64_t width = 0;
  std::vector<int64_t> begins;     // per row; -1: nothing to copy
  std::vector<int64_t> cell;       // largest logical size per axis
  std::vector<int64_t> out_shape;  // (N, *cell)
  int64_t out_bytes = 0;
  BufferPtr shapes;  // N x ndim int32, logical
};

// A padded batch is a dense tensor of ndim + 1 dimensions; past this many
// no consumer takes it (NumPy's limit is 64). The type's ndim costs a type
// nothing, while a plan holds a few vectors of ndim entries: without the
// bound, an empty column of 2^31 - 1 dimensions asked for gigabytes.
constexpr int kMaxPaddedDims = 64;

// Pass 1 reads and checks every row once: its start in the values and its
// logical shape (zeros for null rows), and the largest size per axis.
Result<PaddedPlan> Plan(const VariableShapeTensorArray& array, const PadValue& pad_value) {
  const VariableShapeTensorType& type = array.type();
  QUIVER_RETURN_NOT_OK(internal::CheckDenseValues(type, "pad"));
  if (type.ndim() >= kMaxPaddedDims) {  // ndim + 1 dimensions, without overflowing
    return Status::NotImplemented("padding a variable_shape_tensor of ", type.ndim(),
                                  " dimensions: a padded batch (rows plus those dimensions) "
                                  "may have at most ",
                                  kMaxPaddedDims, " dimensions");
  }
  PaddedPlan plan;
  plan.width = type.value_type()->byte_width();
  QUIVER_ASSIGN_OR_RETURN(plan.pattern, internal::PadPattern(pad_value, *type.value_type()));
  const int ndim = type.ndim();
  const int64_t n = array.length();
  const internal::VariableShapeStorage storage(array);
  QUIVER_ASSIGN_OR_RETURN(plan.shapes, Buffer::Allocate(n * ndim * 4));
  int32_t* shapes = internal::MutableAs<int32_t>(plan.shapes);
  plan.begins.assign(static_cast<size_t>(n), -1);
  plan.cell.assign(static_cast<size_t>(ndim), 0);
  std::vector<int64_t> physical(static_cast<size_t>(ndim));
  for (int64_t i = 0; i < n; ++i) {
    if (!array.IsValid(i)) continue;
    QUIVER_ASSIGN_OR_RETURN(internal::RowRange range, storage.CheckedLayout(i, physical));
    QUIVER_RETURN_NOT_OK(internal::CheckNoNullElements(storage.values(), range.begin, range.end));
    if (range.size() > 0) plan.begins[i] = range.begin;
    for (int k = 0; k < ndim; ++k) {
      shapes[i * ndim + k] = static_cast<int32_t>(physical[type.physical_axis(k)]);
      plan.cell[k] = std::max<int64_t>(plan.cell[k], shapes[i * ndim + k]);
    }
  }
  plan.out_shape = plan.cell;
  plan.out_shape.insert(plan.out_shape.begin(), n);
  QUIVER_ASSIGN_OR_RETURN(int64_t out_elements,
                          internal::ShapeProduct(plan.out_shape, "padded batch"));
  QUIVER_ASSIGN_OR_RETURN(plan.out_bytes,
                          internal::MultiplyChecked(out_elements, plan.width, "padded batch"));
  return plan;
}

// Below this many output bytes one thread copies everything: starting a
// second one costs more than it saves.
constexpr int64_t kParallelBytes = int64_t{8} << 20;

// Pass 2: rows [first, last) into `out` (row-major over plan.out_shape).
void FillRows(const VariableShapeTensorArray& array, const PaddedPlan& plan, bool write_zeros,
              uint8_t* out, int64_t first, int64_t last) {
  const VariableShapeTensorType& type = array.type();
  const int ndim = type.ndim();
  const int64_t width = plan.width;
  const internal::PadFiller fill(plan.pattern, width, write_zeros);
  const internal::CellCopier copier(fill, width, plan.cell);
  const int64_t cell_bytes = copier.cell_bytes();
  const internal::VariableShapeStorage storage(array);
  const uint8_t* values =
      storage.values().buffers[1] ? storage.values().buffers[1]->data() : nullptr;
  const int32_t* shapes = reinterpret_cast<const int32_t*>(plan.shapes->data());
  std::vector<int64_t> logical(static_cast<size_t>(ndim)), physical(static_cast<size_t>(ndim));
  for (int64_t i = first; i < last; ++i) {
    uint8_t* dst = out + i * cell_bytes;
    if (plan.begins[i] < 0) {
      copier.Copy(nullptr, nullptr, nullptr, dst);  // all padding
      continue;
    }
    for (int k = 0; k < ndim; ++k) {
      logical[k] = shapes[i * ndim + k];
      physical[type.physical_axis(k)] = logical[k];
    }
    const std::vector<int64_t> strides =
        internal::LogicalStrides(width, physical, type.permutation());
    copier.Copy(values + plan.begins[i] * width, logical.data(), strides.data(), dst);
  }
}

// Rows go to the threads in pieces of about this many output bytes.
constexpr int64_t kPieceBytes = int64_t{2} << 20;

// Pass 2 over every row, on two threads when the batch is large. Rows are
// handed out in pieces, each to whichever thread is free: on a core shared
// with other work a thread falls behind, and a fixed half per thread made
// the whole copy wait for it (slower than one thread alone).
void Fill(const VariableShapeTensorArray& array, const PaddedPlan& plan, bool write_zeros,
          uint8_t* out) {
  const int64_t n = array.length();
  if (plan.out_bytes < kParallelBytes || n < 2)
    return FillRows(array, plan, write_zeros, out, 0, n);
  const int64_t pieces = std::min(n, plan.out_bytes / kPieceBytes);
  internal::RunQueueAll(pieces, 2, [&](int64_t p) {
    FillRows(array, plan, write_zeros, out, n * p / pieces, n * (p + 1) / pieces);
  });
}

}  // namespace

Result<VariableShapeTensorArray::Padded> VariableShapeTensorArray::ToPadded(
    PadValue pad_value, NullPolicy nulls) const {
  if (nulls == NullPolicy::kError) QUIVER_RETURN_NOT_OK(CheckNoNullRows());
  QUIVER_ASSIGN_OR_RETURN(PaddedPlan plan, Plan(*this, pad_value));
  // Zero padding needs no writes: a zeroed allocation of this size is
  // cheap (fresh pages from the OS), and only the data is then copied.
  QUIVER_ASSIGN_OR_RETURN(BufferPtr out, plan.pattern == 0
                                             ? Buffer::Allocate(plan.out_bytes)
                                             : Buffer::AllocateUninitialized(plan.out_bytes));
  Fill(*this, plan, /*write_zeros=*/false, out->mutable_data());
  std::vector<std::string> names = type_.logical_dim_names();
  if (!names.empty()) names.insert(names.begin(), "");
  const int64_t shape_rows[2] = {length(), type_.ndim()};
  QUIVER_ASSIGN_OR_RETURN(Tensor values_tensor, Tensor::Make(type_.value_type(), std::move(out),
                                                             plan.out_shape, {}, std::move(names)));
  QUIVER_ASSIGN_OR_RETURN(Tensor shapes_tensor, Tensor::Make(int32(), std::move(plan.shapes),
                                                             {shape_rows[0], shape_rows[1]}));
  return Padded{std::move(values_tensor), std::move(shapes_tensor)};
}

Result<Tensor> VariableShapeTensorArray::ToPaddedInto(uint8_t* out,
                                                      std::span<const int64_t> out_shape,
                                                      PadValue pad_value, NullPolicy nulls) const {
  if (nulls == NullPolicy::kError) QUIVER_RETURN_NOT_OK(CheckNoNullRows());
  QUIVER_ASSIGN_OR_RETURN(PaddedPlan plan, Plan(*this, pad_value));
  // Any cell at least as large as every row fits (chunked columns pad each
  // chunk into its rows of one batch padded to the largest of them all).
  bool fits = out_shape.size() == plan.out_shape.size() && out_shape[0] == plan.out_shape[0];
  for (size_t k = 1; fits && k < out_shape.size(); ++k) fits = out_shape[k] >= plan.out_shape[k];
  if (!fits) {
    return Status::Invalid("out has shape ", internal::FormatShape(out_shape),
                           " but the padded batch has shape ",
                           internal::FormatShape(plan.out_shape));
  }
  plan.cell.assign(out_shape.begin() + 1, out_shape.end());
  plan.out_shape.assign(out_shape.begin(), out_shape.end());
  QUIVER_ASSIGN_OR_RETURN(int64_t out_elements,
                          internal::ShapeProduct(plan.out_shape, "padded batch"));
  QUIVER_ASSIGN_OR_RETURN(plan.out_bytes,
                          internal::MultiplyChecked(out_elements, plan.width, "padded batch"));
  if (out == nullptr && plan.out_bytes > 0) return Status::Invalid("out has no memory");
  Fill(*this, plan, /*write_zeros=*/true, out);
  return Tensor::Make(int32(), std::move(plan.shapes), {length(), type_.ndim()});
}

}  // namespace quiver
