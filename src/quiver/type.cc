#include "quiver/type.h"

#include <array>

namespace quiver {

namespace {

struct PrimitiveInfo {
  TypeId id;
  const char* name;
  int bit_width;
};

constexpr std::array<PrimitiveInfo, 12> kPrimitives = {{
    {TypeId::kInt8, "int8", 8},       {TypeId::kInt16, "int16", 16},
    {TypeId::kInt32, "int32", 32},    {TypeId::kInt64, "int64", 64},
    {TypeId::kUInt8, "uint8", 8},     {TypeId::kUInt16, "uint16", 16},
    {TypeId::kUInt32, "uint32", 32},  {TypeId::kUInt64, "uint64", 64},
    {TypeId::kFloat16, "float16", 16}, {TypeId::kFloat32, "float32", 32},
    {TypeId::kFloat64, "float64", 64}, {TypeId::kBool, "bool", 1},
}};

const PrimitiveInfo* FindPrimitive(TypeId id) {
  for (const auto& info : kPrimitives) {
    if (info.id == id) return &info;
  }
  return nullptr;
}

TypePtr Singleton(TypeId id) {
  // One shared instance per parameterless type.
  static const std::array<TypePtr, 16> instances = [] {
    std::array<TypePtr, 16> out;
    for (int i = 0; i <= static_cast<int>(TypeId::kLargeBinary); ++i) {
      out[i] = std::make_shared<DataType>(static_cast<TypeId>(i));
    }
    return out;
  }();
  return instances[static_cast<int>(id)];
}

std::string ChildrenToString(const std::vector<Field>& children) {
  std::string out;
  for (size_t i = 0; i < children.size(); ++i) {
    if (i > 0) out += ", ";
    out += children[i].ToString();
  }
  return out;
}

}  // namespace

bool Field::Equals(const Field& other) const {
  return name == other.name && nullable == other.nullable && metadata == other.metadata &&
         type != nullptr && other.type != nullptr && type->Equals(*other.type);
}

std::string Field::ToString() const {
  return name + ": " + (type ? type->ToString() : "<null type>") + (nullable ? "" : " not null");
}

bool Schema::Equals(const Schema& other) const {
  if (fields.size() != other.fields.size() || metadata != other.metadata) return false;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (!fields[i].Equals(other.fields[i])) return false;
  }
  return true;
}

int DataType::bit_width() const {
  if (storage_) return storage_->bit_width();
  if (const auto* info = FindPrimitive(id_)) return info->bit_width;
  if (id_ == TypeId::kFixedSizeBinary) return fixed_size_ * 8;
  return 0;
}

bool DataType::is_bool8() const {
  return id_ == TypeId::kExtension && extension_name_ == "arrow.bool8" &&
         storage_->id() == TypeId::kInt8;
}

int64_t DataType::byte_width() const {
  if (storage().id() == TypeId::kBool) return 0;
  return bit_width() / 8;
}

bool DataType::Equals(const DataType& other) const {
  if (this == &other) return true;
  if (id_ != other.id_ || fixed_size_ != other.fixed_size_ ||
      children_.size() != other.children_.size() || extension_name_ != other.extension_name_ ||
      extension_metadata_ != other.extension_metadata_) {
    return false;
  }
  for (size_t i = 0; i < children_.size(); ++i) {
    if (!children_[i].Equals(other.children_[i])) return false;
  }
  if (storage_ || other.storage_) {
    return storage_ && other.storage_ && storage_->Equals(*other.storage_);
  }
  return true;
}

std::string DataType::ToString() const {
  if (const auto* info = FindPrimitive(id_)) return info->name;
  switch (id_) {
    case TypeId::kUtf8: return "utf8";
    case TypeId::kLargeUtf8: return "large_utf8";
    case TypeId::kBinary: return "binary";
    case TypeId::kLargeBinary: return "large_binary";
    case TypeId::kFixedSizeBinary: return "fixed_size_binary[" + std::to_string(fixed_size_) + "]";
    case TypeId::kList: return "list<" + ChildrenToString(children_) + ">";
    case TypeId::kLargeList: return "large_list<" + ChildrenToString(children_) + ">";
    case TypeId::kFixedSizeList:
      return "fixed_size_list<" + ChildrenToString(children_) + ">[" +
             std::to_string(fixed_size_) + "]";
    case TypeId::kStruct: return "struct<" + ChildrenToString(children_) + ">";
    case TypeId::kExtension:
      return "extension<" + extension_name_ + ", storage=" + storage_->ToString() + ">";
    default: return "unknown";
  }
}

