// enforce_shape: checked, symbolic shapes (the Array API proposal
// `enforce_shape(x, pattern) -> (x, dims)`, see docs/enforce_shape.md).
//
// A ShapePattern lists one entry per axis:
//   3       an exact size
//   None    any size (list form only; `_` says the same in a string)
//   _       any size, one axis, never bound
//   b       a symbol: binds the size; every other use of `b` must agree
//   ...     zero or more axes (its result is the axes and their product)
//   *rest   a named ellipsis: zero or more axes whose sizes must agree
//           wherever `*rest` recurs
// At most one ellipsis (named or not) per pattern. Patterns are parsed
// once ("b h w 3", "b ... c", "_ n 3", "b *rest 3") and reused.
//
// Sizes are int64 elements. Errors are Status values: Invalid for a shape
// that does not match (the message names the axis, the entry, the pattern
// and the shape), Invalid for a malformed pattern (naming the token and its
// position). Nothing here throws or aborts.
//
// Tensor columns: a FixedShapeTensorArray is checked as [rows, *logical
// cell shape]. A VariableShapeTensorArray is checked as [rows, *logical row
// shape] for every non-null row (null rows are skipped): a dimension that
// is the same in every such row gives an int, one that varies gives its
// per-row sizes (-1 in null rows), and a symbol binds to whichever it is.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "quiver/fixed_shape_tensor.h"
#include "quiver/status.h"
#include "quiver/tensor.h"
#include "quiver/variable_shape_tensor.h"

namespace quiver {

struct ShapeEntry {
  enum class Kind { kSize, kAny, kSkip, kSymbol, kEllipsis, kNamedEllipsis };

  Kind kind = Kind::kAny;
  int64_t size = 0;  // kSize only
  std::string name;  // kSymbol and kNamedEllipsis only (without the '*')

  static ShapeEntry Size(int64_t size) { return {Kind::kSize, size, {}}; }
  static ShapeEntry Any() { return {Kind::kAny, 0, {}}; }
  static ShapeEntry Skip() { return {Kind::kSkip, 0, {}}; }
  static ShapeEntry Symbol(std::string name) { return {Kind::kSymbol, 0, std::move(name)}; }
  static ShapeEntry Ellipsis() { return {Kind::kEllipsis, 0, {}}; }
  static ShapeEntry NamedEllipsis(std::string name) {
    return {Kind::kNamedEllipsis, 0, std::move(name)};
  }

  bool is_ellipsis() const { return kind == Kind::kEllipsis || kind == Kind::kNamedEllipsis; }
  // As written: "3", "None", "_", "b", "...", "*rest".
  std::string ToString() const;
};

class ShapePattern {
 public:
  // Parses the string form: entries separated by whitespace. Symbols are
  // identifiers (letters, digits after the first character, '_', and any
  // non-ASCII UTF-8 letter); sizes are decimal integers >= 0.
  static Result<ShapePattern> Parse(std::string_view text);
  // The list form. Sizes must be >= 0, names valid identifiers, at most one
  // ellipsis, and no name used both as a symbol and as a named ellipsis.
  static Result<ShapePattern> Make(std::vector<ShapeEntry> entries);

  const std::vector<ShapeEntry>& entries() const { return entries_; }
  int64_t size() const { return static_cast<int64_t>(entries_.size()); }
  // Index of the ellipsis entry, or -1.
  int64_t ellipsis_index() const { return ellipsis_; }
  // Number of axes a shape must have (at least this many with an ellipsis).
  int64_t min_ndim() const { return size() - (ellipsis_ >= 0 ? 1 : 0); }
  // "[b, h, w, 3]"
  std::string ToString() const;
  bool Equals(const ShapePattern& other) const { return ToString() == other.ToString(); }

  // Internal: per entry, the index of its symbol among the pattern's
  // distinct names (-1 for entries without a name); used for checks
  // without a shared ShapeBindings.
  const std::vector<int32_t>& slots() const { return slots_; }
  int32_t slot_count() const { return slot_count_; }

 private:
  // Make, with the character position of each entry for messages (Parse).
  static Result<ShapePattern> Build(std::vector<ShapeEntry> entries,
                                    const std::vector<size_t>* positions);

