#include "quiver/interchange/c_data_format.h"

#include <charconv>
#include <cstring>

namespace quiver {

namespace {

struct FormatEntry {
  const char* format;
  TypePtr (*make)();
};

const FormatEntry kSimpleFormats[] = {
    {"c", int8},         {"C", uint8},   {"s", int16},    {"S", uint16},     {"i", int32},
    {"I", uint32},       {"l", int64},   {"L", uint64},   {"e", float16},    {"f", float32},
    {"g", float64},      {"b", boolean}, {"u", utf8},     {"U", large_utf8}, {"z", binary},
    {"Z", large_binary}, {"n", null},    {"tdD", date32}, {"tdm", date64},   {"vu", utf8_view},
    {"vz", binary_view},
};

// The unit letter of time, timestamp and duration formats.
const char kUnitLetters[] = {'s', 'm', 'u', 'n'};

char UnitLetter(TimeUnit unit) {
  const auto index = static_cast<size_t>(unit);
  return index < sizeof(kUnitLetters) ? kUnitLetters[index] : '?';
}

bool UnitFromLetter(char letter, TimeUnit* unit) {
  for (size_t i = 0; i < sizeof(kUnitLetters); ++i) {
    if (kUnitLetters[i] == letter) {
      *unit = static_cast<TimeUnit>(i);
      return true;
    }
  }
  return false;
}

// Parses one decimal integer of `text` starting at *pos, up to `stop` (or
// the end), advancing *pos past it.
bool ParseInt(const std::string& text, size_t* pos, char stop, int32_t* out) {
  const char* begin = text.data() + *pos;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(begin, end, *out);
  if (ec != std::errc() || ptr == begin || (ptr != end && *ptr != stop)) return false;
  *pos = static_cast<size_t>(ptr - text.data());
  return true;
}

// "d:P,S" or "d:P,S,N" with N the bit width (128 by default).
Result<TypePtr> ParseDecimal(const std::string& format) {
  size_t pos = 2;
  int32_t precision = 0, scale = 0, bits = 128;
  bool ok = ParseInt(format, &pos, ',', &precision) && pos < format.size() &&
            (++pos, ParseInt(format, &pos, ',', &scale));
  if (ok && pos < format.size()) ok = (++pos, ParseInt(format, &pos, '\0', &bits));
  if (!ok || pos != format.size()) {
    return Status::Invalid("format '", format,
                           "' is not a decimal format d:precision,scale[,bits]");
  }
  if (bits == 32) return decimal32(precision, scale);
  if (bits == 64) return decimal64(precision, scale);
  if (bits == 128) return decimal128(precision, scale);
  if (bits == 256) return decimal256(precision, scale);
  return Status::Invalid("format '", format, "' has decimal bit width ", bits,
                         " (32, 64, 128 or 256)");
}

// "tts" .. "ttn", "tss:<tz>" .. "tsn:<tz>", "tDs" .. "tDn" (the date
// formats are simple ones), intervals "tiM", "tiD", "tin".
Result<TypePtr> ParseTemporal(const std::string& format) {
  if (format == "tiM") return interval(IntervalUnit::kYearMonth);
  if (format == "tiD") return interval(IntervalUnit::kDayTime);
  if (format == "tin") return interval(IntervalUnit::kMonthDayNano);
  TimeUnit unit = TimeUnit::kSecond;
  const bool unit_ok = format.size() >= 3 && UnitFromLetter(format[2], &unit);
  if (unit_ok && format.size() == 3 && format[1] == 't') {
    return unit == TimeUnit::kSecond || unit == TimeUnit::kMilli ? time32(unit) : time64(unit);
  }
  if (unit_ok && format.size() == 3 && format[1] == 'D') return duration(unit);
  if (unit_ok && format[1] == 's') {
    if (format.size() == 3 || format[3] != ':') {
      return Status::Invalid("format '", format,
                             "' needs ':' and a time zone (possibly empty) "
                             "after the unit");
    }
    return timestamp(unit, format.substr(4));
  }
  return Status::NotImplemented("format '", format, "' is not supported by quiver");
}

// Parses the N of "w:N" / "+w:N" (after `prefix`).
Result<int32_t> ParseSize(const std::string& format, size_t prefix) {
  const char* begin = format.data() + prefix;
  const char* end = format.data() + format.size();
  int32_t value = 0;
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || ptr != end || begin == end || value < 0) {
    return Status::Invalid("format '", format, "' has an invalid size");
  }
  return value;
}

Status ExpectChildren(const std::string& format, const std::vector<Field>& children,
                      size_t expected) {
  if (children.size() == expected) return Status::OK();
  return Status::Invalid("format '", format, "' needs ", expected, " children, got ",
                         children.size());
}

// "+us:I,J,..." / "+ud:I,J,...": the type codes of the children, in order
// (none for a union without children: "+us:").
Result<TypePtr> ParseUnion(const std::string& format, std::vector<Field> children) {
  std::vector<int8_t> codes;
  size_t pos = 4;
  while (pos < format.size()) {
    int32_t code = 0;
    if (!ParseInt(format, &pos, ',', &code) || code < 0 || code > 127) {
      return Status::Invalid("format '", format,
                             "' is not a union format +us: or +ud: with type codes in [0, 127]");
    }
    codes.push_back(static_cast<int8_t>(code));
    if (pos < format.size()) ++pos;  // the comma
    if (pos == format.size() && format.back() == ',') {
      return Status::Invalid("format '", format, "' ends with a comma");
    }
  }
  if (codes.size() != children.size()) {
    return Status::Invalid("format '", format, "' names ", codes.size(), " type codes for ",
                           children.size(), " children");
  }
  return format[2] == 's' ? sparse_union(std::move(children), std::move(codes))
                          : dense_union(std::move(children), std::move(codes));
}

std::string UnionFormat(const DataType& type) {
  std::string out = type.id() == TypeId::kSparseUnion ? "+us:" : "+ud:";
  for (size_t i = 0; i < type.type_codes().size(); ++i) {
    if (i > 0) out += ",";
    out += std::to_string(type.type_codes()[i]);
  }
  return out;
}

}  // namespace

