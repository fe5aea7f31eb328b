// IPC schema metadata: quiver fields and types as flatbuffer Fields and
// Types, and back, with every foreign value checked.
#include "quiver/ipc/metadata.h"

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "quiver/extension/extension_keys.h"

namespace quiver::ipc {

namespace {

using TypeOffset = std::pair<fb::Type, flatbuffers::Offset<void>>;

fb::TimeUnit ToWire(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond: return fb::TimeUnit::SECOND;
    case TimeUnit::kMilli: return fb::TimeUnit::MILLISECOND;
    case TimeUnit::kMicro: return fb::TimeUnit::MICROSECOND;
    case TimeUnit::kNano: return fb::TimeUnit::NANOSECOND;
  }
  return fb::TimeUnit::SECOND;
}

Result<TimeUnit> FromWire(fb::TimeUnit unit, const std::string& where) {
  switch (unit) {
    case fb::TimeUnit::SECOND: return TimeUnit::kSecond;
    case fb::TimeUnit::MILLISECOND: return TimeUnit::kMilli;
    case fb::TimeUnit::MICROSECOND: return TimeUnit::kMicro;
    case fb::TimeUnit::NANOSECOND: return TimeUnit::kNano;
  }
  return Status::Invalid(where, ": unknown time unit ", static_cast<int>(unit));
}

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
    case TypeId::kLargeUtf8:
      return TypeOffset{fb::Type::LargeUtf8, fb::CreateLargeUtf8(builder).Union()};
    case TypeId::kBinary: return TypeOffset{fb::Type::Binary, fb::CreateBinary(builder).Union()};
    case TypeId::kLargeBinary:
      return TypeOffset{fb::Type::LargeBinary, fb::CreateLargeBinary(builder).Union()};
    case TypeId::kFixedSizeBinary:
      return TypeOffset{fb::Type::FixedSizeBinary,
                        fb::CreateFixedSizeBinary(builder, storage.fixed_size()).Union()};
    case TypeId::kList: return TypeOffset{fb::Type::List, fb::CreateList(builder).Union()};
    case TypeId::kLargeList:
      return TypeOffset{fb::Type::LargeList, fb::CreateLargeList(builder).Union()};
    case TypeId::kFixedSizeList:
      return TypeOffset{fb::Type::FixedSizeList,
                        fb::CreateFixedSizeList(builder, storage.fixed_size()).Union()};
    case TypeId::kStruct: return TypeOffset{fb::Type::Struct_, fb::CreateStruct_(builder).Union()};
    case TypeId::kNull: return TypeOffset{fb::Type::Null, fb::CreateNull(builder).Union()};
    case TypeId::kDate32:
      return TypeOffset{fb::Type::Date, fb::CreateDate(builder, fb::DateUnit::DAY).Union()};
    case TypeId::kDate64:
      return TypeOffset{fb::Type::Date, fb::CreateDate(builder, fb::DateUnit::MILLISECOND).Union()};
    case TypeId::kTime32:
    case TypeId::kTime64:
      return TypeOffset{fb::Type::Time, fb::CreateTime(builder, ToWire(storage.time_unit()),
                                                       storage.id() == TypeId::kTime32 ? 32 : 64)
                                            .Union()};
    case TypeId::kTimestamp: {
      auto zone = storage.timezone().empty() ? 0 : builder.CreateString(storage.timezone());
      return TypeOffset{fb::Type::Timestamp,
                        fb::CreateTimestamp(builder, ToWire(storage.time_unit()), zone).Union()};
    }
    case TypeId::kDuration:
      return TypeOffset{fb::Type::Duration,
                        fb::CreateDuration(builder, ToWire(storage.time_unit())).Union()};
    case TypeId::kDecimal32:
    case TypeId::kDecimal64:
    case TypeId::kDecimal128:
    case TypeId::kDecimal256:
      return TypeOffset{fb::Type::Decimal,
                        fb::CreateDecimal(builder, storage.precision(), storage.scale(),
                                          static_cast<int32_t>(storage.bit_width()))
                            .Union()};
    case TypeId::kIntervalYearMonth:
    case TypeId::kIntervalDayTime:
    case TypeId::kIntervalMonthDayNano: {
      const fb::IntervalUnit unit =
          storage.id() == TypeId::kIntervalYearMonth ? fb::IntervalUnit::YEAR_MONTH
          : storage.id() == TypeId::kIntervalDayTime ? fb::IntervalUnit::DAY_TIME
                                                     : fb::IntervalUnit::MONTH_DAY_NANO;
      return TypeOffset{fb::Type::Interval, fb::CreateInterval(builder, unit).Union()};
    }
    case TypeId::kMap:
      return TypeOffset{fb::Type::Map, fb::CreateMap(builder, storage.keys_sorted()).Union()};
    case TypeId::kSparseUnion:
    case TypeId::kDenseUnion: {
      std::vector<int32_t> codes(storage.type_codes().begin(), storage.type_codes().end());
      return TypeOffset{fb::Type::Union,
                        fb::CreateUnion(builder,
                                        storage.id() == TypeId::kSparseUnion ? fb::UnionMode::Sparse
                                                                             : fb::UnionMode::Dense,
                                        builder.CreateVector(codes))
                            .Union()};
    }
    case TypeId::kListView:
      return TypeOffset{fb::Type::ListView, fb::CreateListView(builder).Union()};
    case TypeId::kLargeListView:
      return TypeOffset{fb::Type::LargeListView, fb::CreateLargeListView(builder).Union()};
    case TypeId::kRunEndEncoded:
      return TypeOffset{fb::Type::RunEndEncoded, fb::CreateRunEndEncoded(builder).Union()};
    case TypeId::kUtf8View:
      return TypeOffset{fb::Type::Utf8View, fb::CreateUtf8View(builder).Union()};
    case TypeId::kBinaryView:
      return TypeOffset{fb::Type::BinaryView, fb::CreateBinaryView(builder).Union()};
    default: break;
  }
  return Status::NotImplemented("cannot write type ", storage.ToString(), " to IPC");
}

