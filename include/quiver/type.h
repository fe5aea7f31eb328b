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
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUInt8,
  kUInt16,
  kUInt32,
  kUInt64,
  kFloat16,
  kFloat32,
  kFloat64,
  kBool,  // bit-packed
  kUtf8,
  kLargeUtf8,
  kBinary,
  kLargeBinary,
  kFixedSizeBinary,
  kList,
  kLargeList,
  kFixedSizeList,
  kStruct,
  kExtension,
  // Appended (existing values stay stable). None of these is a tensor value.
  kNull,        // no buffers: every slot is null
  kDate32,      // int32 days since the UNIX epoch
  kDate64,      // int64 milliseconds since the UNIX epoch
  kTime32,      // int32 seconds or milliseconds since midnight
  kTime64,      // int64 microseconds or nanoseconds since midnight
  kTimestamp,   // int64 time units since the UNIX epoch, optional time zone
  kDuration,    // int64 time units
  kDecimal128,  // 16-byte little-endian two's complement integers, scaled
  kDecimal256,  // 32-byte ones
  kUtf8View,    // 16-byte views + variadic data buffers
  kBinaryView,
  kDictionary,  // integer indices into a dictionary array of values
  // Appended later (existing values stay stable).
  kDecimal32,             // 4-byte little-endian two's complement integers, scaled
  kDecimal64,             // 8-byte ones
  kIntervalYearMonth,     // int32 months
  kIntervalDayTime,       // int32 days, then int32 milliseconds (8 bytes)
  kIntervalMonthDayNano,  // int32 months, int32 days, int64 nanoseconds (16 bytes)
  kMap,                   // a list of struct<key, value> entries (keys not null)
  kSparseUnion,           // int8 type ids; each child as long as the union
  kDenseUnion,            // int8 type ids + int32 offsets into the chosen child
  kListView,              // validity, int32 offsets and int32 sizes into one child
  kLargeListView,         // the same with int64 offsets and sizes
  kRunEndEncoded,         // no buffers: children run_ends (int16/32/64) and values
};

// The unit of an interval type (each unit is its own TypeId).
enum class IntervalUnit : uint8_t { kYearMonth, kDayTime, kMonthDayNano };

// The unit of time32, time64, timestamp and duration values.
enum class TimeUnit : uint8_t { kSecond, kMilli, kMicro, kNano };

// "s", "ms", "us", "ns"; "?" for a value outside the enum.
const char* TimeUnitName(TimeUnit unit);

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
  // "name: type", plus " not null" when not nullable.
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

  // Bits per value for fixed-width types (bool: 1; date, time, timestamp,
  // duration and decimal types too), 0 for the rest (null, utf8, views,
  // nested); extension types have their storage's width, dictionary
  // types their indices'. 64-bit: a
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
  // quiver's low-precision floats: extension types named quiver.bfloat16
  // (over uint16), quiver.float8_e4m3fn and quiver.float8_e5m2 (over
  // uint8), so any Arrow reader sees their bits as unsigned integers.
  bool is_bfloat16() const;
  bool is_float8_e4m3fn() const;
  bool is_float8_e5m2() const;
  // Any of the three above.
  bool is_low_precision_float() const;
  // What a dense tensor can hold: the numeric types, bool8 and the
  // low-precision floats.
  bool is_tensor_value() const { return is_numeric() || is_bool8() || is_low_precision_float(); }

  // fixed_size_list: entries per list. fixed_size_binary: bytes per value.
  int32_t fixed_size() const { return fixed_size_; }
  // list, large_list, fixed_size_list: one child; struct: one per field.
  const std::vector<Field>& children() const { return children_; }

  // time32, time64, timestamp, duration: the unit of the values.
  TimeUnit time_unit() const { return time_unit_; }
  // timestamp: the time zone name ("UTC", "Europe/Paris", "+02:00"); empty
  // for a time zone naive timestamp.
  const std::string& timezone() const { return timezone_; }
  // decimal128 / decimal256: total decimal digits and digits after the
  // point (the scale may be negative).
  int32_t precision() const { return precision_; }
  int32_t scale() const { return scale_; }
  // dictionary: the integer type of the indices (the array's own layout),
  // the type of the dictionary's values, and whether the dictionary's
  // order is meaningful. index_type and value_type are null otherwise.
  const TypePtr& index_type() const { return index_type_; }
  const TypePtr& value_type() const { return value_type_; }
  bool ordered() const { return ordered_; }
  // map: whether the keys of every map are sorted (as the producer claims;
  // nothing checks it).
  bool keys_sorted() const { return ordered_; }
  // sparse and dense unions: the type id (in [0, 127]) of each child, in
  // the children's order; unique.
  const std::vector<int8_t>& type_codes() const { return type_codes_; }
  bool is_union() const { return id_ == TypeId::kSparseUnion || id_ == TypeId::kDenseUnion; }

  // Extension types only.
  const std::string& extension_name() const { return extension_name_; }
  const std::string& extension_metadata() const { return extension_metadata_; }
  const TypePtr& storage_type() const { return storage_; }

  // The type whose physical layout this type has (itself unless extension).
  const DataType& storage() const { return storage_ ? *storage_ : *this; }

  // Levels of nested types below this one: 0 for primitives, 1 for a list
  // of primitives (and for a dictionary of primitive values), ... Readers, validation and export
  // refuse types deeper than kMaxNestingDepth.
  int nesting_depth() const { return nesting_depth_; }

  bool Equals(const DataType& other) const;
  // "int32", "fixed_size_list<item: float>[4]",
  // "extension<arrow.bool8, storage=int8>"; the low-precision floats by
  // name ("bfloat16", "float8_e4m3fn", "float8_e5m2"); the tensor extension types
  // (valid ones) by their parameters, at any depth:
  // "fixed_shape_tensor<float32>[3, 4] dim_names=[H, W]",
  // "variable_shape_tensor<uint8, ndim=3> uniform_shape=[null, null, 3]".
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
  TimeUnit time_unit_ = TimeUnit::kSecond;
  std::string timezone_;
  int32_t precision_ = 0;
  int32_t scale_ = 0;
  TypePtr index_type_;
  TypePtr value_type_;
  bool ordered_ = false;  // dictionary: ordered; map: keys sorted
  std::vector<int8_t> type_codes_;
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
// quiver.bfloat16: bfloat16 values (1 sign, 8 exponent, 7 mantissa bits)
// stored as their uint16 bits; docs/formats.md says why an extension type.
TypePtr bfloat16();
// quiver.float8_e4m3fn: OCP FP8 E4M3 (no infinities, NaN 0x7f / 0xff)
// stored as uint8 bits.
TypePtr float8_e4m3fn();
// quiver.float8_e5m2: OCP FP8 E5M2 (IEEE-like: infinities and NaNs)
// stored as uint8 bits.
TypePtr float8_e5m2();
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

