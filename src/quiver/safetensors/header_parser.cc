// The safetensors header reader: a cursor over the text, one function per
// level the format names (the top object, an entry, __metadata__, a list of
// counts) and one loop, with its own stack, that checks and skips any other
// value (so a hostile nesting depth cannot exhaust the call stack).
#include "quiver/safetensors/header_parser.h"

#include <locale.h>
#include <stdlib.h>

#include <cmath>
#include <cstring>
#include <utility>

namespace quiver::safetensors_internal {

namespace {

class Reader {
 public:
  Reader(const uint8_t* text, int64_t size, RawHeader* out)
      : p_(text), end_(text + size), out_(out) {}

  // false: not JSON (out_->malformed) or a repeated key (out_->repeated).
  bool Header();

 private:
  enum class Number : uint8_t { kCount, kOther };

  void SkipSpace() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }
  // Skips space, then takes `c` if it is next.
  bool Take(char c) {
    SkipSpace();
    if (p_ < end_ && *p_ == static_cast<uint8_t>(c)) return ++p_, true;
    return false;
  }
  bool Fail() {
    out_->malformed = true;
    return false;
  }
  // The next token after space starts with `c` (not taken).
  bool Peek(char c) {
    SkipSpace();
    return p_ < end_ && *p_ == static_cast<uint8_t>(c);
  }

  bool String(std::string* out);
  bool Literal(std::string_view word);
  bool ParseNumber(Number* kind, uint64_t* value);
  bool Scalar();  // a string, number or literal, discarded
  bool SkipValue();
  bool Counts(CountList* list);
  bool Entry(RawEntry* entry);
  bool Metadata();

  const uint8_t* p_;
  const uint8_t* end_;
  RawHeader* out_;
  std::string key_;             // reused for keys inside an entry
  std::vector<uint8_t> stack_;  // open containers of SkipValue: '{' or '['
};

int HexDigit(uint8_t c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void AppendUtf8(uint32_t code, std::string* out) {
  if (code < 0x80) {
    out->push_back(static_cast<char>(code));
  } else if (code < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (code >> 6)));
    out->push_back(static_cast<char>(0x80 | (code & 0x3F)));
  } else if (code < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (code >> 12)));
    out->push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (code & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (code >> 18)));
    out->push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (code & 0x3F)));
  }
}

// A string token, the opening quote next; its text into `out` unless null.
bool Reader::String(std::string* out) {
  if (out != nullptr) out->clear();
  ++p_;  // the opening quote
  for (;;) {
    const uint8_t* run = p_;
    while (p_ < end_ && *p_ != '"' && *p_ != '\\' && *p_ >= 0x20) ++p_;
    if (out != nullptr) out->append(reinterpret_cast<const char*>(run), p_ - run);
    if (p_ == end_ || *p_ < 0x20) return Fail();
    if (*p_++ == '"') return true;
    if (p_ == end_) return Fail();
    char plain = 0;
    switch (*p_++) {
      case '"': plain = '"'; break;
      case '\\': plain = '\\'; break;
      case '/': plain = '/'; break;
      case 'b': plain = '\b'; break;
      case 'f': plain = '\f'; break;
      case 'n': plain = '\n'; break;
      case 'r': plain = '\r'; break;
      case 't': plain = '\t'; break;
      case 'u': break;
      default: return Fail();
    }
    if (plain != 0) {
      if (out != nullptr) out->push_back(plain);
      continue;
    }
    // \uXXXX, a surrogate pair as two of them.
    auto hex4 = [&](uint32_t* code) {
      if (end_ - p_ < 4) return false;
      *code = 0;
      for (int i = 0; i < 4; ++i) {
        const int digit = HexDigit(*p_++);
        if (digit < 0) return false;
        *code = (*code << 4) | static_cast<uint32_t>(digit);
      }
      return true;
    };
    uint32_t code = 0;
    if (!hex4(&code)) return Fail();
    if (code >= 0xDC00 && code <= 0xDFFF) return Fail();
    if (code >= 0xD800 && code <= 0xDBFF) {
      uint32_t low = 0;
      if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') return Fail();
      p_ += 2;
      if (!hex4(&low) || low < 0xDC00 || low > 0xDFFF) return Fail();
      code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
    }
    if (out != nullptr) AppendUtf8(code, out);
  }
}

