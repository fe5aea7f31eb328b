#include "quiver/parquet/assemble.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <utility>

#include "quiver/internal/bitmap.h"
#include "quiver/internal/checked_math.h"
#include "quiver/parquet/leaf_values.h"

namespace quiver::parquet {

namespace {

using internal::SetBit;

// Slots of a node that stand for rows of a fixed-size list above it that
// hold no values (null rows, or rows under a null): `mult` empty slots for
// each level that starts a slot of that list (repetition <= r, definition
// >= d) but none of the node.
struct Filler {
  int16_t r = 0;
  int16_t d = 0;
  int64_t mult = 0;
};

// Which levels of a leaf start a slot of a node: those whose repetition
// level is at most `r` (a new row, or a new element of the list the node
// sits in) and whose definition level is at least `d` (the list holds an
// element there). Plus the fillers of fixed-size lists above, innermost
// first.
struct Criteria {
  int16_t r = 0;
  int16_t d = 0;
  std::vector<Filler> fillers;
};

// One leaf's levels, checked.
struct LeafLevels {
  ColumnChunkData* data = nullptr;
  const SchemaNode* node = nullptr;
  std::string path;
  int64_t n = 0;
  const int16_t* def = nullptr;  // null: every level is max_def
  const int16_t* rep = nullptr;  // null: every level is 0 (unless rep_missing)
  std::vector<int16_t> synthesized;
  // The definition level of each repeated node on the path, outermost first.
  std::vector<int16_t> repeated_def;
  // The reader left out the repetition levels of a leaf in one fixed-size
  // list of `fixed_size` entries (ColumnChunkOptions::fixed_list_size).
  bool rep_missing = false;
  int lists = 0;
  int64_t fixed_size = -1;
};

// A Parquet node as the assembler reads it: itself, or (`element`) a
// repeated node as the element of the list it makes, read as a struct
// whatever its annotation when `force_struct` (the two-level list forms).
struct View {
  const SchemaNode* p = nullptr;
  bool element = false;
  bool force_struct = false;
};

enum class Shape { kLeaf, kStruct, kList, kMap };

struct ShapeInfo {
  Shape shape = Shape::kLeaf;
  const SchemaNode* repeated = nullptr;  // lists and maps
  View child;                            // lists and maps: the element
  // A slot is valid at this definition level and above; `optional`: one
  // below is the node's own null (otherwise a null above it).
  int16_t valid_def = 0;
  bool optional = false;
};

bool Annotated(const SchemaElement& e, LogicalType::Kind kind, std::initializer_list<int32_t> cs) {
  if (e.logical_type.kind == kind) return true;
  return std::any_of(cs.begin(), cs.end(), [&](int32_t c) { return e.converted_type == c; });
}

bool IsListType(TypeId id) {
  return id == TypeId::kList || id == TypeId::kLargeList || id == TypeId::kFixedSizeList ||
         id == TypeId::kListView || id == TypeId::kLargeListView;
}

bool IsNested(TypeId id) {
  return IsListType(id) || id == TypeId::kStruct || id == TypeId::kMap ||
         id == TypeId::kSparseUnion || id == TypeId::kDenseUnion || id == TypeId::kRunEndEncoded;
}

// The most slots a node may have: every size computed from a slot count
// (offsets, views, 32-byte decimals) stays far inside int64.
constexpr int64_t kMaxSlots = int64_t{1} << 57;

class Assembler {
 public:
  Assembler(const std::string& what, int64_t num_rows) : what_(what), num_rows_(num_rows) {}

  template <typename... Pieces>
  Status Error(const std::string& path, const Pieces&... pieces) const {
    return Status::Invalid(what_, ": column '", path, "': ", pieces...);
  }

  Status CollectLeaves(const SchemaNode& node, const std::string& path,
                       std::vector<int16_t>* repeated, std::vector<ColumnChunkData>* data) {
    const bool is_repeated = node.element->repetition == Repetition::kRepeated;
    if (is_repeated) repeated->push_back(node.max_definition_level);
    if (node.is_leaf()) {
      const size_t k = leaves_.size();
      if (first_leaf_ < 0) first_leaf_ = node.leaf_index;
      if (node.leaf_index != first_leaf_ + static_cast<int>(k)) {
        return Error(path, "leaf index ", node.leaf_index, " out of column order");
      }
      LeafLevels leaf;
      leaf.data = k < data->size() ? &(*data)[k] : nullptr;  // counted in Run
      leaf.node = &node;
      leaf.path = path;
      leaf.repeated_def = *repeated;
      leaves_.push_back(std::move(leaf));
    }
    for (const SchemaNode& child : node.children) {
      QUIVER_RETURN_NOT_OK(CollectLeaves(child, path + "." + child.element->name, repeated, data));
    }
    if (is_repeated) repeated->pop_back();
    return Status::OK();
  }

