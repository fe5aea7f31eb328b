#include "text_format.h"

#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string_view>

namespace quiver::tools {

std::string FormatBytes(int64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  if (bytes < 1024) return std::to_string(bytes) + " B";
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 5) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f %s", value, kUnits[unit]);
  return text;
}

std::string FormatInts(std::span<const int64_t> values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(values[i]);
  }
  return out + "]";
}

std::string FormatNames(const std::vector<std::string>& names) {
  std::string out = "[";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += ", ";
    out += names[i];
  }
  return out + "]";
}

namespace {

template <typename T>
T Load(const uint8_t* address) {
  T value;
  std::memcpy(&value, address, sizeof(T));
  return value;
}

std::string FormatFloat(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char text[40];
  std::snprintf(text, sizeof(text), "%.8g", value);
  std::string out = text;
  // NumPy writes integral floats with a trailing point: 1. not 1.
  if (out.find_first_of(".en") == std::string::npos) out += ".";
  return out;
}

}  // namespace

std::string FormatElement(const DataType& type, const uint8_t* address) {
  if (type.is_bool8()) return Load<int8_t>(address) != 0 ? "True" : "False";
  if (type.is_bfloat16())
    return FormatFloat(LowPrecisionFloatToFloat(type, Load<uint16_t>(address)));
  if (type.is_low_precision_float()) {
    return FormatFloat(LowPrecisionFloatToFloat(type, Load<uint8_t>(address)));
  }
  switch (type.id()) {
    case TypeId::kInt8: return std::to_string(Load<int8_t>(address));
    case TypeId::kInt16: return std::to_string(Load<int16_t>(address));
    case TypeId::kInt32: return std::to_string(Load<int32_t>(address));
    case TypeId::kInt64: return std::to_string(Load<int64_t>(address));
    case TypeId::kUInt8: return std::to_string(Load<uint8_t>(address));
    case TypeId::kUInt16: return std::to_string(Load<uint16_t>(address));
    case TypeId::kUInt32: return std::to_string(Load<uint32_t>(address));
    case TypeId::kUInt64: return std::to_string(Load<uint64_t>(address));
    case TypeId::kFloat16: return FormatFloat(HalfToFloat(Load<uint16_t>(address)));
    case TypeId::kFloat32: return FormatFloat(Load<float>(address));
    case TypeId::kFloat64: return FormatFloat(Load<double>(address));
    default: return "?";
  }
}

namespace {

struct TensorPrinter {
  const Tensor& tensor;
  int64_t edge;
  bool summarize;
  std::string out;

  // Axis `axis` starting at `address`; `indent` is the column the
  // brackets of this axis start at.
  void Axis(int axis, const uint8_t* address, size_t indent) {
    const int64_t size = tensor.shape()[axis];
    const int64_t stride = tensor.strides()[axis];
    const bool last = axis + 1 == tensor.ndim();
    out += '[';
    for (int64_t i = 0; i < size; ++i) {
      if (summarize && size > 2 * edge && i == edge) {
        out += last ? "..., " : "...,\n" + std::string(indent + 1, ' ');
        i = size - edge - 1;
        continue;
      }
      const uint8_t* element = address + i * stride;
      if (last) {
        out += FormatElement(*tensor.type(), element);
      } else {
        Axis(axis + 1, element, indent + 1);
      }
      if (i + 1 < size) {
        out += last ? ", "
                    : ",\n" + std::string(tensor.ndim() - axis - 2, '\n') +
                          std::string(indent + 1, ' ');
      }
    }
    out += ']';
  }
};

}  // namespace

std::string FormatTensor(const Tensor& tensor, int64_t edge, int64_t threshold) {
  if (!tensor.CheckOnHost().ok()) return "<tensor in device memory>";
  if (tensor.ndim() == 0) return FormatElement(*tensor.type(), tensor.raw_data());
  TensorPrinter printer{tensor, edge, tensor.size() > threshold, {}};
  printer.Axis(0, tensor.raw_data(), 0);
  return std::move(printer.out);
}

namespace {

// Bytes in the well-formed UTF-8 sequence at the start of `text` (RFC 3629:
// no overlong forms, no surrogates, nothing past U+10FFFF), 0 if there is none.
size_t Utf8SequenceLength(std::string_view text) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  const auto continuation = [&](size_t i, unsigned char low = 0x80, unsigned char high = 0xbf) {
    return i < text.size() && byte(i) >= low && byte(i) <= high;
  };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return continuation(1) ? 2 : 0;
  if (lead >= 0xe0 && lead <= 0xef) {
    const unsigned char low = lead == 0xe0 ? 0xa0 : 0x80;
    const unsigned char high = lead == 0xed ? 0x9f : 0xbf;
    return continuation(1, low, high) && continuation(2) ? 3 : 0;
  }
  if (lead >= 0xf0 && lead <= 0xf4) {
    const unsigned char low = lead == 0xf0 ? 0x90 : 0x80;
    const unsigned char high = lead == 0xf4 ? 0x8f : 0xbf;
    return continuation(1, low, high) && continuation(2) && continuation(3) ? 4 : 0;
  }
  return 0;
}

