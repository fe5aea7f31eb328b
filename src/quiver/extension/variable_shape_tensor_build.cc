// VariableShapeTensorArray builders: from tensors, jagged and padded
// layouts, and the conversions to and from fixed_shape_tensor.
#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "quiver/extension/variable_shape_storage.h"
#include "quiver/internal/bitmap.h"
#include "quiver/internal/checked_math.h"
#include "quiver/internal/stream_copy.h"
#include "quiver/internal/strided_copy.h"
#include "quiver/internal/threads.h"
#include "quiver/variable_shape_tensor.h"

namespace quiver {

namespace {

using internal::MutableAs;

// The row bitmap of `data` re-based to offset 0 (nullptr when no row is
// null), and the number of null rows in `null_count`.
Result<BufferPtr> CopyRowValidity(const ArrayData& data, int64_t* null_count) {
  *null_count = 0;
  if (!data.buffers[0] || data.null_count == 0) return BufferPtr{};
  return internal::CopyBitmap(data.buffers[0]->data(), data.offset, data.length, null_count);
}
using internal::RowError;

// Checks a row's logical shape against `type` and writes its physical
// shape.
Status CheckRowShape(const VariableShapeTensorType& type, size_t i, std::span<const int64_t> shape,
                     int32_t* physical) {
  if (static_cast<int64_t>(shape.size()) != type.ndim()) {
    return RowError(i, "tensor has " + std::to_string(shape.size()) +
                           " dimensions, the array has " + std::to_string(type.ndim()));
  }
  for (int k = 0; k < type.ndim(); ++k) {
    if (shape[k] < 0 || shape[k] > std::numeric_limits<int32_t>::max()) {
      return RowError(i, "size " + std::to_string(shape[k]) + " on axis " + std::to_string(k) +
                             " does not fit int32");
    }
    physical[type.physical_axis(k)] = static_cast<int32_t>(shape[k]);
  }
  if (type.uniform_shape().empty()) return Status::OK();  // (the usual case: no call)
  Status uniform = type.CheckUniform({physical, static_cast<size_t>(type.ndim())});
  return uniform.ok() ? uniform : RowError(i, uniform.message());
}

// Whether the strides are row-major with no gaps for `shape`.
bool IsRowMajor(std::span<const int64_t> shape, std::span<const int64_t> strides, int64_t width) {
  int64_t expected = width;
  for (size_t k = shape.size(); k-- > 0;) {
    if (shape[k] == 0) return true;
    if (shape[k] != 1 && strides[k] != expected) return false;
    expected *= shape[k];
  }
  return true;
}

// Copies a logical row into `dst` as a row-major block of its physical shape.
// `stream`: the values buffer is far larger than the caches (StreamCopy).
void CopyRow(const VariableShapeTensorType& type, const VariableShapeTensorArray::RowView& row,
             int64_t elements, int64_t width, uint8_t* dst, bool stream) {
  if (elements == 0) return;
  if (type.permutation().empty() && IsRowMajor(row.shape, row.strides, width)) {
    const auto bytes = static_cast<size_t>(elements * width);
    if (stream) {
      internal::StreamCopy(dst, row.data, bytes);
    } else {
      std::memcpy(dst, row.data, bytes);
    }
    return;
  }
  const int ndim = type.ndim();
  std::vector<int64_t> physical(ndim), src_strides(ndim), dst_strides(ndim);
  for (int k = 0; k < ndim; ++k) {
    physical[type.physical_axis(k)] = row.shape[k];
    src_strides[type.physical_axis(k)] = row.strides[k];
  }
  int64_t stride = width;  // the sizes fit int32 and the total was checked
  for (int k = ndim; k-- > 0;) {
    dst_strides[k] = stride;
    stride *= physical[k];
  }
  internal::CopyStrided(row.data, src_strides, dst, dst_strides, physical, width);
}

// Below this many bytes one thread copies every row: a second one costs
// more than it saves.
constexpr int64_t kParallelBytes = int64_t{8} << 20;
// Rows go to the threads in pieces of about this many bytes.
constexpr int64_t kPieceBytes = int64_t{2} << 20;

}  // namespace

Result<VariableShapeTensorArray> VariableShapeTensorArray::FromTensors(
    const VariableShapeTensorType& type, std::span<const std::optional<Tensor>> tensors) {
  std::vector<RowView> rows(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (!tensors[i]) {
      rows[i].null = true;
      continue;
    }
    const Tensor& tensor = *tensors[i];
    Status on_host = tensor.CheckOnHost();
    if (!on_host.ok()) return RowError(i, on_host.message());
    if (!tensor.type()->Equals(*type.value_type())) {
      return Status::TypeError("row ", i, ": tensor holds ", tensor.type()->ToString(),
                               ", the array holds ", type.value_type()->ToString());
    }
    rows[i] = RowView{false, tensor.raw_data(), tensor.shape(), tensor.strides()};
  }
  return FromRowViews(type, rows);
}

Result<VariableShapeTensorArray> VariableShapeTensorArray::FromRowViews(
    const VariableShapeTensorType& type, std::span<const RowView> rows) {
  QUIVER_RETURN_NOT_OK(internal::CheckDenseValues(type, "build"));
  const int64_t n = static_cast<int64_t>(rows.size());
  const int ndim = type.ndim();
  internal::VariableShapeParts parts;
  parts.length = n;
  QUIVER_ASSIGN_OR_RETURN(parts.shapes, Buffer::Allocate(n * ndim * 4));
  QUIVER_ASSIGN_OR_RETURN(parts.offsets, Buffer::Allocate((n + 1) * 4));
  int32_t* shapes = MutableAs<int32_t>(parts.shapes);
  int32_t* offsets = MutableAs<int32_t>(parts.offsets);
  int64_t total = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    offsets[i] = static_cast<int32_t>(total);
    if (rows[i].null) {
      ++parts.null_count;  // null rows keep shape zeros and no data
      continue;
    }
    if (rows[i].strides.size() != rows[i].shape.size()) {
      return RowError(i, "has " + std::to_string(rows[i].shape.size()) + " sizes but " +
                             std::to_string(rows[i].strides.size()) + " strides");
    }
    QUIVER_RETURN_NOT_OK(CheckRowShape(type, i, rows[i].shape, shapes + i * ndim));
    // Each size fits int32 and every partial product is held to int32 too
    // (as a list's offsets are), so nothing here can overflow.
    int64_t elements = 1;
    for (int k = 0; k < ndim; ++k) {
      elements *= shapes[i * ndim + k];
      if (elements > internal::kMaxListElements) return internal::CheckListCapacity(elements);
    }
    if (elements > 0 && rows[i].data == nullptr) return RowError(i, "has no data");
    total += elements;
    if (total > internal::kMaxListElements) return internal::CheckListCapacity(total);
  }
  offsets[n] = static_cast<int32_t>(total);
  const int64_t width = type.value_type()->byte_width();
  QUIVER_ASSIGN_OR_RETURN(BufferPtr values, Buffer::AllocateUninitialized(total * width));
  if (parts.null_count > 0) {
    QUIVER_ASSIGN_OR_RETURN(parts.validity, Buffer::Allocate(internal::BitmapBytes(n)));
    for (int64_t i = 0; i < n; ++i) {
      if (!rows[i].null) internal::SetBit(parts.validity->mutable_data(), i);
    }
  }
  const bool stream = total * width >= internal::kStreamCopyBytes;
  auto copy_rows = [&](int64_t first, int64_t last) {
    for (int64_t i = first; i < last; ++i) {
      if (rows[i].null) continue;
      CopyRow(type, rows[i], offsets[i + 1] - offsets[i], width,
              values->mutable_data() + int64_t{offsets[i]} * width, stream);
    }
    if (stream) internal::StreamFence();  // before the thread reports its part done
  };
  if (total * width < kParallelBytes || n < 2) {
    copy_rows(0, n);
  } else {
    // Pieces of about kPieceBytes, each to whichever thread is free: a
    // thread slowed by other work on its core (a shared machine) takes
    // fewer, where a fixed half each made the copy wait for it.
    const int64_t pieces = std::min(n, total * width / kPieceBytes);
    auto piece_start = [&](int64_t p) -> int64_t {
      if (p == pieces) return n;
      // The row where the piece's share of the elements begins (rows may
      // differ in size).
      const auto at = static_cast<int32_t>(total * p / pieces);
      return std::lower_bound(offsets, offsets + n, at) - offsets;
    };
    internal::RunQueueAll(pieces, 2,
                          [&](int64_t p) { copy_rows(piece_start(p), piece_start(p + 1)); });
  }
  parts.values = internal::MakeFlatArray(type.value_type(), total, std::move(values));
  return internal::Assemble(type, std::move(parts), ValidationLevel::kNone);
}

