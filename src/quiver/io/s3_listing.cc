// A small XML reader for S3's answers: elements, text and entities are
// all ListObjectsV2 and error bodies use (no namespaces are checked, no
// DTDs are read: nothing is fetched or expanded beyond the five entities
// and character references).
#include "quiver/io/s3_listing.h"

#include <cstdint>
#include <functional>

namespace quiver::io::internal {

namespace {

constexpr size_t kMaxDepth = 32;

Status Malformed(const char* what, size_t at) {
  return Status::Invalid("malformed S3 XML: ", what, " at byte ", at);
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    *out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    *out += static_cast<char>(0xC0 | (cp >> 6));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    *out += static_cast<char>(0xE0 | (cp >> 12));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    *out += static_cast<char>(0xF0 | (cp >> 18));
    *out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// "#65", "#x41": the code point, or false for no valid one.
bool CharacterReference(std::string_view name, uint32_t* cp) {
  const bool hex = name.size() > 1 && (name[1] == 'x' || name[1] == 'X');
  std::string_view digits = name.substr(hex ? 2 : 1);
  if (digits.empty() || digits.size() > 8) return false;
  uint32_t value = 0;
  for (char c : digits) {
    uint32_t d = 0;
    if (c >= '0' && c <= '9') {
      d = static_cast<uint32_t>(c - '0');
    } else if (hex && c >= 'a' && c <= 'f') {
      d = static_cast<uint32_t>(c - 'a' + 10);
    } else if (hex && c >= 'A' && c <= 'F') {
      d = static_cast<uint32_t>(c - 'A' + 10);
    } else {
      return false;
    }
    value = value * (hex ? 16 : 10) + d;
  }
  // Not a character: NUL, surrogates, past Unicode.
  if (value == 0 || (value >= 0xD800 && value <= 0xDFFF) || value > 0x10FFFF) return false;
  *cp = value;
  return true;
}

bool Entity(std::string_view name, std::string* out) {
  if (name == "amp")
    *out += '&';
  else if (name == "lt")
    *out += '<';
  else if (name == "gt")
    *out += '>';
  else if (name == "quot")
    *out += '"';
  else if (name == "apos")
    *out += '\'';
  else {
    uint32_t cp = 0;
    if (!name.starts_with("#") || !CharacterReference(name, &cp)) return false;
    AppendUtf8(cp, out);
  }
  return true;
}

// An element closed: its name path (root first) and its text.
using OnElement = std::function<void(const std::vector<std::string_view>&, std::string)>;

// The name of a start or end tag from its inside ("Key", "/Key",
// "Tag attr='x'", "Empty/").
std::string_view TagName(std::string_view inside) {
  size_t end = 0;
  while (end < inside.size() && inside[end] != ' ' && inside[end] != '\t' && inside[end] != '\n' &&
         inside[end] != '\r' && inside[end] != '/') {
    ++end;
  }
  return inside.substr(0, end);
}

// Skips "<?...?>", "<!--...-->" and "<!...>"; false when unterminated.
bool SkipSpecial(std::string_view xml, size_t* pos) {
  const std::string_view rest = xml.substr(*pos);
  const char* close = rest.starts_with("<?") ? "?>" : rest.starts_with("<!--") ? "-->" : ">";
  const size_t end = xml.find(close, *pos + 2);
  if (end == std::string_view::npos) return false;
  *pos = end + std::string_view(close).size();
  return true;
}

// Walks the elements of `xml`, calling `on_element` as each closes.
Status Walk(std::string_view xml, const OnElement& on_element) {
  std::vector<std::string_view> path;
  std::vector<std::string> texts;
  size_t pos = 0;
  while (pos < xml.size()) {
    const size_t lt = xml.find('<', pos);
    const std::string_view raw = xml.substr(pos, lt == std::string_view::npos ? lt : lt - pos);
    if (!texts.empty()) {
      QUIVER_ASSIGN_OR_RETURN(std::string text, XmlUnescape(raw));
      texts.back() += text;
    }
    if (lt == std::string_view::npos) break;
    pos = lt;
    if (xml.substr(pos).starts_with("<![CDATA[")) {
      const size_t end = xml.find("]]>", pos);
      if (end == std::string_view::npos) return Malformed("unterminated CDATA", pos);
      if (!texts.empty()) texts.back() += xml.substr(pos + 9, end - pos - 9);
      pos = end + 3;
      continue;
    }
    if (xml.substr(pos).starts_with("<?") || xml.substr(pos).starts_with("<!")) {
      if (!SkipSpecial(xml, &pos)) return Malformed("unterminated declaration", pos);
      continue;
    }
    const size_t gt = xml.find('>', pos);
    if (gt == std::string_view::npos) return Malformed("unterminated tag", pos);
    const std::string_view inside = xml.substr(pos + 1, gt - pos - 1);
    const size_t tag_at = pos;
    pos = gt + 1;
    if (inside.starts_with("/")) {
      if (path.empty() || TagName(inside.substr(1)) != path.back()) {
        return Malformed("mismatched end tag", tag_at);
      }
      on_element(path, std::move(texts.back()));
      path.pop_back();
      texts.pop_back();
      continue;
    }
    const std::string_view name = TagName(inside);
    if (name.empty()) return Malformed("empty tag name", tag_at);
    if (path.size() >= kMaxDepth) return Malformed("nesting too deep", tag_at);
    path.push_back(name);
    texts.emplace_back();
    if (inside.ends_with("/")) {  // <Empty/>
      on_element(path, std::string());
      path.pop_back();
      texts.pop_back();
    }
  }
  if (!path.empty()) return Malformed("unclosed element", xml.size());
  return Status::OK();
}

bool PathIs(const std::vector<std::string_view>& path,
            std::initializer_list<std::string_view> want) {
  return path.size() == want.size() && std::equal(want.begin(), want.end(), path.begin());
}

}  // namespace

Result<std::string> XmlUnescape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t amp = text.find('&', pos);
    out += text.substr(pos, amp == std::string_view::npos ? amp : amp - pos);
    if (amp == std::string_view::npos) break;
    const size_t semi = text.find(';', amp);
    if (semi == std::string_view::npos || semi - amp > 12 ||
        !Entity(text.substr(amp + 1, semi - amp - 1), &out)) {
      return Status::Invalid("malformed S3 XML: unknown entity at byte ", amp);
    }
    pos = semi + 1;
  }
  return out;
}