Result<flatbuffers::Offset<fb::Field>> WriteField(flatbuffers::FlatBufferBuilder& builder,
                                                  const Field& field, int depth,
                                                  int64_t* next_dictionary_id) {
  if (!field.type) return Status::Invalid("field '", field.name, "' has no type");
  if (depth > kMaxNestingDepth) {
    return Status::Invalid("field '", field.name, "' nests more than ", kMaxNestingDepth,
                           " levels deep");
  }
  const DataType& encoded = field.type->storage();
  // A dictionary-encoded field is described by its value type, plus the
  // encoding (id, index type) beside it.
  const bool is_dictionary = encoded.id() == TypeId::kDictionary;
  const DataType& storage = is_dictionary ? encoded.value_type()->storage() : encoded;
  if (is_dictionary && encoded.value_type()->id() == TypeId::kExtension) {
    return Status::NotImplemented("field '", field.name,
                                  "': dictionaries of extension values cannot be written");
  }
  // Ids go in pre-order: a dictionary's own id before the ids of the
  // dictionaries nested in its values (DictionaryIds() reads them so).
  const int64_t id = is_dictionary ? (*next_dictionary_id)++ : -1;
  std::vector<flatbuffers::Offset<fb::Field>> children;
  for (const Field& child : storage.children()) {
    QUIVER_ASSIGN_OR_RETURN(auto offset, WriteField(builder, child, depth + 1, next_dictionary_id));
    children.push_back(offset);
  }
  QUIVER_ASSIGN_OR_RETURN(TypeOffset type, WriteType(builder, storage));
  flatbuffers::Offset<fb::DictionaryEncoding> dictionary = 0;
  if (is_dictionary) {
    const DataType& index = *encoded.index_type();
    auto index_type =
        fb::CreateInt(builder, static_cast<int32_t>(index.bit_width()), index.is_signed_integer());
    dictionary = fb::CreateDictionaryEncoding(builder, id, index_type, encoded.ordered());
  }
  auto name = builder.CreateString(field.name);
  auto child_vector = builder.CreateVector(children);
  auto metadata = WriteKeyValues(builder, internal::MetadataWithExtensionKeys(field));
  return fb::CreateField(builder, name, field.nullable, type.first, type.second, dictionary,
                         child_vector, metadata);
}

