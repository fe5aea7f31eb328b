// EnforceShape for shapes, tensors and tensor columns; DimSize and
// ShapeBindings.
#include <limits>
#include <vector>

#include "quiver/shape_pattern.h"
#include "shape_match_internal.h"

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
      return Status::Invalid("axis " + std::to_string(i) + " has negative size " + std::to_string(shape[i]));
    }
    axes[i].value = shape[i];
  }
  return internal::MatchShape({axes, -1}, pattern, options);
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
  // One pass over the shape buffer finds which axes vary; a second fills
  // per-row sizes for those only. Recorded uniform sizes skip both.
  std::vector<int> physical(static_cast<size_t>(ndim));
  std::vector<int64_t> first(static_cast<size_t>(ndim), -1);
  std::vector<char> varies(static_cast<size_t>(ndim), 0);
  std::vector<char> scan(static_cast<size_t>(ndim), 0);
  bool any_scan = false;
  for (int k = 0; k < ndim; ++k) {
    physical[static_cast<size_t>(k)] = type.physical_axis(k);
    const auto p = static_cast<size_t>(physical[static_cast<size_t>(k)]);
    if (!recorded.empty() && recorded[p]) {
      axes[static_cast<size_t>(k) + 1].value = *recorded[p];
    } else {
      scan[static_cast<size_t>(k)] = 1;
      any_scan = true;
    }
  }
  if (any_scan) {
    for (int64_t r = 0; r < rows; ++r) {
      if (has_nulls && !array.IsValid(r)) continue;
      std::span<const int32_t> shape = array.PhysicalShape(r);
      for (size_t k = 0; k < static_cast<size_t>(ndim); ++k) {
        if (!scan[k]) continue;
        const int64_t v = shape[static_cast<size_t>(physical[k])];
        if (first[k] < 0) {
          first[k] = v;
        } else if (v != first[k]) {
          varies[k] = 1;
        }
      }
    }
    for (size_t k = 0; k < static_cast<size_t>(ndim); ++k) {
      if (!scan[k]) continue;
      if (first[k] >= 0 && !varies[k]) {
        axes[k + 1].value = first[k];
        continue;
      }
      // Varies, or no non-null row to tell: per-row sizes, -1 in null rows.
      auto per_row = std::make_shared<std::vector<int64_t>>(static_cast<size_t>(rows));
      const int32_t* shapes = rows > 0 ? array.PhysicalShape(0).data() : nullptr;
      const size_t stride = static_cast<size_t>(ndim);
      const size_t p = static_cast<size_t>(physical[k]);
      int64_t* out = per_row->data();
      for (size_t r = 0; r < static_cast<size_t>(rows); ++r) out[r] = shapes[r * stride + p];
      if (has_nulls) {
        for (int64_t r = 0; r < rows; ++r) {
          if (!array.IsValid(r)) out[r] = -1;
        }
      }
      axes[k + 1].per_row = std::move(per_row);
    }
  }

  std::vector<std::optional<int64_t>> proved;
  QUIVER_ASSIGN_OR_RETURN(ShapeMatch match,
                          internal::MatchShape({axes, rows}, pattern, options, &proved));
  match.uniform_shape.assign(static_cast<size_t>(ndim), std::nullopt);
  for (size_t k = 0; k < static_cast<size_t>(ndim); ++k) {
    std::optional<int64_t> size = axes[k + 1].varies() ? proved[k + 1] : axes[k + 1].value;
    // uniform_shape holds int32 sizes; a larger proved size has no row anyway.
    if (size && *size > std::numeric_limits<int32_t>::max()) size.reset();
    match.uniform_shape[static_cast<size_t>(physical[k])] = size;
  }
  return match;
}

}  // namespace quiver
