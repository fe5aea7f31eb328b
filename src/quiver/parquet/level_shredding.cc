#include "quiver/parquet/level_shredding.h"

#include <memory>
#include <utility>

#include "quiver/selection.h"

namespace quiver::parquet {

namespace {

Field StoredField(const Field& field) {
  return Field{field.name, StoredType(field.type), field.nullable, field.metadata};
}

// A dictionary array as an array of its values: slot i is the value its
// index names, null where the index is null or the value is.
Result<ArrayDataPtr> DecodeDictionary(const ArrayDataPtr& data) {
  const ArrayData& d = *data;
  const int64_t n = d.length;
  std::vector<int64_t> indices(static_cast<size_t>(n), 0);
  const bool empty = !d.dictionary || d.dictionary->length == 0;
  for (int64_t i = 0; i < n; ++i) {
    if (d.IsValid(i)) {
      if (empty)
        return Status::Invalid("a dictionary array's index points into an empty dictionary");
      indices[static_cast<size_t>(i)] = DictionaryIndex(d, i);
    }
  }
  ArrayDataPtr taken;
  if (empty) {
    QUIVER_ASSIGN_OR_RETURN(taken, MakeEmptyArray(d.type->value_type()));
  } else {
    QUIVER_ASSIGN_OR_RETURN(taken, Take(d.dictionary, indices));
  }
  QUIVER_ASSIGN_OR_RETURN(BufferPtr bitmap, Buffer::Allocate((n + 7) / 8));
  uint8_t* bits = bitmap->mutable_data();
  int64_t nulls = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (d.IsValid(i) && taken->IsValid(i)) {
      bits[i / 8] = static_cast<uint8_t>(bits[i / 8] | (1u << (i % 8)));
    } else {
      ++nulls;
    }
  }
  auto out = std::make_shared<ArrayData>(*taken);
  if (empty) out->length = n;  // every slot is null: no value is read
  if (out->buffers.empty()) out->buffers.resize(1);
  out->buffers[0] = std::move(bitmap);
  out->null_count = nulls;
  return ArrayDataPtr(std::move(out));
}

// One node on a leaf's path from the top-level array.
struct PathNode {
  enum Kind { kLeaf, kStruct, kList } kind = kLeaf;
  const ArrayData* array = nullptr;
  bool optional = false;
  int16_t rep = 0;  // lists: the repetition level of their elements after the first
};

struct Walker {
  const std::vector<PathNode>& path;
  ShreddedLeaf& out;
  bool keep_levels;

  void Emit(int16_t def, int16_t rep) {
    if (def != out.max_def) out.def_all_max = false;
    if (keep_levels) {
      if (out.max_def > 0) out.def.push_back(def);
      if (out.max_rep > 1) out.rep.push_back(rep);
    }
    ++out.num_levels;
  }

  void Values(int64_t begin, int64_t end) {
    if (!out.value_ranges.empty() && out.value_ranges.back().end == begin) {
      out.value_ranges.back().end = end;
    } else {
      out.value_ranges.push_back(Range{begin, end});
    }
    out.num_values += end - begin;
  }

  void Value(int64_t j) {
    if (!out.value_ranges.empty() && out.value_ranges.back().end == j) {
      ++out.value_ranges.back().end;
    } else {
      out.value_ranges.push_back(Range{j, j + 1});
    }
    ++out.num_values;
  }

