// Matching a ShapePattern against observed axes, binding symbols.
//
// New bindings are staged per call and committed to the shared context
// only when the whole check passes, so a failed check changes nothing.
// Origins ("argument 'images' axis 0") are formatted only when committed
// or reported, which keeps the common path free of string work.
#include <optional>
#include <string>
#include <vector>

#include "quiver/internal/checked_math.h"
#include "quiver/shape/shape_match.h"

namespace quiver::shape {

namespace {

constexpr int64_t kRowsDiffer = -2;  // per-row sizes of different lengths
constexpr int64_t kWhole = -1;       // a mismatch of single values

// Where two sizes disagree: nullopt when they agree on every row both know
// (-1 marks a null row), kWhole for single values, kRowsDiffer for per-row
// sizes over different row counts, else the first row that differs.
std::optional<int64_t> FirstMismatch(const DimSize& expected, const DimSize& got) {
  if (!expected.varies() && !got.varies()) {
    if (expected.value == got.value) return std::nullopt;
    return kWhole;
  }
  if (expected.varies() && got.varies() && expected.per_row->size() != got.per_row->size()) {
    return kRowsDiffer;
  }
  const size_t n = expected.varies() ? expected.per_row->size() : got.per_row->size();
  for (size_t r = 0; r < n; ++r) {
    const int64_t e = expected.at(static_cast<int64_t>(r));
    const int64_t g = got.at(static_cast<int64_t>(r));
    if (e != g && e != -1 && g != -1) return static_cast<int64_t>(r);
  }
  return std::nullopt;
}

std::string ValueAt(const DimSize& size, int64_t row) {
  if (!size.varies()) return std::to_string(size.value);
  if (row < 0) return "per-row sizes";
  return std::to_string(size.at(row));
}

std::string TupleAt(std::span<const DimSize> axes, int64_t row) {
  std::string out = "(";
  for (size_t i = 0; i < axes.size(); ++i) {
    if (i > 0) out += ", ";
    out += ValueAt(axes[i], row);
  }
  return out + (axes.size() == 1 ? ",)" : ")");
}

std::string AxesText(int64_t begin, int64_t end) {
  if (end - begin == 1) return "axis " + std::to_string(begin);
  if (end == begin) return "0 axes at axis " + std::to_string(begin);
  return "axes " + std::to_string(begin) + " to " + std::to_string(end - 1);
}

// A binding made during this call, before it is committed.
struct Staged {
  bool set = false;
  bool is_axes = false;
  DimSize size;
  int64_t begin = 0, end = 0;  // the observed axes it came from
};

class Matcher {
 public:
  Matcher(const ObservedShape& observed, const ShapePattern& pattern,
          const EnforceShapeOptions& options)
      : observed_(observed),
        pattern_(pattern),
        options_(options),
        staged_(static_cast<size_t>(pattern.slot_count())) {}