namespace {

// An int32 buffer of `count` entries from an integer tensor of shape
// `expected`: the tensor's own bytes when it is contiguous int32, else a
// checked conversion.
Result<BufferPtr> Int32Buffer(const Tensor& tensor, std::span<const int64_t> expected,
                              const char* what) {
  QUIVER_ASSIGN_OR_RETURN(std::vector<int64_t> entries,
                          internal::ReadIntegers(tensor, expected, what));
  const int64_t bytes = static_cast<int64_t>(entries.size()) * 4;
  if (tensor.type()->id() == TypeId::kInt32 && tensor.IsContiguous()) {
    return Buffer::Slice(tensor.buffer(), tensor.byte_offset(), bytes);
  }
  QUIVER_ASSIGN_OR_RETURN(BufferPtr out, Buffer::Allocate(bytes));
  for (size_t e = 0; e < entries.size(); ++e) {
    if (entries[e] < std::numeric_limits<int32_t>::min() ||
        entries[e] > std::numeric_limits<int32_t>::max()) {
      return Status::Invalid(what, " entry ", e, " (", entries[e], ") does not fit int32");
    }
    MutableAs<int32_t>(out)[e] = static_cast<int32_t>(entries[e]);
  }
  return out;
}

// Offsets derived from the shapes: each row's elements follow the last.
Result<BufferPtr> OffsetsFromShapes(const int32_t* shapes, int64_t n, int ndim,
                                    int64_t values_length) {
  QUIVER_ASSIGN_OR_RETURN(BufferPtr out, Buffer::Allocate((n + 1) * 4));
  int32_t* offsets = MutableAs<int32_t>(out);
  int64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    offsets[i] = static_cast<int32_t>(total);
    std::span<const int32_t> dims(shapes + i * ndim, static_cast<size_t>(ndim));
    int64_t product = 1;
    for (int32_t size : dims) {
      if (size < 0)
        return RowError(i, "shape " + internal::FormatShape(dims) + " has a negative size");
      QUIVER_ASSIGN_OR_RETURN(product, internal::MultiplyChecked(product, size, "row shape"));
      QUIVER_RETURN_NOT_OK(internal::CheckListCapacity(product));
    }
    total += product;
    QUIVER_RETURN_NOT_OK(internal::CheckListCapacity(total));
  }
  offsets[n] = static_cast<int32_t>(total);
  if (total != values_length) {
    return Status::Invalid("values has ", values_length, " elements but the shapes account for ",
                           total);
  }
  return out;
}

}  // namespace

