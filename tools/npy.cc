#include "npy.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <string_view>

#include "signal_cleanup.h"

namespace quiver::tools {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr int64_t kMagicBytes = 6;
constexpr int64_t kAlign = 64;
// NumPy leaves room for the growing axis (np.lib.format.GROWTH_AXIS_MAX_DIGITS).
constexpr int64_t kGrowthAxisDigits = 21;

// A cursor over the header's dict literal: {'descr': '<f4', 'fortran_order':
// False, 'shape': (3, 4), }, spaces anywhere between tokens.
class Literal {
 public:
  explicit Literal(std::string_view text) : text_(text) {}

  void SkipSpaces() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
  }
  bool Accept(char c) {
    SkipSpaces();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  Status Expect(char c, const char* what) {
    if (Accept(c)) return Status::OK();
    return Error(std::string("expected '") + c + "' " + what);
  }
  Status Error(const std::string& what) const {
    return Status::Invalid("malformed .npy header at character ", pos_, ": ", what);
  }
  Result<std::string> String() {
    SkipSpaces();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) {
      return Error("expected a quoted string");
    }
    const char quote = text_[pos_++];
    const size_t end = text_.find(quote, pos_);
    if (end == std::string_view::npos) return Error("unterminated string");
    std::string out(text_.substr(pos_, end - pos_));
    if (out.find('\\') != std::string::npos) return Error("escapes are not allowed in strings");
    pos_ = end + 1;
    return out;
  }
  Result<bool> Bool() {
    SkipSpaces();
    for (auto [word, value] : {std::pair{"True", true}, std::pair{"False", false}}) {
      const std::string_view w(word);
      if (text_.substr(pos_, w.size()) == w) {
        pos_ += w.size();
        return value;
      }
    }
    return Error("expected True or False");
  }
  Result<std::vector<int64_t>> Shape() {
    QUIVER_RETURN_NOT_OK(Expect('(', "to open the shape tuple"));
    std::vector<int64_t> shape;
    while (!Accept(')')) {
      SkipSpaces();
      const size_t start = pos_;
      int64_t value = 0;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
        if (value > (INT64_MAX - 9) / 10) return Error("shape entry too large");
        value = value * 10 + (text_[pos_++] - '0');
      }
      if (pos_ == start) {
        return Error("shape entry " + std::to_string(shape.size()) +
                     " is not a non-negative integer");
      }
      Accept('L');  // Python 2 wrote longs as 3L
      shape.push_back(value);
      if (shape.size() > 64) return Error("more than 64 axes");
      if (!Accept(',')) {
        QUIVER_RETURN_NOT_OK(Expect(')', "to close the shape tuple"));
        break;
      }
    }
    return shape;
  }
  bool AtEnd() {
    SkipSpaces();
    while (pos_ < text_.size() && (text_[pos_] == '\n' || text_[pos_] == ' ')) ++pos_;
    return pos_ == text_.size();
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

Status ParseDescr(const std::string& descr, NpyHeader* header) {
  if (descr.size() < 3) return Status::NotImplemented("unsupported .npy dtype '", descr, "'");
  const char order = descr[0];
  const std::string code = descr.substr(1);
  static const std::pair<const char*, TypePtr (*)()> kTypes[] = {
      {"i1", int8},    {"i2", int16},   {"i4", int32},   {"i8", int64},
      {"u1", uint8},   {"u2", uint16},  {"u4", uint32},  {"u8", uint64},
      {"f2", float16}, {"f4", float32}, {"f8", float64}, {"b1", bool8}};
  for (const auto& [name, make] : kTypes) {
    if (code != name) continue;
    if (order != '<' && order != '>' && order != '|' && order != '=') break;
    header->type = make();
    header->big_endian = order == '>' && header->type->byte_width() > 1;
    if (order == '|' && header->type->byte_width() > 1) {
      return Status::Invalid("malformed .npy header: dtype '", descr,
                             "' has no byte order ('|' is for single bytes)");
    }
    return Status::OK();
  }
  return Status::NotImplemented("unsupported .npy dtype '", descr,
                                "': quiver reads integer, float and bool arrays "
                                "(no complex, string, structured, object or datetime)");
}

uint32_t LoadLittle32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

}  // namespace

