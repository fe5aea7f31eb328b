#include "quiver/extension/extension_keys.h"

#include "quiver/extension/canonical_extensions.h"

namespace quiver::internal {

Status LiftExtensionKeys(KeyValueMetadata metadata, Field* field) {
  std::string name, extension_metadata;
  bool is_extension = false;
  for (auto& [key, value] : metadata) {
    if (key == kExtensionNameKey) {
      name = std::move(value);
      is_extension = true;
    } else if (key == kExtensionMetadataKey) {
      extension_metadata = std::move(value);
    } else {
      field->metadata.emplace_back(std::move(key), std::move(value));
    }
  }
  if (!is_extension) return Status::OK();
  QUIVER_ASSIGN_OR_RETURN(field->type, extension(name, extension_metadata, field->type));
  QUIVER_RETURN_NOT_OK(CheckCanonicalExtension(*field->type));
  // Tensor metadata read in another form (a draft, arrow-rs's) is held in
  // the spec form from here on, so every writer and exporter passes that on
  // and a round trip through quiver compares equal.
  std::string spec = ExtensionMetadataToWrite(*field->type);
  if (spec != field->type->extension_metadata()) {
    QUIVER_ASSIGN_OR_RETURN(
        field->type, extension(std::move(name), std::move(spec), field->type->storage_type()));
  }
  return Status::OK();
}

KeyValueMetadata MetadataWithExtensionKeys(const Field& field) {
  KeyValueMetadata metadata = field.metadata;
  if (field.type && field.type->id() == TypeId::kExtension) {
    metadata.emplace_back(kExtensionNameKey, field.type->extension_name());
    metadata.emplace_back(kExtensionMetadataKey, ExtensionMetadataToWrite(*field.type));
  }
  return metadata;
}

}  // namespace quiver::internal
