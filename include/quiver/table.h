// Table: named chunked columns of equal length under a schema. Columns
// chunk independently (an added column need not share the others' chunk
// boundaries); ToRecordBatches cuts the rows where any column's chunk ends.
//
// Every method returns a new table and shares the columns' buffers, except
// Take, Filter and CombineChunks, which copy the rows they gather (a result
// that is one run of one chunk stays a zero-copy slice).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "quiver/chunked_array.h"
#include "quiver/record_batch.h"
#include "quiver/status.h"
#include "quiver/type.h"

namespace quiver {

class Table;
using TablePtr = std::shared_ptr<const Table>;

class Table {
 public:
  // One column per schema field, of the field's type (TypeError naming the
  // column otherwise), all `num_rows` long (Invalid naming the column).
  // num_rows < 0 takes the first column's length (0 without columns).
  static Result<TablePtr> Make(SchemaPtr schema, std::vector<ChunkedArrayPtr> columns,
                               int64_t num_rows = -1);
  // The batches' columns as chunks, no copy; every batch must have the
  // names, types and nullability of `schema` (Invalid naming the batch);
  // metadata may differ, `schema`'s is kept (as pyarrow).
  static Result<TablePtr> FromRecordBatches(SchemaPtr schema,
                                            std::span<const RecordBatchPtr> batches);

  const SchemaPtr& schema() const { return schema_; }
  int64_t num_rows() const { return num_rows_; }
  int num_columns() const { return static_cast<int>(columns_.size()); }
  const std::vector<ChunkedArrayPtr>& columns() const { return columns_; }
  const ChunkedArrayPtr& column(int i) const { return columns_[static_cast<size_t>(i)]; }
  // The index of the first field named `name`, or -1.
  int FieldIndex(std::string_view name) const;
  // Column i's chunks validated (ChunkedArray::Validate, the same
  // arguments); errors start "column i (name): ".
  Status ValidateColumn(int i, ValidationLevel level = ValidationLevel::kFull, int threads = 0,
                        const std::string& chunk_name = "chunk", int64_t first_number = 0) const;

  // The rows as record batches, in order, no copy: a batch ends where any
  // column's chunk ends, and holds at most `max_rows` rows when max_rows > 0.
  // As pyarrow's to_batches: an empty chunk before the last row gives a
  // zero-row batch; empty chunks after it, and a table of no rows, none.
  Result<std::vector<RecordBatchPtr>> ToRecordBatches(int64_t max_rows = 0) const;

  // Columns `indices`, in that order (repeats allowed); IndexError for one
  // out of range.
  Result<TablePtr> SelectColumns(std::span<const int> indices) const;
  Result<TablePtr> RemoveColumn(int i) const;
  // One new name per column (Invalid when the count differs).
  Result<TablePtr> RenameColumns(std::span<const std::string> names) const;
  // `column` as column i (0 <= i <= num_columns()), named and typed by
  // `field`; it must be of the field's type and num_rows() long.
  Result<TablePtr> AddColumn(int i, Field field, ChunkedArrayPtr column) const;
  // Column i replaced by `column`, as AddColumn checks it.
  Result<TablePtr> SetColumn(int i, Field field, ChunkedArrayPtr column) const;

  // Rows [offset, offset + length); IndexError outside [0, num_rows()].
  Result<TablePtr> Slice(int64_t offset, int64_t length) const;
  Result<TablePtr> Take(std::span<const int64_t> indices) const;
  // The rows whose mask byte is non-zero; a RowMask is packed once for
  // every column.
  Result<TablePtr> Filter(std::span<const uint8_t> mask) const;
  Result<TablePtr> Filter(const RowMask& mask) const;
  // Every column as one chunk.
  Result<TablePtr> CombineChunks() const;

  // Equal schemas and equal values, wherever the chunk boundaries fall.
  bool Equals(const Table& other) const;

 private:
  Table(SchemaPtr schema, std::vector<ChunkedArrayPtr> columns, int64_t num_rows)
      : schema_(std::move(schema)), columns_(std::move(columns)), num_rows_(num_rows) {}

  Status CheckColumn(const Field& field, const ChunkedArray& column) const;

  SchemaPtr schema_;
  std::vector<ChunkedArrayPtr> columns_;
  int64_t num_rows_ = 0;
};

// The rows of `tables` one after another, their chunks kept (no copy).
// The tables must have the same column names, types and nullability
// (Invalid naming the first that differs; metadata may differ, table 0's
// is kept, as pyarrow); there must be at least one.
Result<TablePtr> ConcatenateTables(std::span<const TablePtr> tables);

}  // namespace quiver