TypePtr int8() { return Singleton(TypeId::kInt8); }
TypePtr int16() { return Singleton(TypeId::kInt16); }
TypePtr int32() { return Singleton(TypeId::kInt32); }
TypePtr int64() { return Singleton(TypeId::kInt64); }
TypePtr uint8() { return Singleton(TypeId::kUInt8); }
TypePtr uint16() { return Singleton(TypeId::kUInt16); }
TypePtr uint32() { return Singleton(TypeId::kUInt32); }
TypePtr uint64() { return Singleton(TypeId::kUInt64); }
TypePtr float16() { return Singleton(TypeId::kFloat16); }
TypePtr float32() { return Singleton(TypeId::kFloat32); }
TypePtr float64() { return Singleton(TypeId::kFloat64); }
TypePtr boolean() { return Singleton(TypeId::kBool); }
TypePtr utf8() { return Singleton(TypeId::kUtf8); }
TypePtr large_utf8() { return Singleton(TypeId::kLargeUtf8); }
TypePtr binary() { return Singleton(TypeId::kBinary); }
TypePtr large_binary() { return Singleton(TypeId::kLargeBinary); }

TypePtr bool8() {
  static const TypePtr type = *extension("arrow.bool8", "", int8());
  return type;
}

Result<TypePtr> fixed_size_binary(int32_t byte_width) {
  if (byte_width < 0) {
    return Status::Invalid("fixed_size_binary width " + std::to_string(byte_width) +
                           " is negative");
  }
  auto type = std::make_shared<DataType>(TypeId::kFixedSizeBinary);
  type->fixed_size_ = byte_width;
  return TypePtr(type);
}

TypePtr list(Field value_field) {
  auto type = std::make_shared<DataType>(TypeId::kList);
  type->children_.push_back(std::move(value_field));
  return type;
}

TypePtr large_list(Field value_field) {
  auto type = std::make_shared<DataType>(TypeId::kLargeList);
  type->children_.push_back(std::move(value_field));
  return type;
}

Result<TypePtr> fixed_size_list(Field value_field, int32_t list_size) {
  if (list_size < 0) {
    return Status::Invalid("fixed_size_list size " + std::to_string(list_size) + " is negative");
  }
  auto type = std::make_shared<DataType>(TypeId::kFixedSizeList);
  type->children_.push_back(std::move(value_field));
  type->fixed_size_ = list_size;
  return TypePtr(type);
}

TypePtr struct_(std::vector<Field> fields) {
  auto type = std::make_shared<DataType>(TypeId::kStruct);
  type->children_ = std::move(fields);
  return type;
}

Result<TypePtr> extension(std::string name, std::string metadata, TypePtr storage) {
  if (name.empty()) return Status::Invalid("extension type name is empty");
  if (!storage) return Status::Invalid("extension type '" + name + "' has no storage type");
  if (storage->id() == TypeId::kExtension) {
    return Status::Invalid("extension type '" + name + "' cannot have extension storage");
  }
  auto type = std::make_shared<DataType>(TypeId::kExtension);
  type->extension_name_ = std::move(name);
  type->extension_metadata_ = std::move(metadata);
  type->storage_ = std::move(storage);
  return TypePtr(type);
}

Field ListItem(TypePtr value_type) { return Field{"item", std::move(value_type), true, {}}; }

Result<TypePtr> TypeFromName(const std::string& name) {
  for (const auto& info : kPrimitives) {
    if (name == info.name) return Singleton(info.id);
  }
  if (name == "float") return float32();
  if (name == "double") return float64();
  if (name == "halffloat") return float16();
  return Status::TypeError("unknown value type '" + name + "'");
}

bool HasLargeOffsets(TypeId id) {
  return id == TypeId::kLargeUtf8 || id == TypeId::kLargeBinary || id == TypeId::kLargeList;
}

bool HasOffsets(TypeId id) {
  return id == TypeId::kUtf8 || id == TypeId::kBinary || id == TypeId::kList ||
         HasLargeOffsets(id);
}

int ExpectedBufferCount(const DataType& type) {
  switch (type.storage().id()) {
    case TypeId::kUtf8:
    case TypeId::kLargeUtf8:
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
      return 3;
    case TypeId::kFixedSizeList:
    case TypeId::kStruct:
      return 1;
    default:  // primitives, bool, fixed_size_binary, list, large_list
      return 2;
  }
}

}  // namespace quiver
