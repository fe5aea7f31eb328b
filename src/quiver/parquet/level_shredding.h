// Arrow arrays as Parquet leaf columns: each leaf's definition levels (how
// much of its path is present), repetition levels (at which list a value
// repeats) and the slots of the leaf array whose values are written: the
// inverse of Dremel record assembly. Lists are written in the three-level
// LIST form (optional group (LIST) / repeated group list / element), maps
// as MAP / repeated group key_value / key, value; fixed-size lists as
// lists; structs as groups. docs/parquet.md, "Writing".
#pragma once

#include <cstdint>
#include <vector>

#include "quiver/array.h"
#include "quiver/buffer.h"
#include "quiver/status.h"
#include "quiver/type.h"

namespace quiver::parquet {

// One Parquet leaf column of an array's rows.
struct ShreddedLeaf {
  ArrayDataPtr values;  // the leaf array the value slots index (logical slots)
  int16_t max_def = 0, max_rep = 0;
  int64_t num_rows = 0;
  int64_t num_levels = 0;
  // Definition levels; empty when every level is max_def (no nulls or
  // empty lists anywhere on the path, or max_def == 0).
  std::vector<int16_t> def;
  // Repetition levels, kept only where max_rep > 1 (empty when max_rep is
  // 0 or 1, or rep_period > 0).
  std::vector<int16_t> rep;
  // max_rep == 1 (one list on the path): the levels of each row, which say
  // the repetition levels (0 where a row starts, 1 elsewhere) in 8 bytes a
  // row instead of 2 a level.
  std::vector<int64_t> row_levels;
  // > 0: each row is rep_period levels, 0 then max_rep repeated (a
  // fixed-size list of non-null values), not materialised.
  int64_t rep_period = 0;
  // The slots of `values` written, in order (definition level max_def).
  std::vector<Range> value_ranges;
  int64_t num_values = 0;
  // Whether every level is max_def (known whether levels are kept or not).
  bool def_all_max = true;

  // Levels that need no memory: a fixed-size list's pattern, or one level
  // per row, every one max_def.
  bool implicit_levels() const { return rep_period > 0 || (max_rep == 0 && def_all_max); }
};

// The type Parquet stores for `type`: extension types as their storage,
// dictionaries as their value type, at every depth.
TypePtr StoredType(const TypePtr& type);

// `data` with extension arrays as their storage and dictionary arrays
// decoded into their values, at every depth (the others shared).
Result<ArrayDataPtr> StoredArray(const ArrayDataPtr& data);

// The number of leaf columns under `data` (a StoredArray).
int CountLeaves(const ArrayDataPtr& data);

// For each leaf column of StoredArray(`data`), in order: the dictionary
// (as a StoredArray) whose entries that leaf's values come from, where the
// leaf is a dictionary array of flat values; null for the others. The
// writer opens the leaf's Parquet dictionary with these entries.
Result<std::vector<ArrayDataPtr>> LeafDictionaries(const ArrayDataPtr& data);

// Leaf `leaf_index` of `data` (a StoredArray), counted depth first as the
// Parquet schema lists the leaves; `nullable`: whether the top-level field
// is optional. Without `keep_levels` the levels are counted, not kept (def
// and rep stay empty): the value slots, counts and def_all_max say enough
// to encode the values and to decide how to cut the levels into batches.
// The types must be ones Parquet holds (bool, numbers, binaries, lists,
// fixed-size lists, structs, maps: parquet_writer.cc checks first).
Result<ShreddedLeaf> ShredLeaf(const ArrayDataPtr& data, bool nullable, int leaf_index,
                               bool keep_levels);
// Every leaf, levels kept.
Result<std::vector<ShreddedLeaf>> ShredArray(const ArrayDataPtr& data, bool nullable);

}  // namespace quiver::parquet