  std::vector<ShapeEntry> entries_;
  std::vector<int32_t> slots_;
  int32_t slot_count_ = 0;
  int64_t ellipsis_ = -1;
};

// Per-row sizes of one axis of a ragged column, -1 in null rows: int32 as
// a shape buffer holds them (copied in one pass, never widened), or int64
// where they are computed (an ellipsis's element counts). Compares and
// reads as int64 whichever it holds.
class PerRowSizes {
 public:
  PerRowSizes() = default;
  explicit PerRowSizes(std::vector<int64_t> sizes) : wide_(std::move(sizes)) {}
  explicit PerRowSizes(const std::vector<int32_t>& sizes);
  // Takes over `count` sizes at `sizes` (an enforce_shape scan writes them
  // there, never zeroed first).
  PerRowSizes(std::unique_ptr<int32_t[]> sizes, size_t count)
      : narrow_(std::move(sizes)), narrow_size_(count), is_narrow_(true) {}

  size_t size() const { return is_narrow_ ? narrow_size_ : wide_.size(); }
  int64_t operator[](size_t row) const { return is_narrow_ ? narrow_[row] : wide_[row]; }
  // Which storage holds the sizes: int32() when is_int32(), else int64().
  bool is_int32() const { return is_narrow_; }
  std::span<const int32_t> int32() const { return {narrow_.get(), narrow_size_}; }
  const std::vector<int64_t>& int64() const { return wide_; }
  std::vector<int64_t> ToVector() const;

  // By value, whichever storage each side has.
  friend bool operator==(const PerRowSizes& a, const PerRowSizes& b);
  friend bool operator==(const PerRowSizes& a, const std::vector<int64_t>& b);

 private:
  std::vector<int64_t> wide_;
  std::unique_ptr<int32_t[]> narrow_;
  size_t narrow_size_ = 0;
  bool is_narrow_ = false;
};

// The size of one axis: one value, or (ragged columns) one per row with -1
// in null rows.
struct DimSize {
  int64_t value = 0;  // when per_row is null
  std::shared_ptr<const PerRowSizes> per_row;

  bool varies() const { return per_row != nullptr; }
  int64_t at(int64_t row) const { return per_row ? (*per_row)[static_cast<size_t>(row)] : value; }
  bool Equals(const DimSize& other) const;
  // "8", or "per-row sizes (1000 rows)".
  std::string ToString() const;
};

// What a symbol is bound to, and where that came from.
struct ShapeBinding {
  bool is_axes = false;  // a named ellipsis: `axes`; else `size`
  DimSize size;
  std::vector<DimSize> axes;
  std::string origin;  // e.g. "argument 'images' axis 0"
};

// A binding context shared by several checks, so that `b` in one array's
// pattern must agree with `b` in another's. A failed check leaves it as it
// was.
class ShapeBindings {
 public:
  const ShapeBinding* Find(std::string_view name) const;
  void Set(const std::string& name, ShapeBinding binding) { map_[name] = std::move(binding); }
  // Symbols in name order (named ellipses under their name, without '*').
  const std::map<std::string, ShapeBinding, std::less<>>& map() const { return map_; }
  int64_t size() const { return static_cast<int64_t>(map_.size()); }
  void Clear() { map_.clear(); }

 private:
  std::map<std::string, ShapeBinding, std::less<>> map_;
};

struct ShapeMatch {
  // One per pattern entry: the axis size (or the symbol's size); for the
  // ellipsis entry, the product of the axes it matched. For a ragged
  // column, a size that varies per row carries one value per row; an
  // ellipsis that covers the row axis and a varying axis reports the total
  // element count over its non-null rows.
  std::vector<DimSize> dims;
  // The sizes of the axes the ellipsis matched (empty without one).
  std::vector<DimSize> ellipsis_axes;
  // VariableShapeTensorArray only: per PHYSICAL axis, the size every
  // non-null row has (nullopt where rows differ), ready for
  // VariableShapeTensorArray::WithUniformShape. Empty otherwise.
  UniformShape uniform_shape;
};

// Options naming what is checked in messages ("argument 'images'") and
// the binding context to share (nullptr: a fresh one for this call).
struct EnforceShapeOptions {
  ShapeBindings* bindings = nullptr;
  std::string_view label;
};

Result<ShapeMatch> EnforceShape(std::span<const int64_t> shape, const ShapePattern& pattern,
                                const EnforceShapeOptions& options = {});
Result<ShapeMatch> EnforceShape(const Tensor& tensor, const ShapePattern& pattern,
                                const EnforceShapeOptions& options = {});
// Checked as [rows, *logical cell shape].
Result<ShapeMatch> EnforceShape(const FixedShapeTensorArray& array, const ShapePattern& pattern,
                                const EnforceShapeOptions& options = {});
// Checked as [rows, *logical row shape] on every non-null row; errors name
// the first offending row.
Result<ShapeMatch> EnforceShape(const VariableShapeTensorArray& array, const ShapePattern& pattern,
                                const EnforceShapeOptions& options = {});

}  // namespace quiver