// "column 2 (images)" / "column 2 (images).child 0 (item)" for errors.
std::string ChildPath(const std::string& parent, size_t index, const flatbuffers::String* name) {
  std::string label = (name ? name->str() : std::string());
  return parent + (parent.empty() ? "column " : ".child ") + std::to_string(index) + " (" + label +
         ")";
}

Result<TypePtr> ReadIntType(const fb::Int* type, const std::string& where) {
  if (type == nullptr) return Status::Invalid(where, ": Int type without its table");
  const bool is_signed = type->is_signed();
  switch (type->bit_width()) {
    case 8: return is_signed ? int8() : uint8();
    case 16: return is_signed ? int16() : uint16();
    case 32: return is_signed ? int32() : uint32();
    case 64: return is_signed ? int64() : uint64();
    default: break;
  }
  return Status::Invalid(where, ": Int bit width ", type->bit_width(), " is not 8, 16, 32 or 64");
}

Result<TypePtr> ReadFloatType(const fb::FloatingPoint* type, const std::string& where) {
  if (type == nullptr) return Status::Invalid(where, ": FloatingPoint type without its table");
  switch (type->precision()) {
    case fb::Precision::HALF: return float16();
    case fb::Precision::SINGLE: return float32();
    case fb::Precision::DOUBLE: return float64();
  }
  return Status::Invalid(where, ": unknown floating point precision ",
                         static_cast<int>(type->precision()));
}

Status ExpectChildren(const std::vector<Field>& children, size_t expected, const char* type_name,
                      const std::string& where) {
  if (children.size() == expected) return Status::OK();
  return Status::Invalid(where, ": a ", type_name, " field needs ", expected, " children, got ",
                         children.size());
}

// A Union table: its mode and type ids (absent: 0, 1, .. n - 1).
Result<TypePtr> ReadUnionType(const fb::Union* type, std::vector<Field> children,
                              const std::string& where) {
  if (type == nullptr) return Status::Invalid(where, ": Union type without its table");
  std::vector<int8_t> codes;
  if (const auto* ids = type->type_ids()) {
    for (flatbuffers::uoffset_t i = 0; i < ids->size(); ++i) {
      const int32_t code = ids->Get(i);
      if (code < 0 || code > 127) {
        return Status::Invalid(where, ": union type id ", code, " is outside [0, 127]");
      }
      codes.push_back(static_cast<int8_t>(code));
    }
    if (codes.size() != children.size()) {
      return Status::Invalid(where, ": union has ", children.size(), " children but ", codes.size(),
                             " type ids");
    }
  }
  Result<TypePtr> made = Status::Invalid("");
  switch (type->mode()) {
    case fb::UnionMode::Sparse: made = sparse_union(std::move(children), std::move(codes)); break;
    case fb::UnionMode::Dense: made = dense_union(std::move(children), std::move(codes)); break;
    default: return Status::Invalid(where, ": unknown union mode ", static_cast<int>(type->mode()));
  }
  if (!made.ok()) return made.status().WithContext(where);
  return made;
}