  LeafLevels* FirstLeaf(const SchemaNode& node) {
    if (node.is_leaf()) return &leaves_[static_cast<size_t>(node.leaf_index - first_leaf_)];
    for (const SchemaNode& child : node.children) {
      if (LeafLevels* leaf = FirstLeaf(child)) return leaf;
    }
    return nullptr;
  }

  Result<ShapeInfo> Classify(const View& v, const std::string& path) const {
    const SchemaNode& p = *v.p;
    const SchemaElement& e = *p.element;
    ShapeInfo s;
    if (!v.element && e.repetition == Repetition::kRepeated) {
      // A repeated field outside a LIST group: a list of required values.
      s.shape = Shape::kList;
      s.repeated = &p;
      s.child = View{&p, true, false};
      s.valid_def = static_cast<int16_t>(p.max_definition_level - 1);
      return s;
    }
    s.valid_def = p.max_definition_level;
    s.optional = !v.element && e.repetition == Repetition::kOptional;
    if (p.is_leaf()) return s;
    if (!v.force_struct && Annotated(e, LogicalType::kList, {3})) {
      if (p.children.size() != 1 || p.children[0].element->repetition != Repetition::kRepeated) {
        return Error(path, "a LIST group without exactly one repeated field");
      }
      const SchemaNode& r = p.children[0];
      s.shape = Shape::kList;
      s.repeated = &r;
      if (r.is_leaf()) {
        s.child = View{&r, true, false};
      } else if (r.children.size() != 1 || r.element->name == "array" ||
                 r.element->name == e.name + "_tuple") {
        s.child = View{&r, true, true};
      } else {
        s.child = View{&r.children[0], false, false};
      }
      return s;
    }
    if (!v.force_struct && Annotated(e, LogicalType::kMap, {1, 2})) {
      if (p.children.size() != 1 || p.children[0].is_leaf() ||
          p.children[0].element->repetition != Repetition::kRepeated ||
          (p.children[0].children.size() != 2 && p.children[0].children.size() != 1)) {
        return Error(path, "a MAP group without one repeated group of a key and a value");
      }
      if (p.children[0].children.size() == 1) {  // no values: a list of the keys
        s.shape = Shape::kList;
        s.repeated = &p.children[0];
        s.child = View{&p.children[0].children[0], false, false};
        return s;
      }
      s.shape = Shape::kMap;
      s.repeated = &p.children[0];
      s.child = View{&p.children[0], true, true};
      return s;
    }
    s.shape = Shape::kStruct;
    return s;
  }

  // Records, for each leaf, the list types on its path (for the tensor
  // fast path, whose reader leaves out the repetition levels).
  Status Survey(const View& v, const DataType& type, int lists, int64_t fixed_size,
                const std::string& path) {
    const DataType& t = type.storage();
    QUIVER_ASSIGN_OR_RETURN(ShapeInfo s, Classify(v, path));
    switch (s.shape) {
      case Shape::kLeaf: {
        if (IsNested(t.id())) return Mismatch(path, type, "leaf");
        LeafLevels& leaf = leaves_[static_cast<size_t>(v.p->leaf_index - first_leaf_)];
        leaf.lists = lists;
        leaf.fixed_size = fixed_size;
        return Status::OK();
      }
      case Shape::kStruct: {
        if (t.id() != TypeId::kStruct || t.children().size() != v.p->children.size()) {
          return Mismatch(path, type,
                          "a group of " + std::to_string(v.p->children.size()) + " fields");
        }
        for (size_t i = 0; i < v.p->children.size(); ++i) {
          const SchemaNode& c = v.p->children[i];
          QUIVER_RETURN_NOT_OK(Survey(View{&c, false, false}, *t.children()[i].type, lists,
                                      fixed_size, path + "." + c.element->name));
        }
        return Status::OK();
      }
      case Shape::kList:
      case Shape::kMap: {
        const bool fits = s.shape == Shape::kMap ? t.id() == TypeId::kMap : IsListType(t.id());
        if (!fits) return Mismatch(path, type, s.shape == Shape::kMap ? "a map" : "a list");
        const int64_t size = t.id() == TypeId::kFixedSizeList ? t.fixed_size() : -1;
        return Survey(s.child, *t.children()[0].type, lists + 1, size, ChildPath(path, s.child));
      }
    }
    return Status::OK();
  }

  std::string ChildPath(const std::string& path, const View& child) const {
    return child.element && child.p->is_leaf() ? path : path + "." + child.p->element->name;
  }

  Status Mismatch(const std::string& path, const DataType& type, const std::string& parquet) {
    return Error(path, "the Arrow type ", type.ToString(), " does not fit the Parquet ", parquet);
  }