Result<VariableShapeTensorArray> VariableShapeTensorArray::FromJagged(
    const VariableShapeTensorType& type, const Tensor& values, const Tensor& shapes,
    const std::optional<Tensor>& offsets) {
  QUIVER_RETURN_NOT_OK(internal::CheckDenseValues(type, "build"));
  QUIVER_RETURN_NOT_OK(values.CheckOnHost());  // columns live in host memory
  if (!values.type()->Equals(*type.value_type())) {
    return Status::TypeError("values hold ", values.type()->ToString(), ", the array holds ",
                             type.value_type()->ToString());
  }
  if (values.ndim() != 1 || !values.IsContiguous()) {
    return Status::Invalid("values must be a contiguous 1-D tensor, got shape ",
                           internal::FormatShape(values.shape()), " strides ",
                           internal::FormatShape(values.strides()));
  }
  const int ndim = type.ndim();
  if (shapes.ndim() != 2 || shapes.shape()[1] != ndim) {
    return Status::Invalid("shapes must have shape (N, ", ndim, "), got ",
                           internal::FormatShape(shapes.shape()));
  }
  const int64_t n = shapes.shape()[0];
  internal::VariableShapeParts parts;
  parts.length = n;
  const int64_t shapes_shape[2] = {n, ndim};
  QUIVER_ASSIGN_OR_RETURN(parts.shapes, Int32Buffer(shapes, shapes_shape, "shapes"));
  if (offsets) {
    const int64_t offsets_shape[1] = {n + 1};
    QUIVER_ASSIGN_OR_RETURN(parts.offsets, Int32Buffer(*offsets, offsets_shape, "offsets"));
  } else {
    QUIVER_ASSIGN_OR_RETURN(
        parts.offsets, OffsetsFromShapes(reinterpret_cast<const int32_t*>(parts.shapes->data()), n,
                                         ndim, values.size()));
  }
  const int64_t width = values.type()->byte_width();
  QUIVER_ASSIGN_OR_RETURN(
      BufferPtr bytes, Buffer::Slice(values.buffer(), values.byte_offset(), values.size() * width));
  parts.values = internal::MakeFlatArray(type.value_type(), values.size(), std::move(bytes));
  return internal::Assemble(type, std::move(parts), ValidationLevel::kFull);
}

