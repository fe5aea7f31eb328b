// IPC schema metadata: quiver fields and types as flatbuffer Fields and
// Types, and back, with every foreign value checked.
#include "quiver/ipc/metadata.h"

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "quiver/internal/extension_keys.h"

namespace quiver::ipc {

namespace {

using TypeOffset = std::pair<fb::Type, flatbuffers::Offset<void>>;

Result<TypeOffset> WriteType(flatbuffers::FlatBufferBuilder& builder, const DataType& storage) {
  auto int_type = [&](int bits, bool is_signed) {
    return TypeOffset{fb::Type::Int, fb::CreateInt(builder, bits, is_signed).Union()};
  };
  auto float_type = [&](fb::Precision precision) {
    return TypeOffset{fb::Type::FloatingPoint, fb::CreateFloatingPoint(builder, precision).Union()};
  };
  switch (storage.id()) {
    case TypeId::kInt8: return int_type(8, true);
    case TypeId::kInt16: return int_type(16, true);
    case TypeId::kInt32: return int_type(32, true);
    case TypeId::kInt64: return int_type(64, true);
    case TypeId::kUInt8: return int_type(8, false);
    case TypeId::kUInt16: return int_type(16, false);
    case TypeId::kUInt32: return int_type(32, false);
    case TypeId::kUInt64: return int_type(64, false);
    case TypeId::kFloat16: return float_type(fb::Precision::HALF);
    case TypeId::kFloat32: return float_type(fb::Precision::SINGLE);
    case TypeId::kFloat64: return float_type(fb::Precision::DOUBLE);
    case TypeId::kBool: return TypeOffset{fb::Type::Bool, fb::CreateBool(builder).Union()};
    case TypeId::kUtf8: return TypeOffset{fb::Type::Utf8, fb::CreateUtf8(builder).Union()};
    case TypeId::kLargeUtf8: return TypeOffset{fb::Type::LargeUtf8, fb::CreateLargeUtf8(builder).Union()};
    case TypeId::kBinary: return TypeOffset{fb::Type::Binary, fb::CreateBinary(builder).Union()};
    case TypeId::kLargeBinary:
      return TypeOffset{fb::Type::LargeBinary, fb::CreateLargeBinary(builder).Union()};
    case TypeId::kFixedSizeBinary:
      return TypeOffset{fb::Type::FixedSizeBinary,
                        fb::CreateFixedSizeBinary(builder, storage.fixed_size()).Union()};
    case TypeId::kList: return TypeOffset{fb::Type::List, fb::CreateList(builder).Union()};
    case TypeId::kLargeList: return TypeOffset{fb::Type::LargeList, fb::CreateLargeList(builder).Union()};
    case TypeId::kFixedSizeList:
      return TypeOffset{fb::Type::FixedSizeList,
                        fb::CreateFixedSizeList(builder, storage.fixed_size()).Union()};
    case TypeId::kStruct: return TypeOffset{fb::Type::Struct_, fb::CreateStruct_(builder).Union()};
    default: break;
  }
  return Status::NotImplemented("cannot write type " + storage.ToString() + " to IPC yet");
}

Result<flatbuffers::Offset<fb::Field>> WriteField(flatbuffers::FlatBufferBuilder& builder,
                                                  const Field& field, int depth) {
  if (!field.type) return Status::Invalid("field '" + field.name + "' has no type");
  if (depth > kMaxNestingDepth) {
    return Status::Invalid("field '" + field.name + "' nests more than " +
                           std::to_string(kMaxNestingDepth) + " levels deep");
  }
  const DataType& storage = field.type->storage();
  std::vector<flatbuffers::Offset<fb::Field>> children;
  for (const Field& child : storage.children()) {
    QUIVER_ASSIGN_OR_RETURN(auto offset, WriteField(builder, child, depth + 1));
    children.push_back(offset);
  }
  QUIVER_ASSIGN_OR_RETURN(TypeOffset type, WriteType(builder, storage));
  auto name = builder.CreateString(field.name);
  auto child_vector = builder.CreateVector(children);
  auto metadata = WriteKeyValues(builder, internal::MetadataWithExtensionKeys(field));
  return fb::CreateField(builder, name, field.nullable, type.first, type.second, 0, child_vector,
                         metadata);
}

// "column 2 (images)" / "column 2 (images).child 0 (item)" for errors.
std::string ChildPath(const std::string& parent, size_t index, const flatbuffers::String* name) {
  std::string label = (name ? name->str() : std::string());
  return parent + (parent.empty() ? "column " : ".child ") + std::to_string(index) + " (" + label + ")";
}

Result<TypePtr> ReadIntType(const fb::Int* type, const std::string& where) {
  if (type == nullptr) return Status::Invalid(where + ": Int type without its table");
  const bool is_signed = type->is_signed();
  switch (type->bit_width()) {
    case 8: return is_signed ? int8() : uint8();
    case 16: return is_signed ? int16() : uint16();
    case 32: return is_signed ? int32() : uint32();
    case 64: return is_signed ? int64() : uint64();
    default: break;
  }
  return Status::Invalid(where + ": Int bit width " + std::to_string(type->bit_width()) +
                         " is not 8, 16, 32 or 64");
}

Result<TypePtr> ReadFloatType(const fb::FloatingPoint* type, const std::string& where) {
  if (type == nullptr) return Status::Invalid(where + ": FloatingPoint type without its table");
  switch (type->precision()) {
    case fb::Precision::HALF: return float16();
    case fb::Precision::SINGLE: return float32();
    case fb::Precision::DOUBLE: return float64();
  }
  return Status::Invalid(where + ": unknown floating point precision " +
                         std::to_string(static_cast<int>(type->precision())));
}

Status ExpectChildren(const std::vector<Field>& children, size_t expected, const char* type_name,
                      const std::string& where) {
  if (children.size() == expected) return Status::OK();
  return Status::Invalid(where + ": a " + type_name + " field needs " + std::to_string(expected) +
                         " children, got " + std::to_string(children.size()));
}

Result<TypePtr> ReadType(const fb::Field& field, std::vector<Field> children, const std::string& where) {
  const fb::Type type_type = field.type_type();
  auto leaf = [&](TypePtr type) -> Result<TypePtr> {
    QUIVER_RETURN_NOT_OK(ExpectChildren(children, 0, fb::EnumNameType(type_type), where));
    return type;
  };
  switch (type_type) {
    case fb::Type::Int: {
      QUIVER_ASSIGN_OR_RETURN(TypePtr type, ReadIntType(field.type_as_Int(), where));
      return leaf(type);
    }
    case fb::Type::FloatingPoint: {
      QUIVER_ASSIGN_OR_RETURN(TypePtr type, ReadFloatType(field.type_as_FloatingPoint(), where));
      return leaf(type);
    }
    case fb::Type::Bool: return leaf(boolean());
    case fb::Type::Utf8: return leaf(utf8());
    case fb::Type::LargeUtf8: return leaf(large_utf8());
    case fb::Type::Binary: return leaf(binary());
    case fb::Type::LargeBinary: return leaf(large_binary());
    case fb::Type::FixedSizeBinary: {
      const fb::FixedSizeBinary* type = field.type_as_FixedSizeBinary();
      if (type == nullptr) return Status::Invalid(where + ": FixedSizeBinary type without its table");
      auto made = fixed_size_binary(type->byte_width());
      if (!made.ok()) return made.status().WithContext(where);
      return leaf(*made);
    }
    case fb::Type::List:
    case fb::Type::LargeList: {
      QUIVER_RETURN_NOT_OK(ExpectChildren(children, 1, fb::EnumNameType(type_type), where));
      return type_type == fb::Type::List ? list(std::move(children[0])) : large_list(std::move(children[0]));
    }
    case fb::Type::FixedSizeList: {
      const fb::FixedSizeList* type = field.type_as_FixedSizeList();
      if (type == nullptr) return Status::Invalid(where + ": FixedSizeList type without its table");
      QUIVER_RETURN_NOT_OK(ExpectChildren(children, 1, "FixedSizeList", where));
      auto made = fixed_size_list(std::move(children[0]), type->list_size());
      if (!made.ok()) return made.status().WithContext(where);
      return *made;
    }
    case fb::Type::Struct_: return struct_(std::move(children));
    case fb::Type::NONE: return Status::Invalid(where + ": field has no type");
    default: break;
  }
  const char* name = fb::EnumNameType(type_type);
  return Status::NotImplemented(where + ": type " + (*name ? std::string(name) : std::to_string(static_cast<int>(type_type))) +
                                " is not supported by quiver");
}

Result<Field> ReadField(const fb::Field* field, const std::string& where, int depth) {
  if (field == nullptr) return Status::Invalid(where + ": missing field");
  if (depth > kMaxNestingDepth) {
    return Status::Invalid(where + ": the schema nests more than " +
                           std::to_string(kMaxNestingDepth) + " levels deep");
  }
  if (field->dictionary() != nullptr) {
    return Status::NotImplemented(where + ": dictionary-encoded fields are not supported yet");
  }
  std::vector<Field> children;
  if (const auto* fb_children = field->children()) {
    for (flatbuffers::uoffset_t i = 0; i < fb_children->size(); ++i) {
      const fb::Field* child = fb_children->Get(i);
      QUIVER_ASSIGN_OR_RETURN(Field read, ReadField(child, ChildPath(where, i, child ? child->name() : nullptr),
                                                    depth + 1));
      children.push_back(std::move(read));
    }
  }
  Field out;
  out.name = field->name() ? field->name()->str() : "";
  out.nullable = field->nullable();
  QUIVER_ASSIGN_OR_RETURN(out.type, ReadType(*field, std::move(children), where));
  Status st = internal::LiftExtensionKeys(ReadKeyValues(field->custom_metadata()), &out);
  if (!st.ok()) return st.WithContext(where);
  return out;
}

}  // namespace

KeyValueOffsets WriteKeyValues(flatbuffers::FlatBufferBuilder& builder,
                               const KeyValueMetadata& metadata) {
  if (metadata.empty()) return 0;
  std::vector<flatbuffers::Offset<fb::KeyValue>> pairs;
  for (const auto& [key, value] : metadata) {
    pairs.push_back(fb::CreateKeyValue(builder, builder.CreateString(key), builder.CreateString(value)));
  }
  return builder.CreateVector(pairs);
}

KeyValueMetadata ReadKeyValues(const flatbuffers::Vector<flatbuffers::Offset<fb::KeyValue>>* pairs) {
  KeyValueMetadata out;
  if (pairs == nullptr) return out;
  for (const fb::KeyValue* pair : *pairs) {
    if (pair == nullptr) continue;
    out.emplace_back(pair->key() ? pair->key()->str() : "", pair->value() ? pair->value()->str() : "");
  }
  return out;
}

Result<flatbuffers::Offset<fb::Schema>> WriteSchema(flatbuffers::FlatBufferBuilder& builder,
                                                    const Schema& schema) {
  std::vector<flatbuffers::Offset<fb::Field>> fields;
  for (const Field& field : schema.fields) {
    QUIVER_ASSIGN_OR_RETURN(auto offset, WriteField(builder, field, 0));
    fields.push_back(offset);
  }
  auto field_vector = builder.CreateVector(fields);
  auto metadata = WriteKeyValues(builder, schema.metadata);
  return fb::CreateSchema(builder, fb::Endianness::Little, field_vector, metadata);
}

Result<SchemaPtr> ReadSchema(const fb::Schema* schema) {
  if (schema == nullptr) return Status::Invalid("the message holds no schema");
  if (schema->endianness() != fb::Endianness::Little) {
    return Status::NotImplemented("big-endian IPC data is not supported");
  }
  auto out = std::make_shared<Schema>();
  if (const auto* fields = schema->fields()) {
    for (flatbuffers::uoffset_t i = 0; i < fields->size(); ++i) {
      const fb::Field* field = fields->Get(i);
      QUIVER_ASSIGN_OR_RETURN(Field read, ReadField(field, ChildPath("", i, field ? field->name() : nullptr), 0));
      out->fields.push_back(std::move(read));
    }
  }
  out->metadata = ReadKeyValues(schema->custom_metadata());
  return SchemaPtr(std::move(out));
}

Result<TypePtr> ReadTensorValueType(fb::Type type_type, const void* type, const std::string& where) {
  switch (type_type) {
    case fb::Type::Int: return ReadIntType(static_cast<const fb::Int*>(type), where);
    case fb::Type::FloatingPoint:
      return ReadFloatType(static_cast<const fb::FloatingPoint*>(type), where);
    default: break;
  }
  const char* name = fb::EnumNameType(type_type);
  return Status::NotImplemented(where + ": tensor value type " +
                                (*name ? std::string(name) : std::to_string(static_cast<int>(type_type))) +
                                " is not supported");
}

Result<std::pair<fb::Type, flatbuffers::Offset<void>>> WriteTensorValueType(
    flatbuffers::FlatBufferBuilder& builder, const DataType& type) {
  if (!type.is_numeric()) {
    return Status::TypeError("the Tensor message holds numeric values, not " + type.ToString());
  }
  return WriteType(builder, type);
}

}  // namespace quiver::ipc
