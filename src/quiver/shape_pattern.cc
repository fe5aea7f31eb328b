// ShapePattern: parsing the string form and validating the list form.
#include "quiver/shape_pattern.h"

#include <limits>
#include <map>

#include "quiver/internal/utf8.h"

namespace quiver {

namespace {

bool IsAsciiLetter(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsDigit(unsigned char c) { return c >= '0' && c <= '9'; }

// Letters, '_', digits after the first character, and non-ASCII UTF-8
// (validated as a whole), so "batch", "h_2" and "höhe" are names.
bool IsIdentifier(std::string_view name) {
  if (name.empty() || IsDigit(static_cast<unsigned char>(name[0]))) return false;
  for (char ch : name) {
    const auto c = static_cast<unsigned char>(ch);
    if (!(IsAsciiLetter(c) || IsDigit(c) || c == '_' || c >= 0x80)) return false;
  }
  return internal::IsValidUtf8(reinterpret_cast<const uint8_t*>(name.data()), static_cast<int64_t>(name.size()));
}

// Printable form of a token for messages: long tokens are cut.
std::string Quote(std::string_view token) {
  constexpr size_t kMax = 40;
  if (token.size() <= kMax) return "'" + std::string(token) + "'";
  return "'" + std::string(token.substr(0, kMax)) + "...'";
}

Result<ShapeEntry> ParseToken(std::string_view token) {
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
      return Status::Invalid("pattern entry " + std::to_string(entries.size()) + " " + Quote(token) +
                             " at character " + std::to_string(begin) + ": " +
                             entry.status().message());
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
      return Status::Invalid(where + "(" + std::to_string(entry.size) + "): sizes must be >= 0");
    }
    if (entry.is_ellipsis()) {
      if (pattern.ellipsis_ >= 0) {
        return Status::Invalid(where + Quote(entry.ToString()) + at + ": a pattern has at most one ellipsis (" +
                               "entry " + std::to_string(pattern.ellipsis_) + " is one already)");
      }
      pattern.ellipsis_ = static_cast<int64_t>(i);
    }
    if (entry.kind == ShapeEntry::Kind::kSymbol || entry.kind == ShapeEntry::Kind::kNamedEllipsis) {
      const bool axes = entry.kind == ShapeEntry::Kind::kNamedEllipsis;
      if (!IsIdentifier(entry.name) || entry.name == "_") {
        return Status::Invalid(where + Quote(entry.name) + ": not a valid name");
      }
      auto [it, inserted] = names.try_emplace(entry.name, pattern.slot_count_, axes);
      if (inserted) {
        ++pattern.slot_count_;
      } else if (it->second.second != axes) {
        return Status::Invalid(where + Quote(entry.ToString()) + at + ": '" + entry.name +
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
