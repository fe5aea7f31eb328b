// EnforceShape for shapes, tensors and tensor columns; DimSize and
// ShapeBindings.
#include <algorithm>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "quiver/shape/ragged_scan.h"
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

PerRowSizes::PerRowSizes(const std::vector<int32_t>& sizes)
    : narrow_(std::make_unique_for_overwrite<int32_t[]>(sizes.size())),
      narrow_size_(sizes.size()),
      is_narrow_(true) {
  std::copy(sizes.begin(), sizes.end(), narrow_.get());
}

std::vector<int64_t> PerRowSizes::ToVector() const {
  if (!is_narrow_) return wide_;
  return {int32().begin(), int32().end()};
}

bool operator==(const PerRowSizes& a, const std::vector<int64_t>& b) {
  if (!a.is_narrow_) return a.wide_ == b;
  return std::equal(a.int32().begin(), a.int32().end(), b.begin(), b.end());
}

bool operator==(const PerRowSizes& a, const PerRowSizes& b) {
  if (!b.is_narrow_) return a == b.wide_;
  if (!a.is_narrow_) return b == a.wide_;
  return std::equal(a.int32().begin(), a.int32().end(), b.int32().begin(), b.int32().end());
}

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
  const UniformShape& recorded = type.uniform_shape();

  // Axis 0 counts rows; logical axis k is observed axis k + 1.
  std::vector<DimSize> axes(static_cast<size_t>(ndim) + 1);
  axes[0].value = rows;
  std::vector<shape::RaggedAxis> scanned;  // the logical axes without a recorded size
  std::vector<size_t> scanned_logical;
  for (int k = 0; k < ndim; ++k) {
    const auto p = static_cast<size_t>(type.physical_axis(k));
    if (!recorded.empty() && recorded[p]) {
      axes[static_cast<size_t>(k) + 1].value = *recorded[p];
    } else {
      scanned.push_back({p});
      scanned_logical.push_back(static_cast<size_t>(k));
    }
  }
  QUIVER_RETURN_NOT_OK(shape::ScanRaggedAxes(array, scanned));
  for (size_t j = 0; j < scanned.size(); ++j) {
    DimSize& axis = axes[scanned_logical[j] + 1];
    if (scanned[j].varies) {
      axis.per_row =
          std::make_shared<const PerRowSizes>(std::move(scanned[j].per_row), scanned[j].filled);
    } else {
      axis.value = scanned[j].size;
    }
  }

  std::vector<std::optional<int64_t>> proved;
  QUIVER_ASSIGN_OR_RETURN(ShapeMatch match,
                          shape::MatchShape({axes, rows}, pattern, options, &proved));
  match.uniform_shape.assign(static_cast<size_t>(ndim), std::nullopt);
  for (int k = 0; k < ndim; ++k) {
    const DimSize& axis = axes[static_cast<size_t>(k) + 1];
    std::optional<int64_t> size = axis.varies() ? proved[static_cast<size_t>(k) + 1] : axis.value;
    // uniform_shape holds int32 sizes; a larger proved size has no row anyway.
    if (size && *size > std::numeric_limits<int32_t>::max()) size.reset();
    match.uniform_shape[static_cast<size_t>(type.physical_axis(k))] = size;
  }
  return match;
}

}  // namespace quiver
