// FixedShapeTensorType: parameters, metadata JSON and the permutation rule.
#include <limits>
#include <utility>

#include "quiver/extension/extension_cache.h"
#include "quiver/extension/tensor_metadata.h"
#include "quiver/fixed_shape_tensor.h"
#include "quiver/internal/checked_math.h"
#include "quiver/internal/permutation.h"

namespace quiver {

namespace {

const std::string kTypeName = "fixed_shape_tensor";

Result<int32_t> ListSizeOf(const std::vector<int64_t>& shape) {
  QUIVER_ASSIGN_OR_RETURN(int64_t product, internal::ShapeProduct(shape, kTypeName + " shape"));
  if (product > std::numeric_limits<int32_t>::max()) {
    return Status::Invalid(kTypeName, " shape ", internal::FormatShape(shape), " has ", product,
                           " elements per cell, more than a fixed_size_list holds (2^31 - 1)");
  }
  return static_cast<int32_t>(product);
}

}  // namespace

Result<FixedShapeTensorType> FixedShapeTensorType::Make(TypePtr value_type,
                                                        std::vector<int64_t> shape,
                                                        std::vector<std::string> dim_names,
                                                        std::vector<int64_t> permutation) {
  QUIVER_RETURN_NOT_OK(internal::CheckTensorValueType(value_type, kTypeName));
  FixedShapeTensorType out;
  QUIVER_ASSIGN_OR_RETURN(out.list_size_, ListSizeOf(shape));
  QUIVER_RETURN_NOT_OK(internal::CheckDimNames(dim_names, shape.size(), kTypeName));
  if (!permutation.empty()) {
    QUIVER_RETURN_NOT_OK(internal::CheckPermutation(permutation, static_cast<int64_t>(shape.size()),
                                                    std::string(kTypeName) + " permutation"));
  }
  out.value_type_ = std::move(value_type);
  out.shape_ = std::move(shape);
  out.dim_names_ = std::move(dim_names);
  out.permutation_ = std::move(permutation);
  QUIVER_ASSIGN_OR_RETURN(TypePtr storage,
                          fixed_size_list(ListItem(out.value_type_), out.list_size_));
  QUIVER_ASSIGN_OR_RETURN(out.data_type_, extension(kExtensionName, out.Serialize(), storage));
  return out;
}

Result<FixedShapeTensorType> FixedShapeTensorType::FromDataType(const TypePtr& type) {
  QUIVER_RETURN_NOT_OK(internal::CheckExtensionType(type, kExtensionName));
  // Never destroyed: imports on other threads may outlive static teardown.
  // Each entry remembers whether its metadata was in another writer's form.
  static auto* cache = new internal::ExtensionCache<std::pair<FixedShapeTensorType, bool>>();
  const TypePtr& storage = type->storage_type();
  const std::string& metadata = type->extension_metadata();
  auto entry = cache->Find(metadata, *storage);
  if (!entry) {
    QUIVER_ASSIGN_OR_RETURN(FixedShapeTensorType parsed, Deserialize(storage, metadata));
    QUIVER_ASSIGN_OR_RETURN(nlohmann::json object,
                            internal::ParseMetadataObject(metadata, kTypeName));
    entry.emplace(std::move(parsed), internal::HasOtherWritersKeys(object));
    cache->Insert(metadata, storage, *entry);
  }
  FixedShapeTensorType out = std::move(entry->first);
  out.value_type_ = storage->children()[0].type;
  // The storage stays exactly as the producer named it; metadata in another
  // writer's form (nulls, "permutations") is replaced by the spec form, so
  // quiver never writes it on.
  if (!entry->second) {
    out.data_type_ = type;
  } else {
    QUIVER_ASSIGN_OR_RETURN(out.data_type_, extension(kExtensionName, out.Serialize(), storage));
  }
  return out;
}

Result<FixedShapeTensorType> FixedShapeTensorType::Deserialize(const TypePtr& storage,
                                                               std::string_view metadata) {
  if (!storage || storage->id() != TypeId::kFixedSizeList) {
    return Status::TypeError(kTypeName, " storage must be a fixed_size_list, got ",
                             (storage ? storage->ToString() : std::string("none")));
  }
  QUIVER_ASSIGN_OR_RETURN(nlohmann::json object,
                          internal::ParseMetadataObject(metadata, kTypeName));
  QUIVER_ASSIGN_OR_RETURN(auto shape, internal::ReadIntArray(object, "shape", kTypeName));
  if (!shape) return Status::Invalid(kTypeName, " metadata has no 'shape'");
  QUIVER_ASSIGN_OR_RETURN(auto names, internal::ReadStringArray(object, "dim_names", kTypeName));
  QUIVER_ASSIGN_OR_RETURN(auto perm, internal::ReadPermutation(object, kTypeName));
  QUIVER_ASSIGN_OR_RETURN(
      FixedShapeTensorType out,
      Make(storage->children()[0].type, std::move(*shape),
           names.value_or(std::vector<std::string>{}), perm.value_or(std::vector<int64_t>{})));
  if (out.list_size_ != storage->fixed_size()) {
    return Status::Invalid(kTypeName, " shape ", internal::FormatShape(out.shape_), " has ",
                           out.list_size_, " elements but the storage list size is ",
                           storage->fixed_size());
  }
  return out;
}

std::string FixedShapeTensorType::Serialize() const {
  nlohmann::json object;
  object["shape"] = shape_;
  if (!dim_names_.empty()) object["dim_names"] = dim_names_;
  if (!permutation_.empty()) object["permutation"] = permutation_;
  return object.dump();
}

std::vector<int64_t> FixedShapeTensorType::logical_shape() const {
  return internal::ToLogical(shape_, permutation_);
}

std::vector<std::string> FixedShapeTensorType::logical_dim_names() const {
  return internal::ToLogical(dim_names_, permutation_);
}

std::vector<int64_t> FixedShapeTensorType::logical_strides() const {
  // The cell's byte size was checked against int32 * width, so these fit.
  return internal::LogicalStrides(std::max<int64_t>(value_type_->byte_width(), 1), shape_,
                                  permutation_);
}

bool FixedShapeTensorType::Equals(const FixedShapeTensorType& other) const {
  return value_type_->Equals(*other.value_type_) && shape_ == other.shape_ &&
         dim_names_ == other.dim_names_ &&
         internal::SamePermutation(permutation_, other.permutation_);
}

std::string FixedShapeTensorType::ToString() const {
  std::string out = kTypeName + "<" + value_type_->ToString() + ">" + internal::FormatShape(shape_);
  out += internal::FormatTensorParameters(dim_names_, permutation_);
  return out;
}

}  // namespace quiver
