// FixedShapeTensorArray selection: take, filter, concat and null rows from
// a mask. Cells are whole byte blocks, so every kernel is a sequence of
// block copies plus validity bits.
#include <cstring>
#include <string>
#include <vector>

#include "quiver/extension/row_runs.h"
#include "quiver/fixed_shape_tensor.h"
#include "quiver/internal/bitmap.h"
#include "quiver/internal/builders.h"
#include "quiver/internal/checked_math.h"

namespace quiver {

namespace {

using RowRun = internal::RowRun<FixedShapeTensorArray>;

// Cells are whole bytes unless the value type is bit-packed bool.
Status CheckByteCells(const FixedShapeTensorType& type, const char* what) {
  if (type.value_type()->byte_width() == 0) {
    return Status::NotImplemented("cannot ", what, " a fixed_shape_tensor of ",
                                  type.value_type()->ToString(),
                                  " (bit-packed values); use arrow.bool8 for booleans");
  }
  return Status::OK();
}

// The rows of `runs` copied into one new array of `type`.
Result<FixedShapeTensorArray> GatherRuns(const FixedShapeTensorType& type,
                                         std::span<const RowRun> runs) {
  const int64_t width = type.value_type()->byte_width();
  const int64_t cell = type.list_size();
  const int64_t cell_bytes = cell * width;
  int64_t rows = 0;
  bool any_row_nulls = false, any_element_nulls = false;
  for (const RowRun& run : runs) {
    QUIVER_ASSIGN_OR_RETURN(rows, internal::AddChecked(rows, run.count(), "rows"));
    const ArrayData& data = *run.source->data();
    any_row_nulls |= data.buffers[0] && data.ComputeNullCount() > 0;
    const ArrayData& child = *data.children[0];
    any_element_nulls |= child.buffers[0] && child.ComputeNullCount() > 0;
  }
  QUIVER_ASSIGN_OR_RETURN(int64_t elements,
                          internal::MultiplyChecked(rows, cell, "rows x cell size"));
  QUIVER_ASSIGN_OR_RETURN(int64_t bytes, internal::MultiplyChecked(elements, width, "values size"));
  QUIVER_ASSIGN_OR_RETURN(BufferPtr values, Buffer::AllocateUninitialized(bytes));
  BufferPtr validity, element_validity;
  if (any_row_nulls) {
    QUIVER_ASSIGN_OR_RETURN(validity, Buffer::Allocate((rows + 7) / 8));
  }
  if (any_element_nulls) {
    QUIVER_ASSIGN_OR_RETURN(element_validity, Buffer::Allocate((elements + 7) / 8));
  }
  int64_t out_row = 0, null_count = 0, element_nulls = 0;
  for (const RowRun& run : runs) {
    const ArrayData& data = *run.source->data();
    const ArrayData& child = *data.children[0];
    const int64_t first_element = child.offset + (data.offset + run.begin) * cell;
    if (run.count() > 0 && cell_bytes > 0) {
      std::memcpy(values->mutable_data() + out_row * cell_bytes,
                  child.buffers[1]->data() + first_element * width,
                  static_cast<size_t>(run.count() * cell_bytes));
    }
    for (int64_t r = 0; r < run.count(); ++r) {
      const bool valid = data.IsValid(run.begin + r);
      if (validity) {
        if (valid) {
          internal::SetBit(validity->mutable_data(), out_row + r);
        } else {
          ++null_count;
        }
      }
      if (element_validity) {
        for (int64_t e = 0; e < cell; ++e) {
          const int64_t from = first_element + r * cell + e;
          if (!child.buffers[0] || internal::GetBit(child.buffers[0]->data(), from)) {
            internal::SetBit(element_validity->mutable_data(), (out_row + r) * cell + e);
          } else {
            ++element_nulls;
          }
        }
      }
    }
    out_row += run.count();
  }
  const TypePtr& storage = type.data_type()->storage_type();
  auto child = std::make_shared<ArrayData>();
  child->type = storage->children()[0].type;
  child->length = elements;
  child->null_count = element_nulls;
  child->buffers = {element_validity, std::move(values)};
  auto out = std::make_shared<ArrayData>();
  out->type = type.data_type();
  out->length = rows;
  out->null_count = null_count;
  out->buffers = {std::move(validity)};
  out->children = {std::move(child)};
  return FixedShapeTensorArray::Make(std::move(out), ValidationLevel::kNone);
}

}  // namespace

Result<FixedShapeTensorArray> FixedShapeTensorArray::Take(std::span<const int64_t> indices) const {
  QUIVER_RETURN_NOT_OK(CheckByteCells(type_, "take from"));
  QUIVER_ASSIGN_OR_RETURN(auto runs, internal::TakeRuns(*this, indices));
  return GatherRuns(type_, runs);
}

Result<FixedShapeTensorArray> FixedShapeTensorArray::Filter(std::span<const uint8_t> mask) const {
  QUIVER_RETURN_NOT_OK(CheckByteCells(type_, "filter"));
  QUIVER_ASSIGN_OR_RETURN(auto runs, internal::FilterRuns(*this, mask));
  return GatherRuns(type_, runs);
}

Result<FixedShapeTensorArray> FixedShapeTensorArray::Concat(
    std::span<const FixedShapeTensorArray> arrays) {
  if (arrays.empty()) return Status::Invalid("concat needs at least one array");
  const FixedShapeTensorType& first = arrays[0].type();
  QUIVER_RETURN_NOT_OK(CheckByteCells(first, "concat"));
  for (size_t a = 0; a < arrays.size(); ++a) {
    if (!arrays[a].type().Equals(first)) {
      return Status::TypeError("cannot concat array ", std::to_string(a), " (",
                               arrays[a].type().ToString(), ") with array 0 (", first.ToString(),
                               "): the types must be equal");
    }
  }
  return GatherRuns(first, internal::ConcatRuns(arrays));
}

Result<FixedShapeTensorArray> FixedShapeTensorArray::WithNullRows(
    std::span<const uint8_t> null_rows) const {
  if (static_cast<int64_t>(null_rows.size()) != length()) {
    return Status::Invalid("mask has ", std::to_string(null_rows.size()), " entries for ",
                           std::to_string(length()), " rows");
  }
  QUIVER_ASSIGN_OR_RETURN(BufferPtr validity, Buffer::Allocate((length() + 7) / 8));
  int64_t null_count = 0;
  for (int64_t i = 0; i < length(); ++i) {
    if (!null_rows[i] && IsValid(i)) {
      internal::SetBit(validity->mutable_data(), i);
    } else {
      ++null_count;
    }
  }
  // Re-base the rows to offset 0 so the new bitmap starts at bit 0.
  const int64_t cell = type_.list_size();
  QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr child,
                          quiver::Slice(data_->children[0], data_->offset * cell, length() * cell));
  auto out = std::make_shared<ArrayData>();
  out->type = data_->type;
  out->length = length();
  out->null_count = null_count;
  out->buffers = {null_count > 0 ? std::move(validity) : BufferPtr{}};
  out->children = {std::move(child)};
  return Make(std::move(out), ValidationLevel::kNone);
}

}  // namespace quiver
