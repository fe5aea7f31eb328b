// RecordBatch: equal-length columns under a schema, the unit IPC streams
// and files carry (and what a C Data stream of struct arrays is).
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "quiver/array.h"
#include "quiver/status.h"
#include "quiver/type.h"

namespace quiver {

class RecordBatch;
using RecordBatchPtr = std::shared_ptr<const RecordBatch>;
using SchemaPtr = std::shared_ptr<const Schema>;

class RecordBatch {
 public:
  // One column per schema field, each of the field's type with at least
  // `num_rows` rows (columns longer than that are sliced to it: a batch's
  // columns may be views into longer arrays). Columns are validated at
  // `level`.
  static Result<RecordBatchPtr> Make(SchemaPtr schema, int64_t num_rows,
                                     std::vector<ArrayDataPtr> columns,
                                     ValidationLevel level = ValidationLevel::kFull);
  // The children of a struct array as columns (what C Data streams carry);
  // `field` names the struct and carries the schema metadata. Nulls at the
  // struct level are refused: a record batch has no row validity.
  static Result<RecordBatchPtr> FromStructArray(const Field& field, const ArrayDataPtr& data,
                                                ValidationLevel level = ValidationLevel::kFull);

  // This batch as a struct array and the field describing it, sharing
  // the columns (zero-copy).
  ArrayDataPtr ToStructArray() const;
  Field StructField() const;

  const SchemaPtr& schema() const { return schema_; }
  int64_t num_rows() const { return num_rows_; }
  int num_columns() const { return static_cast<int>(columns_.size()); }
  const std::vector<ArrayDataPtr>& columns() const { return columns_; }
  const ArrayDataPtr& column(int i) const { return columns_[static_cast<size_t>(i)]; }
  // The index of the first field named `name`, or -1.
  int FieldIndex(std::string_view name) const;

  // Rows [offset, offset + length), sharing the buffers.
  Result<RecordBatchPtr> Slice(int64_t offset, int64_t length) const;

  // Same schema and equal column values (validity, offsets, data).
  bool Equals(const RecordBatch& other) const;

 private:
  RecordBatch(SchemaPtr schema, int64_t num_rows, std::vector<ArrayDataPtr> columns)
      : schema_(std::move(schema)), num_rows_(num_rows), columns_(std::move(columns)) {}

  SchemaPtr schema_;
  int64_t num_rows_ = 0;
  std::vector<ArrayDataPtr> columns_;
};

// Whether two arrays hold equal values: same type and length, the same
// slots null, and equal values in the valid slots (offsets compared by the
// ranges they delimit, not their numbers; floats bitwise).
bool ArrayEquals(const ArrayData& a, const ArrayData& b);

}  // namespace quiver