  Result<ShapeMatch> Run(std::vector<std::optional<int64_t>>* proved) {
    const int64_t ndim = static_cast<int64_t>(observed_.axes.size());
    const int64_t fixed = pattern_.min_ndim();
    const bool has_ellipsis = pattern_.ellipsis_index() >= 0;
    if (has_ellipsis ? ndim < fixed : ndim != fixed) {
      return Status::Invalid(Prefix(-1), "expected ", (has_ellipsis ? "at least " : ""), fixed,
                             (fixed == 1 ? " axis" : " axes"), ", got ", ndim, "; ", Shapes(-1));
    }
    if (proved) proved->assign(static_cast<size_t>(ndim), std::nullopt);
    proved_ = proved;
    const int64_t ellipsis_len = ndim - fixed;
    ShapeMatch match;
    match.dims.resize(static_cast<size_t>(pattern_.size()));
    int64_t axis = 0;
    for (int64_t i = 0; i < pattern_.size(); ++i) {
      const ShapeEntry& entry = pattern_.entries()[static_cast<size_t>(i)];
      DimSize& out = match.dims[static_cast<size_t>(i)];
      if (entry.is_ellipsis()) {
        const int64_t end = axis + ellipsis_len;
        match.ellipsis_axes.assign(observed_.axes.begin() + axis, observed_.axes.begin() + end);
        if (entry.kind == ShapeEntry::Kind::kNamedEllipsis) {
          QUIVER_RETURN_NOT_OK(Bind(i, entry, axis, end));
        }
        QUIVER_ASSIGN_OR_RETURN(out, Product(axis, end));
        axis = end;
        continue;
      }
      const DimSize& got = observed_.axes[static_cast<size_t>(axis)];
      out = got;
      if (entry.kind == ShapeEntry::Kind::kSize) {
        // Every row that has the axis has this size, so report it as one.
        QUIVER_RETURN_NOT_OK(Expect(DimSize{entry.size, nullptr}, got, i, axis, nullptr));
        Prove(axis, entry.size);
        out = DimSize{entry.size, nullptr};
      } else if (entry.kind == ShapeEntry::Kind::kSymbol) {
        QUIVER_RETURN_NOT_OK(Bind(i, entry, axis, axis + 1));
        if (proved_one_) out = DimSize{*proved_one_, nullptr};
      }
      ++axis;
    }
    Commit();
    return match;
  }

 private:
  std::string Prefix(int64_t row) const {
    std::string out;
    if (!options_.label.empty()) out = std::string(options_.label) + ": ";
    if (observed_.rows >= 0 && row >= 0) out += "row " + std::to_string(row) + ": ";
    return out;
  }

  std::string Shapes(int64_t row) const {
    return "pattern " + pattern_.ToString() + " vs shape " + FormatShapeTuple(observed_.axes, row);
  }

  std::string Origin(int64_t begin, int64_t end) const {
    if (!options_.label.empty()) return std::string(options_.label) + " " + AxesText(begin, end);
    if (observed_.rows >= 0) {
      return AxesText(begin, end) + " of a variable-shape column of " +
             std::to_string(observed_.rows) + " rows";
    }
    return AxesText(begin, end) + " of shape " + FormatShapeTuple(observed_.axes);
  }

  static std::string EntryText(const ShapeEntry& entry) {
    if (entry.kind == ShapeEntry::Kind::kSize) return entry.ToString();
    return "'" + entry.ToString() + "'";
  }

  void Prove(int64_t axis, int64_t value) {
    proved_one_ = value;
    if (proved_) (*proved_)[static_cast<size_t>(axis)] = value;
  }

  // `got` at `axis` must equal `expected`; `origin`, when given, is where
  // the expected value of a symbol came from.
  Status Expect(const DimSize& expected, const DimSize& got, int64_t entry_index, int64_t axis,
                const std::string* origin) {
    std::optional<int64_t> where = FirstMismatch(expected, got);
    if (!where) return Status::OK();
    const ShapeEntry& entry = pattern_.entries()[static_cast<size_t>(entry_index)];
    if (*where == kRowsDiffer) {
      return Status::Invalid(Prefix(-1), "axis ", axis, " (", EntryText(entry), "): symbol '",
                             entry.name, "' has per-row sizes for ", expected.per_row->size(),
                             " rows from ", *origin, " but ", got.per_row->size(), " rows from ",
                             Origin(axis, axis + 1));
    }
    const int64_t row = *where;
    std::string message = Prefix(row) + "axis " + std::to_string(axis) + " (" + EntryText(entry) +
                          "): expected " + ValueAt(expected, row) + ", got " + ValueAt(got, row) +
                          "; " + Shapes(row);
    if (origin) {
      message += "; symbol '" + entry.name + "' is " + ValueAt(expected, row) + " from " + *origin +
                 " but " + ValueAt(got, row) + " from " + Origin(axis, axis + 1);
    }
    return Status::Invalid(std::move(message));
  }

