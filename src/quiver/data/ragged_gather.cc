// Variable-shape columns into a batch: padded to the batch's largest shape,
// jagged (flat values + offsets + shapes), or one view per row. The
// extension's own kernels pad or cut one array into a buffer of its own
// shape; a batch takes rows from many arrays (record batches, files) into
// one buffer sized by the rows it holds, through the same row copy
// (internal/padding.h), writing every output byte once (data or padding).
#include <algorithm>
#include <cstring>

#include "quiver/data/gather.h"
#include "quiver/extension/variable_shape_storage.h"
#include "quiver/internal/builders.h"
#include "quiver/internal/checked_math.h"
#include "quiver/internal/padding.h"
#include "quiver/internal/threads.h"
#include "quiver/variable_shape_tensor.h"

namespace quiver::data {

namespace {

// A row of a plain list<numeric> column as a 1-D view of its values
// (nullopt for a null row), its offsets checked against the values.
Result<std::optional<Tensor>> ListRowView(const ColumnPlan& plan, const RowRef& ref) {
  const ArrayData& column = *ref.batch->batch->column(plan.position);
  if (!ref.batch->RowValid(plan.position, ref.row)) return std::optional<Tensor>();
  const ArrayData& values = *column.children[0];
  QUIVER_ASSIGN_OR_RETURN(auto range, ListRowRange(column, ref.row, plan.large, values.length));
  QUIVER_RETURN_NOT_OK(internal::CheckNoNullElements(values, range.first, range.second));
  const BufferPtr& data = values.buffers[1];
  QUIVER_ASSIGN_OR_RETURN(
      Tensor view,
      Tensor::Make(plan.value_type, internal::BufferOrEmpty(data), {range.second - range.first}, {},
                   {}, data ? (values.offset + range.first) * plan.width : 0));
  return std::optional<Tensor>(std::move(view));
}

// Every row's logical view (nullopt for null rows), checked against its
// storage by RowTensor; errors name the file, record batch and row.
Result<std::vector<std::optional<Tensor>>> RowViews(const ColumnPlan& plan,
                                                    std::span<const RowRef> rows,
                                                    const GatherContext& context) {
  std::vector<std::optional<Tensor>> views(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    if (plan.list) {
      Result<std::optional<Tensor>> view = ListRowView(plan, rows[i]);
      if (!view.ok()) {
        return Status(view.status().code(), context.describe(rows[i]) + ", column '" + plan.name +
                                                "': " + view.status().message());
      }
      views[i] = std::move(*view);
      continue;
    }
    const VariableShapeTensorArray& array = *rows[i].batch->ragged[plan.position];
    if (!rows[i].batch->RowValid(plan.position, rows[i].row)) continue;
    Result<Tensor> view = array.RowTensor(rows[i].row);
    if (!view.ok()) {
      return Status(view.status().code(), context.describe(rows[i]) + ", column '" + plan.name +
                                              "': " + view.status().message());
    }
    views[i].emplace(std::move(*view));
  }
  return views;
}

// The error for a padded batch over max_batch_bytes: the rows that set
// each axis's extent, with their shapes.
Status PaddingTooLarge(const ColumnPlan& plan, std::span<const RowRef> rows,
                       const std::vector<std::optional<Tensor>>& views,
                       const std::vector<int64_t>& out_shape, int64_t bytes,
                       const GatherContext& context) {
  std::vector<size_t> setters;  // a row per axis, in row order
  for (size_t k = 1; k < out_shape.size(); ++k) {
    for (size_t i = 0; i < views.size(); ++i) {
      if (views[i] && views[i]->shape()[k - 1] == out_shape[k]) {
        setters.push_back(i);
        break;
      }
    }
  }
  std::sort(setters.begin(), setters.end());
  setters.erase(std::unique(setters.begin(), setters.end()), setters.end());
  std::string named;
  for (size_t i : setters) {
    named += (named.empty() ? "" : "; ") + context.describe(rows[i]) + " has shape " +
             internal::FormatShape(views[i]->shape());
  }
  return Status::Invalid("column '", plan.name, "': padding ", rows.size(),
                         " rows to their largest extents ", internal::FormatShape(out_shape),
                         " would take ", bytes, " bytes, more than max_batch_bytes (",
                         context.max_batch_bytes, ") allows; the rows setting the extents: ", named,
                         ". Group rows of similar shapes with bucket_by=, read the column with "
                         "ragged='jagged' (no padding), or raise max_batch_bytes");
}

Result<Tensor> ShapeOutput(const GatherContext& context, int64_t n, int ndim) {
  return MakeOutput(context, {n, ndim}, int32());
}

Status GatherPadded(const ColumnPlan& plan, std::span<const RowRef> rows,
                    const GatherContext& context, Batch* batch) {
  const int64_t n = static_cast<int64_t>(rows.size());
  const int ndim = plan.ndim;
  QUIVER_ASSIGN_OR_RETURN(std::vector<std::optional<Tensor>> views, RowViews(plan, rows, context));
  std::vector<int64_t> cell(static_cast<size_t>(ndim), 0);
  int64_t data_elements = 0;
  QUIVER_ASSIGN_OR_RETURN(Tensor shapes, ShapeOutput(context, n, ndim));
  int32_t* shape_out = reinterpret_cast<int32_t*>(shapes.buffer()->mutable_data());
  for (int64_t i = 0; i < n; ++i) {
    for (int k = 0; k < ndim; ++k) {
      const int64_t size = views[i] ? views[i]->shape()[k] : 0;
      shape_out[i * ndim + k] = static_cast<int32_t>(size);
      cell[k] = std::max(cell[k], size);
    }
    if (views[i]) data_elements += views[i]->size();
  }
  std::vector<int64_t> out_shape(cell);
  out_shape.insert(out_shape.begin(), n);
  QUIVER_ASSIGN_OR_RETURN(int64_t out_elements, internal::ShapeProduct(out_shape, "padded batch"));
  QUIVER_ASSIGN_OR_RETURN(int64_t out_bytes,
                          internal::MultiplyChecked(out_elements, plan.width, "padded batch"));
  if (ExceedsBatchBytes(context, out_bytes)) {
    return PaddingTooLarge(plan, rows, views, out_shape, out_bytes, context);
  }
  QUIVER_ASSIGN_OR_RETURN(Tensor out, MakeOutput(context, Dims(out_shape), plan.value_type));
  // Batch buffers are reused: zero padding is written too.
  const internal::PadFiller fill(plan.pad_pattern, plan.width, /*write_zeros=*/true);
  const internal::CellCopier copy(fill, plan.width, cell);
  const int64_t cell_bytes = copy.cell_bytes();
  uint8_t* dst = out.buffer()->mutable_data();
  internal::ParallelRanges(
      n, context.threads, MinRowsPerThread(cell_bytes), [&](int64_t first, int64_t last) {
        for (int64_t i = first; i < last; ++i) {
          uint8_t* row_out = dst + i * cell_bytes;
          if (!views[i] || views[i]->size() == 0) {
            copy.Copy(nullptr, nullptr, nullptr, row_out);  // all padding
            continue;
          }
          const Tensor& view = *views[i];
          copy.Copy(view.raw_data(), view.shape().data(), view.strides().data(), row_out);
        }
      });
  batch->padded_elements += out.size();
  batch->padding_elements += out.size() - data_elements;
  batch->arrays.push_back({plan.name, std::move(out), {}, false});
  batch->arrays.push_back({plan.name + "_shape", std::move(shapes), {}, false});
  return Status::OK();
}

Status GatherJagged(const ColumnPlan& plan, std::span<const RowRef> rows,
                    const GatherContext& context, Batch* batch) {
  const int64_t n = static_cast<int64_t>(rows.size());
  const int ndim = plan.ndim;
  QUIVER_ASSIGN_OR_RETURN(std::vector<std::optional<Tensor>> views, RowViews(plan, rows, context));
  QUIVER_ASSIGN_OR_RETURN(Tensor shapes, ShapeOutput(context, n, ndim));
  QUIVER_ASSIGN_OR_RETURN(Tensor offsets, MakeOutput(context, {n + 1}, int64()));
  int32_t* shape_out = reinterpret_cast<int32_t*>(shapes.buffer()->mutable_data());
  int64_t* offset_out = reinterpret_cast<int64_t*>(offsets.buffer()->mutable_data());
  const std::vector<int64_t>& permutation = plan.permutation;
  offset_out[0] = 0;
  for (int64_t i = 0; i < n; ++i) {
    for (int k = 0; k < ndim; ++k) {
      // Storage order: logical axis k is physical axis permutation[k].
      const int physical = permutation.empty() ? k : static_cast<int>(permutation[k]);
      shape_out[i * ndim + physical] = views[i] ? static_cast<int32_t>(views[i]->shape()[k]) : 0;
    }
    const int64_t size = views[i] ? views[i]->size() : 0;
    QUIVER_ASSIGN_OR_RETURN(offset_out[i + 1],
                            internal::AddChecked(offset_out[i], size, "jagged batch"));
  }
  QUIVER_ASSIGN_OR_RETURN(Tensor values, MakeOutput(context, {offset_out[n]}, plan.value_type));
  uint8_t* dst = values.buffer()->mutable_data();
  const int64_t width = plan.width;
  const int64_t mean_bytes = n > 0 ? offset_out[n] * width / n : 0;
  internal::ParallelRanges(n, context.threads, MinRowsPerThread(mean_bytes),
                           [&](int64_t first, int64_t last) {
                             for (int64_t i = first; i < last; ++i) {
                               if (!views[i] || views[i]->size() == 0) continue;
                               // A row view starts at its storage block,
                               // which is contiguous in physical order.
                               std::memcpy(dst + offset_out[i] * width, views[i]->raw_data(),
                                           static_cast<size_t>(views[i]->size() * width));
                             }
                           });
  batch->arrays.push_back({plan.name, std::move(values), {}, false});
  batch->arrays.push_back({plan.name + "_offsets", std::move(offsets), {}, false});
  batch->arrays.push_back({plan.name + "_shape", std::move(shapes), {}, false});
  return Status::OK();
}

}  // namespace

Status GatherRagged(const ColumnPlan& plan, std::span<const RowRef> rows,
                    const GatherContext& context, Batch* batch) {
  switch (context.ragged) {
    case RaggedLayout::kPadded: return GatherPadded(plan, rows, context, batch);
    case RaggedLayout::kJagged: return GatherJagged(plan, rows, context, batch);
    case RaggedLayout::kList: break;
  }
  QUIVER_ASSIGN_OR_RETURN(std::vector<std::optional<Tensor>> views, RowViews(plan, rows, context));
  batch->arrays.push_back({plan.name, Tensor(), std::move(views), true});
  return Status::OK();
}

}  // namespace quiver::data