bool Reader::Literal(std::string_view word) {
  if (end_ - p_ < static_cast<int64_t>(word.size()) ||
      std::string_view(reinterpret_cast<const char*>(p_), word.size()) != word) {
    return Fail();
  }
  p_ += word.size();
  return true;
}

// A number token: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?. A count is
// an integer that fits 64 bits unsigned, or -0 (a JSON library reads both
// as a non-negative integer; a longer integer becomes a double).
bool Reader::ParseNumber(Number* kind, uint64_t* value) {
  const uint8_t* start = p_;
  const bool negative = *p_ == '-';
  if (negative) ++p_;
  if (p_ == end_ || *p_ < '0' || *p_ > '9') return Fail();
  bool fits = true;
  uint64_t v = 0;
  if (*p_ == '0') {
    ++p_;
  } else {
    while (p_ < end_ && *p_ >= '0' && *p_ <= '9') {
      const auto digit = static_cast<uint64_t>(*p_++ - '0');
      if (v > (UINT64_MAX - digit) / 10) fits = false;
      v = v * 10 + digit;
    }
  }
  bool integer = true;
  if (p_ < end_ && *p_ == '.') {
    integer = false;
    ++p_;
    if (p_ == end_ || *p_ < '0' || *p_ > '9') return Fail();
    while (p_ < end_ && *p_ >= '0' && *p_ <= '9') ++p_;
  }
  if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
    integer = false;
    ++p_;
    if (p_ < end_ && (*p_ == '+' || *p_ == '-')) ++p_;
    if (p_ == end_ || *p_ < '0' || *p_ > '9') return Fail();
    while (p_ < end_ && *p_ >= '0' && *p_ <= '9') ++p_;
  }
  const bool count = integer && fits && (!negative || v == 0);
  *kind = count ? Number::kCount : Number::kOther;
  *value = count ? v : 0;
  if (integer && fits && (!negative || v <= uint64_t{1} << 63)) return true;
  // A JSON library reads any other number as a double, and refuses one
  // that overflows it (1e400, or 400 digits).
  static const locale_t c_locale = newlocale(LC_ALL_MASK, "C", nullptr);
  const std::string token(reinterpret_cast<const char*>(start), p_ - start);
  return std::isfinite(strtod_l(token.c_str(), nullptr, c_locale)) || Fail();
}

bool Reader::Scalar() {
  SkipSpace();
  if (p_ == end_) return Fail();
  switch (*p_) {
    case '"': return String(nullptr);
    case 't': return Literal("true");
    case 'f': return Literal("false");
    case 'n': return Literal("null");
    default: {
      if (*p_ != '-' && (*p_ < '0' || *p_ > '9')) return Fail();
      Number kind;
      uint64_t value;
      return ParseNumber(&kind, &value);
    }
  }
}

// Any value, checked and dropped.
bool Reader::SkipValue() {
  stack_.clear();
  for (;;) {
    // A value starts here.
    SkipSpace();
    if (p_ == end_) return Fail();
    if (*p_ == '{' || *p_ == '[') {
      const uint8_t open = *p_++;
      if (Take(open == '{' ? '}' : ']')) {
        // Empty: the value is complete.
      } else {
        stack_.push_back(open);
        if (open == '{' && (!Peek('"') || !String(nullptr) || !Take(':'))) return Fail();
        continue;
      }
    } else if (!Scalar()) {
      return false;
    }
    // A value ended: close containers until one wants another value.
    for (;;) {
      if (stack_.empty()) return true;
      if (Take(',')) {
        if (stack_.back() == '{' && (!Peek('"') || !String(nullptr) || !Take(':'))) return Fail();
        break;
      }
      if (!Take(stack_.back() == '{' ? '}' : ']')) return Fail();
      stack_.pop_back();
    }
  }
}