Result<VariableShapeTensorArray> VariableShapeTensorArray::FromPadded(
    const VariableShapeTensorType& type, const Tensor& padded, const Tensor& shapes) {
  const int ndim = type.ndim();
  if (padded.ndim() != ndim + 1) {
    return Status::Invalid("a padded batch for ndim ", ndim, " needs ", ndim + 1,
                           " axes, got shape ", internal::FormatShape(padded.shape()));
  }
  const int64_t n = padded.shape()[0];
  const int64_t expected[2] = {n, ndim};
  QUIVER_ASSIGN_OR_RETURN(std::vector<int64_t> sizes,
                          internal::ReadIntegers(shapes, expected, "shapes"));
  std::vector<int64_t> cell_strides(padded.strides().begin() + 1, padded.strides().end());
  std::vector<std::optional<Tensor>> rows;
  rows.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    std::vector<int64_t> row_shape(sizes.begin() + i * ndim, sizes.begin() + (i + 1) * ndim);
    for (int k = 0; k < ndim; ++k) {
      if (row_shape[k] < 0 || row_shape[k] > padded.shape()[k + 1]) {
        return RowError(i, "shape " + internal::FormatShape(row_shape) +
                               " does not fit the padded cell " +
                               internal::FormatShape(std::span(padded.shape()).subspan(1)));
      }
    }
    // An empty row reads nothing: it needs no place in the buffer (the
    // batch of a zero-size axis may have no bytes at all).
    const bool empty = std::find(row_shape.begin(), row_shape.end(), 0) != row_shape.end();
    QUIVER_ASSIGN_OR_RETURN(
        Tensor row, Tensor::Make(padded.type(), padded.buffer(), std::move(row_shape), cell_strides,
                                 {}, empty ? 0 : padded.byte_offset() + i * padded.strides()[0]));
    rows.emplace_back(std::move(row));
  }
  return FromTensors(type, rows);
}

Result<VariableShapeTensorArray> VariableShapeTensorArray::FromFixed(
    const FixedShapeTensorArray& fixed) {
  const FixedShapeTensorType& fixed_type = fixed.type();
  UniformShape uniform(fixed_type.shape().begin(), fixed_type.shape().end());
  QUIVER_ASSIGN_OR_RETURN(
      VariableShapeTensorType type,
      VariableShapeTensorType::Make(fixed_type.value_type(), fixed_type.ndim(),
                                    fixed_type.dim_names(), fixed_type.permutation(), uniform));
  const int64_t n = fixed.length();
  const int64_t cell = fixed_type.list_size();
  QUIVER_ASSIGN_OR_RETURN(int64_t total, internal::MultiplyChecked(n, cell, "rows x cell size"));
  QUIVER_RETURN_NOT_OK(internal::CheckListCapacity(total));
  internal::VariableShapeParts parts;
  parts.length = n;
  QUIVER_ASSIGN_OR_RETURN(parts.validity, CopyRowValidity(*fixed.data(), &parts.null_count));
  QUIVER_ASSIGN_OR_RETURN(
      parts.values, quiver::Slice(fixed.data()->children[0], fixed.data()->offset * cell, total));
  QUIVER_ASSIGN_OR_RETURN(parts.offsets, Buffer::Allocate((n + 1) * 4));
  for (int64_t i = 0; i <= n; ++i)
    MutableAs<int32_t>(parts.offsets)[i] = static_cast<int32_t>(i * cell);
  const int ndim = type.ndim();
  QUIVER_ASSIGN_OR_RETURN(parts.shapes, Buffer::Allocate(n * ndim * 4));
  for (int64_t i = 0; i < n; ++i) {
    for (int k = 0; k < ndim; ++k) {
      MutableAs<int32_t>(parts.shapes)[i * ndim + k] = static_cast<int32_t>(fixed_type.shape()[k]);
    }
  }
  return internal::Assemble(type, std::move(parts), ValidationLevel::kNone);
}

