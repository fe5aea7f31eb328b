#include "quiver/parquet/thrift_compact.h"

#include <cstring>
#include <utility>

#include "quiver/parquet/varint.h"

namespace quiver::parquet {

const char* ThriftTypeName(ThriftType type) {
  switch (type) {
    case ThriftType::kStop: return "stop";
    case ThriftType::kTrue:
    case ThriftType::kFalse: return "bool";
    case ThriftType::kByte: return "byte";
    case ThriftType::kI16: return "i16";
    case ThriftType::kI32: return "i32";
    case ThriftType::kI64: return "i64";
    case ThriftType::kDouble: return "double";
    case ThriftType::kBinary: return "binary";
    case ThriftType::kList: return "list";
    case ThriftType::kSet: return "set";
    case ThriftType::kMap: return "map";
    case ThriftType::kStruct: return "struct";
  }
  return "?";
}

namespace {

// Zigzag-decoded: 0, -1, 1, -2, ... from 0, 1, 2, 3, ...
int64_t UnZigZag(uint64_t value) {
  return static_cast<int64_t>(value >> 1) ^ -static_cast<int64_t>(value & 1);
}

bool KnownType(uint8_t nibble) { return nibble <= static_cast<uint8_t>(ThriftType::kStruct); }

}  // namespace

ThriftReader::ThriftReader(const uint8_t* data, int64_t size, std::string what)
    : data_(data), size_(size), what_(std::move(what)) {}

Status ThriftReader::Error(std::string_view message) const {
  return Status::Invalid(what_, ": ", message, " at byte ", position_);
}

Status ThriftReader::WrongType(std::string_view field, const ThriftField& got,
                               ThriftType expected) const {
  return Error(std::string(field) + " (field " + std::to_string(got.id) + ") has wire type " +
               ThriftTypeName(got.type) + ", expected " + ThriftTypeName(expected));
}

Status ThriftReader::Enter() {
  if (++depth_ > kMaxThriftDepth) {
    return Error("structures nest deeper than " + std::to_string(kMaxThriftDepth) + " levels");
  }
  return Status::OK();
}

Result<uint8_t> ThriftReader::ReadRawByte() {
  if (position_ >= size_) return Error("the bytes end inside a value");
  return data_[position_++];
}

Result<uint64_t> ThriftReader::ReadVarint() {
  uint64_t value = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    QUIVER_ASSIGN_OR_RETURN(uint8_t byte, ReadRawByte());
    if (shift == 63 && byte > 1) return Error("a varint overflows 64 bits");
    value |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if (!(byte & 0x80)) return value;
  }
  return Error("a varint runs longer than 10 bytes");
}

Status ThriftReader::BeginStruct() {
  QUIVER_RETURN_NOT_OK(Enter());
  last_field_ids_.push_back(0);
  return Status::OK();
}

Result<ThriftField> ThriftReader::ReadField() {
  QUIVER_ASSIGN_OR_RETURN(uint8_t byte, ReadRawByte());
  const uint8_t nibble = byte & 0x0f;
  if (nibble == 0) {
    if (byte != 0) return Error("a field header has type stop and a field id delta");
    last_field_ids_.pop_back();
    --depth_;
    return ThriftField{};
  }
  if (!KnownType(nibble)) return Error("unknown field type " + std::to_string(nibble));
  int64_t id = 0;
  if (const int delta = byte >> 4; delta != 0) {
    id = last_field_ids_.back() + delta;
  } else {
    QUIVER_ASSIGN_OR_RETURN(uint64_t raw, ReadVarint());
    id = UnZigZag(raw);
  }
  if (id < 1 || id > INT16_MAX) return Error("field id " + std::to_string(id) + " is out of range");
  last_field_ids_.back() = static_cast<int16_t>(id);
  return ThriftField{static_cast<int16_t>(id), static_cast<ThriftType>(nibble)};
}

Result<int8_t> ThriftReader::ReadByte() {
  QUIVER_ASSIGN_OR_RETURN(uint8_t byte, ReadRawByte());
  return static_cast<int8_t>(byte);
}

Result<int16_t> ThriftReader::ReadI16() {
  QUIVER_ASSIGN_OR_RETURN(uint64_t raw, ReadVarint());
  const int64_t value = UnZigZag(raw);
  if (value < INT16_MIN || value > INT16_MAX) return Error("an i16 is out of range");
  return static_cast<int16_t>(value);
}

Result<int32_t> ThriftReader::ReadI32() {
  QUIVER_ASSIGN_OR_RETURN(uint64_t raw, ReadVarint());
  const int64_t value = UnZigZag(raw);
  if (value < INT32_MIN || value > INT32_MAX) return Error("an i32 is out of range");
  return static_cast<int32_t>(value);
}

Result<int64_t> ThriftReader::ReadI64() {
  QUIVER_ASSIGN_OR_RETURN(uint64_t raw, ReadVarint());
  return UnZigZag(raw);
}

Result<double> ThriftReader::ReadDouble() {
  if (size_ - position_ < 8) return Error("the bytes end inside a double");
  double value = 0;
  std::memcpy(&value, data_ + position_, 8);  // little-endian, as the protocol writes it
  position_ += 8;
  return value;
}

Result<std::string_view> ThriftReader::ReadBinary() {
  QUIVER_ASSIGN_OR_RETURN(uint64_t length, ReadVarint());
  if (length > static_cast<uint64_t>(size_ - position_)) {
    return Error("a binary of " + std::to_string(length) + " bytes runs past the " +
                 std::to_string(size_ - position_) + " bytes left");
  }
  std::string_view out(reinterpret_cast<const char*>(data_ + position_), length);
  position_ += static_cast<int64_t>(length);
  return out;
}