Result<ListPage> ParseListObjectsV2(std::string_view xml) {
  ListPage page;
  bool is_listing = false;
  QUIVER_RETURN_NOT_OK(Walk(xml, [&](const std::vector<std::string_view>& path, std::string text) {
    if (PathIs(path, {"ListBucketResult"})) {
      is_listing = true;
    } else if (PathIs(path, {"ListBucketResult", "Contents", "Key"})) {
      page.keys.push_back(std::move(text));
    } else if (PathIs(path, {"ListBucketResult", "IsTruncated"})) {
      page.truncated = text == "true";
    } else if (PathIs(path, {"ListBucketResult", "NextContinuationToken"})) {
      page.next_token = std::move(text);
    }
  }));
  if (!is_listing) return Status::Invalid("malformed S3 XML: no <ListBucketResult>");
  return page;
}

std::string S3ErrorCode(std::string_view xml) {
  std::string code;
  const Status status = Walk(xml, [&](const std::vector<std::string_view>& path, std::string text) {
    if (PathIs(path, {"Error", "Code"})) code = std::move(text);
  });
  // Codes are short words; anything else is not worth repeating in an error.
  if (!status.ok() || code.size() > 64) return {};
  for (char c : code) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') return {};
  }
  return code;
}

}  // namespace quiver::io::internal