  // Checks a leaf's levels against its schema and values, and fills in
  // the repetition levels a fixed-size list reader left out.
  Status Prepare(LeafLevels* leaf) {
    ColumnChunkData& data = *leaf->data;
    const SchemaNode& node = *leaf->node;
    const int16_t max_def = node.max_definition_level, max_rep = node.max_repetition_level;
    const std::string& path = leaf->path;
    const int64_t n = data.num_levels;
    if (n < 0) return Error(path, "a negative level count (", n, ")");
    leaf->n = n;
    if (static_cast<int64_t>(leaf->repeated_def.size()) != max_rep) {
      return Error(path, "maximum repetition level ", max_rep, " for ", leaf->repeated_def.size(),
                   " repeated fields");
    }
    if (!data.def_levels.empty()) {
      if (static_cast<int64_t>(data.def_levels.size()) != n) {
        return Error(path, data.def_levels.size(), " definition levels for ", n, " levels");
      }
      leaf->def = data.def_levels.data();
    } else if (!data.all_defined && max_def > 0 && n > 0) {
      return Error(path, "no definition levels, but not every level is defined");
    }
    if (!data.rep_levels.empty()) {
      if (static_cast<int64_t>(data.rep_levels.size()) != n) {
        return Error(path, data.rep_levels.size(), " repetition levels for ", n, " levels");
      }
      leaf->rep = data.rep_levels.data();
    } else if (max_rep > 0 && n > 0) {
      if (max_rep != 1 || leaf->lists != 1 || leaf->fixed_size < 0) {
        return Error(path, "no repetition levels, but the column is not in exactly one ",
                     "fixed-size list");
      }
      leaf->rep_missing = true;
      if (leaf->def) QUIVER_RETURN_NOT_OK(Synthesize(leaf));
    }
    QUIVER_RETURN_NOT_OK(CheckValues(data.values, what_ + ": column '" + path + "'"));
    int64_t values = 0, rows = 0;
    if (!leaf->def && !leaf->rep) {
      values = n;
      rows = n;
      if (leaf->rep_missing) {
        const int64_t k = leaf->fixed_size;
        if (k == 0 || n % k != 0) {
          return Error(path, n, " values do not make rows of fixed_size_list[", k, "]");
        }
        rows = n / k;
      }
    } else {
      int16_t previous = 0;
      for (int64_t i = 0; i < n; ++i) {
        const int16_t d = leaf->def ? leaf->def[i] : max_def;
        const int16_t r = leaf->rep ? leaf->rep[i] : 0;
        if (d < 0 || d > max_def) {
          return Error(path, "definition level ", d, " at level ", i, " outside [0, ", max_def,
                       "]");
        }
        if (r < 0 || r > max_rep) {
          return Error(path, "repetition level ", r, " at level ", i, " outside [0, ", max_rep,
                       "]");
        }
        if (r > 0) {
          if (i == 0) return Error(path, "the first repetition level is ", r, ", not 0");
          const int16_t list_def = leaf->repeated_def[static_cast<size_t>(r - 1)];
          if (d < list_def || previous < list_def) {
            return Error(path, "repetition level ", r, " at level ", i,
                         " continues a list that is null or empty");
          }
        }
        values += d == max_def;
        rows += r == 0;
        previous = d;
      }
    }
    if (values != data.values.count) {
      return Error(path, "the levels hold ", values, " values, but ", data.values.count,
                   " were decoded");
    }
    if (rows != num_rows_) {
      return Error(path, "the levels hold ", rows, " rows, not ", num_rows_);
    }
    return Status::OK();
  }

  // The repetition levels of a leaf in one fixed-size list of k entries:
  // a row whose list holds values takes k levels, any other row one.
  Status Synthesize(LeafLevels* leaf) {
    const int64_t k = leaf->fixed_size, n = leaf->n;
    const int16_t list_def = leaf->repeated_def.empty() ? 0 : leaf->repeated_def[0];
    leaf->synthesized.assign(static_cast<size_t>(n), 1);
    int16_t* rep = leaf->synthesized.data();
    for (int64_t i = 0; i < n;) {
      const int16_t d = leaf->def ? leaf->def[i] : leaf->node->max_definition_level;
      rep[i] = 0;
      if (d < list_def) {
        ++i;
        continue;
      }
      int64_t j = 1;
      while (j < k && i + j < n && (!leaf->def || leaf->def[i + j] >= list_def)) ++j;
      if (k == 0 || j != k) {
        return Error(leaf->path, "a row at level ", i, " of ", k == 0 ? 1 : j,
                     " values, not fixed_size_list[", k, "]'s ", k);
      }
      i += k;
    }
    leaf->rep = rep;
    return Status::OK();
  }

