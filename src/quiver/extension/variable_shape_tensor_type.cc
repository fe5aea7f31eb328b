// VariableShapeTensorType: parameters, metadata JSON (final and draft forms).
#include <algorithm>
#include <limits>

#include "quiver/extension/canonical_storage.h"
#include "quiver/extension/extension_cache.h"
#include "quiver/extension/tensor_metadata.h"
#include "quiver/internal/checked_math.h"
#include "quiver/internal/permutation.h"
#include "quiver/variable_shape_tensor.h"

namespace quiver {

namespace {

const std::string kTypeName = "variable_shape_tensor";

Status CheckUniformShape(const UniformShape& uniform_shape, int ndim) {
  if (uniform_shape.empty()) return Status::OK();
  if (uniform_shape.size() != static_cast<size_t>(ndim)) {
    return Status::Invalid(kTypeName, " uniform_shape has ", uniform_shape.size(), " entries for ",
                           ndim, " dimensions");
  }
  for (size_t k = 0; k < uniform_shape.size(); ++k) {
    const auto& size = uniform_shape[k];
    if (size && (*size < 0 || *size > std::numeric_limits<int32_t>::max())) {
      return Status::Invalid(kTypeName, " uniform_shape[", k, "] (", *size,
                             ") must be null or in [0, 2^31 - 1]");
    }
  }
  return Status::OK();
}

TypePtr CanonicalStorage(const TypePtr& value_type, int ndim) {
  // ndim was checked to be >= 0 and fits int32, so this cannot fail.
  TypePtr shape = *fixed_size_list(ListItem(int32()), ndim);
  return struct_({Field{"data", list(ListItem(value_type))}, Field{"shape", shape}});
}

// The storage's value type and ndim. Besides the canonical form, the
// tolerated forms (canonical_storage.h) pass: large_list data, shape
// entries of any integer type.
Status ReadStorage(const TypePtr& storage, TypePtr* value_type, int* ndim) {
  auto wrong = [&](const std::string& why) {
    return Status::TypeError(kTypeName,
                             " storage must be struct<data: list<value>, shape: "
                             "fixed_size_list<int32>[ndim]>, got ",
                             (storage ? storage->ToString() : std::string("none")), " (", why, ")");
  };
  if (!storage || storage->id() != TypeId::kStruct) return wrong("not a struct");
  if (storage->children().size() != 2) return wrong("needs exactly two fields");
  const TypePtr& data = storage->children()[0].type;
  const TypePtr& shape = storage->children()[1].type;
  if (data->id() != TypeId::kList && data->id() != TypeId::kLargeList) {
    return wrong("field 0 is not a list");
  }
  if (shape->id() != TypeId::kFixedSizeList) return wrong("field 1 is not a fixed_size_list");
  if (!shape->children()[0].type->is_integer()) return wrong("shape entries must be int32");
  *value_type = data->children()[0].type;
  *ndim = shape->fixed_size();
  return Status::OK();
}

// Axis indices listed under a draft key: each in [0, ndim), no repeats.
Result<std::optional<std::vector<bool>>> ReadAxisSet(const nlohmann::json& object, const char* key,
                                                     int ndim) {
  QUIVER_ASSIGN_OR_RETURN(auto axes, internal::ReadIntArray(object, key, kTypeName));
  if (!axes) return std::optional<std::vector<bool>>{};
  std::vector<bool> set(ndim, false);
  for (int64_t axis : *axes) {
    if (axis < 0 || axis >= ndim || set[axis]) {
      return Status::Invalid(kTypeName, " metadata '", key, "' entry ", axis,
                             " is out of range or repeated for ", ndim, " dimensions");
    }
    set[axis] = true;
  }
  return std::optional<std::vector<bool>>(std::move(set));
}

// uniform_shape from the metadata, mapping the drafts: `uniform_dimensions`
// lists the constant axes (uniform_shape has ndim entries, or one per listed
// axis); `ragged_dimensions` lists the varying ones.
Result<UniformShape> ReadUniformShape(const nlohmann::json& object, int ndim) {
  QUIVER_ASSIGN_OR_RETURN(auto given,
                          internal::ReadNullableIntArray(object, "uniform_shape", kTypeName));
  UniformShape out = given.value_or(UniformShape{});
  QUIVER_ASSIGN_OR_RETURN(auto uniform_axes, ReadAxisSet(object, "uniform_dimensions", ndim));
  QUIVER_ASSIGN_OR_RETURN(auto ragged_axes, ReadAxisSet(object, "ragged_dimensions", ndim));
  if (uniform_axes) {
    UniformShape mapped(ndim);
    size_t listed = std::count(uniform_axes->begin(), uniform_axes->end(), true);
    bool compact = out.size() == listed && listed != static_cast<size_t>(ndim);
    for (int k = 0, j = 0; k < ndim; ++k) {
      if (!(*uniform_axes)[k]) continue;
      size_t source = compact ? j++ : k;
      if (source < out.size()) mapped[k] = out[source];
    }
    out = std::move(mapped);
  }
  if (ragged_axes) {
    if (out.empty()) return UniformShape{};  // sizes of the constant axes are unknown
    if (out.size() != static_cast<size_t>(ndim)) return out;  // reported by CheckUniformShape
    for (int k = 0; k < ndim; ++k) {
      if ((*ragged_axes)[k]) out[k].reset();
    }
  }
  return out;
}

}  // namespace

Result<VariableShapeTensorType> VariableShapeTensorType::Make(TypePtr value_type, int ndim,
                                                              std::vector<std::string> dim_names,
                                                              std::vector<int64_t> permutation,
                                                              UniformShape uniform_shape) {
  QUIVER_RETURN_NOT_OK(internal::CheckTensorValueType(value_type, kTypeName));
  if (ndim < 0) {
    return Status::Invalid(kTypeName, " ndim must be >= 0, got ", ndim);
  }
  QUIVER_RETURN_NOT_OK(internal::CheckDimNames(dim_names, ndim, kTypeName));
  if (!permutation.empty()) {
    QUIVER_RETURN_NOT_OK(
        internal::CheckPermutation(permutation, ndim, std::string(kTypeName) + " permutation"));
  }
  QUIVER_RETURN_NOT_OK(CheckUniformShape(uniform_shape, ndim));
  VariableShapeTensorType out;
  out.value_type_ = std::move(value_type);
  out.ndim_ = ndim;
  out.dim_names_ = std::move(dim_names);
  out.permutation_ = std::move(permutation);
  out.uniform_shape_ = std::move(uniform_shape);
  QUIVER_ASSIGN_OR_RETURN(out.data_type_, extension(kExtensionName, out.Serialize(),
                                                    CanonicalStorage(out.value_type_, ndim)));
  return out;
}

Result<VariableShapeTensorType> VariableShapeTensorType::FromDataType(const TypePtr& type) {
  QUIVER_RETURN_NOT_OK(internal::CheckExtensionType(type, kExtensionName));
  // Never destroyed: imports on other threads may outlive static teardown.
  static auto* cache = new internal::ExtensionCache<VariableShapeTensorType>();
  if (auto cached = cache->Find(type->extension_metadata(), *type->storage_type())) {
    return std::move(*cached);
  }
  QUIVER_ASSIGN_OR_RETURN(VariableShapeTensorType out,
                          Deserialize(type->storage_type(), type->extension_metadata()));
  // Deserialize checked the storage layout. The producer's field names are
  // kept; a tolerated storage form becomes the canonical one.
  const TypePtr& storage = type->storage_type();
  QUIVER_ASSIGN_OR_RETURN(out.data_type_,
                          extension(kExtensionName, out.Serialize(),
                                    internal::IsCanonicalVariableShapeStorage(*storage)
                                        ? storage
                                        : internal::CanonicalVariableShapeStorage(*storage)));
  cache->Insert(type->extension_metadata(), type->storage_type(), out);
  return out;
}

Result<VariableShapeTensorType> VariableShapeTensorType::Deserialize(const TypePtr& storage,
                                                                     std::string_view metadata) {
  TypePtr value_type;
  int ndim = 0;
  QUIVER_RETURN_NOT_OK(ReadStorage(storage, &value_type, &ndim));
  nlohmann::json object = nlohmann::json::object();
  if (!metadata.empty()) {
    QUIVER_ASSIGN_OR_RETURN(object, internal::ParseMetadataObject(metadata, kTypeName));
  }
  if (auto it = object.find("ndim"); it != object.end()) {
    if (!it->is_number_integer() || it->get<int64_t>() != ndim) {
      return Status::Invalid(kTypeName, " metadata 'ndim' is ", it->dump(),
                             " but the shape storage has ", ndim, " entries");
    }
  }
  QUIVER_ASSIGN_OR_RETURN(auto names, internal::ReadStringArray(object, "dim_names", kTypeName));
  QUIVER_ASSIGN_OR_RETURN(auto perm, internal::ReadPermutation(object, kTypeName));
  QUIVER_ASSIGN_OR_RETURN(UniformShape uniform, ReadUniformShape(object, ndim));
  return Make(std::move(value_type), ndim, names.value_or(std::vector<std::string>{}),
              perm.value_or(std::vector<int64_t>{}), std::move(uniform));
}

std::string VariableShapeTensorType::Serialize() const {
  nlohmann::json object = nlohmann::json::object();
  if (!dim_names_.empty()) object["dim_names"] = dim_names_;
  if (!permutation_.empty()) object["permutation"] = permutation_;
  if (!uniform_shape_.empty()) {
    nlohmann::json sizes = nlohmann::json::array();
    for (const auto& size : uniform_shape_) {
      sizes.push_back(size ? nlohmann::json(*size) : nlohmann::json(nullptr));
    }
    object["uniform_shape"] = std::move(sizes);
  }
  return object.dump();
}

std::vector<std::string> VariableShapeTensorType::logical_dim_names() const {
  return internal::ToLogical(dim_names_, permutation_);
}

UniformShape VariableShapeTensorType::logical_uniform_shape() const {
  return internal::ToLogical(uniform_shape_, permutation_);
}

Status VariableShapeTensorType::CheckUniform(std::span<const int32_t> physical_shape) const {
  for (size_t k = 0; k < uniform_shape_.size(); ++k) {
    if (uniform_shape_[k] && *uniform_shape_[k] != physical_shape[k]) {
      return Status::Invalid("shape ", internal::FormatShape(physical_shape), " has size ",
                             physical_shape[k], " on axis ", k, " but uniform_shape says ",
                             *uniform_shape_[k]);
    }
  }
  return Status::OK();
}

Result<VariableShapeTensorType> VariableShapeTensorType::WithUniformShape(
    UniformShape uniform_shape) const {
  return Make(value_type_, ndim_, dim_names_, permutation_, std::move(uniform_shape));
}

bool VariableShapeTensorType::Equals(const VariableShapeTensorType& other) const {
  return value_type_->Equals(*other.value_type_) && ndim_ == other.ndim_ &&
         dim_names_ == other.dim_names_ &&
         internal::SamePermutation(permutation_, other.permutation_) &&
         uniform_shape_ == other.uniform_shape_;
}

std::string VariableShapeTensorType::ToString() const {
  std::string out =
      kTypeName + "<" + value_type_->ToString() + ", ndim=" + std::to_string(ndim_) + ">";
  out += internal::FormatTensorParameters(dim_names_, permutation_);
  if (!uniform_shape_.empty()) {
    out += " uniform_shape=[";
    for (size_t i = 0; i < uniform_shape_.size(); ++i) {
      out += (i ? ", " : "") + (uniform_shape_[i] ? std::to_string(*uniform_shape_[i]) : "null");
    }
    out += "]";
  }
  return out;
}

}  // namespace quiver
