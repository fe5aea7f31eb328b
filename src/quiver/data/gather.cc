#include "quiver/data/gather.h"

#include <algorithm>
#include <cstring>

#include "quiver/fixed_shape_tensor.h"
#include "quiver/internal/checked_math.h"
#include "quiver/internal/padding.h"
#include "quiver/internal/permutation.h"
#include "quiver/internal/strided_copy.h"
#include "quiver/internal/threads.h"
#include "quiver/variable_shape_tensor.h"

namespace quiver::data {

namespace {

constexpr int64_t kBytesPerThread = int64_t{256} << 10;

bool IsExtension(const DataType& type, const char* name) {
  return type.id() == TypeId::kExtension && type.extension_name() == name;
}

Status Unsupported(const Field& field) {
  return Status::TypeError("column '", field.name, "' has type ", field.type->ToString(),
                           ": the reader reads numeric, bool, fixed_size_list<numeric>, "
                           "fixed_shape_tensor and variable_shape_tensor columns (leave it out "
                           "with columns=)");
}

}  // namespace

bool ExceedsBatchBytes(const GatherContext& context, int64_t bytes) {
  const int64_t used = context.batch_bytes ? *context.batch_bytes : 0;
  return bytes > context.max_batch_bytes - used;
}

Result<Tensor> MakeOutput(const GatherContext& context, Dims shape, const TypePtr& type) {
  QUIVER_ASSIGN_OR_RETURN(int64_t elements, internal::ShapeProduct(shape, "batch array"));
  QUIVER_ASSIGN_OR_RETURN(int64_t bytes,
                          internal::MultiplyChecked(elements, type->byte_width(), "batch array"));
  if (ExceedsBatchBytes(context, bytes)) {
    return Status::Invalid("an array of shape ", internal::FormatShape(shape), " (", bytes,
                           " bytes) would take the batch's arrays to more than max_batch_bytes (",
                           context.max_batch_bytes, ")");
  }
  if (context.batch_bytes) *context.batch_bytes += bytes;
  QUIVER_ASSIGN_OR_RETURN(BufferPtr buffer, context.pool->Acquire(bytes));
  return Tensor::Make(type, std::move(buffer), std::move(shape));
}

namespace {

// Numeric and bool8 values: one memcpy of `width` bytes per row.
Status GatherValues(const ColumnPlan& plan, std::span<const RowRef> rows,
                    const GatherContext& context, Batch* batch) {
  const int64_t n = static_cast<int64_t>(rows.size());
  QUIVER_ASSIGN_OR_RETURN(Tensor out, MakeOutput(context, {n}, plan.value_type));
  uint8_t* dst = out.buffer()->mutable_data();
  const int64_t width = plan.width;
  for (int64_t i = 0; i < n; ++i) {
    const ArrayData& column = *rows[i].batch->batch->column(plan.schema_index);
    const int64_t row = rows[i].row;
    if (plan.kind == ColumnKind::kBits) {
      bool bit = false;
      if (column.IsValid(row) && column.buffers[1]) {
        const int64_t at = column.offset + row;
        bit = (column.buffers[1]->data()[at >> 3] >> (at & 7)) & 1;
      }
      dst[i] = bit ? 1 : 0;
    } else if (!column.IsValid(row) || !column.buffers[1]) {
      std::memset(dst + i * width, 0, static_cast<size_t>(width));
    } else {
      std::memcpy(dst + i * width, column.buffers[1]->data() + (column.offset + row) * width,
                  static_cast<size_t>(width));
    }
  }
  batch->arrays.push_back({plan.name, std::move(out), {}, false});
  return Status::OK();
}

// Fixed-shape cells: a memcpy per cell, or a strided copy into logical
// order when the type has a permutation.
void CopyCells(const ColumnPlan& plan, std::span<const RowRef> rows, uint8_t* out, int64_t first,
               int64_t last) {
  const int64_t cell_bytes = plan.cell_elements * plan.width;
  std::vector<int64_t> src_strides, dst_strides;
  if (!plan.permutation.empty()) {
    src_strides = internal::LogicalStrides(plan.width, plan.physical_cell, plan.permutation);
    dst_strides.assign(plan.logical_cell.size(), plan.width);
    for (size_t k = plan.logical_cell.size(); k-- > 1;)
      dst_strides[k - 1] = dst_strides[k] * plan.logical_cell[k];
  }
  for (int64_t i = first; i < last; ++i) {
    uint8_t* dst = out + i * cell_bytes;
    // A fixed_shape_tensor column or a plain fixed_size_list: the same
    // storage (a fixed-size list of values).
    const ArrayData& storage = *rows[i].batch->batch->column(plan.position);
    const int64_t row = rows[i].row;
    const ArrayData& values = *storage.children[0];
    if (cell_bytes == 0) continue;
    if (!storage.IsValid(row) || !values.buffers[1]) {
      std::memset(dst, 0, static_cast<size_t>(cell_bytes));
      continue;
    }
    const uint8_t* src = values.buffers[1]->data() +
                         (values.offset + (storage.offset + row) * plan.cell_elements) * plan.width;
    if (plan.permutation.empty()) {
      std::memcpy(dst, src, static_cast<size_t>(cell_bytes));
    } else {
      internal::CopyStrided(src, src_strides, dst, dst_strides, plan.logical_cell, plan.width);
    }
  }
}

Status GatherFixed(const ColumnPlan& plan, std::span<const RowRef> rows,
                   const GatherContext& context, Batch* batch) {
  const int64_t n = static_cast<int64_t>(rows.size());
  std::vector<int64_t> full(plan.logical_cell);
  full.insert(full.begin(), n);
  QUIVER_ASSIGN_OR_RETURN(Tensor out, MakeOutput(context, Dims(full), plan.value_type));
  uint8_t* dst = out.buffer()->mutable_data();
  internal::ParallelRanges(
      n, context.threads, MinRowsPerThread(plan.cell_elements * plan.width),
      [&](int64_t first, int64_t last) { CopyCells(plan, rows, dst, first, last); });
  batch->arrays.push_back({plan.name, std::move(out), {}, false});
  return Status::OK();
}

}  // namespace

int64_t MinRowsPerThread(int64_t bytes_per_row) {
  return std::max<int64_t>(1, kBytesPerThread / std::max<int64_t>(bytes_per_row, 1));
}

Result<ColumnPlan> PlanColumn(const Field& field, int position, int schema_index,
                              const BatchReaderOptions& options) {
  ColumnPlan plan;
  plan.name = field.name;
  plan.position = position;
  plan.schema_index = schema_index;
  const DataType& type = *field.type;
  if (IsExtension(type, VariableShapeTensorType::kExtensionName)) {
    QUIVER_ASSIGN_OR_RETURN(VariableShapeTensorType ragged,
                            VariableShapeTensorType::FromDataType(field.type));
    plan.kind = ColumnKind::kRagged;
    plan.value_type = ragged.value_type();
    plan.width = plan.value_type->byte_width();
    plan.ndim = ragged.ndim();
    if (plan.width == 0) {
      return Status::NotImplemented("column '", field.name,
                                    "' holds bit-packed bool tensors, which the reader cannot "
                                    "batch (store them as bool8)");
    }
    if (options.ragged == RaggedLayout::kPadded) {
      Result<uint64_t> pad = internal::PadPattern(options.pad_value, *plan.value_type);
      if (!pad.ok()) {
        return Status::Invalid("column '", field.name, "': ", pad.status().message());
      }
      plan.pad_pattern = *pad;
    }
    return plan;
  }
  if (IsExtension(type, FixedShapeTensorType::kExtensionName)) {
    QUIVER_ASSIGN_OR_RETURN(FixedShapeTensorType fixed,
                            FixedShapeTensorType::FromDataType(field.type));
    plan.kind = ColumnKind::kFixed;
    plan.value_type = fixed.value_type();
    plan.width = plan.value_type->byte_width();
    if (plan.width == 0) {
      return Status::NotImplemented("column '", field.name,
                                    "' holds bit-packed bool tensors, which the reader cannot "
                                    "batch (store them as bool8)");
    }
    plan.physical_cell = fixed.shape();
    plan.permutation = fixed.permutation();
    plan.logical_cell = internal::ToLogical(plan.physical_cell, plan.permutation);
    plan.cell_elements = fixed.list_size();
    return plan;
  }
  if (type.id() == TypeId::kFixedSizeList && type.children()[0].type->is_tensor_value()) {
    // A plain fixed_size_list<numeric, k> (an embedding column): (B, k).
    plan.kind = ColumnKind::kFixed;
    plan.value_type = type.children()[0].type;
    plan.width = plan.value_type->byte_width();
    if (plan.width == 0) {
      return Status::NotImplemented("column '", field.name,
                                    "' holds bit-packed bool lists, which the reader cannot "
                                    "batch (store them as uint8)");
    }
    plan.physical_cell = {type.fixed_size()};
    plan.logical_cell = plan.physical_cell;
    plan.cell_elements = type.fixed_size();
    return plan;
  }
  if (type.id() == TypeId::kBool) {
    plan.kind = ColumnKind::kBits;
    plan.value_type = bool8();
    plan.width = 1;
    return plan;
  }
  if (type.is_tensor_value()) {
    plan.kind = ColumnKind::kValues;
    plan.value_type = field.type;
    plan.width = type.byte_width();
    return plan;
  }
  return Unsupported(field);
}

std::vector<std::string> OutputNames(const ColumnPlan& plan, RaggedLayout ragged) {
  if (plan.kind != ColumnKind::kRagged || ragged == RaggedLayout::kList) return {plan.name};
  if (ragged == RaggedLayout::kPadded) return {plan.name, plan.name + "_shape"};
  return {plan.name, plan.name + "_offsets", plan.name + "_shape"};
}

Status GatherColumn(const ColumnPlan& plan, std::span<const RowRef> rows,
                    const GatherContext& context, Batch* batch) {
  switch (plan.kind) {
    case ColumnKind::kValues:
    case ColumnKind::kBits: return GatherValues(plan, rows, context, batch);
    case ColumnKind::kFixed: return GatherFixed(plan, rows, context, batch);
    case ColumnKind::kRagged: break;
  }
  return GatherRagged(plan, rows, context, batch);
}

}  // namespace quiver::data
