#include "quiver/data/gather.h"

#include <algorithm>
#include <cstring>

#include "quiver/fixed_shape_tensor.h"
#include "quiver/internal/checked_math.h"
#include "quiver/internal/padding.h"
#include "quiver/internal/permutation.h"
#include "quiver/internal/strided_copy.h"
#include "quiver/internal/threads.h"
#include "quiver/selection.h"
#include "quiver/variable_shape_tensor.h"

namespace quiver::data {

namespace {

constexpr int64_t kBytesPerThread = int64_t{256} << 10;

bool IsExtension(const DataType& type, const char* name) {
  return type.id() == TypeId::kExtension && type.extension_name() == name;
}

// The checks and the pad pattern every ragged column needs.
Result<ColumnPlan> FinishRagged(const Field& field, const BatchReaderOptions& options,
                                ColumnPlan* plan) {
  if (plan->width == 0) {
    return Status::NotImplemented("column '", field.name,
                                  "' holds bit-packed bools, which the reader cannot "
                                  "batch (store them as bool8 or uint8)");
  }
  if (options.ragged == RaggedLayout::kPadded) {
    Result<uint64_t> pad = internal::PadPattern(options.pad_value, *plan->value_type);
    if (!pad.ok()) {
      return Status::Invalid("column '", field.name, "': ", pad.status().message());
    }
    plan->pad_pattern = *pad;
  }
  return std::move(*plan);
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
  const int64_t array = context.arrays_made ? (*context.arrays_made)++ : 0;
  QUIVER_ASSIGN_OR_RETURN(BufferPtr buffer, context.pool->Acquire(bytes, array));
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
    const ArrayData& column = *rows[i].batch->batch->column(plan.position);
    const int64_t row = rows[i].row;
    const bool valid = rows[i].batch->RowValid(plan.position, row);
    if (plan.kind == ColumnKind::kBits) {
      bool bit = false;
      if (valid && column.buffers[1]) {
        const int64_t at = column.offset + row;
        bit = (column.buffers[1]->data()[at >> 3] >> (at & 7)) & 1;
      }
      dst[i] = bit ? 1 : 0;
    } else if (!valid || !column.buffers[1]) {
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
    if (!rows[i].batch->RowValid(plan.position, row) || !values.buffers[1]) {
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

Result<ColumnPlan> PlanColumn(const Field& field, int position, const BatchReaderOptions& options) {
  ColumnPlan plan;
  plan.name = field.name;
  plan.position = position;
  const DataType& type = *field.type;
  if (IsExtension(type, VariableShapeTensorType::kExtensionName)) {
    QUIVER_ASSIGN_OR_RETURN(VariableShapeTensorType ragged,
                            VariableShapeTensorType::FromDataType(field.type));
    plan.kind = ColumnKind::kRagged;
    plan.value_type = ragged.value_type();
    plan.width = plan.value_type->byte_width();
    plan.ndim = ragged.ndim();
    plan.permutation = ragged.permutation();
    return FinishRagged(field, options, &plan);
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
  if ((type.id() == TypeId::kList || type.id() == TypeId::kLargeList) &&
      type.children()[0].type->is_tensor_value()) {
    // A plain list<numeric>: a ragged column of 1-D rows.
    plan.kind = ColumnKind::kRagged;
    plan.list = true;
    plan.large = type.id() == TypeId::kLargeList;
    plan.value_type = type.children()[0].type;
    plan.width = plan.value_type->byte_width();
    plan.ndim = 1;
    return FinishRagged(field, options, &plan);
  }
  if (type.id() == TypeId::kUtf8 || type.id() == TypeId::kBinary ||
      type.id() == TypeId::kLargeUtf8 || type.id() == TypeId::kLargeBinary) {
    plan.kind = ColumnKind::kStrings;
    plan.utf8 = type.id() == TypeId::kUtf8 || type.id() == TypeId::kLargeUtf8;
    plan.large = type.id() == TypeId::kLargeUtf8 || type.id() == TypeId::kLargeBinary;
    plan.value_type = uint8();
    plan.width = 1;
    return plan;
  }
  switch (type.id()) {
    // Temporal columns: their integer values in the column's unit.
    case TypeId::kDate32:
    case TypeId::kTime32:
    case TypeId::kDate64:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
    case TypeId::kDuration: {
      const bool wide = type.byte_width() == 8;
      plan.kind = ColumnKind::kValues;
      plan.value_type = wide ? int64() : int32();
      plan.width = wide ? 8 : 4;
      return plan;
    }
    default: break;
  }
  if (type.id() == TypeId::kDictionary) {
    // The indices, as stored (the dictionary is given once: see
    // BatchReader::Dictionary).
    plan.kind = ColumnKind::kValues;
    plan.dictionary = true;
    plan.value_type = type.index_type();
    plan.width = plan.value_type->byte_width();
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
  // Nested lists, lists of strings, maps, unions, decimals, views ...: the
  // rows themselves, for the caller to turn into objects.
  plan.kind = ColumnKind::kObjects;
  plan.value_type = field.type;
  return plan;
}

Result<std::pair<int64_t, int64_t>> ListRowRange(const ArrayData& column, int64_t row, bool large,
                                                 int64_t values_length) {
  const int64_t at = column.offset + row;
  const int64_t width = large ? 8 : 4;
  const BufferPtr& offsets = column.buffers[1];
  if (!offsets || offsets->size() < (at + 2) * width) {
    return Status::Invalid("row ", row, ": the offsets buffer is too short");
  }
  int64_t begin = 0, end = 0;
  if (large) {
    std::memcpy(&begin, offsets->data() + at * 8, 8);
    std::memcpy(&end, offsets->data() + (at + 1) * 8, 8);
  } else {
    int32_t b = 0, e = 0;
    std::memcpy(&b, offsets->data() + at * 4, 4);
    std::memcpy(&e, offsets->data() + (at + 1) * 4, 4);
    begin = b;
    end = e;
  }
  if (begin < 0 || end < begin || end > values_length) {
    return Status::Invalid("row ", row, ": offsets [", begin, ", ", end,
                           ") lie outside the column's ", values_length, " values");
  }
  return std::make_pair(begin, end);
}

namespace {

// utf8 / binary rows: their bytes back to back ("name", uint8) and int64
// offsets from 0 ("name_offsets", B + 1); null rows are empty and marked
// in `rows_valid` (the Python layer gives None for them).
Status GatherStrings(const ColumnPlan& plan, std::span<const RowRef> rows,
                     const GatherContext& context, Batch* batch) {
  const int64_t n = static_cast<int64_t>(rows.size());
  std::vector<std::pair<const uint8_t*, int64_t>> pieces(rows.size(), {nullptr, 0});
  std::vector<uint8_t> valid(rows.size(), 0);
  QUIVER_ASSIGN_OR_RETURN(Tensor offsets, MakeOutput(context, {n + 1}, int64()));
  int64_t* offset_out = reinterpret_cast<int64_t*>(offsets.buffer()->mutable_data());
  offset_out[0] = 0;
  for (int64_t i = 0; i < n; ++i) {
    const ArrayData& column = *rows[i].batch->batch->column(plan.position);
    const int64_t row = rows[i].row;
    int64_t size = 0;
    if (rows[i].batch->RowValid(plan.position, row)) {
      const BufferPtr& data = column.buffers[2];
      const int64_t data_size = data ? data->size() : 0;
      Result<std::pair<int64_t, int64_t>> range = ListRowRange(column, row, plan.large, data_size);
      if (!range.ok()) {
        return Status(range.status().code(), context.describe(rows[i]) + ", column '" + plan.name +
                                                 "': " + range.status().message());
      }
      size = range->second - range->first;
      if (size > 0) pieces[static_cast<size_t>(i)] = {data->data() + range->first, size};
      valid[static_cast<size_t>(i)] = 1;
    }
    QUIVER_ASSIGN_OR_RETURN(offset_out[i + 1],
                            internal::AddChecked(offset_out[i], size, "string batch"));
  }
  QUIVER_ASSIGN_OR_RETURN(Tensor values, MakeOutput(context, {offset_out[n]}, uint8()));
  uint8_t* dst = values.buffer()->mutable_data();
  for (int64_t i = 0; i < n; ++i) {
    const auto& [src, size] = pieces[static_cast<size_t>(i)];
    if (size > 0) std::memcpy(dst + offset_out[i], src, static_cast<size_t>(size));
  }
  BatchArray array{plan.name, std::move(values), {}, false};
  array.strings = plan.utf8 ? BatchArray::Strings::kUtf8 : BatchArray::Strings::kBinary;
  array.offsets = std::move(offsets);
  array.valid = std::move(valid);
  batch->arrays.push_back(std::move(array));
  return Status::OK();
}

// Rows of a column without an array form of their own: taken from their
// record batches into one array of the column's type (a copy), with each
// row's validity (a struct's null row included) beside it.
Status GatherObjects(const ColumnPlan& plan, std::span<const RowRef> rows,
                     const GatherContext& context, Batch* batch) {
  std::vector<ArrayDataPtr> chunks;
  std::vector<const LoadedBatch*> owners;  // per chunk
  std::vector<int64_t> starts = {0};
  std::vector<int64_t> indices(rows.size());
  std::vector<uint8_t> valid(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const LoadedBatch* owner = rows[i].batch;
    size_t c = chunks.size();
    // Rows of one record batch tend to come together: the last chunk first.
    if (!owners.empty() && owners.back() == owner) {
      c = owners.size() - 1;
    } else {
      c = static_cast<size_t>(std::find(owners.begin(), owners.end(), owner) - owners.begin());
    }
    if (c == owners.size()) {
      chunks.push_back(owner->batch->column(plan.position));
      owners.push_back(owner);
      starts.push_back(starts.back() + chunks.back()->length);
    }
    indices[i] = starts[c] + rows[i].row;
    valid[i] = owner->RowValid(plan.position, rows[i].row) ? 1 : 0;
  }
  ArrayDataPtr taken;
  if (chunks.empty()) {
    QUIVER_ASSIGN_OR_RETURN(taken, MakeEmptyArray(plan.value_type));
  } else {
    Result<ArrayDataPtr> result = Take(chunks, indices);
    if (!result.ok()) {
      return Status(result.status().code(),
                    "column '" + plan.name + "': " + result.status().message());
    }
    taken = std::move(*result);
  }
  (void)context;
  BatchArray array{plan.name, Tensor(), {}, false};
  array.objects = std::move(taken);
  array.valid = std::move(valid);
  batch->arrays.push_back(std::move(array));
  return Status::OK();
}

}  // namespace

std::vector<std::string> OutputNames(const ColumnPlan& plan, RaggedLayout ragged) {
  std::vector<std::string> names = {plan.name};
  if (plan.kind == ColumnKind::kRagged && ragged == RaggedLayout::kPadded) {
    names.push_back(plan.name + "_shape");
  } else if (plan.kind == ColumnKind::kRagged && ragged == RaggedLayout::kJagged) {
    names.push_back(plan.name + "_offsets");
    names.push_back(plan.name + "_shape");
  }
  if (plan.valid_mask) names.push_back(plan.name + "_valid");
  return names;
}

namespace {

// "NAME_valid": 1 for the rows that are not null.
Status GatherValidMask(const ColumnPlan& plan, std::span<const RowRef> rows,
                       const GatherContext& context, Batch* batch) {
  const int64_t n = static_cast<int64_t>(rows.size());
  QUIVER_ASSIGN_OR_RETURN(Tensor out, MakeOutput(context, {n}, bool8()));
  uint8_t* dst = out.buffer()->mutable_data();
  for (int64_t i = 0; i < n; ++i) {
    dst[i] = rows[i].batch->RowValid(plan.position, rows[i].row) ? 1 : 0;
  }
  batch->arrays.push_back({plan.name + "_valid", std::move(out), {}, false});
  return Status::OK();
}

Status GatherArrays(const ColumnPlan& plan, std::span<const RowRef> rows,
                    const GatherContext& context, Batch* batch) {
  switch (plan.kind) {
    case ColumnKind::kValues:
    case ColumnKind::kBits: return GatherValues(plan, rows, context, batch);
    case ColumnKind::kFixed: return GatherFixed(plan, rows, context, batch);
    case ColumnKind::kStrings: return GatherStrings(plan, rows, context, batch);
    case ColumnKind::kObjects: return GatherObjects(plan, rows, context, batch);
    case ColumnKind::kRagged: break;
  }
  return GatherRagged(plan, rows, context, batch);
}

}  // namespace

Status GatherColumn(const ColumnPlan& plan, std::span<const RowRef> rows,
                    const GatherContext& context, Batch* batch) {
  QUIVER_RETURN_NOT_OK(GatherArrays(plan, rows, context, batch));
  return plan.valid_mask ? GatherValidMask(plan, rows, context, batch) : Status::OK();
}

}  // namespace quiver::data