  void EnsureRep(LeafLevels* leaf) {
    if (!leaf->rep_missing || leaf->rep) return;
    // No definition levels: every row holds k values.
    const int64_t k = leaf->fixed_size;
    leaf->synthesized.assign(static_cast<size_t>(leaf->n), 1);
    for (int64_t i = 0; i < leaf->n; i += std::max<int64_t>(k, 1)) {
      leaf->synthesized[static_cast<size_t>(i)] = 0;
    }
    leaf->rep = leaf->synthesized.data();
  }

  // Calls fn(def, fillers) for each slot of `c` among the leaf's levels:
  // fillers 0 for a slot of the level's own, else that many filler slots.
  template <typename Fn>
  static Status ForEachSlot(const LeafLevels& leaf, const Criteria& c, Fn&& fn) {
    const int16_t max_def = leaf.node->max_definition_level;
    for (int64_t i = 0; i < leaf.n; ++i) {
      const int16_t d = leaf.def ? leaf.def[i] : max_def;
      const int16_t r = leaf.rep ? leaf.rep[i] : 0;
      if (r <= c.r && d >= c.d) {
        QUIVER_RETURN_NOT_OK(fn(d, int64_t{0}));
        continue;
      }
      for (const Filler& f : c.fillers) {
        if (r <= f.r && d >= f.d) {
          QUIVER_RETURN_NOT_OK(fn(d, f.mult));
          break;
        }
      }
    }
    return Status::OK();
  }

  struct Slots {
    int64_t count = 0;
    BufferPtr validity;
    int64_t nulls = 0;
  };

  // A node's slots and their validity: null below the node's valid level
  // when its field is nullable; a null of the node's own in a field that
  // is not nullable is an error; fillers and slots under a null above a
  // non-nullable field are valid (zeros, empty).
  Result<Slots> SlotValidity(const LeafLevels& leaf, const Criteria& c, const ShapeInfo& s,
                             bool nullable, const std::string& path) const {
    Slots out;
    QUIVER_RETURN_NOT_OK(ForEachSlot(leaf, c, [&](int16_t d, int64_t fillers) -> Status {
      if (fillers > 0) {
        if (__builtin_add_overflow(out.count, fillers, &out.count)) {
          return Error(path, "more than 2^63 slots");
        }
        return Status::OK();
      }
      ++out.count;
      if (d >= s.valid_def) return Status::OK();
      if (nullable) {
        ++out.nulls;
      } else if (s.optional && d == s.valid_def - 1) {
        return Error(path, "a null in a field that is not nullable");
      }
      return Status::OK();
    }));
    if (out.count > kMaxSlots) {
      // Fixed-size lists of null rows multiply: refuse sizes no buffer
      // could hold before any size is computed from them.
      return Error(path, out.count, " slots, more than 2^57");
    }
    if (out.nulls == 0) return out;
    QUIVER_ASSIGN_OR_RETURN(out.validity, Buffer::Allocate((out.count + 7) / 8));
    uint8_t* bits = out.validity->mutable_data();
    int64_t slot = 0;
    QUIVER_RETURN_NOT_OK(ForEachSlot(leaf, c, [&](int16_t d, int64_t fillers) -> Status {
      if (fillers > 0) {
        internal::SetBits(bits, slot, fillers);
        slot += fillers;
        return Status::OK();
      }
      if (d >= s.valid_def) SetBit(bits, slot);
      ++slot;
      return Status::OK();
    }));
    return out;
  }

  Result<ArrayDataPtr> Build(const View& v, const Field& field, const Criteria& c,
                             LeafLevels* fallback, const std::string& path) {
    const TypePtr& type = field.type;
    if (type->id() == TypeId::kExtension) {
      // The storage, then the extension type over it (as IPC readers do).
      Field storage{field.name, type->storage_type(), field.nullable, {}};
      QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr built, Build(v, storage, c, fallback, path));
      auto out = std::make_shared<ArrayData>(*built);
      out->type = type;
      return ArrayDataPtr(std::move(out));
    }
    QUIVER_ASSIGN_OR_RETURN(ShapeInfo s, Classify(v, path));
    LeafLevels* leaf = FirstLeaf(*v.p);
    if (!leaf) leaf = fallback;
    if (!leaf) return Error(path, "a group without columns");
    switch (s.shape) {
      case Shape::kLeaf: return BuildLeaf(*leaf, field, c, s, path);
      case Shape::kStruct: return BuildStruct(v, leaf, field, c, s, path);
      case Shape::kList:
      case Shape::kMap: return BuildList(leaf, field, c, s, path);
    }
    return Error(path, "an unknown shape");
  }