Result<TypePtr> ReadType(const fb::Field& field, std::vector<Field> children,
                         const std::string& where) {
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
      if (type == nullptr)
        return Status::Invalid(where, ": FixedSizeBinary type without its table");
      auto made = fixed_size_binary(type->byte_width());
      if (!made.ok()) return made.status().WithContext(where);
      return leaf(*made);
    }
    case fb::Type::List:
    case fb::Type::LargeList: {
      QUIVER_RETURN_NOT_OK(ExpectChildren(children, 1, fb::EnumNameType(type_type), where));
      return type_type == fb::Type::List ? list(std::move(children[0]))
                                         : large_list(std::move(children[0]));
    }
    case fb::Type::FixedSizeList: {
      const fb::FixedSizeList* type = field.type_as_FixedSizeList();
      if (type == nullptr) return Status::Invalid(where, ": FixedSizeList type without its table");
      QUIVER_RETURN_NOT_OK(ExpectChildren(children, 1, "FixedSizeList", where));
      auto made = fixed_size_list(std::move(children[0]), type->list_size());
      if (!made.ok()) return made.status().WithContext(where);
      return *made;
    }
    case fb::Type::Struct_: return struct_(std::move(children));
    case fb::Type::Null: return leaf(null());
    case fb::Type::Utf8View: return leaf(utf8_view());
    case fb::Type::BinaryView: return leaf(binary_view());
    case fb::Type::Date: {
      const fb::Date* type = field.type_as_Date();
      if (type == nullptr) return Status::Invalid(where, ": Date type without its table");
      return leaf(type->unit() == fb::DateUnit::DAY ? date32() : date64());
    }
    case fb::Type::Time: {
      const fb::Time* type = field.type_as_Time();
      if (type == nullptr) return Status::Invalid(where, ": Time type without its table");
      QUIVER_ASSIGN_OR_RETURN(TimeUnit unit, FromWire(type->unit(), where));
      auto made = type->bit_width() == 32 ? time32(unit)
                  : type->bit_width() == 64
                      ? time64(unit)
                      : Result<TypePtr>(Status::Invalid("Time bit width ", type->bit_width(),
                                                        " is not 32 or 64"));
      if (!made.ok()) return made.status().WithContext(where);
      return leaf(*made);
    }
    case fb::Type::Timestamp: {
      const fb::Timestamp* type = field.type_as_Timestamp();
      if (type == nullptr) return Status::Invalid(where, ": Timestamp type without its table");
      QUIVER_ASSIGN_OR_RETURN(TimeUnit unit, FromWire(type->unit(), where));
      auto made = timestamp(unit, type->timezone() ? type->timezone()->str() : "");
      if (!made.ok()) return made.status().WithContext(where);
      return leaf(*made);
    }
    case fb::Type::Duration: {
      const fb::Duration* type = field.type_as_Duration();
      if (type == nullptr) return Status::Invalid(where, ": Duration type without its table");
      QUIVER_ASSIGN_OR_RETURN(TimeUnit unit, FromWire(type->unit(), where));
      auto made = duration(unit);
      if (!made.ok()) return made.status().WithContext(where);
      return leaf(*made);
    }
    case fb::Type::Decimal: {
      const fb::Decimal* type = field.type_as_Decimal();
      if (type == nullptr) return Status::Invalid(where, ": Decimal type without its table");
      auto made = type->bit_width() == 128   ? decimal128(type->precision(), type->scale())
                  : type->bit_width() == 256 ? decimal256(type->precision(), type->scale())
                  : type->bit_width() == 32  ? decimal32(type->precision(), type->scale())
                  : type->bit_width() == 64
                      ? decimal64(type->precision(), type->scale())
                      : Result<TypePtr>(Status::Invalid("Decimal bit width ", type->bit_width(),
                                                        " is not 32, 64, 128 or 256"));
      if (!made.ok()) return made.status().WithContext(where);
      return leaf(*made);
    }
    case fb::Type::Interval: {
      const fb::Interval* type = field.type_as_Interval();
      if (type == nullptr) return Status::Invalid(where, ": Interval type without its table");
      switch (type->unit()) {
        case fb::IntervalUnit::YEAR_MONTH: return leaf(*interval(IntervalUnit::kYearMonth));
        case fb::IntervalUnit::DAY_TIME: return leaf(*interval(IntervalUnit::kDayTime));
        case fb::IntervalUnit::MONTH_DAY_NANO: return leaf(*interval(IntervalUnit::kMonthDayNano));
      }
      return Status::Invalid(where, ": unknown interval unit ", static_cast<int>(type->unit()));
    }
    case fb::Type::Map: {
      const fb::Map* type = field.type_as_Map();
      if (type == nullptr) return Status::Invalid(where, ": Map type without its table");
      QUIVER_RETURN_NOT_OK(ExpectChildren(children, 1, "Map", where));
      auto made = map_(std::move(children[0]), type->keys_sorted());
      if (!made.ok()) return made.status().WithContext(where);
      return *made;
    }
    case fb::Type::Union: return ReadUnionType(field.type_as_Union(), std::move(children), where);
    case fb::Type::ListView:
    case fb::Type::LargeListView: {
      QUIVER_RETURN_NOT_OK(ExpectChildren(children, 1, fb::EnumNameType(type_type), where));
      return type_type == fb::Type::ListView ? list_view(std::move(children[0]))
                                             : large_list_view(std::move(children[0]));
    }
    case fb::Type::RunEndEncoded: {
      QUIVER_RETURN_NOT_OK(ExpectChildren(children, 2, "RunEndEncoded", where));
      auto made = run_end_encoded(children[0].type, children[1].type);
      if (!made.ok()) return made.status().WithContext(where);
      return *made;
    }
    case fb::Type::NONE: return Status::Invalid(where, ": field has no type");
    default: break;
  }
  const char* name = fb::EnumNameType(type_type);
  return Status::NotImplemented(
      where, ": type ", (*name ? std::string(name) : std::to_string(static_cast<int>(type_type))),
      " is not supported by quiver");
}