  Status ExpectAxes(std::span<const DimSize> expected, int64_t entry_index, int64_t begin,
                    int64_t end, const std::string& origin) {
    const ShapeEntry& entry = pattern_.entries()[static_cast<size_t>(entry_index)];
    std::span<const DimSize> got =
        observed_.axes.subspan(static_cast<size_t>(begin), static_cast<size_t>(end - begin));
    std::optional<int64_t> where;
    if (expected.size() != got.size()) where = kWhole;
    for (size_t k = 0; !where && k < got.size(); ++k) {
      where = FirstMismatch(expected[k], got[k]);
      if (where && *where == kRowsDiffer) {
        return Status::Invalid(Prefix(-1), AxesText(begin, end), " ('", entry.ToString(),
                               "'): symbol '", entry.ToString(), "' has per-row sizes for ",
                               expected[k].per_row->size(), " rows from ", origin, " but ",
                               got[k].per_row->size(), " rows from ", Origin(begin, end));
      }
    }
    if (!where) return Status::OK();
    const int64_t row = *where;
    const std::string e = TupleAt(expected, row), g = TupleAt(got, row);
    return Status::Invalid(Prefix(row), AxesText(begin, end), " ('", entry.ToString(),
                           "'): expected ", e, ", got ", g, "; ", Shapes(row), "; symbol '",
                           entry.ToString(), "' is ", e, " from ", origin, " but ", g, " from ",
                           Origin(begin, end));
  }

  // Binds entry `i` (a symbol or a named ellipsis) to axes [begin, end), or
  // checks them against an earlier binding from this call or the context.
  Status Bind(int64_t i, const ShapeEntry& entry, int64_t begin, int64_t end) {
    proved_one_.reset();
    const bool is_axes = entry.kind == ShapeEntry::Kind::kNamedEllipsis;
    Staged& staged = staged_[static_cast<size_t>(pattern_.slots()[static_cast<size_t>(i)])];
    if (staged.set) {
      const std::string origin = Origin(staged.begin, staged.end);
      if (is_axes) {
        return ExpectAxes(observed_.axes.subspan(static_cast<size_t>(staged.begin),
                                                 static_cast<size_t>(staged.end - staged.begin)),
                          i, begin, end, origin);
      }
      QUIVER_RETURN_NOT_OK(
          Expect(staged.size, observed_.axes[static_cast<size_t>(begin)], i, begin, &origin));
      if (!staged.size.varies()) Prove(begin, staged.size.value);
      return Status::OK();
    }
    if (options_.bindings) {
      if (const ShapeBinding* bound = options_.bindings->Find(entry.name)) {
        if (bound->is_axes != is_axes) {
          return Status::Invalid(Prefix(-1), AxesText(begin, end), " ('", entry.ToString(), "'): '",
                                 entry.name, "' is bound as ",
                                 (bound->is_axes ? "a named ellipsis" : "a symbol"), " from ",
                                 bound->origin, "; ", Shapes(-1));
        }
        if (is_axes) return ExpectAxes(bound->axes, i, begin, end, bound->origin);
        QUIVER_RETURN_NOT_OK(Expect(bound->size, observed_.axes[static_cast<size_t>(begin)], i,
                                    begin, &bound->origin));
        if (!bound->size.varies()) Prove(begin, bound->size.value);
        return Status::OK();
      }
    }
    staged.set = true;
    staged.is_axes = is_axes;
    staged.begin = begin;
    staged.end = end;
    if (!is_axes) staged.size = observed_.axes[static_cast<size_t>(begin)];
    return Status::OK();
  }