  Status FlatPlacement(const LeafLevels& leaf, const ShapeInfo& s, bool nullable,
                       const std::string& path, Placement* placement, BufferPtr* present) const {
    const int16_t max_def = leaf.node->max_definition_level;
    const int64_t n = leaf.n;
    placement->slots = n;
    const int64_t values = leaf.data->values.count;  // the levels at max_def (Prepare)
    if (values == n) return Status::OK();
    QUIVER_ASSIGN_OR_RETURN(*present, Buffer::Allocate((n + 7) / 8));
    uint8_t* bits = (*present)->mutable_data();
    for (int64_t i = 0; i < n; ++i) {
      const int16_t d = leaf.def[i];
      if (d == max_def) {
        SetBit(bits, i);
      } else if (!nullable && s.optional && d == s.valid_def - 1) {
        return Error(path, "a null in a field that is not nullable");
      }
    }
    placement->present = bits;
    if (nullable) {
      placement->validity = *present;
      placement->null_count = n - values;
    }
    return Status::OK();
  }

  Result<ArrayDataPtr> BuildLeaf(LeafLevels& leaf, const Field& field, const Criteria& c,
                                 const ShapeInfo& s, const std::string& path) {
    ColumnChunkData& data = *leaf.data;
    Placement placement;
    BufferPtr present;
    if (!leaf.def) {
      // Every level is a value (no nulls, no empty lists): the decoded
      // buffers become the array's as they are.
      placement.slots = leaf.n;
    } else if (!leaf.rep && c.d == 0 && c.fillers.empty()) {
      // A column outside lists: one slot per level, a value where the
      // level is the maximum (so one bitmap is the validity and where the
      // values go, when the field is nullable).
      QUIVER_RETURN_NOT_OK(FlatPlacement(leaf, s, field.nullable, path, &placement, &present));
    } else if (c.fillers.empty()) {
      // At most one slot per level, each valid exactly where it holds a
      // value: one pass, one bitmap for both.
      QUIVER_ASSIGN_OR_RETURN(present, Buffer::Allocate((leaf.n + 7) / 8));
      uint8_t* bits = present->mutable_data();
      const int16_t max_def = leaf.node->max_definition_level;
      const bool nullable = field.nullable;
      int64_t slot = 0, nulls = 0;
      QUIVER_RETURN_NOT_OK(ForEachSlot(leaf, c, [&](int16_t d, int64_t) -> Status {
        if (d == max_def) {
          SetBit(bits, slot);
        } else if (nullable) {
          ++nulls;
        } else if (s.optional && d == s.valid_def - 1) {
          return Error(path, "a null in a field that is not nullable");
        }
        ++slot;
        return Status::OK();
      }));
      placement.slots = slot;
      if (slot != data.values.count) placement.present = bits;
      if (nulls > 0) {
        placement.validity = present;
        placement.null_count = nulls;
      }
    } else {
      QUIVER_ASSIGN_OR_RETURN(Slots slots, SlotValidity(leaf, c, s, field.nullable, path));
      placement.slots = slots.count;
      placement.validity = std::move(slots.validity);
      placement.null_count = slots.nulls;
      if (slots.count != data.values.count) {
        QUIVER_ASSIGN_OR_RETURN(present, Buffer::Allocate((slots.count + 7) / 8));
        uint8_t* bits = present->mutable_data();
        const int16_t max_def = leaf.node->max_definition_level;
        int64_t slot = 0;
        QUIVER_RETURN_NOT_OK(ForEachSlot(leaf, c, [&](int16_t d, int64_t fillers) -> Status {
          if (fillers > 0) {
            slot += fillers;
            return Status::OK();
          }
          if (d == max_def) SetBit(bits, slot);
          ++slot;
          return Status::OK();
        }));
        placement.present = bits;
      }
    }
    return LeafArray(&data.values, *leaf.node->element, field.type, placement,
                     what_ + ": column '" + path + "'", data.dictionary.get());
  }

  Result<ArrayDataPtr> BuildStruct(const View& v, LeafLevels* leaf, const Field& field,
                                   const Criteria& c, const ShapeInfo& s, const std::string& path) {
    const DataType& t = *field.type;
    if (t.id() != TypeId::kStruct || t.children().size() != v.p->children.size()) {
      return Mismatch(path, t, "group of " + std::to_string(v.p->children.size()) + " fields");
    }
    Slots slots;
    if (!leaf->def && c.fillers.empty() && (leaf->rep || !leaf->rep_missing)) {
      // Every level present: no null anywhere, a slot per level that
      // repeats at most the parent's level (one counting pass).
      slots.count = leaf->n;
      if (leaf->rep) {
        slots.count = 0;
        for (int64_t i = 0; i < leaf->n; ++i) slots.count += leaf->rep[i] <= c.r;
      }
    } else {
      EnsureRep(leaf);
      QUIVER_ASSIGN_OR_RETURN(slots, SlotValidity(*leaf, c, s, field.nullable, path));
    }
    auto out = std::make_shared<ArrayData>();
    out->type = field.type;
    out->length = slots.count;
    out->null_count = slots.nulls;
    out->buffers = {std::move(slots.validity)};
    for (size_t i = 0; i < v.p->children.size(); ++i) {
      const SchemaNode& child = v.p->children[i];
      const std::string child_path = path + "." + child.element->name;
      QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr built, Build(View{&child, false, false}, t.children()[i],
                                                        c, leaf, child_path));
      if (built->length != slots.count) {
        return Error(child_path, "the fields of one group disagree on their rows: ", built->length,
                     " here, ", slots.count, " in '", path, "'");
      }
      out->children.push_back(std::move(built));
    }
    return ArrayDataPtr(std::move(out));
  }

