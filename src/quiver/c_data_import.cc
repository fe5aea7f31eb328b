// Importing types and arrays through the C Data Interface. Imported
// structs are foreign input: every count and size is checked before use.
#include <cstring>
#include <string>

#include "quiver/c_data.h"
#include "quiver/internal/c_data_format.h"
#include "quiver/internal/checked_math.h"

namespace quiver {

namespace {

// Owns a moved-in ArrowSchema and releases it on scope exit.
class SchemaGuard {
 public:
  explicit SchemaGuard(ArrowSchema* source) : schema_(*source) { source->release = nullptr; }
  ~SchemaGuard() {
    if (schema_.release != nullptr) schema_.release(&schema_);
  }
  const ArrowSchema& get() const { return schema_; }

 private:
  ArrowSchema schema_;
};

// Owns a moved-in ArrowArray; every imported buffer shares one of these.
struct ArrayOwner {
  explicit ArrayOwner(ArrowArray* source) : array(*source) { source->release = nullptr; }
  ~ArrayOwner() {
    if (array.release != nullptr) array.release(&array);
  }
  ArrowArray array;
};

Result<Field> ImportFieldNode(const ArrowSchema& schema, const std::string& path) {
  if (schema.release == nullptr) return Status::Invalid(path + ": ArrowSchema is released");
  if (schema.format == nullptr) return Status::Invalid(path + ": ArrowSchema has no format");
  if (schema.dictionary != nullptr) {
    return Status::NotImplemented(path + ": dictionary-encoded fields are not supported");
  }
  if (schema.n_children < 0 || (schema.n_children > 0 && schema.children == nullptr)) {
    return Status::Invalid(path + ": ArrowSchema has " + std::to_string(schema.n_children) +
                           " children but no children array");
  }
  std::vector<Field> children;
  for (int64_t i = 0; i < schema.n_children; ++i) {
    if (schema.children[i] == nullptr) {
      return Status::Invalid(path + ": child " + std::to_string(i) + " is NULL");
    }
    QUIVER_ASSIGN_OR_RETURN(Field child,
                            ImportFieldNode(*schema.children[i], path + ".child " + std::to_string(i)));
    children.push_back(std::move(child));
  }
  Field field;
  field.name = schema.name ? schema.name : "";
  field.nullable = (schema.flags & ARROW_FLAG_NULLABLE) != 0;
  auto type = internal::TypeFromFormat(schema.format, std::move(children));
  if (!type.ok()) return type.status().WithContext(path);
  auto metadata = internal::DecodeMetadata(schema.metadata);
  if (!metadata.ok()) return metadata.status().WithContext(path);
  // Lift the extension keys out of the field metadata into the type.
  std::string ext_name, ext_metadata;
  bool is_extension = false;
  for (auto& [key, value] : *metadata) {
    if (key == kExtensionNameKey) {
      ext_name = value;
      is_extension = true;
    } else if (key == kExtensionMetadataKey) {
      ext_metadata = value;
    } else {
      field.metadata.emplace_back(key, value);
    }
  }
  field.type = *type;
  if (is_extension) {
    auto ext = extension(ext_name, ext_metadata, *type);
    if (!ext.ok()) return ext.status().WithContext(path);
    field.type = *ext;
  }
  return field;
}

int64_t ReadOffsetAt(const void* offsets, int64_t index, bool wide) {
  if (wide) {
    int64_t v;
    std::memcpy(&v, static_cast<const uint8_t*>(offsets) + index * 8, 8);
    return v;
  }
  int32_t v;
  std::memcpy(&v, static_cast<const uint8_t*>(offsets) + index * 4, 4);
  return v;
}

// Byte sizes of each buffer of `node`, derived from its type and length
// (the C struct does not carry them).
Result<std::vector<int64_t>> BufferSizes(const ArrowArray& node, const DataType& storage) {
  const int64_t end = node.offset + node.length;
  std::vector<int64_t> sizes(node.n_buffers, 0);
  sizes[0] = (end + 7) / 8;
  switch (storage.id()) {
    case TypeId::kBool:
      sizes[1] = (end + 7) / 8;
      break;
    case TypeId::kUtf8:
    case TypeId::kLargeUtf8:
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
    case TypeId::kList:
    case TypeId::kLargeList: {
      bool wide = HasLargeOffsets(storage.id());
      QUIVER_ASSIGN_OR_RETURN(sizes[1], internal::MultiplyChecked(end + 1, wide ? 8 : 4, "offsets size"));
      if (node.n_buffers == 3 && node.buffers[1] != nullptr) {
        int64_t last = ReadOffsetAt(node.buffers[1], end, wide);
        if (last < 0) return Status::Invalid("last offset " + std::to_string(last) + " is negative");
        sizes[2] = last;
      }
      break;
    }
    case TypeId::kFixedSizeList:
    case TypeId::kStruct:
      break;
    default: {
      QUIVER_ASSIGN_OR_RETURN(sizes[1], internal::MultiplyChecked(end, storage.byte_width(), "values size"));
    }
  }
  return sizes;
}

Result<ArrayDataPtr> ImportNode(const ArrowArray& node, const TypePtr& type,
                                const std::shared_ptr<ArrayOwner>& owner) {
  const DataType& storage = type->storage();
  if (node.release == nullptr) return Status::Invalid("ArrowArray is released");
  if (node.length < 0 || node.offset < 0 || node.null_count < -1) {
    return Status::Invalid("ArrowArray has length " + std::to_string(node.length) + ", offset " +
                           std::to_string(node.offset) + ", null_count " +
                           std::to_string(node.null_count));
  }
  QUIVER_RETURN_NOT_OK(internal::AddChecked(node.offset, node.length, "offset + length").status());
  if (node.dictionary != nullptr) return Status::NotImplemented("dictionary arrays are not supported");
  int expected_buffers = ExpectedBufferCount(storage);
  if (node.n_buffers != expected_buffers || (expected_buffers > 0 && node.buffers == nullptr)) {
    return Status::Invalid("ArrowArray of type " + type->ToString() + " has " +
                           std::to_string(node.n_buffers) + " buffers, expected " +
                           std::to_string(expected_buffers));
  }
  int64_t expected_children = static_cast<int64_t>(storage.children().size());
  if (node.n_children != expected_children || (expected_children > 0 && node.children == nullptr)) {
    return Status::Invalid("ArrowArray of type " + type->ToString() + " has " +
                           std::to_string(node.n_children) + " children, expected " +
                           std::to_string(expected_children));
  }
  if (HasOffsets(storage.id()) && node.buffers[1] == nullptr && node.offset + node.length > 0) {
    return Status::Invalid("ArrowArray of type " + type->ToString() + " has no offsets buffer");
  }
  QUIVER_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, BufferSizes(node, storage));
  auto data = std::make_shared<ArrayData>();
  data->type = type;
  data->length = node.length;
  data->offset = node.offset;
  data->null_count = node.null_count;
  for (int64_t i = 0; i < node.n_buffers; ++i) {
    if (node.buffers[i] == nullptr) {
      data->buffers.push_back(nullptr);
      continue;
    }
    data->buffers.push_back(Buffer::Wrap(node.buffers[i], sizes[i], [owner] {}));
  }
  for (int64_t i = 0; i < node.n_children; ++i) {
    if (node.children[i] == nullptr) {
      return Status::Invalid("child " + std::to_string(i) + " is NULL");
    }
    auto child = ImportNode(*node.children[i], storage.children()[i].type, owner);
    if (!child.ok()) {
      return child.status().WithContext("child " + std::to_string(i) + " (" +
                                        storage.children()[i].name + ")");
    }
    data->children.push_back(*child);
  }
  return ArrayDataPtr(data);
}

}  // namespace

Result<Field> ImportField(ArrowSchema* schema) {
  if (schema == nullptr) return Status::Invalid("ArrowSchema pointer is NULL");
  if (schema->release == nullptr) return Status::Invalid("ArrowSchema is already released");
  SchemaGuard guard(schema);
  return ImportFieldNode(guard.get(), "field");
}

Result<TypePtr> ImportType(ArrowSchema* schema) {
  QUIVER_ASSIGN_OR_RETURN(Field field, ImportField(schema));
  return field.type;
}

Result<ArrayDataPtr> ImportArray(ArrowArray* array, const TypePtr& type, ValidationLevel level) {
  if (array == nullptr) return Status::Invalid("ArrowArray pointer is NULL");
  if (array->release == nullptr) return Status::Invalid("ArrowArray is already released");
  auto owner = std::make_shared<ArrayOwner>(array);
  if (!type) return Status::Invalid("cannot import an ArrowArray without a type");
  QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr data, ImportNode(owner->array, type, owner));
  Status st = Validate(*data, level);
  if (!st.ok()) return st.WithContext("imported ArrowArray of type " + type->ToString());
  return data;
}

}  // namespace quiver
