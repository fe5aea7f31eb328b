#include "quiver/internal/c_data_format.h"

#include <charconv>
#include <cstring>

namespace quiver::internal {

namespace {

struct FormatEntry {
  const char* format;
  TypePtr (*make)();
};

const FormatEntry kSimpleFormats[] = {
    {"c", int8},      {"C", uint8},      {"s", int16},   {"S", uint16},    {"i", int32},
    {"I", uint32},    {"l", int64},      {"L", uint64},  {"e", float16},   {"f", float32},
    {"g", float64},   {"b", boolean},    {"u", utf8},    {"U", large_utf8}, {"z", binary},
    {"Z", large_binary},
};

// Parses the N of "w:N" / "+w:N" (after `prefix`).
Result<int32_t> ParseSize(const std::string& format, size_t prefix) {
  const char* begin = format.data() + prefix;
  const char* end = format.data() + format.size();
  int32_t value = 0;
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || ptr != end || begin == end || value < 0) {
    return Status::Invalid("format '" + format + "' has an invalid size");
  }
  return value;
}

Status ExpectChildren(const std::string& format, const std::vector<Field>& children,
                      size_t expected) {
  if (children.size() == expected) return Status::OK();
  return Status::Invalid("format '" + format + "' needs " + std::to_string(expected) +
                         " children, got " + std::to_string(children.size()));
}

}  // namespace

std::string FormatString(const DataType& type) {
  for (const auto& entry : kSimpleFormats) {
    if (entry.make()->id() == type.id()) return entry.format;
  }
  switch (type.id()) {
    case TypeId::kFixedSizeBinary: return "w:" + std::to_string(type.fixed_size());
    case TypeId::kList: return "+l";
    case TypeId::kLargeList: return "+L";
    case TypeId::kFixedSizeList: return "+w:" + std::to_string(type.fixed_size());
    case TypeId::kStruct: return "+s";
    default: return "";  // extension: the caller exports the storage type
  }
}

Result<TypePtr> TypeFromFormat(const std::string& format, std::vector<Field> children) {
  for (const auto& entry : kSimpleFormats) {
    if (format == entry.format) {
      QUIVER_RETURN_NOT_OK(ExpectChildren(format, children, 0));
      return entry.make();
    }
  }
  if (format.rfind("w:", 0) == 0) {
    QUIVER_RETURN_NOT_OK(ExpectChildren(format, children, 0));
    QUIVER_ASSIGN_OR_RETURN(int32_t width, ParseSize(format, 2));
    return fixed_size_binary(width);
  }
  if (format == "+l" || format == "+L") {
    QUIVER_RETURN_NOT_OK(ExpectChildren(format, children, 1));
    return format == "+l" ? list(std::move(children[0])) : large_list(std::move(children[0]));
  }
  if (format.rfind("+w:", 0) == 0) {
    QUIVER_RETURN_NOT_OK(ExpectChildren(format, children, 1));
    QUIVER_ASSIGN_OR_RETURN(int32_t size, ParseSize(format, 3));
    return fixed_size_list(std::move(children[0]), size);
  }
  if (format == "+s") return struct_(std::move(children));
  return Status::NotImplemented("format '" + format + "' is not supported by quiver");
}

std::string EncodeMetadata(const KeyValueMetadata& metadata) {
  if (metadata.empty()) return "";
  std::string out;
  auto put_int = [&out](int32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); };
  put_int(static_cast<int32_t>(metadata.size()));
  for (const auto& [key, value] : metadata) {
    put_int(static_cast<int32_t>(key.size()));
    out += key;
    put_int(static_cast<int32_t>(value.size()));
    out += value;
  }
  return out;
}

Result<KeyValueMetadata> DecodeMetadata(const char* encoded) {
  KeyValueMetadata out;
  if (encoded == nullptr) return out;
  // The C struct carries no total length: trust the int32 lengths, but
  // refuse negative ones.
  auto get_int = [&encoded]() {
    int32_t v;
    std::memcpy(&v, encoded, 4);
    encoded += 4;
    return v;
  };
  int32_t pairs = get_int();
  if (pairs < 0) return Status::Invalid("schema metadata has a negative pair count");
  for (int32_t i = 0; i < pairs; ++i) {
    int32_t key_length = get_int();
    if (key_length < 0) return Status::Invalid("schema metadata key " + std::to_string(i) + " has a negative length");
    std::string key(encoded, key_length);
    encoded += key_length;
    int32_t value_length = get_int();
    if (value_length < 0) return Status::Invalid("schema metadata value of '" + key + "' has a negative length");
    std::string value(encoded, value_length);
    encoded += value_length;
    out.emplace_back(std::move(key), std::move(value));
  }
  return out;
}

}  // namespace quiver::internal