Result<NpyHeader> ParseNpyHeader(const uint8_t* bytes, int64_t size) {
  if (size < kMagicBytes + 4 || std::memcmp(bytes, kMagic, kMagicBytes) != 0) {
    return Status::Invalid("not a .npy file: it does not start with \\x93NUMPY");
  }
  NpyHeader header;
  header.major_version = bytes[6];
  int64_t length_bytes = 0;
  int64_t header_length = 0;
  switch (header.major_version) {
    case 1:
      length_bytes = 2;
      header_length = bytes[8] | bytes[9] << 8;
      break;
    case 2:
    case 3:
      length_bytes = 4;
      if (size < kMagicBytes + 2 + 4) return Status::Invalid(".npy header is truncated");
      header_length = LoadLittle32(bytes + 8);
      break;
    default:
      return Status::NotImplemented(".npy format version ", header.major_version, ".", bytes[7],
                                    " (quiver reads 1.0, 2.0 and 3.0)");
  }
  header.data_offset = kMagicBytes + 2 + length_bytes + header_length;
  if (header.data_offset > size) {
    return Status::Invalid(".npy header claims ", header_length, " bytes, the file has ",
                           size - (kMagicBytes + 2 + length_bytes), " after its prefix");
  }
  const std::string_view text(reinterpret_cast<const char*>(bytes + kMagicBytes + 2 + length_bytes),
                              static_cast<size_t>(header_length));
  Literal literal(text);
  QUIVER_RETURN_NOT_OK(literal.Expect('{', "to open the header dict"));
  bool have_descr = false, have_order = false, have_shape = false;
  while (!literal.Accept('}')) {
    QUIVER_ASSIGN_OR_RETURN(std::string key, literal.String());
    QUIVER_RETURN_NOT_OK(literal.Expect(':', "after a key"));
    if (key == "descr" && !have_descr) {
      if (literal.Accept('[')) {
        return Status::NotImplemented("unsupported .npy dtype: structured arrays (fields)");
      }
      QUIVER_ASSIGN_OR_RETURN(std::string descr, literal.String());
      QUIVER_RETURN_NOT_OK(ParseDescr(descr, &header));
      have_descr = true;
    } else if (key == "fortran_order" && !have_order) {
      QUIVER_ASSIGN_OR_RETURN(header.fortran_order, literal.Bool());
      have_order = true;
    } else if (key == "shape" && !have_shape) {
      QUIVER_ASSIGN_OR_RETURN(header.shape, literal.Shape());
      have_shape = true;
    } else {
      return literal.Error("unexpected or repeated key '" + key + "'");
    }
    if (!literal.Accept(',')) {
      QUIVER_RETURN_NOT_OK(literal.Expect('}', "to close the header dict"));
      break;
    }
  }
  if (!literal.AtEnd()) return literal.Error("text after the header dict");
  if (!have_descr || !have_order || !have_shape) {
    return Status::Invalid("malformed .npy header: it lacks '",
                           !have_descr   ? "descr"
                           : !have_order ? "fortran_order"
                                         : "shape",
                           "'");
  }
  int64_t bytes_total = header.type->byte_width();
  for (size_t axis = 0; axis < header.shape.size(); ++axis) {
    if (__builtin_mul_overflow(bytes_total, header.shape[axis], &bytes_total)) {
      return Status::Invalid(".npy shape ", "(", axis, " axes) has more bytes than fit in 64 bits");
    }
  }
  header.data_bytes = bytes_total;
  return header;
}

namespace {

void SwapBytes(uint8_t* data, int64_t count, int64_t width) {
  for (int64_t i = 0; i < count; ++i) std::reverse(data + i * width, data + (i + 1) * width);
}

}  // namespace

Result<NpyArray> ReadNpy(const BufferPtr& bytes) {
  NpyArray out;
  QUIVER_ASSIGN_OR_RETURN(out.header, ParseNpyHeader(bytes->data(), bytes->size()));
  const NpyHeader& header = out.header;
  const int64_t available = bytes->size() - header.data_offset;
  if (available != header.data_bytes) {
    return Status::Invalid(".npy data is ", available, " bytes, the header's dtype and shape ",
                           "need ", header.data_bytes,
                           available < header.data_bytes ? " (truncated?)" : "");
  }
  QUIVER_ASSIGN_OR_RETURN(BufferPtr data,
                          Buffer::Slice(bytes, header.data_offset, header.data_bytes));
  const int64_t width = header.type->byte_width();
  Dims strides;
  if (header.fortran_order) {
    std::vector<int64_t> fortran(header.shape.size());
    int64_t stride = width;
    for (size_t axis = 0; axis < header.shape.size(); ++axis) {
      fortran[axis] = stride;
      stride *= std::max<int64_t>(header.shape[axis], 1);
    }
    strides = fortran;
  }
  QUIVER_ASSIGN_OR_RETURN(out.tensor, Tensor::Make(header.type, data, header.shape, strides));
  if (!out.tensor.IsContiguous() || header.big_endian) {
    // One row-major copy of our own (the input may be a read-only mapping),
    // then swapped in place where the file is big-endian.
    QUIVER_ASSIGN_OR_RETURN(BufferPtr copy, Buffer::AllocateUninitialized(header.data_bytes));
    QUIVER_RETURN_NOT_OK(out.tensor.CopyToRowMajor(copy->mutable_data(), header.data_bytes));
    if (header.big_endian) SwapBytes(copy->mutable_data(), out.tensor.size(), width);
    QUIVER_ASSIGN_OR_RETURN(out.tensor, Tensor::Make(header.type, copy, header.shape));
    out.copied = true;
  }
  return out;
}