  // Each slot's first entry among the list's entries as `leaf`'s levels
  // place them, then the end of the last (count + 1 starts, unless
  // `starts` is null), and their number; a fixed-size list's rows checked
  // against k.
  Status ListStarts(const LeafLevels& leaf, const Criteria& c, const Criteria& child_c,
                    const ShapeInfo& s, int64_t k, bool fixed, int64_t count, int64_t* starts,
                    int64_t* total_out, const std::string& path) const {
    int64_t slot = 0, total = 0, open_start = 0;
    bool open = false;       // the current slot's list holds entries
    bool own_valid = false;  // the current slot is a list of its own (not a filler or null)
    int64_t open_slot = -1;
    auto close = [&]() -> Status {
      if (!fixed || open_slot < 0) return Status::OK();
      const int64_t entries = total - open_start;
      if ((open || own_valid) && entries != k) {
        return Error(path, "row ", open_slot, " is a list of ", entries,
                     " values, not fixed_size_list[", k, "]'s ", k);
      }
      return Status::OK();
    };
    const int16_t max_def = leaf.node->max_definition_level;
    for (int64_t i = 0; i < leaf.n; ++i) {
      const int16_t d = leaf.def ? leaf.def[i] : max_def;
      const int16_t r = leaf.rep ? leaf.rep[i] : 0;
      if (r <= c.r && d >= c.d) {
        QUIVER_RETURN_NOT_OK(close());
        if (slot >= count) return Error(path, "more slots than the list's first column makes");
        open_slot = slot;
        open_start = total;
        if (starts) starts[slot] = total;
        ++slot;
        open = d >= child_c.d;
        own_valid = d >= s.valid_def;
      } else {
        for (const Filler& f : c.fillers) {
          if (r <= f.r && d >= f.d) {
            QUIVER_RETURN_NOT_OK(close());
            if (f.mult > count - slot)
              return Error(path, "more slots than the list's first column makes");
            if (starts) {
              for (int64_t j = 0; j < f.mult; ++j) starts[slot + j] = total;
            }
            slot += f.mult;
            open = own_valid = false;
            open_slot = -1;
            break;
          }
        }
      }
      if (r <= child_c.r && d >= child_c.d) {
        if (!open) return Error(path, "level ", i, " adds to a list that is null or empty");
        ++total;
      }
    }
    QUIVER_RETURN_NOT_OK(close());
    if (slot != count) return Error(path, "fewer slots than the list's first column makes");
    if (starts) starts[slot] = total;
    if (total_out) *total_out = total;
    return Status::OK();
  }

  void CollectUnder(const SchemaNode& node, std::vector<LeafLevels*>* out) {
    if (node.is_leaf()) {
      out->push_back(&leaves_[static_cast<size_t>(node.leaf_index - first_leaf_)]);
      return;
    }
    for (const SchemaNode& child : node.children) CollectUnder(child, out);
  }

  Result<ArrayDataPtr> BuildList(LeafLevels* leaf, const Field& field, const Criteria& c,
                                 const ShapeInfo& s, const std::string& path) {
    const DataType& t = *field.type;
    const bool fits = s.shape == Shape::kMap ? t.id() == TypeId::kMap : IsListType(t.id());
    if (!fits) return Mismatch(path, t, s.shape == Shape::kMap ? "map" : "list");
    const bool fixed = t.id() == TypeId::kFixedSizeList;
    const int64_t k = fixed ? t.fixed_size() : 0;
    Criteria child_c;
    child_c.r = s.repeated->max_repetition_level;
    child_c.d = s.repeated->max_definition_level;
    if (fixed && k > 0) {
      // Rows of this list without values still take k entries of the child
      // (none for a list of size 0: no fillers, so 0 never reads as a slot).
      child_c.fillers.push_back(Filler{c.r, c.d, k});
      for (const Filler& f : c.fillers) {
        QUIVER_ASSIGN_OR_RETURN(int64_t mult, internal::MultiplyChecked(f.mult, k, "fillers"));
        child_c.fillers.push_back(Filler{f.r, f.d, mult});
      }
    }
    const Field& child_field = t.children()[0];
    const std::string child_path = ChildPath(path, s.child);
    auto out = std::make_shared<ArrayData>();
    out->type = field.type;

    if (fixed && leaf->rep_missing && !leaf->rep && !leaf->def && c.fillers.empty()) {
      // The tensor fast path: every row holds k values, already checked.
      out->length = k > 0 ? leaf->n / k : 0;
      out->null_count = 0;
      out->buffers = {nullptr};
      QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr child,
                              Build(s.child, child_field, child_c, leaf, child_path));
      if (child->length != leaf->n) {
        return Error(child_path, child->length, " entries for ", out->length, " rows of ", k);
      }
      out->children = {std::move(child)};
      return ArrayDataPtr(std::move(out));
    }