// The null type: arrays of it have a length and no buffers; every slot is null.
TypePtr null();
TypePtr date32();
TypePtr date64();
// unit must be kSecond or kMilli.
Result<TypePtr> time32(TimeUnit unit);
// unit must be kMicro or kNano.
Result<TypePtr> time64(TimeUnit unit);
// Any unit; `time_zone` is kept as given ("" = time zone naive) and may not
// contain a NUL byte (it travels in a C string).
Result<TypePtr> timestamp(TimeUnit unit, std::string time_zone = "");
Result<TypePtr> duration(TimeUnit unit);
// precision in [1, 38]; any scale.
Result<TypePtr> decimal128(int32_t precision, int32_t scale);
// precision in [1, 76]; any scale.
Result<TypePtr> decimal256(int32_t precision, int32_t scale);
// Binary views: 16 bytes per value (int32 length, then up to 12 inline
// bytes, or a 4-byte prefix, int32 buffer index and int32 offset into one
// of any number of variadic data buffers). utf8_view holds UTF-8.
TypePtr utf8_view();
TypePtr binary_view();
// index_type: a signed or unsigned integer type (not an extension);
// value_type: any type. Arrays of it carry the indices in their own
// buffers and the values in ArrayData::dictionary.
Result<TypePtr> dictionary(TypePtr index_type, TypePtr value_type, bool ordered = false);

// precision in [1, 9]; any scale.
Result<TypePtr> decimal32(int32_t precision, int32_t scale);
// precision in [1, 18]; any scale.
Result<TypePtr> decimal64(int32_t precision, int32_t scale);
// interval[year_month] (int32 months), interval[day_time] (int32 days +
// int32 milliseconds), interval[month_day_nano] (int32 months, int32 days,
// int64 nanoseconds). Any other unit value is Invalid.
Result<TypePtr> interval(IntervalUnit unit);
// map<key, value>: a list whose child is the non-nullable field "entries"
// of type struct<key: key_type not null, value: item_type>. Either type may
// be any type; keys_sorted is a claim of the producer, kept as given.
Result<TypePtr> map_(TypePtr key_type, TypePtr item_type, bool keys_sorted = false);
// A map over a given entries field (any names, as other producers spell
// them): it must be a struct of exactly two fields, the key not nullable.
Result<TypePtr> map_(Field entries, bool keys_sorted = false);
// Unions of `children` (at most 128). type_codes gives each child's type id
// (unique, in [0, 127]); empty means 0, 1, .. n - 1. Arrays of a union have
// no validity bitmap: a slot is null when its chosen child's value is.
Result<TypePtr> sparse_union(std::vector<Field> children, std::vector<int8_t> type_codes = {});
Result<TypePtr> dense_union(std::vector<Field> children, std::vector<int8_t> type_codes = {});
// List views: per slot an offset and a size into the child (any order,
// overlapping allowed); int32 for list_view, int64 for large_list_view.
TypePtr list_view(Field value_field);
TypePtr large_list_view(Field value_field);
// Run-end encoded: children "run_ends" (int16, int32 or int64, not
// nullable; strictly increasing logical end of each run) and "values"
// (any type, one value per run). No buffers of its own, no nulls of its own.
Result<TypePtr> run_end_encoded(TypePtr run_end_type, TypePtr value_type);

// A nullable field named "item", the child name Arrow uses for lists.
Field ListItem(TypePtr value_type);

// The primitive type named "int8" .. "float64", "float16", "bool".
Result<TypePtr> TypeFromName(const std::string& name);

}  // namespace quiver