  // Slot i of path[d]; `def` is the level of the nodes above it, all present.
  void Visit(size_t d, int64_t i, int16_t rep, int16_t def) {
    const PathNode& node = path[d];
    const ArrayData& a = *node.array;
    if (node.optional) {
      if (!a.IsValid(i)) return Emit(def, rep);
      ++def;
    }
    switch (node.kind) {
      case PathNode::kLeaf:
        Emit(def, rep);
        Value(i);
        return;
      case PathNode::kStruct: return Visit(d + 1, a.offset + i, rep, def);
      case PathNode::kList: {
        const Range r = ValueRange(a, i);
        if (r.begin == r.end) return Emit(def, rep);
        const PathNode& child = path[d + 1];
        if (child.kind == PathNode::kLeaf) {  // the values, in one loop
          const ArrayData& c = *child.array;
          const int16_t present = static_cast<int16_t>(def + 1 + (child.optional ? 1 : 0));
          const bool all_valid = !child.optional || c.null_count == 0;
          if (all_valid) {  // every value present: runs of levels, one range
            const int64_t count = r.end - r.begin;
            if (present != out.max_def) out.def_all_max = false;
            if (keep_levels) {
              if (out.max_def > 0)
                out.def.insert(out.def.end(), static_cast<size_t>(count), present);
              if (out.max_rep > 1) {
                out.rep.push_back(rep);
                out.rep.insert(out.rep.end(), static_cast<size_t>(count - 1), node.rep);
              }
            }
            out.num_levels += count;
            Values(r.begin, r.end);
            return;
          }
          for (int64_t j = r.begin; j < r.end; ++j) {
            const int16_t level_rep = j == r.begin ? rep : node.rep;
            if (all_valid || c.IsValid(j)) {
              Emit(present, level_rep);
              Value(j);
            } else {
              Emit(static_cast<int16_t>(present - 1), level_rep);
            }
          }
          return;
        }
        Visit(d + 1, r.begin, rep, static_cast<int16_t>(def + 1));
        for (int64_t j = r.begin + 1; j < r.end; ++j) {
          Visit(d + 1, j, node.rep, static_cast<int16_t>(def + 1));
        }
        return;
      }
    }
  }
};

// Every leaf path under `a` (of a stored type), depth first.
void CollectPaths(const ArrayData& a, bool optional, int16_t def, int16_t rep,
                  std::vector<PathNode>& prefix, std::vector<std::vector<PathNode>>& paths,
                  std::vector<std::pair<int16_t, int16_t>>& maxima) {
  const TypeId id = a.type->id();
  const int16_t d = static_cast<int16_t>(def + (optional ? 1 : 0));
  PathNode node;
  node.array = &a;
  node.optional = optional;
  switch (id) {
    case TypeId::kStruct:
      node.kind = PathNode::kStruct;
      prefix.push_back(node);
      for (size_t k = 0; k < a.children.size(); ++k) {
        CollectPaths(*a.children[k], a.type->children()[k].nullable, d, rep, prefix, paths, maxima);
      }
      prefix.pop_back();
      return;
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kFixedSizeList:
    case TypeId::kMap: {
      node.kind = PathNode::kList;
      node.rep = static_cast<int16_t>(rep + 1);
      prefix.push_back(node);
      const ArrayData& child = *a.children[0];
      // A map's entries are the repeated group itself: never null.
      const bool child_optional = id != TypeId::kMap && a.type->children()[0].nullable;
      CollectPaths(child, child_optional, static_cast<int16_t>(d + 1), node.rep, prefix, paths,
                   maxima);
      prefix.pop_back();
      return;
    }
    default:
      node.kind = PathNode::kLeaf;
      prefix.push_back(node);
      paths.push_back(prefix);
      maxima.emplace_back(d, rep);
      prefix.pop_back();
      return;
  }
}

int64_t CountNulls(const ArrayData& a, int64_t begin, int64_t end) {
  if (a.null_count == 0 || a.buffers.empty() || !a.buffers[0]) return 0;
  int64_t nulls = 0;
  for (int64_t j = begin; j < end; ++j) nulls += a.IsValid(j) ? 0 : 1;
  return nulls;
}

}  // namespace

TypePtr StoredType(const TypePtr& type) {
  switch (type->id()) {
    case TypeId::kExtension: return StoredType(type->storage_type());
    case TypeId::kDictionary: return StoredType(type->value_type());
    case TypeId::kList: return list(StoredField(type->children()[0]));
    case TypeId::kLargeList: return large_list(StoredField(type->children()[0]));
    case TypeId::kFixedSizeList:
      return *fixed_size_list(StoredField(type->children()[0]), type->fixed_size());
    case TypeId::kMap: return *map_(StoredField(type->children()[0]), type->keys_sorted());
    case TypeId::kStruct: {
      std::vector<Field> fields;
      for (const Field& f : type->children()) fields.push_back(StoredField(f));
      return struct_(std::move(fields));
    }
    default: return type;
  }
}

Result<ArrayDataPtr> StoredArray(const ArrayDataPtr& data) {
  switch (data->type->id()) {
    case TypeId::kExtension: {
      auto copy = std::make_shared<ArrayData>(*data);
      copy->type = data->type->storage_type();
      return StoredArray(copy);
    }
    case TypeId::kDictionary: {
      QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr decoded, DecodeDictionary(data));
      return StoredArray(decoded);
    }
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kFixedSizeList:
    case TypeId::kMap:
    case TypeId::kStruct: {
      auto copy = std::make_shared<ArrayData>(*data);
      copy->type = StoredType(data->type);
      for (ArrayDataPtr& child : copy->children) {
        QUIVER_ASSIGN_OR_RETURN(child, StoredArray(child));
      }
      return ArrayDataPtr(std::move(copy));
    }
    default: return data;
  }
}

int CountLeaves(const ArrayDataPtr& data) {
  std::vector<std::vector<PathNode>> paths;
  std::vector<std::pair<int16_t, int16_t>> maxima;
  std::vector<PathNode> prefix;
  CollectPaths(*data, false, 0, 0, prefix, paths, maxima);
  return static_cast<int>(paths.size());
}

