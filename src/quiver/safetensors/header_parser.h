// A safetensors header read in one pass straight into the few fields the
// format has. A general JSON library spent most of an open lexing the text
// and building a document (nlohmann's lexer alone was 40% of an open even
// through its parse events). This reads exactly JSON as nlohmann reads it
// (RFC 8259; a leading UTF-8 byte order mark is skipped, a NUL byte ends
// the text, nesting has no limit, a number that overflows a double is
// refused, an integer beyond 64 bits is a number but not a count) and keeps
// what a document would hold: the last of two equal keys inside an entry or
// __metadata__ wins, and keys the format does not name are checked and
// skipped whatever their value. The one rule checked here is the one a
// document cannot see, a top-level key given twice (reading stops at the
// first); safetensors.cc checks the rest, in the order a document's sorted
// keys gave.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace quiver::safetensors_internal {

// A field of an entry: absent, of the wrong kind, or as the format wants it.
enum class FieldState : uint8_t { kAbsent, kInvalid, kValid };

// A list of non-negative integers ("shape", "data_offsets") as it was read.
struct CountList {
  FieldState state = FieldState::kAbsent;
  std::vector<uint64_t> values;
};

// One top-level key other than __metadata__, with its value as read.
struct RawEntry {
  std::string name;
  bool is_object = false;
  FieldState dtype_state = FieldState::kAbsent;
  std::string dtype;
  CountList shape;
  CountList offsets;
};

struct RawHeader {
  // Whether the text is JSON; when not, nothing below is meaningful.
  bool malformed = false;
  // The first top-level key given twice (reading stopped there).
  std::optional<std::string> repeated;
  // Whether the header's value is a JSON object.
  bool is_object = false;
  // The entries in header order (a deque: their names stay put).
  std::deque<RawEntry> entries;
  // __metadata__: absent or null, an object, or something else; its keys,
  // each with its string value or nullopt for another kind.
  FieldState metadata_state = FieldState::kAbsent;
  std::map<std::string, std::optional<std::string>> metadata;
};

// Reads `size` bytes of header text, which must be valid UTF-8 (the caller
// checks: strings are copied through without a second look).
RawHeader ParseHeader(const uint8_t* text, int64_t size);

}  // namespace quiver::safetensors_internal