    if (!fixed && !leaf->def && leaf->rep && c.fillers.empty() && t.id() != TypeId::kListView &&
        t.id() != TypeId::kLargeListView) {
      std::vector<LeafLevels*> under;
      CollectUnder(*s.repeated, &under);
      if (under.size() == 1) {
        return BuildListAllPresent(leaf, field, c, child_c, s, child_field, child_path,
                                   std::move(out));
      }
    }

    EnsureRep(leaf);
    QUIVER_ASSIGN_OR_RETURN(Slots slots, SlotValidity(*leaf, c, s, field.nullable, path));
    out->length = slots.count;
    out->null_count = slots.nulls;
    // Each slot's first entry, then the end of the last (a fixed-size list
    // only checks its rows: it keeps no offsets, and the rows of null
    // parents it fills may be many).
    BufferPtr starts_buffer;
    int64_t* starts = nullptr;
    if (!fixed) {
      QUIVER_ASSIGN_OR_RETURN(starts_buffer, Buffer::AllocateUninitialized((slots.count + 1) * 8));
      starts = reinterpret_cast<int64_t*>(starts_buffer->mutable_data());
    }
    int64_t total = 0;
    QUIVER_RETURN_NOT_OK(
        ListStarts(*leaf, c, child_c, s, k, fixed, slots.count, starts, &total, path));
    const int64_t slot = slots.count;
    // Every other column below must put as many entries in each row (rows
    // of a fixed-size list are all checked against its size).
    std::vector<LeafLevels*> others;
    CollectUnder(*s.repeated, &others);
    BufferPtr scratch_buffer;
    for (LeafLevels* other : others) {
      if (other == leaf) continue;
      EnsureRep(other);
      int64_t* scratch = nullptr;
      if (!fixed) {
        if (!scratch_buffer) {
          QUIVER_ASSIGN_OR_RETURN(scratch_buffer,
                                  Buffer::AllocateUninitialized((slots.count + 1) * 8));
        }
        scratch = reinterpret_cast<int64_t*>(scratch_buffer->mutable_data());
      }
      QUIVER_RETURN_NOT_OK(
          ListStarts(*other, c, child_c, s, k, fixed, slots.count, scratch, nullptr, other->path));
      for (int64_t j = 0; scratch && j < slot; ++j) {
        if (scratch[j + 1] - scratch[j] != starts[j + 1] - starts[j]) {
          return Error(path, "its columns disagree on the entries of slot ", j, ": ",
                       starts[j + 1] - starts[j], " in '", leaf->path, "', ",
                       scratch[j + 1] - scratch[j], " in '", other->path, "'");
        }
      }
    }

    QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr child,
                            Build(s.child, child_field, child_c, leaf, child_path));
    int64_t expected = total;
    if (fixed) {
      QUIVER_ASSIGN_OR_RETURN(expected, internal::MultiplyChecked(slot, k, "entries"));
    }
    if (child->length != expected) {
      return Error(child_path, "the list's entries disagree with its levels: ", child->length,
                   " built, ", expected, " expected");
    }
    out->children = {std::move(child)};
    if (fixed) {
      out->buffers = {std::move(slots.validity)};
      return ArrayDataPtr(std::move(out));
    }
    const bool wide = t.id() == TypeId::kLargeList || t.id() == TypeId::kLargeListView;
    const bool view = t.id() == TypeId::kListView || t.id() == TypeId::kLargeListView;
    if (!wide && total > std::numeric_limits<int32_t>::max()) {
      return Error(path, total, " list entries overflow int32 offsets (read it as large_list)");
    }
    const int64_t width = wide ? 8 : 4;
    const int64_t entries = view ? slot : slot + 1;
    QUIVER_ASSIGN_OR_RETURN(BufferPtr offsets, Buffer::AllocateUninitialized(entries * width));
    BufferPtr sizes;
    if (view) {
      QUIVER_ASSIGN_OR_RETURN(sizes, Buffer::AllocateUninitialized(entries * width));
    }
    for (int64_t j = 0; j < entries; ++j) {
      const int64_t start = starts[j];
      const int64_t size = view ? starts[j + 1] - start : 0;
      if (wide) {
        std::memcpy(offsets->mutable_data() + j * 8, &start, 8);
        if (view) std::memcpy(sizes->mutable_data() + j * 8, &size, 8);
      } else {
        const int32_t start32 = static_cast<int32_t>(start), size32 = static_cast<int32_t>(size);
        std::memcpy(offsets->mutable_data() + j * 4, &start32, 4);
        if (view) std::memcpy(sizes->mutable_data() + j * 4, &size32, 4);
      }
    }
    out->buffers = {std::move(slots.validity), std::move(offsets)};
    if (view) out->buffers.push_back(std::move(sizes));
    return ArrayDataPtr(std::move(out));
  }

  // A list (or map) over one leaf whose levels are all at the maximum (no
  // null or empty list, no null value anywhere on the path): a slot starts
  // at each level that repeats at most the parent's level, an entry at each
  // that repeats at most this list's; two passes over the repetition
  // levels give the offsets, with no per-slot bookkeeping (ragged tensors).
  Result<ArrayDataPtr> BuildListAllPresent(LeafLevels* leaf, const Field& field, const Criteria& c,
                                           const Criteria& child_c, const ShapeInfo& s,
                                           const Field& child_field, const std::string& child_path,
                                           std::shared_ptr<ArrayData> out) {
    const int16_t* rep = leaf->rep;
    const int64_t n = leaf->n;
    const int16_t slot_level = static_cast<int16_t>(c.r);
    const int16_t entry_level = static_cast<int16_t>(child_c.r);
    int64_t slots = 0, entries = 0;
    for (int64_t i = 0; i < n; ++i) {
      slots += rep[i] <= slot_level;
      entries += rep[i] <= entry_level;
    }
    const bool wide = field.type->id() == TypeId::kLargeList;
    if (!wide && entries > std::numeric_limits<int32_t>::max()) {
      return Error(leaf->path, entries,
                   " list entries overflow int32 offsets (read it as large_list)");
    }
    const int64_t width = wide ? 8 : 4;
    QUIVER_ASSIGN_OR_RETURN(BufferPtr offsets, Buffer::AllocateUninitialized((slots + 1) * width));
    auto fill = [&](auto* o) {
      int64_t slot = 0, entry = 0;
      for (int64_t i = 0; i < n; ++i) {
        if (rep[i] <= slot_level)
          o[slot++] = static_cast<std::remove_reference_t<decltype(*o)>>(entry);
        entry += rep[i] <= entry_level;
      }
      o[slot] = static_cast<std::remove_reference_t<decltype(*o)>>(entry);
    };
    if (wide) {
      fill(reinterpret_cast<int64_t*>(offsets->mutable_data()));
    } else {
      fill(reinterpret_cast<int32_t*>(offsets->mutable_data()));
    }
    QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr child,
                            Build(s.child, child_field, child_c, leaf, child_path));
    if (child->length != entries) {
      return Error(child_path, "the list's entries disagree with its levels: ", child->length,
                   " built, ", entries, " expected");
    }
    out->length = slots;
    out->null_count = 0;
    out->buffers = {nullptr, std::move(offsets)};
    out->children = {std::move(child)};
    return ArrayDataPtr(std::move(out));
  }

  Result<ArrayDataPtr> Run(const SchemaNode& node, const Field& field,
                           std::vector<ColumnChunkData>* data) {
    const std::string path = node.element->name;
    std::vector<int16_t> repeated;
    QUIVER_RETURN_NOT_OK(CollectLeaves(node, path, &repeated, data));
    if (leaves_.size() != data->size()) {
      return Error(path, "the column has ", leaves_.size(), " leaves, but ", data->size(),
                   " were given");
    }
    if (leaves_.empty()) return Error(path, "a group without columns");
    QUIVER_RETURN_NOT_OK(CheckNestingDepth(*field.type));
    QUIVER_RETURN_NOT_OK(Survey(View{&node, false, false}, *field.type, 0, -1, path));
    for (LeafLevels& leaf : leaves_) QUIVER_RETURN_NOT_OK(Prepare(&leaf));
    QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr out,
                            Build(View{&node, false, false}, field, Criteria{}, nullptr, path));
    if (out->length != num_rows_) {
      return Error(path, out->length, " rows assembled, not ", num_rows_);
    }
    return out;
  }

 private:
  const std::string& what_;
  int64_t num_rows_;
  std::vector<LeafLevels> leaves_;
  int first_leaf_ = -1;
};

}  // namespace

Result<ArrayDataPtr> AssembleColumn(const SchemaNode& node, const Field& field,
                                    std::vector<ColumnChunkData>* leaves, int64_t num_rows,
                                    const std::string& what) {
  if (num_rows < 0) return Status::Invalid(what, ": a negative row count (", num_rows, ")");
  Assembler assembler(what, num_rows);
  return assembler.Run(node, field, leaves);
}

}  // namespace quiver::parquet
