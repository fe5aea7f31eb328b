// Arrays from Parquet levels: the values, definition levels and
// repetition levels of a top-level field's leaves turned into the Arrow
// array of the type the file's schema gives it (ArrowSchemaOf): validity
// bitmaps from definition levels, list offsets from repetition levels,
// struct children and map entries from their leaves, nulls at every level,
// then the types an Arrow writer recorded (fixed-size lists, large lists
// and strings, dictionaries, extension types such as
// arrow.fixed_shape_tensor over their storage). docs/formats.md,
// "Parquet: levels".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "quiver/array.h"
#include "quiver/parquet/column_chunk_reader.h"
#include "quiver/parquet/schema.h"
#include "quiver/status.h"
#include "quiver/type.h"

namespace quiver::parquet {

// The array of `num_rows` rows for `node` (a child of the schema's root)
// read as `field` (its field in ArrowSchemaOf). `leaves` holds the data of
// the node's leaves in column order (SchemaNode::leaf_index ascending);
// their buffers are moved into the array. Invalid naming `what` when the
// data contradicts the schema: a level above its maximum, a first level
// that repeats, a row count other than `num_rows`, fewer or more values
// than the levels say, a null where the field is required, a fixed-size
// list row of another length, leaves of one group that disagree on rows.
Result<ArrayDataPtr> AssembleColumn(const SchemaNode& node, const Field& field,
                                    std::vector<ColumnChunkData>* leaves, int64_t num_rows,
                                    const std::string& what);

}  // namespace quiver::parquet