void AppendHexEscape(std::string* out, unsigned char c) {
  char escape[8];
  std::snprintf(escape, sizeof(escape), "\\x%02x", c);
  *out += escape;
}

}  // namespace

std::string EscapeText(std::string_view text, char quote) {
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    const auto c = static_cast<unsigned char>(text.front());
    const size_t length = Utf8SequenceLength(text);
    // C1 controls (U+0080 to U+009F, "\xc2\x80" to "\xc2\x9f") are escape
    // sequences to some terminals as well.
    const bool c1 = length == 2 && c == 0xc2 && static_cast<unsigned char>(text[1]) <= 0x9f;
    if (c == '\\' || (quote != '\0' && c == static_cast<unsigned char>(quote))) {
      out += '\\';
      out += static_cast<char>(c);
    } else if (length == 0 || c < 0x20 || c == 0x7f) {
      AppendHexEscape(&out, c);
    } else if (c1) {
      AppendHexEscape(&out, c);
      AppendHexEscape(&out, static_cast<unsigned char>(text[1]));
      text.remove_prefix(2);
      continue;
    } else {
      out.append(text.substr(0, length));
      text.remove_prefix(length);
      continue;
    }
    text.remove_prefix(1);
  }
  return out;
}

namespace {

// Bytes of slot `row` of a utf8 / binary array (32- or 64-bit offsets),
// checked against the data buffer.
std::string FormatString(const ArrayData& data, int64_t row, bool large) {
  const int64_t slot = data.offset + row;
  const int64_t width = large ? 8 : 4;
  if (data.buffers.size() < 3 || data.buffers[1] == nullptr ||
      !data.buffers[1]->device().is_cpu() || data.buffers[1]->size() < (slot + 2) * width ||
      (data.buffers[2] != nullptr && !data.buffers[2]->device().is_cpu())) {
    return "<bad offsets>";
  }
  const Range range = ValueRange(data, row);
  const int64_t size = data.buffers[2] ? data.buffers[2]->size() : 0;
  if (range.begin < 0 || range.end < range.begin || range.end > size) return "<bad offsets>";
  constexpr int64_t kMaxShown = 80;
  const auto* chars = reinterpret_cast<const char*>(data.buffers[2]->data());
  std::string out =
      "\"" +
      EscapeText(std::string_view(chars + range.begin, std::min(range.length(), kMaxShown)), '"') +
      "\"";
  if (range.length() > kMaxShown) out += "...";
  return out;
}

}  // namespace

// A dictionary array's cell: the dictionary entry its index names.
std::string FormatDictionaryCell(const ArrayData& data, int64_t row) {
  const DataType& index_type = *data.type->storage().index_type();
  const int64_t width = index_type.byte_width();
  const int64_t slot = data.offset + row;
  if (data.buffers.size() < 2 || !data.buffers[1] || !data.buffers[1]->device().is_cpu() ||
      data.buffers[1]->size() < (slot + 1) * width || !data.dictionary) {
    return "<bad buffer>";
  }
  const uint8_t* at = data.buffers[1]->data() + slot * width;
  int64_t index = 0;
  if (index_type.is_signed_integer()) {
    int64_t value = 0;
    std::memcpy(&value, at, static_cast<size_t>(width));  // little endian: the low bytes
    const int shift = static_cast<int>(64 - 8 * width);
    index =
        shift > 0 ? static_cast<int64_t>(static_cast<uint64_t>(value) << shift) >> shift : value;
  } else {
    uint64_t value = 0;
    std::memcpy(&value, at, static_cast<size_t>(width));
    index = value > static_cast<uint64_t>(INT64_MAX) ? -1 : static_cast<int64_t>(value);
  }
  if (index < 0 || index >= data.dictionary->length)
    return "<bad index " + std::to_string(index) + ">";
  return FormatCell(*data.dictionary, index);
}

std::string FormatCell(const ArrayData& data, int64_t row) {
  if (row < 0 || row >= data.length) return "<out of range>";
  if (!data.IsValid(row)) return "null";
  const DataType& type = data.type->storage();
  const int64_t slot = data.offset + row;
  if (type.id() == TypeId::kBool) {
    if (data.buffers.size() < 2 || !data.buffers[1] || !data.buffers[1]->device().is_cpu() ||
        data.buffers[1]->size() * 8 <= slot) {
      return "<bad buffer>";
    }
    return GetBool(data, row) ? "true" : "false";
  }
  if (type.is_numeric() || data.type->is_bool8() || data.type->is_low_precision_float()) {
    const int64_t width = type.byte_width();
    if (data.buffers.size() < 2 || !data.buffers[1] || !data.buffers[1]->device().is_cpu() ||
        data.buffers[1]->size() < (slot + 1) * width) {
      return "<bad buffer>";
    }
    return FormatElement(*data.type, data.buffers[1]->data() + slot * width);
  }
  switch (type.id()) {
    case TypeId::kUtf8:
    case TypeId::kBinary: return FormatString(data, row, false);
    case TypeId::kLargeUtf8:
    case TypeId::kLargeBinary: return FormatString(data, row, true);
    case TypeId::kDictionary: return FormatDictionaryCell(data, row);
    default: return "<" + data.type->ToString() + ">";
  }
}

}  // namespace quiver::tools
