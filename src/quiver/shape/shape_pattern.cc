// ShapePattern: parsing the string form and validating the list form.
#include "quiver/shape_pattern.h"

#include <cstdio>
#include <limits>
#include <map>

#include "quiver/internal/utf8.h"

namespace quiver {

namespace {

bool IsAsciiLetter(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsDigit(unsigned char c) { return c >= '0' && c <= '9'; }

// ASCII letters, '_', and digits after the first character: "batch",
// "h_2". Names are ASCII only, so that look-alike characters (a Cyrillic
// 'а', a full-width digit) cannot bind a second, different symbol.
bool IsIdentifier(std::string_view name) {
  if (name.empty() || IsDigit(static_cast<unsigned char>(name[0]))) return false;
  for (char ch : name) {
    const auto c = static_cast<unsigned char>(ch);
    if (!(IsAsciiLetter(c) || IsDigit(c) || c == '_')) return false;
  }
  return true;
}

// "'…' (U+2026)": the first non-ASCII character of `token`, decoded from
// UTF-8 (the token was checked to be valid UTF-8), for messages.
std::string FirstNonAscii(std::string_view token) {
  size_t i = 0;
  while (i < token.size() && static_cast<unsigned char>(token[i]) < 0x80) ++i;
  const auto lead = static_cast<unsigned char>(token[i]);
  const size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;
  uint32_t code = lead & (0x7Fu >> length);
  for (size_t k = 1; k < length && i + k < token.size(); ++k) {
    code = (code << 6) | (static_cast<unsigned char>(token[i + k]) & 0x3Fu);
  }
  char hex[16];
  std::snprintf(hex, sizeof(hex), "U+%04X", code);
  return "'" + std::string(token.substr(i, length)) + "' (" + hex + ")";
}

// Why a token with non-ASCII characters is refused.
Status NonAsciiToken(std::string_view token) {
  if (!internal::IsValidUtf8(reinterpret_cast<const uint8_t*>(token.data()),
                             static_cast<int64_t>(token.size()))) {
    return Status::Invalid("not valid UTF-8");
  }
  if (token == "\u2026") {
    return Status::Invalid(
        "'\u2026' (U+2026, one ellipsis character) is not '...': write three ASCII dots");
  }
  return Status::Invalid("names are ASCII letters, digits and '_'; ", FirstNonAscii(token),
                         " is not one");
}

bool HasNonAscii(std::string_view token) {
  for (char ch : token) {
    if (static_cast<unsigned char>(ch) >= 0x80) return true;
  }
  return false;
}

// Printable form of a token for messages: long tokens are cut.
std::string Quote(std::string_view token) {
  constexpr size_t kMax = 40;
  if (token.size() <= kMax) return "'" + std::string(token) + "'";
  // Cut before a character, never inside one (a continuation byte
  // 10xxxxxx is not a character's first byte).
  size_t cut = kMax;
  while (cut > 0 && (static_cast<unsigned char>(token[cut]) & 0xC0) == 0x80) --cut;
  return "'" + std::string(token.substr(0, cut)) + "...'";
}

Result<ShapeEntry> ParseToken(std::string_view token) {
  if (HasNonAscii(token)) return NonAsciiToken(token);
  const auto first = static_cast<unsigned char>(token[0]);
  if (token == "...") return ShapeEntry::Ellipsis();
  if (token == "_") return ShapeEntry::Skip();
  if (IsDigit(first)) {
    int64_t value = 0;
    for (char ch : token) {
      const auto c = static_cast<unsigned char>(ch);
      if (!IsDigit(c)) return Status::Invalid("not a size or a name");
      const int64_t digit = c - '0';
      if (value > (std::numeric_limits<int64_t>::max() - digit) / 10) {
        return Status::Invalid("size does not fit int64");
      }
      value = value * 10 + digit;
    }
    return ShapeEntry::Size(value);
  }
  if (first == '*') {
    std::string_view name = token.substr(1);
    if (name.empty()) return Status::Invalid("'*' needs a name, as in '*rest'");
    if (!IsIdentifier(name)) return Status::Invalid("not a valid name after '*'");
    return ShapeEntry::NamedEllipsis(std::string(name));
  }
  if (first == '-' && token.size() > 1 && IsDigit(static_cast<unsigned char>(token[1]))) {
    return Status::Invalid("sizes must be >= 0");
  }
  if (!IsIdentifier(token)) {
    return Status::Invalid("not a size, a name, '_', '...' or '*name'");
  }
  return ShapeEntry::Symbol(std::string(token));
}

}  // namespace

std::string ShapeEntry::ToString() const {
  switch (kind) {
    case Kind::kSize: return std::to_string(size);
    case Kind::kAny: return "None";
    case Kind::kSkip: return "_";
    case Kind::kSymbol: return name;
    case Kind::kEllipsis: return "...";
    case Kind::kNamedEllipsis: return "*" + name;
  }
  return "?";
}

Result<ShapePattern> ShapePattern::Parse(std::string_view text) {
  std::vector<ShapeEntry> entries;
  std::vector<size_t> positions;
  size_t pos = 0;
  while (true) {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t' || text[pos] == '\n')) ++pos;
    if (pos >= text.size()) break;
    const size_t begin = pos;
    while (pos < text.size() && text[pos] != ' ' && text[pos] != '\t' && text[pos] != '\n') ++pos;
    std::string_view token = text.substr(begin, pos - begin);
    auto entry = ParseToken(token);
    if (!entry.ok()) {
      return Status::Invalid("pattern entry ", entries.size(), " ", Quote(token), " at character ",
                             begin, ": ", entry.status().message());
    }
    entries.push_back(std::move(*entry));
    positions.push_back(begin);
  }
  return Build(std::move(entries), &positions);
}

Result<ShapePattern> ShapePattern::Make(std::vector<ShapeEntry> entries) {
  return Build(std::move(entries), nullptr);
}

Result<ShapePattern> ShapePattern::Build(std::vector<ShapeEntry> entries,
                                         const std::vector<size_t>* positions) {
  ShapePattern pattern;
  pattern.slots_.assign(entries.size(), -1);
  // name -> (slot, is named ellipsis)
  std::map<std::string, std::pair<int32_t, bool>, std::less<>> names;
  for (size_t i = 0; i < entries.size(); ++i) {
    const ShapeEntry& entry = entries[i];
    const std::string at = positions ? " at character " + std::to_string((*positions)[i]) : "";
    const std::string where = "pattern entry " + std::to_string(i) + " ";
    if (entry.kind == ShapeEntry::Kind::kSize && entry.size < 0) {
      return Status::Invalid(where, "(", entry.size, "): sizes must be >= 0");
    }
    if (entry.is_ellipsis()) {
      if (pattern.ellipsis_ >= 0) {
        return Status::Invalid(where, Quote(entry.ToString()), at,
                               ": a pattern has at most one ellipsis (entry ", pattern.ellipsis_,
                               " is one already)");
      }
      pattern.ellipsis_ = static_cast<int64_t>(i);
    }
    if (entry.kind == ShapeEntry::Kind::kSymbol || entry.kind == ShapeEntry::Kind::kNamedEllipsis) {
      const bool axes = entry.kind == ShapeEntry::Kind::kNamedEllipsis;
      if (!IsIdentifier(entry.name) || entry.name == "_") {
        return Status::Invalid(where, Quote(entry.name), ": not a valid name");
      }
      auto [it, inserted] = names.try_emplace(entry.name, pattern.slot_count_, axes);
      if (inserted) {
        ++pattern.slot_count_;
      } else if (it->second.second != axes) {
        return Status::Invalid(where, Quote(entry.ToString()), at, ": '", entry.name,
                               "' is used both as a symbol and as a named ellipsis");
      }
      pattern.slots_[i] = it->second.first;
    }
  }
  pattern.entries_ = std::move(entries);
  return pattern;
}

std::string ShapePattern::ToString() const {
  std::string out = "[";
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (i > 0) out += ", ";
    out += entries_[i].ToString();
  }
  return out + "]";
}

}  // namespace quiver