Result<Field> ReadField(const fb::Field* field, const std::string& where, int depth) {
  if (field == nullptr) return Status::Invalid(where, ": missing field");
  if (depth > kMaxNestingDepth) {
    return Status::Invalid(where, ": the schema nests more than ", kMaxNestingDepth,
                           " levels deep");
  }
  std::vector<Field> children;
  if (const auto* fb_children = field->children()) {
    for (flatbuffers::uoffset_t i = 0; i < fb_children->size(); ++i) {
      const fb::Field* child = fb_children->Get(i);
      QUIVER_ASSIGN_OR_RETURN(
          Field read,
          ReadField(child, ChildPath(where, i, child ? child->name() : nullptr), depth + 1));
      children.push_back(std::move(read));
    }
  }
  Field out;
  out.name = field->name() ? field->name()->str() : "";
  out.nullable = field->nullable();
  QUIVER_ASSIGN_OR_RETURN(out.type, ReadType(*field, std::move(children), where));
  if (const fb::DictionaryEncoding* encoding = field->dictionary()) {
    // Indices default to signed int32 when the encoding names no type.
    TypePtr index = int32();
    if (encoding->index_type() != nullptr) {
      QUIVER_ASSIGN_OR_RETURN(index, ReadIntType(encoding->index_type(), where));
    }
    auto made = dictionary(index, out.type, encoding->is_ordered());
    if (!made.ok()) return made.status().WithContext(where);
    out.type = *made;
  }
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
    pairs.push_back(
        fb::CreateKeyValue(builder, builder.CreateString(key), builder.CreateString(value)));
  }
  return builder.CreateVector(pairs);
}

KeyValueMetadata ReadKeyValues(
    const flatbuffers::Vector<flatbuffers::Offset<fb::KeyValue>>* pairs) {
  KeyValueMetadata out;
  if (pairs == nullptr) return out;
  for (const fb::KeyValue* pair : *pairs) {
    if (pair == nullptr) continue;
    out.emplace_back(pair->key() ? pair->key()->str() : "",
                     pair->value() ? pair->value()->str() : "");
  }
  return out;
}

const std::string* SoleValue(const KeyValueMetadata& metadata, std::string_view key) {
  const std::string* value = nullptr;
  for (const auto& [name, text] : metadata) {
    if (name != key) continue;
    if (value) return nullptr;
    value = &text;
  }
  return value;
}

Result<flatbuffers::Offset<fb::Schema>> WriteSchema(flatbuffers::FlatBufferBuilder& builder,
                                                    const Schema& schema) {
  std::vector<flatbuffers::Offset<fb::Field>> fields;
  int64_t next_dictionary_id = 0;  // ids in field pre-order, as DictionaryIds() reads them
  for (const Field& field : schema.fields) {
    QUIVER_ASSIGN_OR_RETURN(auto offset, WriteField(builder, field, 0, &next_dictionary_id));
    fields.push_back(offset);
  }
  auto field_vector = builder.CreateVector(fields);
  auto metadata = WriteKeyValues(builder, schema.metadata);
  return fb::CreateSchema(builder, fb::Endianness::Little, field_vector, metadata);
}

