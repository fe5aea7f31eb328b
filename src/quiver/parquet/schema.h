// A Parquet file's schema as a tree, and the Arrow schema its columns read
// as: from the ARROW:schema key when a writer left one that fits the
// Parquet types (so arrow.fixed_shape_tensor, arrow.variable_shape_tensor,
// fixed-size lists, large and view strings come back as written), and from
// the Parquet physical, logical and converted types otherwise.
// docs/formats.md, "Parquet: schema".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "quiver/parquet/metadata.h"
#include "quiver/status.h"
#include "quiver/type.h"

namespace quiver::parquet {

// One element of the schema with its children (depth first, as the footer
// lists them). Leaves carry their column's index among the leaves and the
// levels that say, for each value, how much of its path is present
// (definition) and at which list it repeats (repetition).
struct SchemaNode {
  const SchemaElement* element = nullptr;
  std::vector<SchemaNode> children;
  int leaf_index = -1;  // leaves only
  int16_t max_definition_level = 0;
  int16_t max_repetition_level = 0;

  bool is_leaf() const { return element->num_children < 0; }
};

// The tree of metadata.schema (whose elements it points into: it must not
// outlive `metadata`). Invalid, naming `what` and the element, for child
// counts that run past the list or leave elements over, a leaf without a
// physical type, a FIXED_LEN_BYTE_ARRAY without a positive length, a child
// without a repetition, and nesting deeper than kMaxNestingDepth.
Result<SchemaNode> BuildSchemaTree(const FileMetaData& metadata, const std::string& what);

// The Arrow type a Parquet node reads as, and whether it is nullable
// (every node but the root). TypeError naming the column for annotations
// quiver does not map (INTERVAL, BSON, VARIANT, ...); Invalid for
// annotations that contradict the physical type.
Result<Field> ParquetField(const SchemaNode& node, const std::string& what);

// The Arrow schema of the file: its top-level fields, each from the
// ARROW:schema key when present, decodable and fitting the Parquet field
// (FitsParquetType), else from the Parquet types; the schema's metadata is
// the file's key/value metadata without the ARROW:schema key.
Result<Schema> ArrowSchemaOf(const FileMetaData& metadata, const SchemaNode& root,
                             const std::string& what);

// Whether an Arrow type written by another writer can be read from data of
// the Parquet-derived type: the same type; an extension or dictionary of a
// fitting type; a large, fixed-size or view list for a list; large or view
// strings and binaries for strings and binaries; a duration for int64;
// a timestamp of another unit or time zone (both with or both without
// one), a time of another unit, date64 for date32, a decimal of another
// width with the same precision and scale;
// structs and maps whose children fit.
bool FitsParquetType(const DataType& arrow, const DataType& parquet);

}  // namespace quiver::parquet