std::string FormatString(const DataType& type) {
  for (const auto& entry : kSimpleFormats) {
    if (entry.make()->id() == type.id()) return entry.format;
  }
  const std::string unit(1, UnitLetter(type.time_unit()));
  switch (type.id()) {
    case TypeId::kTime32:
    case TypeId::kTime64: return "tt" + unit;
    case TypeId::kDuration: return "tD" + unit;
    case TypeId::kTimestamp: return "ts" + unit + ":" + type.timezone();
    case TypeId::kDecimal128:
      return "d:" + std::to_string(type.precision()) + "," + std::to_string(type.scale());
    case TypeId::kDecimal32:
    case TypeId::kDecimal64:
    case TypeId::kDecimal256:
      return "d:" + std::to_string(type.precision()) + "," + std::to_string(type.scale()) + "," +
             std::to_string(type.bit_width());
    case TypeId::kIntervalYearMonth: return "tiM";
    case TypeId::kIntervalDayTime: return "tiD";
    case TypeId::kIntervalMonthDayNano: return "tin";
    case TypeId::kMap: return "+m";
    case TypeId::kSparseUnion:
    case TypeId::kDenseUnion: return UnionFormat(type);
    case TypeId::kListView: return "+vl";
    case TypeId::kLargeListView: return "+vL";
    case TypeId::kRunEndEncoded: return "+r";
    case TypeId::kDictionary: return FormatString(*type.index_type());
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
  if (format == "+vl" || format == "+vL") {
    QUIVER_RETURN_NOT_OK(ExpectChildren(format, children, 1));
    return format == "+vl" ? list_view(std::move(children[0]))
                           : large_list_view(std::move(children[0]));
  }
  if (format == "+m") {
    QUIVER_RETURN_NOT_OK(ExpectChildren(format, children, 1));
    return map_(std::move(children[0]));
  }
  if (format == "+r") {
    QUIVER_RETURN_NOT_OK(ExpectChildren(format, children, 2));
    return run_end_encoded(children[0].type, children[1].type);
  }
  if (format.rfind("+us:", 0) == 0 || format.rfind("+ud:", 0) == 0) {
    return ParseUnion(format, std::move(children));
  }
  if (format.rfind("d:", 0) == 0) {
    QUIVER_RETURN_NOT_OK(ExpectChildren(format, children, 0));
    return ParseDecimal(format);
  }
  if (format.size() >= 3 && format[0] == 't') {
    QUIVER_RETURN_NOT_OK(ExpectChildren(format, children, 0));
    return ParseTemporal(format);
  }
  return Status::NotImplemented("format '", format, "' is not supported by quiver");
}

namespace interchange {

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
    if (key_length < 0) return Status::Invalid("schema metadata key ", i, " has a negative length");
    std::string key(encoded, key_length);
    encoded += key_length;
    int32_t value_length = get_int();
    if (value_length < 0)
      return Status::Invalid("schema metadata value of '", key, "' has a negative length");
    std::string value(encoded, value_length);
    encoded += value_length;
    out.emplace_back(std::move(key), std::move(value));
  }
  return out;
}

}  // namespace interchange

}  // namespace quiver
