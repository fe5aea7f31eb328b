// The Arrow logical type tree quiver understands, plus Field and Schema.
//
// One DataType class covers every type: which parameters are meaningful
// depends on id(). Types are immutable, shared through TypePtr, and built
// only by the factory functions below, so every type is well formed (a
// list has its child, a fixed-size list a non-negative size).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "quiver/status.h"

namespace quiver {

enum class TypeId : uint8_t {
  kInt8, kInt16, kInt32, kInt64,
  kUInt8, kUInt16, kUInt32, kUInt64,
  kFloat16, kFloat32, kFloat64,
  kBool,             // bit-packed
  kUtf8, kLargeUtf8, kBinary, kLargeBinary,
  kFixedSizeBinary,
  kList, kLargeList, kFixedSizeList,
  kStruct,
  kExtension,
};

// The field metadata keys an extension type travels under (in the C Data
// Interface and in IPC schemas): its name, and its serialized parameters.
inline constexpr const char* kExtensionNameKey = "ARROW:extension:name";
inline constexpr const char* kExtensionMetadataKey = "ARROW:extension:metadata";

// Deepest nesting of types quiver accepts from readers and C Data imports
// (and will validate or export): deeper trees are refused with an error
// naming the depth, so no recursion over a type can exhaust the stack.
inline constexpr int kMaxNestingDepth = 64;

class DataType;
struct Field;
using TypePtr = std::shared_ptr<const DataType>;
// Ordered key/value pairs (Arrow metadata keeps order and allows any bytes).
using KeyValueMetadata = std::vector<std::pair<std::string, std::string>>;

struct Field {
  std::string name;
  TypePtr type;
  bool nullable = true;
  KeyValueMetadata metadata;

  bool Equals(const Field& other) const;
  std::string ToString() const;
};

struct Schema {
  std::vector<Field> fields;
  KeyValueMetadata metadata;

  bool Equals(const Schema& other) const;
};

class DataType {
 public:
  TypeId id() const { return id_; }

  // Bits per value for fixed-width types (bool: 1), 0 for the rest;
  // extension types have their storage's width. 64-bit: a
  // fixed_size_binary of 2^31 - 1 bytes is 2^34 - 8 bits wide.
  int64_t bit_width() const;
  // Bytes per value for byte-sized fixed-width types (fixed_size_binary
  // included), 0 for bool and variable-width types.
  int64_t byte_width() const;

  bool is_integer() const { return id_ <= TypeId::kUInt64; }
  bool is_signed_integer() const { return id_ <= TypeId::kInt64; }
  bool is_floating() const { return id_ >= TypeId::kFloat16 && id_ <= TypeId::kFloat64; }
  // Integers and floats.
  bool is_numeric() const { return is_integer() || is_floating(); }
  // The arrow.bool8 extension type: one byte per value, 0 false, else true.
  bool is_bool8() const;
  // What a dense tensor can hold: the numeric types and bool8.
  bool is_tensor_value() const { return is_numeric() || is_bool8(); }

  // fixed_size_list: entries per list. fixed_size_binary: bytes per value.
  int32_t fixed_size() const { return fixed_size_; }
  // list, large_list, fixed_size_list: one child; struct: one per field.
  const std::vector<Field>& children() const { return children_; }

  // Extension types only.
  const std::string& extension_name() const { return extension_name_; }
  const std::string& extension_metadata() const { return extension_metadata_; }
  const TypePtr& storage_type() const { return storage_; }

  // The type whose physical layout this type has (itself unless extension).
  const DataType& storage() const { return storage_ ? *storage_ : *this; }

  // Levels of nested types below this one: 0 for primitives, 1 for a list
  // of primitives, ... Readers, validation and export refuse types deeper
  // than kMaxNestingDepth.
  int nesting_depth() const { return nesting_depth_; }

  bool Equals(const DataType& other) const;
  // "int32", "fixed_size_list<item: float>[4]", "extension<arrow.bool8>".
  std::string ToString() const;

  // Only quiver's factories (through the internal TypeFactory) can make a
  // Key, so a DataType cannot be built half-formed from outside.
  class Key {
    Key() = default;
    friend struct TypeFactory;
  };
  DataType(Key, TypeId id) : id_(id) {}

 private:
  friend struct TypeFactory;

  // Sets nesting_depth_ from the children (or the storage).
  void ComputeNestingDepth();

  TypeId id_;
  int nesting_depth_ = 0;
  int32_t fixed_size_ = 0;
  std::vector<Field> children_;
  std::string extension_name_;
  std::string extension_metadata_;
  TypePtr storage_;
};

TypePtr int8();
TypePtr int16();
TypePtr int32();
TypePtr int64();
TypePtr uint8();
TypePtr uint16();
TypePtr uint32();
TypePtr uint64();
TypePtr float16();
TypePtr float32();
TypePtr float64();
TypePtr boolean();
// arrow.bool8: booleans stored as int8 (zero-copy with NumPy and DLPack).
TypePtr bool8();
TypePtr utf8();
TypePtr large_utf8();
TypePtr binary();
TypePtr large_binary();
// byte_width must be >= 0.
Result<TypePtr> fixed_size_binary(int32_t byte_width);
TypePtr list(Field value_field);
TypePtr large_list(Field value_field);
// list_size must be >= 0.
Result<TypePtr> fixed_size_list(Field value_field, int32_t list_size);
TypePtr struct_(std::vector<Field> fields);
// name must be non-empty; storage may not itself be an extension type.
Result<TypePtr> extension(std::string name, std::string metadata, TypePtr storage);

// A nullable field named "item", the child name Arrow uses for lists.
Field ListItem(TypePtr value_type);

// The primitive type named "int8" .. "float64", "float16", "bool".
Result<TypePtr> TypeFromName(const std::string& name);

}  // namespace quiver