Result<SchemaPtr> ReadSchema(const fb::Schema* schema) {
  if (schema == nullptr) return Status::Invalid("the message holds no schema");
  // Either byte order: the readers swap big-endian bodies (endian.h).
  if (schema->endianness() != fb::Endianness::Little &&
      schema->endianness() != fb::Endianness::Big) {
    return Status::Invalid("unknown endianness ", static_cast<int>(schema->endianness()));
  }
  auto out = std::make_shared<Schema>();
  if (const auto* fields = schema->fields()) {
    for (flatbuffers::uoffset_t i = 0; i < fields->size(); ++i) {
      const fb::Field* field = fields->Get(i);
      QUIVER_ASSIGN_OR_RETURN(
          Field read, ReadField(field, ChildPath("", i, field ? field->name() : nullptr), 0));
      out->fields.push_back(std::move(read));
    }
  }
  out->metadata = ReadKeyValues(schema->custom_metadata());
  return SchemaPtr(std::move(out));
}

Result<TypePtr> ReadTensorValueType(fb::Type type_type, const void* type,
                                    const std::string& where) {
  switch (type_type) {
    case fb::Type::Int: return ReadIntType(static_cast<const fb::Int*>(type), where);
    case fb::Type::FloatingPoint:
      return ReadFloatType(static_cast<const fb::FloatingPoint*>(type), where);
    default: break;
  }
  const char* name = fb::EnumNameType(type_type);
  return Status::NotImplemented(
      where, ": tensor value type ",
      (*name ? std::string(name) : std::to_string(static_cast<int>(type_type))),
      " is not supported");
}

Result<std::pair<fb::Type, flatbuffers::Offset<void>>> WriteTensorValueType(
    flatbuffers::FlatBufferBuilder& builder, const DataType& type) {
  if (!type.is_numeric()) {
    return Status::TypeError("the Tensor message holds numeric values, not ", type.ToString());
  }
  return WriteType(builder, type);
}

KeyValueMetadata TensorValueExtensionMetadata(const DataType& type) {
  if (!type.is_bool8() && !type.is_low_precision_float()) return {};
  return {{kExtensionNameKey, type.extension_name()},
          {kExtensionMetadataKey, type.extension_metadata()}};
}

Result<TypePtr> ApplyTensorValueExtension(TypePtr storage, const KeyValueMetadata& custom,
                                          const std::string& where) {
  for (const auto& [key, value] : custom) {
    if (key != kExtensionNameKey) continue;
    for (const TypePtr& known : {bool8(), bfloat16(), float8_e4m3fn(), float8_e5m2()}) {
      if (value != known->extension_name()) continue;
      if (!storage->Equals(*known->storage_type())) {
        return Status::Invalid(where, ": ", value, " values are stored as ",
                               known->storage_type()->ToString(), ", the message says ",
                               storage->ToString());
      }
      return known;
    }
  }
  return storage;
}

}  // namespace quiver::ipc

namespace quiver::ipc {

namespace {

void CollectDictionaryIds(const fb::Field* field, std::vector<int64_t>* out, int depth) {
  if (field == nullptr || depth > kMaxNestingDepth) return;
  if (const fb::DictionaryEncoding* encoding = field->dictionary()) out->push_back(encoding->id());
  if (const auto* children = field->children()) {
    for (const fb::Field* child : *children) CollectDictionaryIds(child, out, depth + 1);
  }
}

}  // namespace

std::vector<int64_t> DictionaryIds(const fb::Schema* schema) {
  std::vector<int64_t> out;
  if (schema == nullptr || schema->fields() == nullptr) return out;
  for (const fb::Field* field : *schema->fields()) CollectDictionaryIds(field, &out, 0);
  return out;
}

}  // namespace quiver::ipc
