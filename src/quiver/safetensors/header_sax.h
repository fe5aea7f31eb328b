// A safetensors header read straight from nlohmann's parse events into the
// few fields the format has, with no JSON document in between (building the
// document took two thirds of an open). It keeps what a document would
// hold: the last of two equal keys inside an entry or __metadata__ wins, and
// keys the format does not name are skipped whatever their value. The only
// check made here is the one a document cannot make, a top-level key given
// twice (parsing stops at the first); safetensors.cc checks the rest, in the
// order a document's sorted keys would give.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

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

class HeaderSax {
 public:
  using json = nlohmann::json;

  // A value event at the current depth; containers pass their kind.
  enum class Kind : uint8_t { kObject, kArray, kString, kCount, kOther };

  bool null() { return Value(Kind::kOther, nullptr, 0, /*is_null=*/true); }
  bool boolean(bool) { return Value(Kind::kOther); }
  bool number_integer(json::number_integer_t value) {
    return value >= 0 ? Value(Kind::kCount, nullptr, static_cast<uint64_t>(value))
                      : Value(Kind::kOther);
  }
  bool number_unsigned(json::number_unsigned_t value) {
    return Value(Kind::kCount, nullptr, value);
  }
  bool number_float(json::number_float_t, const json::string_t&) { return Value(Kind::kOther); }
  bool string(json::string_t& value) { return Value(Kind::kString, &value); }
  bool binary(json::binary_t&) { return Value(Kind::kOther); }
  bool start_object(std::size_t) { return Value(Kind::kObject), ++depth_, true; }
  bool start_array(std::size_t) { return Value(Kind::kArray), ++depth_, true; }
  bool end_object() { return --depth_, true; }
  bool end_array() { return --depth_, true; }
  bool key(json::string_t& name);
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) {
    malformed_ = true;
    return false;
  }

  bool malformed() const { return malformed_; }
  // The first top-level key given twice (parsing stopped there).
  const std::optional<std::string>& repeated() const { return repeated_; }
  // Whether the header's value is a JSON object.
  bool is_object() const { return is_object_; }

  // The entries in header order (a deque: names stay put for seen_).
  std::deque<RawEntry>& entries() { return entries_; }
  // __metadata__: absent or null, an object, or something else.
  FieldState metadata_state() const { return metadata_state_; }
  // Its keys, each with its string value or nullopt for another kind.
  std::map<std::string, std::optional<std::string>>& metadata() { return metadata_; }

 private:
  // Which top-level value, and which field of an entry, is being read.
  enum class Field : uint8_t { kNone, kDtype, kShape, kOffsets };

  bool Value(Kind kind, json::string_t* text = nullptr, uint64_t count = 0, bool is_null = false);

  int depth_ = 0;  // containers open around the next event
  bool malformed_ = false;
  bool is_object_ = false;
  bool in_metadata_ = false;  // the current top-level key is __metadata__
  bool seen_metadata_ = false;
  Field field_ = Field::kNone;
  std::string metadata_key_;
  std::deque<RawEntry> entries_;
  std::unordered_set<std::string_view> seen_;
  std::optional<std::string> repeated_;
  FieldState metadata_state_ = FieldState::kAbsent;
  std::map<std::string, std::optional<std::string>> metadata_;
};

inline bool HeaderSax::key(json::string_t& name) {
  if (depth_ == 1) {
    if (name == "__metadata__") {
      if (seen_metadata_) {
        repeated_ = name;
        return false;
      }
      seen_metadata_ = in_metadata_ = true;
      return true;
    }
    in_metadata_ = false;
    RawEntry& entry = entries_.emplace_back();
    entry.name = std::move(name);
    if (!seen_.insert(entry.name).second) {
      repeated_ = entry.name;
      return false;
    }
  } else if (depth_ == 2) {
    if (in_metadata_) {
      metadata_key_ = std::move(name);
    } else if (name == "dtype") {
      field_ = Field::kDtype;
    } else if (name == "shape") {
      field_ = Field::kShape;
    } else if (name == "data_offsets") {
      field_ = Field::kOffsets;
    } else {
      field_ = Field::kNone;
    }
  }
  return true;
}

inline bool HeaderSax::Value(Kind kind, json::string_t* text, uint64_t count, bool is_null) {
  if (depth_ > 0 && !is_object_) return true;  // inside a header that is refused anyway
  switch (depth_) {
    case 0: is_object_ = kind == Kind::kObject; break;
    case 1:  // a top-level key's value
      if (in_metadata_) {
        metadata_state_ = is_null                 ? FieldState::kAbsent
                          : kind == Kind::kObject ? FieldState::kValid
                                                  : FieldState::kInvalid;
      } else {
        entries_.back().is_object = kind == Kind::kObject;
      }
      break;
    case 2:  // a value inside the top-level key's value
      if (in_metadata_) {
        if (metadata_state_ != FieldState::kValid) break;
        auto& slot = metadata_[metadata_key_];
        if (kind == Kind::kString) {
          slot = std::move(*text);
        } else {
          slot.reset();
        }
        break;
      }
      if (RawEntry& entry = entries_.back(); entry.is_object) {
        if (field_ == Field::kDtype) {
          entry.dtype_state = kind == Kind::kString ? FieldState::kValid : FieldState::kInvalid;
          if (kind == Kind::kString) entry.dtype = std::move(*text);
        } else if (field_ == Field::kShape || field_ == Field::kOffsets) {
          CountList& list = field_ == Field::kShape ? entry.shape : entry.offsets;
          list.state = kind == Kind::kArray ? FieldState::kValid : FieldState::kInvalid;
          list.values.clear();
        }
      }
      break;
    case 3:  // an element of "shape" or "data_offsets"
      if (in_metadata_ || (field_ != Field::kShape && field_ != Field::kOffsets)) break;
      if (RawEntry& entry = entries_.back(); entry.is_object) {
        CountList& list = field_ == Field::kShape ? entry.shape : entry.offsets;
        if (list.state != FieldState::kValid) break;
        if (kind == Kind::kCount) {
          list.values.push_back(count);
        } else {
          list.state = FieldState::kInvalid;
        }
      }
      break;
    default: break;
  }
  return true;
}

}  // namespace quiver::safetensors_internal
