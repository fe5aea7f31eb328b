#include "quiver/parquet/schema.h"

#include <algorithm>
#include <utility>

#include "quiver/internal/base64.h"
#include "quiver/io.h"
#include "quiver/ipc.h"
#include "quiver/record_batch.h"

namespace quiver::parquet {

namespace {

using namespace converted_type;  // NOLINT(google-build-using-namespace)

constexpr const char* kArrowSchemaKey = "ARROW:schema";

std::string Quoted(const std::string& name) { return "'" + name + "'"; }

// --- the tree ---------------------------------------------------------------------

struct TreeBuilder {
  const FileMetaData& metadata;
  const std::string& what;
  size_t next = 0;
  int leaves = 0;

  Status Error(const SchemaElement& e, const std::string& message) const {
    return Status::Invalid(what, ": Parquet schema element ", next - 1, " (", Quoted(e.name), ") ",
                           message);
  }

  Status Children(SchemaNode* node, int depth) {
    const SchemaElement& e = *node->element;
    if (depth >= kMaxNestingDepth) {
      return Error(e, "nests deeper than " + std::to_string(kMaxNestingDepth) + " levels");
    }
    const size_t left = metadata.schema.size() - next;
    if (static_cast<size_t>(e.num_children) > left) {
      return Error(e, "has " + std::to_string(e.num_children) + " children, but only " +
                          std::to_string(left) + " elements follow");
    }
    node->children.reserve(static_cast<size_t>(e.num_children));
    for (int32_t i = 0; i < e.num_children; ++i) {
      // The count was checked against what follows, but the children
      // before this one may have taken elements for their own children.
      if (next == metadata.schema.size()) {
        return Error(e, "has " + std::to_string(e.num_children) +
                            " children, but the schema ends after " + std::to_string(i) +
                            " of them");
      }
      SchemaNode child;
      child.element = &metadata.schema[next++];
      const SchemaElement& c = *child.element;
      if (!c.repetition) return Error(c, "has no repetition (required, optional or repeated)");
      child.max_definition_level = static_cast<int16_t>(
          node->max_definition_level + (*c.repetition != Repetition::kRequired ? 1 : 0));
      child.max_repetition_level = static_cast<int16_t>(
          node->max_repetition_level + (*c.repetition == Repetition::kRepeated ? 1 : 0));
      if (child.is_leaf()) {
        if (!c.type) return Error(c, "is a leaf without a physical type");
        if (*c.type == PhysicalType::kFixedLenByteArray && c.type_length <= 0) {
          return Error(c, "is a FIXED_LEN_BYTE_ARRAY of length " + std::to_string(c.type_length));
        }
        child.leaf_index = leaves++;
      } else {
        QUIVER_RETURN_NOT_OK(Children(&child, depth + 1));
      }
      node->children.push_back(std::move(child));
    }
    return Status::OK();
  }
};

// --- Parquet types to Arrow types ---------------------------------------------------

Status Mismatch(const SchemaElement& e, const std::string& what, const std::string& annotation) {
  return Status::Invalid(what, ": Parquet column ", Quoted(e.name), " is annotated ", annotation,
                         " but stored as ", PhysicalTypeName(*e.type));
}

Result<TypePtr> Decimal(int32_t precision, int32_t scale) {
  return precision <= 38 ? decimal128(precision, scale) : decimal256(precision, scale);
}

TypePtr IntegerType(int bits, bool is_signed) {
  switch (bits) {
    case 8: return is_signed ? int8() : uint8();
    case 16: return is_signed ? int16() : uint16();
    case 32: return is_signed ? int32() : uint32();
    default: return is_signed ? int64() : uint64();
  }
}

// A leaf's type from its logical type.
Result<TypePtr> LogicalLeafType(const SchemaElement& e, const std::string& what) {
  const LogicalType& l = e.logical_type;
  const PhysicalType p = *e.type;
  switch (l.kind) {
    case LogicalType::kString:
    case LogicalType::kEnum:
    case LogicalType::kJson:
      if (p != PhysicalType::kByteArray) return Mismatch(e, what, "as text");
      return utf8();
    case LogicalType::kDecimal:
      if (p == PhysicalType::kBoolean || p == PhysicalType::kFloat || p == PhysicalType::kDouble ||
          p == PhysicalType::kInt96) {
        return Mismatch(e, what, "DECIMAL");
      }
      return Decimal(l.precision, l.scale);
    case LogicalType::kDate:
      if (p != PhysicalType::kInt32) return Mismatch(e, what, "DATE");
      return date32();
    case LogicalType::kTime:
      if (l.unit == TimeUnit::kMilli) {
        if (p != PhysicalType::kInt32) return Mismatch(e, what, "TIME(MILLIS)");
        return time32(TimeUnit::kMilli);
      }
      if (p != PhysicalType::kInt64) return Mismatch(e, what, "TIME(MICROS or NANOS)");
      return time64(l.unit);
    case LogicalType::kTimestamp:
      if (p != PhysicalType::kInt64) return Mismatch(e, what, "TIMESTAMP");
      return timestamp(l.unit, l.adjusted_to_utc ? "UTC" : "");
    case LogicalType::kInteger: {
      const int bits = l.bit_width;
      if (bits != 8 && bits != 16 && bits != 32 && bits != 64) {
        return Status::Invalid(what, ": Parquet column ", Quoted(e.name),
                               " is an INTEGER of bit width ", bits, " (8, 16, 32 or 64)");
      }
      if ((bits == 64) != (p == PhysicalType::kInt64) ||
          (p != PhysicalType::kInt32 && p != PhysicalType::kInt64)) {
        return Mismatch(e, what, "INTEGER(" + std::to_string(bits) + ")");
      }
      return IntegerType(bits, l.is_signed);
    }
    case LogicalType::kUnknown: return null();
    case LogicalType::kUuid:
      if (p != PhysicalType::kFixedLenByteArray || e.type_length != 16) {
        return Mismatch(e, what, "UUID");
      }
      return fixed_size_binary(16);
    case LogicalType::kFloat16:
      if (p != PhysicalType::kFixedLenByteArray || e.type_length != 2) {
        return Mismatch(e, what, "FLOAT16");
      }
      return float16();
    case LogicalType::kGeometry:
    case LogicalType::kGeography:  // well-known binary
      if (p != PhysicalType::kByteArray) return Mismatch(e, what, "as geometry");
      return binary();
    case LogicalType::kBson:
    case LogicalType::kVariant:
      return Status::TypeError(what, ": Parquet column ", Quoted(e.name),
                               " holds BSON or VARIANT values, which quiver does not read");
    case LogicalType::kList:
    case LogicalType::kMap:
      return Status::Invalid(what, ": Parquet column ", Quoted(e.name),
                             " is annotated LIST or MAP but is a leaf, not a group");
    case LogicalType::kNone: break;
  }
  return TypePtr{};
}

// A leaf's type from its converted type (older writers), or nullptr.
Result<TypePtr> ConvertedLeafType(const SchemaElement& e, const std::string& what) {
  if (!e.converted_type) return TypePtr{};
  const int32_t c = *e.converted_type;
  const PhysicalType p = *e.type;
  switch (c) {
    case kUtf8:
    case kEnum:
    case kJson:
      if (p != PhysicalType::kByteArray) return Mismatch(e, what, "as text");
      return utf8();
    case kBson: return binary();
    case kDecimal: return Decimal(e.precision, e.scale);
    case kDate: return date32();
    case kTimeMillis: return time32(TimeUnit::kMilli);
    case kTimeMicros: return time64(TimeUnit::kMicro);
    // The converted timestamps are instants (UTC-normalised), as the format
    // defines them.
    case kTimestampMillis: return timestamp(TimeUnit::kMilli, "UTC");
    case kTimestampMicros: return timestamp(TimeUnit::kMicro, "UTC");
    case kInterval: return fixed_size_binary(12);
    default: break;
  }
  if (c >= kUint8 && c <= kInt64) {
    const bool is_signed = c >= kInt8;
    const int bits = 8 << (is_signed ? c - kInt8 : c - kUint8);
    if ((bits == 64) != (p == PhysicalType::kInt64)) {
      return Mismatch(e, what, "as a " + std::to_string(bits) + "-bit integer");
    }
    return IntegerType(bits, is_signed);
  }
  return TypePtr{};  // MAP, LIST and unknown ones: the physical type
}

Result<TypePtr> PhysicalLeafType(const SchemaElement& e) {
  switch (*e.type) {
    case PhysicalType::kBoolean: return boolean();
    case PhysicalType::kInt32: return int32();
    case PhysicalType::kInt64: return int64();
    case PhysicalType::kInt96: return timestamp(TimeUnit::kNano);  // legacy timestamps
    case PhysicalType::kFloat: return float32();
    case PhysicalType::kDouble: return float64();
    case PhysicalType::kByteArray: return binary();
    case PhysicalType::kFixedLenByteArray: return fixed_size_binary(e.type_length);
  }
  return Status::Invalid("unknown physical type");
}

Result<TypePtr> LeafType(const SchemaElement& e, const std::string& what) {
  QUIVER_ASSIGN_OR_RETURN(TypePtr type, LogicalLeafType(e, what));
  if (type) return type;
  QUIVER_ASSIGN_OR_RETURN(type, ConvertedLeafType(e, what));
  if (type) return type;
  return PhysicalLeafType(e);
}

bool IsAnnotated(const SchemaElement& e, LogicalType::Kind kind,
                 std::initializer_list<int32_t> converted) {
  if (e.logical_type.kind == kind) return true;
  for (int32_t c : converted) {
    if (e.converted_type == c) return true;
  }
  return false;
}

Result<TypePtr> NodeType(const SchemaNode& node, const std::string& what);

std::vector<Field> ChildFields(const SchemaNode& node, const std::string& what, Status* status);

Result<TypePtr> StructOf(const SchemaNode& node, const std::string& what) {
  Status status;
  std::vector<Field> fields = ChildFields(node, what, &status);
  QUIVER_RETURN_NOT_OK(status);
  return struct_(std::move(fields));
}

// A LIST group: one repeated child, read by the format's rules for the
// three-level form and the older two-level ones.
Result<TypePtr> ListOf(const SchemaNode& node, const std::string& what) {
  const SchemaElement& e = *node.element;
  if (node.children.size() != 1 || node.children[0].element->repetition != Repetition::kRepeated) {
    return Status::Invalid(what, ": Parquet LIST group ", Quoted(e.name),
                           " does not hold exactly one repeated field");
  }
  const SchemaNode& repeated = node.children[0];
  const std::string& name = repeated.element->name;
  if (repeated.is_leaf()) {  // two levels: the repeated values themselves
    QUIVER_ASSIGN_OR_RETURN(TypePtr item, LeafType(*repeated.element, what));
    return list(Field{name, std::move(item), false});
  }
  if (repeated.children.size() != 1 || name == "array" || name == e.name + "_tuple") {
    // Two levels: the repeated group is the element (also when it holds no
    // fields: there is no child to be the element).
    QUIVER_ASSIGN_OR_RETURN(TypePtr item, StructOf(repeated, what));
    return list(Field{name, std::move(item), false});
  }
  QUIVER_ASSIGN_OR_RETURN(Field element, ParquetField(repeated.children[0], what));
  return list(std::move(element));
}

// A MAP group: one repeated group of a required key and an optional value.
// The value may be left out (the format allows it): such a map reads as a
// list of its keys, as pyarrow reads it.
Result<TypePtr> MapOf(const SchemaNode& node, const std::string& what) {
  const SchemaElement& e = *node.element;
  const bool shaped =
      node.children.size() == 1 && !node.children[0].is_leaf() &&
      node.children[0].element->repetition == Repetition::kRepeated &&
      (node.children[0].children.size() == 2 || node.children[0].children.size() == 1);
  if (!shaped) {
    return Status::Invalid(what, ": Parquet MAP group ", Quoted(e.name),
                           " does not hold one repeated group of a key and a value");
  }
  const SchemaNode& entries = node.children[0];
  QUIVER_ASSIGN_OR_RETURN(Field key, ParquetField(entries.children[0], what));
  if (entries.children.size() == 1) {
    if (key.nullable) {
      return Status::Invalid(what, ": the keys of Parquet MAP ", Quoted(e.name),
                             " are not required");
    }
    return list(std::move(key));
  }
  QUIVER_ASSIGN_OR_RETURN(Field value, ParquetField(entries.children[1], what));
  if (key.nullable) {
    return Status::Invalid(what, ": the keys of Parquet MAP ", Quoted(e.name), " are not required");
  }
  return map_(Field{entries.element->name, struct_({std::move(key), std::move(value)}), false});
}

Result<TypePtr> NodeType(const SchemaNode& node, const std::string& what) {
  const SchemaElement& e = *node.element;
  if (node.is_leaf()) return LeafType(e, what);
  if (IsAnnotated(e, LogicalType::kList, {kList})) return ListOf(node, what);
  if (IsAnnotated(e, LogicalType::kMap, {kMap, kMapKeyValue})) return MapOf(node, what);
  return StructOf(node, what);
}

std::vector<Field> ChildFields(const SchemaNode& node, const std::string& what, Status* status) {
  std::vector<Field> fields;
  for (const SchemaNode& child : node.children) {
    auto field = ParquetField(child, what);
    if (!field.ok()) {
      *status = field.status();
      return {};
    }
    fields.push_back(std::move(*field));
  }
  return fields;
}

// --- the ARROW:schema key ----------------------------------------------------------

// The schema an Arrow writer serialised under ARROW:schema (base64 of an
// IPC schema message), or null when absent or undecodable: the Parquet
// types are then the whole truth.
SchemaPtr StoredArrowSchema(const FileMetaData& metadata) {
  for (const auto& [key, value] : metadata.key_value_metadata) {
    if (key != kArrowSchemaKey) continue;
    std::optional<std::string> bytes = internal::DecodeBase64(value);
    if (!bytes) return nullptr;
    auto buffer = Buffer::Allocate(static_cast<int64_t>(bytes->size()));
    if (!buffer.ok()) return nullptr;
    std::copy(bytes->begin(), bytes->end(), (*buffer)->mutable_data());
    auto reader = ipc::StreamReader::Open(io::BufferSource(*buffer));
    return reader.ok() ? (*reader)->schema() : nullptr;
  }
  return nullptr;
}

bool IsStringLike(TypeId id) {
  return id == TypeId::kUtf8 || id == TypeId::kLargeUtf8 || id == TypeId::kUtf8View;
}

bool IsBinaryLike(TypeId id) {
  return id == TypeId::kBinary || id == TypeId::kLargeBinary || id == TypeId::kBinaryView;
}

bool IsListLike(TypeId id) {
  return id == TypeId::kList || id == TypeId::kLargeList || id == TypeId::kFixedSizeList ||
         id == TypeId::kListView || id == TypeId::kLargeListView;
}

}  // namespace

Result<SchemaNode> BuildSchemaTree(const FileMetaData& metadata, const std::string& what) {
  if (metadata.schema.empty()) {
    return Status::Invalid(what, ": the Parquet schema has no elements (not even its root)");
  }
  SchemaNode root;
  root.element = &metadata.schema[0];
  if (root.is_leaf()) {
    return Status::Invalid(what, ": the Parquet schema's root ", Quoted(root.element->name),
                           " is not a group");
  }
  TreeBuilder builder{metadata, what, 1, 0};
  QUIVER_RETURN_NOT_OK(builder.Children(&root, 0));
  if (builder.next != metadata.schema.size()) {
    return Status::Invalid(what, ": the Parquet schema lists ", metadata.schema.size(),
                           " elements, but its root's tree holds ", builder.next);
  }
  return root;
}

Result<Field> ParquetField(const SchemaNode& node, const std::string& what) {
  const SchemaElement& e = *node.element;
  QUIVER_ASSIGN_OR_RETURN(TypePtr type, NodeType(node, what));
  if (e.repetition == Repetition::kRepeated) {
    // A repeated field outside a LIST group: a list of required values.
    return Field{e.name, list(Field{e.name, std::move(type), false}), false, {}};
  }
  return Field{e.name, std::move(type), e.repetition == Repetition::kOptional, {}};
}

bool FitsParquetType(const DataType& arrow, const DataType& parquet) {
  if (arrow.Equals(parquet)) return true;
  const TypeId a = arrow.id(), p = parquet.id();
  if (a == TypeId::kExtension) return FitsParquetType(*arrow.storage_type(), parquet);
  if (a == TypeId::kDictionary) return FitsParquetType(*arrow.value_type(), parquet);
  if (IsListLike(a) && p == TypeId::kList) {
    return FitsParquetType(*arrow.children()[0].type, *parquet.children()[0].type);
  }
  if (IsStringLike(a) && p == TypeId::kUtf8) return true;
  if (IsBinaryLike(a) && p == TypeId::kBinary) return true;
  if (a == TypeId::kDuration && p == TypeId::kInt64) return true;
  // Time values in another unit (rescaled on reading: pyarrow stores
  // seconds as milliseconds) and time zones other than UTC (Parquet keeps
  // only whether a timestamp is adjusted to UTC).
  if (a == TypeId::kTimestamp && p == TypeId::kTimestamp) {
    return arrow.timezone().empty() == parquet.timezone().empty();
  }
  const auto is_time = [](TypeId id) { return id == TypeId::kTime32 || id == TypeId::kTime64; };
  if (is_time(a) && is_time(p)) return true;
  if (a == TypeId::kDate64 && p == TypeId::kDate32) return true;
  const auto is_decimal = [](TypeId id) {
    return id == TypeId::kDecimal32 || id == TypeId::kDecimal64 || id == TypeId::kDecimal128 ||
           id == TypeId::kDecimal256;
  };
  if (is_decimal(a) && is_decimal(p)) {
    return arrow.precision() == parquet.precision() && arrow.scale() == parquet.scale();
  }
  if ((a == TypeId::kStruct && p == TypeId::kStruct) || (a == TypeId::kMap && p == TypeId::kMap)) {
    const auto& ac = arrow.children();
    const auto& pc = parquet.children();
    if (ac.size() != pc.size()) return false;
    for (size_t i = 0; i < ac.size(); ++i) {
      if (!FitsParquetType(*ac[i].type, *pc[i].type)) return false;
    }
    return true;
  }
  return false;
}

Result<Schema> ArrowSchemaOf(const FileMetaData& metadata, const SchemaNode& root,
                             const std::string& what) {
  Schema schema;
  Status status;
  schema.fields = ChildFields(root, what, &status);
  QUIVER_RETURN_NOT_OK(status);
  if (SchemaPtr stored = StoredArrowSchema(metadata);
      stored && stored->fields.size() == schema.fields.size()) {
    for (size_t i = 0; i < schema.fields.size(); ++i) {
      Field& field = schema.fields[i];
      const Field& written = stored->fields[i];
      if (written.name == field.name && FitsParquetType(*written.type, *field.type)) {
        field.type = written.type;
        field.metadata = written.metadata;
      }
    }
  }
  for (const auto& pair : metadata.key_value_metadata) {
    if (pair.first != kArrowSchemaKey) schema.metadata.push_back(pair);
  }
  return schema;
}

}  // namespace quiver::parquet
