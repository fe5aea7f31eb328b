#include "quiver/extension/canonical_extensions.h"

#include <string>

#include <nlohmann/json.hpp>

#include "quiver/array.h"
#include "quiver/extension/variable_shape_storage.h"
#include "quiver/fixed_shape_tensor.h"
#include "quiver/variable_shape_tensor.h"

namespace quiver::internal {

Status CheckCanonicalExtension(const DataType& type) {
  if (type.id() != TypeId::kExtension) return Status::OK();
  const std::string& name = type.extension_name();
  // The parsers take a TypePtr; alias `type` without owning it.
  const TypePtr alias(std::shared_ptr<const DataType>{}, &type);
  if (name == FixedShapeTensorType::kExtensionName) {
    return FixedShapeTensorType::FromDataType(alias).status();
  }
  if (name == VariableShapeTensorType::kExtensionName) {
    return VariableShapeTensorType::FromDataType(alias).status();
  }
  if (name == "arrow.bool8" && type.storage().id() != TypeId::kInt8) {
    return Status::Invalid("arrow.bool8 needs int8 storage, got ", type.storage().ToString());
  }
  return Status::OK();
}

Status CheckCanonicalExtensionData(const ArrayData& data, ValidationLevel level) {
  if (level != ValidationLevel::kFull || data.type->id() != TypeId::kExtension) {
    return Status::OK();
  }
  if (data.type->extension_name() == VariableShapeTensorType::kExtensionName) {
    return VariableShapeStorage::CheckRows(data);
  }
  return Status::OK();
}

std::optional<std::string> CanonicalExtensionToString(const DataType& type) {
  if (type.id() != TypeId::kExtension) return std::nullopt;
  const TypePtr alias(std::shared_ptr<const DataType>{}, &type);
  if (type.extension_name() == FixedShapeTensorType::kExtensionName) {
    auto parsed = FixedShapeTensorType::FromDataType(alias);
    if (parsed.ok()) return parsed->ToString();
  } else if (type.extension_name() == VariableShapeTensorType::kExtensionName) {
    auto parsed = VariableShapeTensorType::FromDataType(alias);
    if (parsed.ok()) return parsed->ToString();
  }
  return std::nullopt;
}

std::string ExtensionMetadataToWrite(const DataType& type) {
  const std::string& given = type.extension_metadata();
  const TypePtr alias(std::shared_ptr<const DataType>{}, &type);
  std::optional<std::string> spec;
  if (type.extension_name() == FixedShapeTensorType::kExtensionName) {
    auto parsed = FixedShapeTensorType::FromDataType(alias);
    if (parsed.ok()) spec = parsed->Serialize();
  } else if (type.extension_name() == VariableShapeTensorType::kExtensionName) {
    auto parsed = VariableShapeTensorType::FromDataType(alias);
    if (parsed.ok()) spec = parsed->Serialize();
  }
  if (!spec) return given;
  // Compared as JSON values, so a producer's key order and spacing survive.
  auto original = nlohmann::json::parse(given, nullptr, /*allow_exceptions=*/false);
  if (!original.is_discarded() && original == nlohmann::json::parse(*spec)) return given;
  return *spec;
}

namespace {

Status CheckTree(const DataType& type) {
  QUIVER_RETURN_NOT_OK(CheckCanonicalExtension(type));
  if (type.storage().id() == TypeId::kDictionary) {
    Status st = CheckTree(*type.storage().value_type());
    if (!st.ok()) return st.WithContext("dictionary");
  }
  const std::vector<Field>& children = type.storage().children();
  for (size_t i = 0; i < children.size(); ++i) {
    if (!children[i].type) continue;
    Status st = CheckTree(*children[i].type);
    if (!st.ok()) {
      return st.WithContext("field " + std::to_string(i) + " (" + children[i].name + ")");
    }
  }
  return Status::OK();
}

}  // namespace

Status CheckCanonicalExtensions(const DataType& type) {
  QUIVER_RETURN_NOT_OK(CheckNestingDepth(type));
  return CheckTree(type);
}

}  // namespace quiver::internal
