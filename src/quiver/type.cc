#include "quiver/type.h"

#include <algorithm>
#include <array>

#include "quiver/extension/canonical_extensions.h"

namespace quiver {

namespace {

struct PrimitiveInfo {
  TypeId id;
  const char* name;
  int bit_width;
};

constexpr std::array<PrimitiveInfo, 12> kPrimitives = {{
    {TypeId::kInt8, "int8", 8},
    {TypeId::kInt16, "int16", 16},
    {TypeId::kInt32, "int32", 32},
    {TypeId::kInt64, "int64", 64},
    {TypeId::kUInt8, "uint8", 8},
    {TypeId::kUInt16, "uint16", 16},
    {TypeId::kUInt32, "uint32", 32},
    {TypeId::kUInt64, "uint64", 64},
    {TypeId::kFloat16, "float16", 16},
    {TypeId::kFloat32, "float32", 32},
    {TypeId::kFloat64, "float64", 64},
    {TypeId::kBool, "bool", 1},
}};

const PrimitiveInfo* FindPrimitive(TypeId id) {
  for (const auto& info : kPrimitives) {
    if (info.id == id) return &info;
  }
  return nullptr;
}

constexpr int kTypeIdCount = static_cast<int>(TypeId::kRunEndEncoded) + 1;

// The types without parameters: one shared instance each (Singleton).
constexpr bool IsParameterless(TypeId id) {
  switch (id) {
    case TypeId::kFixedSizeBinary:
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kFixedSizeList:
    case TypeId::kStruct:
    case TypeId::kExtension:
    case TypeId::kTime32:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
    case TypeId::kDuration:
    case TypeId::kDecimal128:
    case TypeId::kDecimal256:
    case TypeId::kDictionary:
    case TypeId::kDecimal32:
    case TypeId::kDecimal64:
    case TypeId::kMap:
    case TypeId::kSparseUnion:
    case TypeId::kDenseUnion:
    case TypeId::kListView:
    case TypeId::kLargeListView:
    case TypeId::kRunEndEncoded: return false;
    default: return true;
  }
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

// The one place DataType objects are made.
struct TypeFactory {
  static std::shared_ptr<DataType> New(TypeId id) {
    return std::make_shared<DataType>(DataType::Key{}, id);
  }
  static std::shared_ptr<DataType> Nested(TypeId id, std::vector<Field> children,
                                          int32_t fixed_size = 0) {
    auto type = New(id);
    type->children_ = std::move(children);
    type->fixed_size_ = fixed_size;
    type->ComputeNestingDepth();
    return type;
  }
  static std::shared_ptr<DataType> FixedSizeBinary(int32_t byte_width) {
    auto type = New(TypeId::kFixedSizeBinary);
    type->fixed_size_ = byte_width;
    return type;
  }
  static std::shared_ptr<DataType> Temporal(TypeId id, TimeUnit unit, std::string time_zone) {
    auto type = New(id);
    type->time_unit_ = unit;
    type->timezone_ = std::move(time_zone);
    return type;
  }
  static std::shared_ptr<DataType> Decimal(TypeId id, int32_t precision, int32_t scale) {
    auto type = New(id);
    type->precision_ = precision;
    type->scale_ = scale;
    return type;
  }
  static std::shared_ptr<DataType> Map(Field entries, bool keys_sorted) {
    auto type = Nested(TypeId::kMap, {std::move(entries)});
    type->ordered_ = keys_sorted;
    return type;
  }
  static std::shared_ptr<DataType> Union(TypeId id, std::vector<Field> children,
                                         std::vector<int8_t> type_codes) {
    auto type = Nested(id, std::move(children));
    type->type_codes_ = std::move(type_codes);
    return type;
  }
  static std::shared_ptr<DataType> Dictionary(TypePtr index_type, TypePtr value_type,
                                              bool ordered) {
    auto type = New(TypeId::kDictionary);
    type->index_type_ = std::move(index_type);
    type->value_type_ = std::move(value_type);
    type->ordered_ = ordered;
    type->ComputeNestingDepth();
    return type;
  }
  static std::shared_ptr<DataType> Extension(std::string name, std::string metadata,
                                             TypePtr storage) {
    auto type = New(TypeId::kExtension);
    type->extension_name_ = std::move(name);
    type->extension_metadata_ = std::move(metadata);
    type->storage_ = std::move(storage);
    type->ComputeNestingDepth();
    return type;
  }
};

namespace {

// The one instance of parameterless type `id` (IsParameterless).
TypePtr Singleton(TypeId id) {
  static const std::array<TypePtr, kTypeIdCount> instances = [] {
    std::array<TypePtr, kTypeIdCount> out;
    for (int i = 0; i < kTypeIdCount; ++i) {
      const auto each = static_cast<TypeId>(i);
      if (IsParameterless(each)) out[i] = TypeFactory::New(each);
    }
    return out;
  }();
  return instances[static_cast<size_t>(id)];
}

}  // namespace

void DataType::ComputeNestingDepth() {
  if (storage_) {
    nesting_depth_ = storage_->nesting_depth();
    return;
  }
  if (value_type_) {
    // The dictionary is an array one level below the indices.
    nesting_depth_ = value_type_->nesting_depth() + 1;
    return;
  }
  int deepest = -1;
  for (const Field& child : children_) {
    deepest = std::max(deepest, child.type ? child.type->nesting_depth() : 0);
  }
  // A struct without fields still nests one level.
  nesting_depth_ =
      (id_ == TypeId::kList || id_ == TypeId::kLargeList || id_ == TypeId::kFixedSizeList ||
       id_ == TypeId::kStruct || id_ == TypeId::kMap || id_ == TypeId::kSparseUnion ||
       id_ == TypeId::kDenseUnion || id_ == TypeId::kListView || id_ == TypeId::kLargeListView ||
       id_ == TypeId::kRunEndEncoded)
          ? std::max(deepest, 0) + 1
          : 0;
}

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

int64_t DataType::bit_width() const {
  if (storage_) return storage_->bit_width();
  if (const auto* info = FindPrimitive(id_)) return info->bit_width;
  switch (id_) {
    case TypeId::kFixedSizeBinary: return int64_t{fixed_size_} * 8;
    case TypeId::kDate32:
    case TypeId::kTime32: return 32;
    case TypeId::kDate64:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
    case TypeId::kDuration: return 64;
    case TypeId::kDecimal128: return 128;
    case TypeId::kDecimal256: return 256;
    case TypeId::kDecimal32:
    case TypeId::kIntervalYearMonth: return 32;
    case TypeId::kDecimal64:
    case TypeId::kIntervalDayTime: return 64;
    case TypeId::kIntervalMonthDayNano: return 128;
    case TypeId::kDictionary: return index_type_->bit_width();
    default: return 0;
  }
}

bool DataType::is_bool8() const {
  return id_ == TypeId::kExtension && extension_name_ == "arrow.bool8" &&
         storage_->id() == TypeId::kInt8;
}

bool DataType::is_bfloat16() const {
  return id_ == TypeId::kExtension && extension_name_ == "quiver.bfloat16" &&
         storage_->id() == TypeId::kUInt16;
}

bool DataType::is_float8_e4m3fn() const {
  return id_ == TypeId::kExtension && extension_name_ == "quiver.float8_e4m3fn" &&
         storage_->id() == TypeId::kUInt8;
}

bool DataType::is_float8_e5m2() const {
  return id_ == TypeId::kExtension && extension_name_ == "quiver.float8_e5m2" &&
         storage_->id() == TypeId::kUInt8;
}

bool DataType::is_low_precision_float() const {
  return is_bfloat16() || is_float8_e4m3fn() || is_float8_e5m2();
}

int64_t DataType::byte_width() const {
  if (storage().id() == TypeId::kBool) return 0;
  return bit_width() / 8;
}

bool DataType::Equals(const DataType& other) const {
  if (this == &other) return true;
  if (id_ != other.id_ || fixed_size_ != other.fixed_size_ ||
      children_.size() != other.children_.size() || extension_name_ != other.extension_name_ ||
      extension_metadata_ != other.extension_metadata_ || time_unit_ != other.time_unit_ ||
      timezone_ != other.timezone_ || precision_ != other.precision_ || scale_ != other.scale_ ||
      ordered_ != other.ordered_ || type_codes_ != other.type_codes_) {
    return false;
  }
  if (id_ == TypeId::kDictionary &&
      (!index_type_->Equals(*other.index_type_) || !value_type_->Equals(*other.value_type_))) {
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
      return "fixed_size_list<" + ChildrenToString(children_) + ">[" + std::to_string(fixed_size_) +
             "]";
    case TypeId::kStruct: return "struct<" + ChildrenToString(children_) + ">";
    case TypeId::kExtension:
      // The tensor types by their parameters, wherever they are nested.
      if (auto tensor = internal::CanonicalExtensionToString(*this)) return *tensor;
      // The low-precision floats by the names Python, torch and ml_dtypes use.
      if (is_bfloat16()) return "bfloat16";
      if (is_float8_e4m3fn()) return "float8_e4m3fn";
      if (is_float8_e5m2()) return "float8_e5m2";
      return "extension<" + extension_name_ + ", storage=" + storage_->ToString() + ">";
    case TypeId::kNull: return "null";
    case TypeId::kDate32: return "date32[day]";
    case TypeId::kDate64: return "date64[ms]";
    case TypeId::kTime32: return std::string("time32[") + TimeUnitName(time_unit_) + "]";
    case TypeId::kTime64: return std::string("time64[") + TimeUnitName(time_unit_) + "]";
    case TypeId::kDuration: return std::string("duration[") + TimeUnitName(time_unit_) + "]";
    case TypeId::kTimestamp:
      return std::string("timestamp[") + TimeUnitName(time_unit_) +
             (timezone_.empty() ? "" : ", tz=" + timezone_) + "]";
    case TypeId::kDecimal32:
    case TypeId::kDecimal64:
    case TypeId::kDecimal128:
    case TypeId::kDecimal256:
      return "decimal" + std::to_string(bit_width()) + "(" + std::to_string(precision_) + ", " +
             std::to_string(scale_) + ")";
    case TypeId::kIntervalYearMonth: return "interval[year_month]";
    case TypeId::kIntervalDayTime: return "interval[day_time]";
    case TypeId::kIntervalMonthDayNano: return "interval[month_day_nano]";
    case TypeId::kMap:
      return std::string("map<") + children_[0].type->children()[0].type->ToString() + ", " +
             children_[0].type->children()[1].type->ToString() + (ordered_ ? ", keys_sorted" : "") +
             ">";
    case TypeId::kSparseUnion:
    case TypeId::kDenseUnion: {
      std::string out = id_ == TypeId::kSparseUnion ? "sparse_union<" : "dense_union<";
      for (size_t i = 0; i < children_.size(); ++i) {
        if (i > 0) out += ", ";
        out += children_[i].ToString() + "=" + std::to_string(type_codes_[i]);
      }
      return out + ">";
    }
    case TypeId::kListView: return "list_view<" + ChildrenToString(children_) + ">";
    case TypeId::kLargeListView: return "large_list_view<" + ChildrenToString(children_) + ">";
    case TypeId::kRunEndEncoded:
      return "run_end_encoded<run_ends=" + children_[0].type->ToString() +
             ", values=" + children_[1].type->ToString() + ">";
    case TypeId::kUtf8View: return "utf8_view";
    case TypeId::kBinaryView: return "binary_view";
    case TypeId::kDictionary:
      return "dictionary<values=" + value_type_->ToString() +
             ", indices=" + index_type_->ToString() + ", ordered=" + (ordered_ ? "1" : "0") + ">";
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

TypePtr bfloat16() {
  static const TypePtr type = *extension("quiver.bfloat16", "", uint16());
  return type;
}

TypePtr float8_e4m3fn() {
  static const TypePtr type = *extension("quiver.float8_e4m3fn", "", uint8());
  return type;
}

TypePtr float8_e5m2() {
  static const TypePtr type = *extension("quiver.float8_e5m2", "", uint8());
  return type;
}

Result<TypePtr> fixed_size_binary(int32_t byte_width) {
  if (byte_width < 0) {
    return Status::Invalid("fixed_size_binary width ", byte_width, " is negative");
  }
  return TypePtr(TypeFactory::FixedSizeBinary(byte_width));
}

TypePtr list(Field value_field) {
  return TypeFactory::Nested(TypeId::kList, {std::move(value_field)});
}

TypePtr large_list(Field value_field) {
  return TypeFactory::Nested(TypeId::kLargeList, {std::move(value_field)});
}

Result<TypePtr> fixed_size_list(Field value_field, int32_t list_size) {
  if (list_size < 0) {
    return Status::Invalid("fixed_size_list size ", list_size, " is negative");
  }
  return TypePtr(TypeFactory::Nested(TypeId::kFixedSizeList, {std::move(value_field)}, list_size));
}

TypePtr struct_(std::vector<Field> fields) {
  return TypeFactory::Nested(TypeId::kStruct, std::move(fields));
}

Result<TypePtr> extension(std::string name, std::string metadata, TypePtr storage) {
  if (name.empty()) return Status::Invalid("extension type name is empty");
  if (!storage) return Status::Invalid("extension type '", name, "' has no storage type");
  if (storage->id() == TypeId::kExtension) {
    return Status::Invalid("extension type '", name, "' cannot have extension storage");
  }
  return TypePtr(TypeFactory::Extension(std::move(name), std::move(metadata), std::move(storage)));
}

const char* TimeUnitName(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond: return "s";
    case TimeUnit::kMilli: return "ms";
    case TimeUnit::kMicro: return "us";
    case TimeUnit::kNano: return "ns";
  }
  return "?";
}

namespace {

bool IsTimeUnit(TimeUnit unit) {
  return unit == TimeUnit::kSecond || unit == TimeUnit::kMilli || unit == TimeUnit::kMicro ||
         unit == TimeUnit::kNano;
}

Status CheckTimeUnit(const char* what, TimeUnit unit) {
  if (IsTimeUnit(unit)) return Status::OK();
  return Status::Invalid(what, " unit ", static_cast<int>(unit), " is not a time unit");
}

Result<TypePtr> Decimal(TypeId id, int32_t max_precision, int32_t precision, int32_t scale) {
  if (precision < 1 || precision > max_precision) {
    return Status::Invalid("decimal", TypeFactory::New(id)->bit_width(), " precision ", precision,
                           " is outside [1, ", max_precision, "]");
  }
  return TypePtr(TypeFactory::Decimal(id, precision, scale));
}

}  // namespace

TypePtr null() { return Singleton(TypeId::kNull); }
TypePtr date32() { return Singleton(TypeId::kDate32); }
TypePtr date64() { return Singleton(TypeId::kDate64); }
TypePtr utf8_view() { return Singleton(TypeId::kUtf8View); }
TypePtr binary_view() { return Singleton(TypeId::kBinaryView); }

Result<TypePtr> time32(TimeUnit unit) {
  if (unit != TimeUnit::kSecond && unit != TimeUnit::kMilli) {
    return Status::Invalid("time32 needs unit s or ms, got ", TimeUnitName(unit));
  }
  return TypePtr(TypeFactory::Temporal(TypeId::kTime32, unit, ""));
}

Result<TypePtr> time64(TimeUnit unit) {
  if (unit != TimeUnit::kMicro && unit != TimeUnit::kNano) {
    return Status::Invalid("time64 needs unit us or ns, got ", TimeUnitName(unit));
  }
  return TypePtr(TypeFactory::Temporal(TypeId::kTime64, unit, ""));
}

Result<TypePtr> timestamp(TimeUnit unit, std::string time_zone) {
  QUIVER_RETURN_NOT_OK(CheckTimeUnit("timestamp", unit));
  if (time_zone.find('\0') != std::string::npos) {
    return Status::Invalid("timestamp time zone contains a NUL byte");
  }
  return TypePtr(TypeFactory::Temporal(TypeId::kTimestamp, unit, std::move(time_zone)));
}

Result<TypePtr> duration(TimeUnit unit) {
  QUIVER_RETURN_NOT_OK(CheckTimeUnit("duration", unit));
  return TypePtr(TypeFactory::Temporal(TypeId::kDuration, unit, ""));
}

Result<TypePtr> decimal128(int32_t precision, int32_t scale) {
  return Decimal(TypeId::kDecimal128, 38, precision, scale);
}

Result<TypePtr> decimal256(int32_t precision, int32_t scale) {
  return Decimal(TypeId::kDecimal256, 76, precision, scale);
}

Result<TypePtr> dictionary(TypePtr index_type, TypePtr value_type, bool ordered) {
  if (!index_type || !value_type) {
    return Status::Invalid("dictionary type needs an index type and a value type");
  }
  if (!index_type->is_integer()) {
    return Status::TypeError("dictionary index type must be a signed or unsigned integer, got ",
                             index_type->ToString());
  }
  return TypePtr(TypeFactory::Dictionary(std::move(index_type), std::move(value_type), ordered));
}

Result<TypePtr> decimal32(int32_t precision, int32_t scale) {
  return Decimal(TypeId::kDecimal32, 9, precision, scale);
}

Result<TypePtr> decimal64(int32_t precision, int32_t scale) {
  return Decimal(TypeId::kDecimal64, 18, precision, scale);
}

Result<TypePtr> interval(IntervalUnit unit) {
  switch (unit) {
    case IntervalUnit::kYearMonth: return Singleton(TypeId::kIntervalYearMonth);
    case IntervalUnit::kDayTime: return Singleton(TypeId::kIntervalDayTime);
    case IntervalUnit::kMonthDayNano: return Singleton(TypeId::kIntervalMonthDayNano);
  }
  return Status::Invalid("interval unit ", static_cast<int>(unit), " is not an interval unit");
}

Result<TypePtr> map_(TypePtr key_type, TypePtr item_type, bool keys_sorted) {
  if (!key_type || !item_type) return Status::Invalid("map type needs a key and an item type");
  Field entries{"entries",
                struct_({Field{"key", std::move(key_type), false, {}},
                         Field{"value", std::move(item_type), true, {}}}),
                false,
                {}};
  return map_(std::move(entries), keys_sorted);
}

Result<TypePtr> map_(Field entries, bool keys_sorted) {
  if (!entries.type || entries.type->id() != TypeId::kStruct ||
      entries.type->children().size() != 2) {
    return Status::TypeError("map entries must be a struct of a key and a value field, got ",
                             (entries.type ? entries.type->ToString() : std::string("no type")));
  }
  const std::vector<Field>& pair = entries.type->children();
  if (!pair[0].type || !pair[1].type) {
    return Status::Invalid("map entries field has a child without a type");
  }
  if (pair[0].nullable) {
    return Status::Invalid("map key field '", pair[0].name, "' must not be nullable");
  }
  return TypePtr(TypeFactory::Map(std::move(entries), keys_sorted));
}

namespace {

Result<TypePtr> Union(TypeId id, std::vector<Field> children, std::vector<int8_t> type_codes) {
  const char* name = id == TypeId::kSparseUnion ? "sparse_union" : "dense_union";
  if (children.size() > 128) {
    return Status::Invalid(name, " has ", children.size(), " children, more than 128");
  }
  if (type_codes.empty()) {
    for (size_t i = 0; i < children.size(); ++i) type_codes.push_back(static_cast<int8_t>(i));
  }
  if (type_codes.size() != children.size()) {
    return Status::Invalid(name, " has ", children.size(), " children but ", type_codes.size(),
                           " type codes");
  }
  bool seen[128] = {};
  for (size_t i = 0; i < children.size(); ++i) {
    if (!children[i].type) return Status::Invalid(name, " child ", i, " has no type");
    const int code = type_codes[i];
    if (code < 0) return Status::Invalid(name, " type code ", code, " is negative");
    if (seen[code]) return Status::Invalid(name, " uses type code ", code, " twice");
    seen[code] = true;
  }
  return TypePtr(TypeFactory::Union(id, std::move(children), std::move(type_codes)));
}

}  // namespace

Result<TypePtr> sparse_union(std::vector<Field> children, std::vector<int8_t> type_codes) {
  return Union(TypeId::kSparseUnion, std::move(children), std::move(type_codes));
}

Result<TypePtr> dense_union(std::vector<Field> children, std::vector<int8_t> type_codes) {
  return Union(TypeId::kDenseUnion, std::move(children), std::move(type_codes));
}

TypePtr list_view(Field value_field) {
  return TypeFactory::Nested(TypeId::kListView, {std::move(value_field)});
}

TypePtr large_list_view(Field value_field) {
  return TypeFactory::Nested(TypeId::kLargeListView, {std::move(value_field)});
}

Result<TypePtr> run_end_encoded(TypePtr run_end_type, TypePtr value_type) {
  if (!run_end_type || !value_type) {
    return Status::Invalid("run_end_encoded type needs a run end type and a value type");
  }
  const TypeId id = run_end_type->id();
  if (id != TypeId::kInt16 && id != TypeId::kInt32 && id != TypeId::kInt64) {
    return Status::TypeError("run ends must be int16, int32 or int64, got ",
                             run_end_type->ToString());
  }
  return TypePtr(TypeFactory::Nested(TypeId::kRunEndEncoded,
                                     {Field{"run_ends", std::move(run_end_type), false, {}},
                                      Field{"values", std::move(value_type), true, {}}}));
}

Field ListItem(TypePtr value_type) { return Field{"item", std::move(value_type), true, {}}; }

Result<TypePtr> TypeFromName(const std::string& name) {
  for (const auto& info : kPrimitives) {
    if (name == info.name) return Singleton(info.id);
  }
  if (name == "float") return float32();
  if (name == "double") return float64();
  if (name == "halffloat") return float16();
  return Status::TypeError("unknown value type '", name, "'");
}

}  // namespace quiver
