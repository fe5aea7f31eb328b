// EnforceShape for shapes, tensors and tensor columns; DimSize and
// ShapeBindings.
#include <limits>
#include <vector>

#include "quiver/extension/variable_shape_storage.h"
#include "quiver/internal/bitmap.h"
#include "quiver/shape/shape_match.h"
#include "quiver/shape_pattern.h"

namespace quiver {

namespace {

// Up to this many axes live on the stack; more (hostile shapes) go to the heap.
constexpr size_t kInlineAxes = 16;

Result<ShapeMatch> MatchConstant(std::span<const int64_t> shape, const ShapePattern& pattern,
                                 const EnforceShapeOptions& options) {
  DimSize inline_axes[kInlineAxes];
  std::vector<DimSize> heap_axes;
  std::span<DimSize> axes;
  if (shape.size() <= kInlineAxes) {
    axes = std::span<DimSize>(inline_axes, shape.size());
  } else {
    heap_axes.resize(shape.size());
    axes = heap_axes;
  }
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0) {
      return Status::Invalid("axis ", i, " has negative size ", shape[i]);
    }
    axes[i].value = shape[i];
  }
  return shape::MatchShape({axes, -1}, pattern, options);
}

}  // namespace

bool DimSize::Equals(const DimSize& other) const {
  if (varies() != other.varies()) return false;
  return varies() ? *per_row == *other.per_row : value == other.value;
}

std::string DimSize::ToString() const {
  if (!varies()) return std::to_string(value);
  return "per-row sizes (" + std::to_string(per_row->size()) + " rows)";
}

const ShapeBinding* ShapeBindings::Find(std::string_view name) const {
  auto it = map_.find(name);
  return it == map_.end() ? nullptr : &it->second;
}

Result<ShapeMatch> EnforceShape(std::span<const int64_t> shape, const ShapePattern& pattern,
                                const EnforceShapeOptions& options) {
  return MatchConstant(shape, pattern, options);
}

Result<ShapeMatch> EnforceShape(const Tensor& tensor, const ShapePattern& pattern,
                                const EnforceShapeOptions& options) {
  return MatchConstant(tensor.shape(), pattern, options);
}

Result<ShapeMatch> EnforceShape(const FixedShapeTensorArray& array, const ShapePattern& pattern,
                                const EnforceShapeOptions& options) {
  std::vector<int64_t> shape = array.type().logical_shape();
  shape.insert(shape.begin(), array.length());
  return MatchConstant(shape, pattern, options);
}

Result<ShapeMatch> EnforceShape(const VariableShapeTensorArray& array, const ShapePattern& pattern,
                                const EnforceShapeOptions& options) {
  const VariableShapeTensorType& type = array.type();
  const int ndim = type.ndim();
  const int64_t rows = array.length();
  const bool has_nulls = array.null_count() > 0;
  const UniformShape& recorded = type.uniform_shape();

  // Axis 0 counts rows; logical axis k is observed axis k + 1.
  std::vector<DimSize> axes(static_cast<size_t>(ndim) + 1);
  axes[0].value = rows;
  const size_t stride = static_cast<size_t>(ndim);
  const int32_t* shapes =
      rows > 0 ? internal::VariableShapeStorage(array).PhysicalShape(0).data() : nullptr;
  // Row validity read straight from the bitmap (nullptr: every row valid).
  const ArrayData& storage = *array.data();
  const uint8_t* bits = has_nulls ? storage.buffers[0]->data() : nullptr;
  const int64_t bit_offset = storage.offset;
  auto valid = [bits, bit_offset](int64_t r) {
    return bits == nullptr || internal::GetBit(bits, bit_offset + r);
  };
  std::vector<int> physical(stride);
  std::vector<size_t> varying;  // logical axes that need per-row sizes
  for (size_t k = 0; k < stride; ++k) {
    physical[k] = type.physical_axis(static_cast<int>(k));
    const auto p = static_cast<size_t>(physical[k]);
    if (!recorded.empty() && recorded[p]) {
      axes[k + 1].value = *recorded[p];
      continue;
    }
    // Constant unless two non-null rows differ; the scan stops at the first
    // difference, so only constant axes cost a full pass.
    int64_t first = -1;
    bool differs = false;
    for (int64_t r = 0; r < rows; ++r) {
      if (!valid(r)) continue;
      const int64_t v = shapes[static_cast<size_t>(r) * stride + p];
      // Validation refused negative sizes; storage shared with a caller may
      // have changed since, and a negative size is never reported as one.
      if (v < 0) {
        return internal::RowError(r, "shape has a negative size on axis " + std::to_string(p));
      }
      if (first < 0) {
        first = v;
      } else if (v != first) {
        differs = true;
        break;
      }
    }
    if (first >= 0 && !differs) {
      axes[k + 1].value = first;
    } else {
      varying.push_back(k);  // varies, or no non-null row to tell
    }
  }
  // One pass fills the per-row sizes of every varying axis (-1 in null rows).
  std::vector<int64_t*> outs;
  for (size_t k : varying) {
    auto per_row = std::make_shared<std::vector<int64_t>>(static_cast<size_t>(rows));
    outs.push_back(per_row->data());
    axes[k + 1].per_row = std::move(per_row);
  }
  for (size_t j = 0; j < varying.size(); ++j) {
    const size_t p = static_cast<size_t>(physical[varying[j]]);
    int64_t* out = outs[j];
    for (size_t r = 0; r < static_cast<size_t>(rows); ++r) {
      out[r] = shapes[r * stride + p];
      if (out[r] < 0 && valid(static_cast<int64_t>(r))) {
        return internal::RowError(static_cast<int64_t>(r),
                                  "shape has a negative size on axis " + std::to_string(p));
      }
    }
    if (has_nulls) {
      for (int64_t r = 0; r < rows; ++r) {
        if (!valid(r)) out[r] = -1;
      }
    }
  }

  std::vector<std::optional<int64_t>> proved;
  QUIVER_ASSIGN_OR_RETURN(ShapeMatch match,
                          shape::MatchShape({axes, rows}, pattern, options, &proved));
  match.uniform_shape.assign(static_cast<size_t>(ndim), std::nullopt);
  for (size_t k = 0; k < stride; ++k) {
    std::optional<int64_t> size = axes[k + 1].varies() ? proved[k + 1] : axes[k + 1].value;
    // uniform_shape holds int32 sizes; a larger proved size has no row anyway.
    if (size && *size > std::numeric_limits<int32_t>::max()) size.reset();
    match.uniform_shape[static_cast<size_t>(physical[k])] = size;
  }
  return match;
}

}  // namespace quiver