Result<bool> ThriftReader::ReadBoolElement() {
  QUIVER_ASSIGN_OR_RETURN(uint8_t byte, ReadRawByte());
  return byte == 1;
}

Result<ThriftList> ThriftReader::BeginList() {
  QUIVER_ASSIGN_OR_RETURN(uint8_t byte, ReadRawByte());
  const uint8_t nibble = byte & 0x0f;
  if (!KnownType(nibble) || nibble == 0) {
    return Error("a list has unknown element type " + std::to_string(nibble));
  }
  uint64_t size = byte >> 4;
  if (size == 15) {
    QUIVER_ASSIGN_OR_RETURN(size, ReadVarint());
  }
  // Every element takes at least a byte, so a count beyond the bytes left
  // is a lie (and would make a caller reserve memory for it).
  if (size > static_cast<uint64_t>(size_ - position_)) {
    return Error("a list of " + std::to_string(size) + " elements runs past the " +
                 std::to_string(size_ - position_) + " bytes left");
  }
  QUIVER_RETURN_NOT_OK(Enter());
  return ThriftList{static_cast<ThriftType>(nibble), static_cast<int64_t>(size)};
}

Status ThriftReader::Skip(ThriftType type) {
  switch (type) {
    case ThriftType::kTrue:
    case ThriftType::kFalse: return Status::OK();  // a field's bool is in its header
    case ThriftType::kByte: return ReadByte().status();
    case ThriftType::kI16:
    case ThriftType::kI32:
    case ThriftType::kI64: return ReadVarint().status();
    case ThriftType::kDouble: return ReadDouble().status();
    case ThriftType::kBinary: return ReadBinary().status();
    case ThriftType::kList:
    case ThriftType::kSet: {
      QUIVER_ASSIGN_OR_RETURN(ThriftList list, BeginList());
      for (int64_t i = 0; i < list.size; ++i) {
        // A bool element is a byte of its own.
        if (list.element == ThriftType::kTrue || list.element == ThriftType::kFalse) {
          QUIVER_RETURN_NOT_OK(ReadRawByte().status());
        } else {
          QUIVER_RETURN_NOT_OK(Skip(list.element));
        }
      }
      EndList();
      return Status::OK();
    }
    case ThriftType::kMap: {
      QUIVER_ASSIGN_OR_RETURN(uint64_t size, ReadVarint());
      if (size == 0) return Status::OK();
      if (size > static_cast<uint64_t>(size_ - position_)) {
        return Error("a map of " + std::to_string(size) + " entries runs past the bytes left");
      }
      QUIVER_ASSIGN_OR_RETURN(uint8_t types, ReadRawByte());
      const uint8_t key = types >> 4, value = types & 0x0f;
      if (!KnownType(key) || !KnownType(value) || key == 0 || value == 0) {
        return Error("a map has unknown key or value types");
      }
      QUIVER_RETURN_NOT_OK(Enter());
      for (uint64_t i = 0; i < size; ++i) {
        for (uint8_t nibble : {key, value}) {
          const auto element = static_cast<ThriftType>(nibble);
          if (element == ThriftType::kTrue || element == ThriftType::kFalse) {
            QUIVER_RETURN_NOT_OK(ReadRawByte().status());
          } else {
            QUIVER_RETURN_NOT_OK(Skip(element));
          }
        }
      }
      --depth_;
      return Status::OK();
    }
    case ThriftType::kStruct:
      return ReadStruct(*this, [this](const ThriftField& field) { return Skip(field.type); });
    case ThriftType::kStop: break;
  }
  return Error("cannot skip a value of type stop");
}

void ThriftWriter::EndStruct() {
  bytes_.push_back('\0');
  last_field_ids_.pop_back();
}

void ThriftWriter::FieldHeader(int16_t id, ThriftType type) {
  const int delta = id - last_field_ids_.back();
  if (delta > 0 && delta <= 15) {
    bytes_.push_back(static_cast<char>((delta << 4) | static_cast<int>(type)));
  } else {
    bytes_.push_back(static_cast<char>(type));
    Varint(ZigZag(id));
  }
  last_field_ids_.back() = id;
}

void ThriftWriter::Byte(int16_t id, int8_t value) {
  FieldHeader(id, ThriftType::kByte);
  bytes_.push_back(static_cast<char>(value));
}

void ThriftWriter::I16(int16_t id, int16_t value) {
  FieldHeader(id, ThriftType::kI16);
  Varint(ZigZag(value));
}

void ThriftWriter::I32(int16_t id, int32_t value) {
  FieldHeader(id, ThriftType::kI32);
  Varint(ZigZag(value));
}

void ThriftWriter::I64(int16_t id, int64_t value) {
  FieldHeader(id, ThriftType::kI64);
  Varint(ZigZag(value));
}

void ThriftWriter::Binary(int16_t id, std::string_view value) {
  FieldHeader(id, ThriftType::kBinary);
  BinaryElement(value);
}

void ThriftWriter::BinaryElement(std::string_view value) {
  Varint(value.size());
  bytes_.append(value);
}

void ThriftWriter::ListHeader(int16_t id, ThriftType element, int64_t size) {
  FieldHeader(id, ThriftType::kList);
  if (size < 15) {
    bytes_.push_back(static_cast<char>((size << 4) | static_cast<int>(element)));
  } else {
    bytes_.push_back(static_cast<char>(0xf0 | static_cast<int>(element)));
    Varint(static_cast<uint64_t>(size));
  }
}

}  // namespace quiver::parquet