namespace {

const char* DescrOf(const DataType& type) {
  if (type.is_bool8()) return "|b1";
  switch (type.id()) {
    case TypeId::kInt8: return "|i1";
    case TypeId::kUInt8: return "|u1";
    case TypeId::kInt16: return "<i2";
    case TypeId::kInt32: return "<i4";
    case TypeId::kInt64: return "<i8";
    case TypeId::kUInt16: return "<u2";
    case TypeId::kUInt32: return "<u4";
    case TypeId::kUInt64: return "<u8";
    case TypeId::kFloat16: return "<f2";
    case TypeId::kFloat32: return "<f4";
    case TypeId::kFloat64: return "<f8";
    default: return nullptr;
  }
}

}  // namespace

Result<std::string> NpyHeaderFor(const DataType& type, const std::vector<int64_t>& shape) {
  static_assert(std::endian::native == std::endian::little, "quiver writes .npy little-endian");
  const char* descr = DescrOf(type);
  if (descr == nullptr) {
    return Status::NotImplemented("no .npy dtype for ", type.ToString());
  }
  std::string shape_text = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    shape_text += std::to_string(shape[i]) + (shape.size() == 1      ? ","
                                              : i + 1 < shape.size() ? ", "
                                                                     : "");
  }
  shape_text += ")";
  std::string dict = std::string("{'descr': '") + descr +
                     "', 'fortran_order': False, 'shape': " + shape_text + ", }";
  if (!shape.empty()) {
    // As np.save: room for the first axis to grow to 21 digits.
    dict.append(static_cast<size_t>(kGrowthAxisDigits -
                                    static_cast<int64_t>(std::to_string(shape[0]).size())),
                ' ');
  }
  // Version 1.0 while the header length fits its 16 bits, as np.save.
  int version = 1;
  int64_t length_bytes = 2;
  int64_t pad = 0;
  int64_t header_length = 0;
  for (; version <= 2; ++version, length_bytes = 4) {
    const int64_t total = kMagicBytes + 2 + length_bytes + static_cast<int64_t>(dict.size()) + 1;
    pad = (kAlign - total % kAlign) % kAlign;
    header_length = static_cast<int64_t>(dict.size()) + pad + 1;
    if (version == 2 || header_length <= 65535) break;
  }
  std::string out(kMagic, kMagicBytes);
  out += static_cast<char>(version);
  out += '\0';
  for (int64_t i = 0; i < length_bytes; ++i) {
    out += static_cast<char>((header_length >> (8 * i)) & 0xff);
  }
  out += dict;
  out.append(static_cast<size_t>(pad), ' ');
  out += '\n';
  return out;
}

Status WriteNpy(const Tensor& tensor, ipc::OutputSink* sink) {
  QUIVER_RETURN_NOT_OK(tensor.CheckOnHost());
  QUIVER_ASSIGN_OR_RETURN(std::string header, NpyHeaderFor(*tensor.type(), tensor.shape()));
  QUIVER_RETURN_NOT_OK(sink->Write(header.data(), static_cast<int64_t>(header.size())));
  const int64_t bytes = tensor.size() * tensor.type()->byte_width();
  if (tensor.IsContiguous()) {
    QUIVER_RETURN_NOT_OK(sink->Write(tensor.raw_data(), bytes));
  } else {
    QUIVER_ASSIGN_OR_RETURN(Tensor copy, tensor.ToContiguous());
    QUIVER_RETURN_NOT_OK(sink->Write(copy.raw_data(), bytes));
  }
  return sink->Flush();
}

Status WriteNpy(const Tensor& tensor, const std::string& path) {
  QUIVER_RETURN_NOT_OK(tensor.CheckOnHost());
  QUIVER_ASSIGN_OR_RETURN(auto sink, OpenOutputFile(path));
  QUIVER_RETURN_NOT_OK(WriteNpy(tensor, sink.get()));
  return sink->Close();
}

}  // namespace quiver::tools
