// The Thrift compact protocol, the encoding of every Parquet metadata
// structure (FileMetaData in the footer, PageHeader before each page, the
// column and offset indexes). quiver reads and writes it with a codec of its
// own instead of linking Thrift: a reader that trusts nothing (every length
// checked against the bytes left, nesting bounded, errors naming the byte)
// and a writer for the structures quiver writes. docs/formats.md, "Parquet:
// the Thrift compact protocol", has the wire format.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "quiver/parquet/varint.h"
#include "quiver/status.h"

namespace quiver::parquet {

// The compact protocol's type nibble. A struct field of type bool carries its
// value in the type (kTrue / kFalse) and no byte of its own.
enum class ThriftType : uint8_t {
  kStop = 0,
  kTrue = 1,
  kFalse = 2,
  kByte = 3,
  kI16 = 4,
  kI32 = 5,
  kI64 = 6,
  kDouble = 7,
  kBinary = 8,
  kList = 9,
  kSet = 10,
  kMap = 11,
  kStruct = 12,
};

// "i32", "list", ... for errors.
const char* ThriftTypeName(ThriftType type);

// A struct field's header; type kStop ends the struct.
struct ThriftField {
  int16_t id = 0;
  ThriftType type = ThriftType::kStop;
};

// A list's (or set's) header: its element type and element count.
struct ThriftList {
  ThriftType element = ThriftType::kStop;
  int64_t size = 0;
};

// Deepest nesting of structs, lists and maps a reader follows (Parquet's
// own structures nest at most 6 deep; a schema is a flat list).
inline constexpr int kMaxThriftDepth = 64;

// Reads compact-protocol values from bytes it does not own (they must
// outlive the reader and every string_view it returns). Every read checks
// the bytes left; every error names `what` and the byte offset.
class ThriftReader {
 public:
  ThriftReader(const uint8_t* data, int64_t size, std::string what);

  int64_t position() const { return position_; }

  // Struct fields: call BeginStruct, then ReadField until it returns type
  // kStop (which closes the struct), reading or skipping each field's value.
  Status BeginStruct();
  Result<ThriftField> ReadField();

  Result<int8_t> ReadByte();
  Result<int16_t> ReadI16();
  Result<int32_t> ReadI32();
  Result<int64_t> ReadI64();
  Result<double> ReadDouble();
  // A view of the bytes (no copy).
  Result<std::string_view> ReadBinary();
  // A bool list element (one byte: 1 true, 0 or 2 false).
  Result<bool> ReadBoolElement();

  // A list or set header; its `size` elements follow, then call EndList.
  // The size is checked against the bytes left (every element but a bool
  // in a struct takes at least one byte).
  Result<ThriftList> BeginList();
  void EndList() { --depth_; }

  // Skips a value of `type` (a field's or an element's), however nested.
  Status Skip(ThriftType type);

  // An error at the current byte: "<what>: <message> at byte N".
  Status Error(std::string_view message) const;
  // The error for a field whose wire type is not the one its id has.
  Status WrongType(std::string_view field, const ThriftField& got, ThriftType expected) const;

 private:
  Result<uint64_t> ReadVarint();
  Result<uint8_t> ReadRawByte();
  Status Enter();

  const uint8_t* data_;
  int64_t size_;
  int64_t position_ = 0;
  std::string what_;
  int depth_ = 0;
  std::vector<int16_t> last_field_ids_;  // one per open struct
};

// Calls on_field(field) for each field of the struct at the reader, which
// must read or skip its value; returns at the struct's end.
template <typename OnField>
Status ReadStruct(ThriftReader& reader, OnField&& on_field) {
  QUIVER_RETURN_NOT_OK(reader.BeginStruct());
  while (true) {
    QUIVER_ASSIGN_OR_RETURN(ThriftField field, reader.ReadField());
    if (field.type == ThriftType::kStop) return Status::OK();
    QUIVER_RETURN_NOT_OK(on_field(field));
  }
}

// Reads a list whose elements have wire type `element` (named `name` in
// errors), calling on_element(index) for each, which reads it.
template <typename OnElement>
Status ReadList(ThriftReader& reader, std::string_view name, ThriftType element,
                OnElement&& on_element) {
  QUIVER_ASSIGN_OR_RETURN(ThriftList list, reader.BeginList());
  if (list.size > 0 && list.element != element &&
      !(element == ThriftType::kTrue && list.element == ThriftType::kFalse)) {
    return reader.Error(std::string(name) + " holds elements of type " +
                        ThriftTypeName(list.element) + ", expected " + ThriftTypeName(element));
  }
  for (int64_t i = 0; i < list.size; ++i) QUIVER_RETURN_NOT_OK(on_element(i));
  reader.EndList();
  return Status::OK();
}

// Writes compact-protocol values into a growing byte string.
class ThriftWriter {
 public:
  void BeginStruct() { last_field_ids_.push_back(0); }
  // Writes the stop byte.
  void EndStruct();
  void FieldHeader(int16_t id, ThriftType type);

  void Bool(int16_t id, bool value) {
    FieldHeader(id, value ? ThriftType::kTrue : ThriftType::kFalse);
  }
  void Byte(int16_t id, int8_t value);
  void I16(int16_t id, int16_t value);
  void I32(int16_t id, int32_t value);
  void I64(int16_t id, int64_t value);
  void Binary(int16_t id, std::string_view value);
  // A list field's header; the caller then writes `size` elements.
  void ListHeader(int16_t id, ThriftType element, int64_t size);

  // List elements.
  void I32Element(int32_t value) { Varint(ZigZag(value)); }
  void I64Element(int64_t value) { Varint(ZigZag(value)); }
  void BinaryElement(std::string_view value);
  // A bool element: one byte, 1 true and 2 false (as Thrift writes them).
  void BoolElement(bool value) { bytes_.push_back(static_cast<char>(value ? 1 : 2)); }

  const std::string& bytes() const { return bytes_; }
  std::string Take() { return std::move(bytes_); }

 private:
  static uint64_t ZigZag(int64_t value) {
    return (static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63);
  }
  void Varint(uint64_t value) { AppendVarint(bytes_, value); }

  std::string bytes_;
  std::vector<int16_t> last_field_ids_;
};

}  // namespace quiver::parquet