// A value that should be a list of counts.
bool Reader::Counts(CountList* list) {
  list->values.clear();
  if (!Peek('[')) {
    list->state = FieldState::kInvalid;
    return SkipValue();
  }
  ++p_;
  list->state = FieldState::kValid;
  if (Take(']')) return true;
  do {
    SkipSpace();
    if (p_ < end_ && (*p_ == '-' || (*p_ >= '0' && *p_ <= '9'))) {
      Number kind;
      uint64_t value;
      if (!ParseNumber(&kind, &value)) return false;
      if (kind == Number::kCount) {
        list->values.push_back(value);
      } else {
        list->state = FieldState::kInvalid;
      }
    } else {
      list->state = FieldState::kInvalid;
      if (!SkipValue()) return false;
    }
  } while (Take(','));
  return Take(']') || Fail();
}

// A top-level value other than __metadata__'s, the key read.
bool Reader::Entry(RawEntry* entry) {
  if (!Peek('{')) return SkipValue();
  ++p_;
  entry->is_object = true;
  if (Take('}')) return true;
  do {
    if (!Peek('"') || !String(&key_) || !Take(':')) return Fail();
    if (key_ == "dtype") {
      if (Peek('"')) {
        if (!String(&entry->dtype)) return false;
        entry->dtype_state = FieldState::kValid;
      } else {
        entry->dtype_state = FieldState::kInvalid;
        if (!SkipValue()) return false;
      }
    } else if (key_ == "shape") {
      if (!Counts(&entry->shape)) return false;
    } else if (key_ == "data_offsets") {
      if (!Counts(&entry->offsets)) return false;
    } else if (!SkipValue()) {
      return false;
    }
  } while (Take(','));
  return Take('}') || Fail();
}

bool Reader::Metadata() {
  SkipSpace();
  if (p_ < end_ && *p_ == 'n') {
    out_->metadata_state = FieldState::kAbsent;
    return Literal("null");
  }
  if (p_ == end_ || *p_ != '{') {
    out_->metadata_state = FieldState::kInvalid;
    return SkipValue();
  }
  ++p_;
  out_->metadata_state = FieldState::kValid;
  if (Take('}')) return true;
  std::string key;
  do {
    if (!Peek('"') || !String(&key) || !Take(':')) return Fail();
    std::optional<std::string>& slot = out_->metadata[key];
    if (Peek('"')) {
      slot.emplace();
      if (!String(&*slot)) return false;
    } else {
      slot.reset();
      if (!SkipValue()) return false;
    }
  } while (Take(','));
  return Take('}') || Fail();
}

bool Reader::Header() {
  // A byte order mark may open the text (the input is valid UTF-8, so
  // 0xEF starts one only when it is EF BB BF).
  if (end_ - p_ >= 3 && p_[0] == 0xEF && p_[1] == 0xBB && p_[2] == 0xBF) p_ += 3;
  if (!Peek('{')) {
    if (!SkipValue()) return false;
  } else {
    ++p_;
    out_->is_object = true;
    std::unordered_set<std::string_view> seen;
    bool seen_metadata = false;
    if (!Take('}')) {
      do {
        if (!Peek('"')) return Fail();
        RawEntry& entry = out_->entries.emplace_back();
        if (!String(&entry.name)) return false;
        if (entry.name == "__metadata__") {
          std::string name = std::move(entry.name);
          out_->entries.pop_back();
          if (seen_metadata) {
            out_->repeated = std::move(name);
            return false;
          }
          seen_metadata = true;
          if (!Take(':')) return Fail();
          if (!Metadata()) return false;
          continue;
        }
        if (!seen.insert(entry.name).second) {
          out_->repeated = entry.name;
          return false;
        }
        if (!Take(':')) return Fail();
        if (!Entry(&entry)) return false;
      } while (Take(','));
      if (!Take('}')) return Fail();
    }
  }
  SkipSpace();
  return p_ == end_ || Fail();
}

}  // namespace

RawHeader ParseHeader(const uint8_t* text, int64_t size) {
  RawHeader header;
  // A NUL byte ends the text, as it ends nlohmann's input (so files with
  // NUL padding after the JSON, which opened before, still do; one inside
  // a token cuts it short and so is refused).
  if (const void* nul = std::memchr(text, 0, static_cast<size_t>(size)); nul != nullptr) {
    size = static_cast<const uint8_t*>(nul) - text;
  }
  Reader reader(text, size, &header);
  reader.Header();
  return header;
}

}  // namespace quiver::safetensors_internal