namespace {

bool IsNested(TypeId id) {
  return id == TypeId::kStruct || id == TypeId::kList || id == TypeId::kLargeList ||
         id == TypeId::kFixedSizeList || id == TypeId::kMap;
}

Status CollectDictionaries(const ArrayDataPtr& data, std::vector<ArrayDataPtr>* out) {
  switch (data->type->id()) {
    case TypeId::kExtension: {
      auto storage = std::make_shared<ArrayData>(*data);
      storage->type = data->type->storage_type();
      return CollectDictionaries(storage, out);
    }
    case TypeId::kDictionary: {
      const TypePtr stored = StoredType(data->type->value_type());
      if (data->dictionary && !IsNested(stored->id())) {
        QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr entries, StoredArray(data->dictionary));
        out->push_back(std::move(entries));
        return Status::OK();
      }
      QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr decoded, StoredArray(data));
      out->resize(out->size() + static_cast<size_t>(CountLeaves(decoded)));
      return Status::OK();
    }
    default:
      if (!IsNested(data->type->id())) {
        out->push_back(nullptr);
        return Status::OK();
      }
      for (const ArrayDataPtr& child : data->children) {
        QUIVER_RETURN_NOT_OK(CollectDictionaries(child, out));
      }
      return Status::OK();
  }
}

}  // namespace

Result<std::vector<ArrayDataPtr>> LeafDictionaries(const ArrayDataPtr& data) {
  std::vector<ArrayDataPtr> out;
  QUIVER_RETURN_NOT_OK(CollectDictionaries(data, &out));
  return out;
}

Result<ShreddedLeaf> ShredLeaf(const ArrayDataPtr& data, bool nullable, int leaf_index,
                               bool keep_levels) {
  std::vector<std::vector<PathNode>> paths;
  std::vector<std::pair<int16_t, int16_t>> maxima;
  std::vector<PathNode> prefix;
  CollectPaths(*data, nullable, 0, 0, prefix, paths, maxima);
  if (leaf_index < 0 || static_cast<size_t>(leaf_index) >= paths.size()) {
    return Status::IndexError("leaf ", leaf_index, " of an array with ", paths.size(), " leaves");
  }
  const std::vector<PathNode>& path = paths[static_cast<size_t>(leaf_index)];
  const int64_t n = data->length;
  ShreddedLeaf leaf;
  leaf.max_def = maxima[static_cast<size_t>(leaf_index)].first;
  leaf.max_rep = maxima[static_cast<size_t>(leaf_index)].second;
  leaf.num_rows = n;
  // The array the leaf's slots index: kept alive through `data`.
  leaf.values = ArrayDataPtr(data, path.back().array);
  const PathNode& top = path[0];
  const bool top_valid = !top.optional || top.array->ComputeNullCount() == 0;
  if (path.size() == 1 && top_valid) {  // a flat column without nulls
    leaf.num_levels = n;
    leaf.num_values = n;
    if (n > 0) leaf.value_ranges.push_back(Range{0, n});
    return leaf;
  }
  if (path.size() == 2 && top_valid && top.array->type->id() == TypeId::kFixedSizeList &&
      top.array->type->fixed_size() > 0) {
    const int64_t size = top.array->type->fixed_size();
    const int64_t begin = (top.array->offset) * size, end = begin + n * size;
    if (!path[1].optional || CountNulls(*path[1].array, begin, end) == 0) {
      // A fixed-size list of non-null values: every level is max_def, the
      // repetition levels one pattern per row.
      leaf.num_levels = n * size;
      leaf.num_values = n * size;
      leaf.rep_period = size;
      if (n > 0) leaf.value_ranges.push_back(Range{begin, end});
      return leaf;
    }
  }
  Walker walker{path, leaf, keep_levels};
  if (keep_levels && leaf.max_def > 0) leaf.def.reserve(static_cast<size_t>(n));
  if (keep_levels && leaf.max_rep > 1) leaf.rep.reserve(static_cast<size_t>(n));
  if (keep_levels && leaf.max_rep == 1) {
    leaf.row_levels.reserve(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      const int64_t before = leaf.num_levels;
      walker.Visit(0, i, 0, 0);
      leaf.row_levels.push_back(leaf.num_levels - before);
    }
  } else {
    for (int64_t i = 0; i < n; ++i) walker.Visit(0, i, 0, 0);
  }
  // Every level at max_def: no need to keep them.
  if (leaf.def_all_max) std::vector<int16_t>().swap(leaf.def);
  return leaf;
}

Result<std::vector<ShreddedLeaf>> ShredArray(const ArrayDataPtr& data, bool nullable) {
  std::vector<ShreddedLeaf> leaves;
  const int count = CountLeaves(data);
  for (int k = 0; k < count; ++k) {
    QUIVER_ASSIGN_OR_RETURN(ShreddedLeaf leaf, ShredLeaf(data, nullable, k, true));
    leaves.push_back(std::move(leaf));
  }
  return leaves;
}

}  // namespace quiver::parquet