Result<FixedShapeTensorArray> VariableShapeTensorArray::ToFixed(CopyMode copy, bool* copied) const {
  // The common physical shape: the first non-null row's, or uniform_shape.
  const internal::VariableShapeStorage storage(*this);
  std::optional<std::vector<int64_t>> shape;
  int64_t first_row = -1;
  for (int64_t i = 0; i < length(); ++i) {
    if (!IsValid(i)) continue;
    std::span<const int32_t> dims = storage.PhysicalShape(i);
    if (!shape) {
      shape.emplace(dims.begin(), dims.end());
      first_row = i;
    } else if (!std::equal(dims.begin(), dims.end(), shape->begin(), shape->end())) {
      return Status::Invalid("row ", i, " has shape ", internal::FormatShape(dims), " but row ",
                             first_row, " has ", internal::FormatShape(*shape),
                             "; only rows of one shape convert to fixed_shape_tensor");
    }
  }
  if (!shape) {
    const UniformShape& uniform = type_.uniform_shape();
    bool complete = !uniform.empty() && std::all_of(uniform.begin(), uniform.end(),
                                                    [](const auto& s) { return s.has_value(); });
    if (!complete && type_.ndim() > 0) {
      return Status::Invalid(
          "an array without non-null rows needs a complete uniform_shape to "
          "convert to fixed_shape_tensor");
    }
    shape.emplace();
    for (const auto& size : uniform) shape->push_back(*size);
  }
  QUIVER_ASSIGN_OR_RETURN(FixedShapeTensorType fixed_type,
                          FixedShapeTensorType::Make(type_.value_type(), *shape, type_.dim_names(),
                                                     type_.permutation()));
  const int64_t n = length();
  const int64_t cell = fixed_type.list_size();
  // Read once: the zero-copy slice below starts where these say.
  const int64_t start = storage.Offset(0);
  bool evenly_spaced = true;
  for (int64_t i = 0; i <= n && evenly_spaced; ++i)
    evenly_spaced = storage.Offset(i) == start + i * cell;
  const bool copy_needed = !evenly_spaced || copy == CopyMode::kAlways;
  if (copied) *copied = copy_needed;
  if (copy_needed && copy == CopyMode::kNever) {
    return Status::Invalid(
        "the rows' data is not evenly spaced (null rows without data?); "
        "converting to fixed_shape_tensor needs a copy");
  }
  auto child_data = std::shared_ptr<const ArrayData>();
  if (!copy_needed) {
    // Slice checks the range against the values child.
    QUIVER_ASSIGN_OR_RETURN(child_data,
                            quiver::Slice(data_->children[0]->children[0], start, n * cell));
  } else {
    QUIVER_RETURN_NOT_OK(internal::CheckDenseValues(type_, "copy"));
    const int64_t width = type_.value_type()->byte_width();
    QUIVER_ASSIGN_OR_RETURN(BufferPtr bytes, Buffer::Allocate(n * cell * width));
    std::vector<int64_t> physical(static_cast<size_t>(type_.ndim()));
    for (int64_t i = 0; i < n; ++i) {
      if (!IsValid(i)) continue;  // null rows stay zero
      QUIVER_ASSIGN_OR_RETURN(internal::RowRange range, storage.CheckedLayout(i, physical));
      if (range.size() != cell) {
        return internal::RowError(
            i, "holds " + std::to_string(range.size()) + " elements, not " + std::to_string(cell));
      }
      QUIVER_RETURN_NOT_OK(internal::CheckNoNullElements(storage.values(), range.begin, range.end));
      if (cell > 0) {
        std::memcpy(bytes->mutable_data() + i * cell * width, storage.ValueBytes(range),
                    cell * width);
      }
    }
    child_data = internal::MakeFlatArray(type_.value_type(), n * cell, std::move(bytes));
  }
  auto out = std::make_shared<ArrayData>();
  out->type = fixed_type.data_type();
  out->length = n;
  QUIVER_ASSIGN_OR_RETURN(BufferPtr validity, CopyRowValidity(*data_, &out->null_count));
  out->buffers = {std::move(validity)};
  out->children = {std::move(child_data)};
  return FixedShapeTensorArray::Make(std::move(out), ValidationLevel::kMinimal);
}

}  // namespace quiver