  // The ellipsis's n_elements over axes [begin, end).
  Result<DimSize> Product(int64_t begin, int64_t end) const {
    std::span<const DimSize> axes =
        observed_.axes.subspan(static_cast<size_t>(begin), static_cast<size_t>(end - begin));
    const std::string what = "the product of " + AxesText(begin, end);
    bool varies = false;
    for (const DimSize& a : axes) varies = varies || a.varies();
    if (!varies) {
      int64_t product = 1;
      for (const DimSize& a : axes) {
        auto next = internal::MultiplyChecked(product, a.value, what);
        if (!next.ok())
          return Status::Invalid(Prefix(-1), next.status().message(), "; ", Shapes(-1));
        product = *next;
      }
      return DimSize{product, nullptr};
    }
    // Per row; a null row (-1 in a varying axis) gives -1.
    const bool covers_rows = observed_.rows >= 0 && begin == 0;
    const auto rows = static_cast<size_t>(observed_.rows);
    std::vector<int64_t> per_row(rows, 1);
    for (size_t k = covers_rows ? 1 : 0; k < axes.size(); ++k) {
      for (size_t r = 0; r < rows; ++r) {
        int64_t& p = per_row[r];
        const int64_t v = axes[k].at(static_cast<int64_t>(r));
        if (p == -1 || v == -1) {
          p = -1;
          continue;
        }
        auto next = internal::MultiplyChecked(p, v, what);
        if (!next.ok()) {
          return Status::Invalid(Prefix(static_cast<int64_t>(r)), next.status().message(), "; ",
                                 Shapes(static_cast<int64_t>(r)));
        }
        p = *next;
      }
    }
    if (!covers_rows) return DimSize{0, std::make_shared<const PerRowSizes>(std::move(per_row))};
    // The ellipsis spans the rows too: count the elements of every row.
    int64_t total = 0;
    for (size_t r = 0; r < rows; ++r) {
      if (per_row[r] < 0) continue;
      auto next = internal::AddChecked(total, per_row[r], what);
      if (!next.ok()) return Status::Invalid(Prefix(-1), next.status().message(), "; ", Shapes(-1));
      total = *next;
    }
    return DimSize{total, nullptr};
  }

  void Commit() {
    if (!options_.bindings) return;
    for (size_t i = 0; i < pattern_.entries().size(); ++i) {
      const int32_t slot = pattern_.slots()[i];
      if (slot < 0) continue;
      Staged& staged = staged_[static_cast<size_t>(slot)];
      if (!staged.set) continue;
      staged.set = false;  // commit each name once
      ShapeBinding binding;
      binding.is_axes = staged.is_axes;
      binding.size = staged.size;
      if (staged.is_axes) {
        binding.axes.assign(observed_.axes.begin() + staged.begin,
                            observed_.axes.begin() + staged.end);
      }
      binding.origin = Origin(staged.begin, staged.end);
      options_.bindings->Set(pattern_.entries()[i].name, std::move(binding));
    }
  }

  const ObservedShape& observed_;
  const ShapePattern& pattern_;
  const EnforceShapeOptions& options_;
  std::vector<Staged> staged_;
  std::vector<std::optional<int64_t>>* proved_ = nullptr;
  // The single size the last Bind checked a symbol against, if any.
  std::optional<int64_t> proved_one_;
};

}  // namespace

std::string FormatShapeTuple(std::span<const DimSize> axes, int64_t row) {
  std::string out = "(";
  for (size_t i = 0; i < axes.size(); ++i) {
    if (i > 0) out += ", ";
    const DimSize& a = axes[i];
    if (!a.varies()) {
      out += std::to_string(a.value);
    } else if (row >= 0 && a.at(row) >= 0) {
      out += std::to_string(a.at(row));
    } else {
      out += "None";
    }
  }
  return out + (axes.size() == 1 ? ",)" : ")");
}

Result<ShapeMatch> MatchShape(const ObservedShape& observed, const ShapePattern& pattern,
                              const EnforceShapeOptions& options,
                              std::vector<std::optional<int64_t>>* proved) {
  return Matcher(observed, pattern, options).Run(proved);
}

}  // namespace quiver::shape
