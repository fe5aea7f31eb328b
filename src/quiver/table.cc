#include "quiver/table.h"

#include <algorithm>
#include <string>
#include <utility>

#include "quiver/selection.h"

namespace quiver {

namespace {

std::string ColumnName(const Schema& schema, size_t i) {
  return "column " + std::to_string(i) + " (" + schema.fields[i].name + ")";
}

// Names, types and nullability, as pyarrow compares schemas when it joins
// tables or batches: schema and field metadata may differ.
bool SameColumns(const Schema& a, const Schema& b) {
  if (a.fields.size() != b.fields.size()) return false;
  for (size_t i = 0; i < a.fields.size(); ++i) {
    const Field& x = a.fields[i];
    const Field& y = b.fields[i];
    if (x.name != y.name || x.nullable != y.nullable || !x.type || !y.type ||
        !x.type->Equals(*y.type)) {
      return false;
    }
  }
  return true;
}

Status CheckIndex(int i, int count, const char* what) {
  if (i < 0 || i >= count) {
    return Status::IndexError(what, " ", i, " is out of range for ", count, " columns");
  }
  return Status::OK();
}

}  // namespace

Result<TablePtr> Table::Make(SchemaPtr schema, std::vector<ChunkedArrayPtr> columns,
                             int64_t num_rows) {
  if (!schema) return Status::Invalid("table has no schema");
  if (columns.size() != schema->fields.size()) {
    return Status::Invalid("table has ", columns.size(), " columns for ", schema->fields.size(),
                           " fields");
  }
  if (num_rows < 0) num_rows = columns.empty() || !columns[0] ? 0 : columns[0]->length();
  for (size_t i = 0; i < columns.size(); ++i) {
    const Field& field = schema->fields[i];
    if (!columns[i] || !field.type || !columns[i]->type()->Equals(*field.type)) {
      return Status::TypeError(ColumnName(*schema, i), " is ",
                               columns[i] ? columns[i]->type()->ToString() : std::string("missing"),
                               ", its field says ",
                               field.type ? field.type->ToString() : std::string("<none>"));
    }
    if (columns[i]->length() != num_rows) {
      return Status::Invalid(ColumnName(*schema, i), " has ", columns[i]->length(), " rows, ",
                             num_rows, " expected");
    }
  }
  return TablePtr(new Table(std::move(schema), std::move(columns), num_rows));
}

Result<TablePtr> Table::FromRecordBatches(SchemaPtr schema,
                                          std::span<const RecordBatchPtr> batches) {
  if (!schema) return Status::Invalid("table has no schema");
  std::vector<std::vector<ArrayDataPtr>> chunks(schema->fields.size());
  int64_t rows = 0;
  for (size_t b = 0; b < batches.size(); ++b) {
    if (!SameColumns(*batches[b]->schema(), *schema)) {
      return Status::Invalid("record batch ", b, " has another schema than the table");
    }
    for (size_t c = 0; c < chunks.size(); ++c)
      chunks[c].push_back(batches[b]->column(static_cast<int>(c)));
    rows += batches[b]->num_rows();
  }
  std::vector<ChunkedArrayPtr> columns;
  for (size_t c = 0; c < chunks.size(); ++c) {
    QUIVER_ASSIGN_OR_RETURN(ChunkedArrayPtr column,
                            ChunkedArray::Make(schema->fields[c].type, std::move(chunks[c])));
    columns.push_back(std::move(column));
  }
  return Make(std::move(schema), std::move(columns), rows);
}

Status Table::ValidateColumn(int i, ValidationLevel level, int threads,
                             const std::string& chunk_name, int64_t first_number) const {
  Status st = column(i)->Validate(level, threads, chunk_name, first_number);
  return st.ok() ? st : st.WithContext(ColumnName(*schema_, static_cast<size_t>(i)));
}

int Table::FieldIndex(std::string_view name) const {
  for (size_t i = 0; i < schema_->fields.size(); ++i) {
    if (schema_->fields[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

// Cut as Arrow C++'s TableBatchReader cuts (what pyarrow's to_batches and
// write_table give): a batch ends where any column's current chunk ends,
// so an empty chunk before the last row is a zero-row batch of its own;
// empty chunks after it, and a table of no rows, give none. A writer given
// the batches writes each one, zero rows included.
Result<std::vector<RecordBatchPtr>> Table::ToRecordBatches(int64_t max_rows) const {
  std::vector<RecordBatchPtr> out;
  std::vector<size_t> chunk(columns_.size(), 0);  // per column: its current chunk
  std::vector<int64_t> used(columns_.size(), 0);  // rows of that chunk already batched
  for (int64_t row = 0; row < num_rows_;) {
    // Every column has rows left, so its current chunk exists.
    int64_t rows = num_rows_ - row;
    if (max_rows > 0) rows = std::min(rows, max_rows);
    for (size_t c = 0; c < columns_.size(); ++c) {
      rows = std::min(rows, columns_[c]->chunks()[chunk[c]]->length - used[c]);
    }
    std::vector<ArrayDataPtr> slices;
    for (size_t c = 0; c < columns_.size(); ++c) {
      const ArrayDataPtr& current = columns_[c]->chunks()[chunk[c]];
      QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr slice, quiver::Slice(current, used[c], rows));
      slices.push_back(std::move(slice));
      used[c] += rows;
      if (used[c] == current->length) ++chunk[c], used[c] = 0;
    }
    QUIVER_ASSIGN_OR_RETURN(
        RecordBatchPtr batch,
        RecordBatch::Make(schema_, rows, std::move(slices), ValidationLevel::kNone));
    out.push_back(std::move(batch));
    row += rows;
  }
  return out;
}

Result<TablePtr> Table::SelectColumns(std::span<const int> indices) const {
  auto schema = std::make_shared<Schema>();
  schema->metadata = schema_->metadata;
  std::vector<ChunkedArrayPtr> columns;
  for (int i : indices) {
    QUIVER_RETURN_NOT_OK(CheckIndex(i, num_columns(), "column"));
    schema->fields.push_back(schema_->fields[static_cast<size_t>(i)]);
    columns.push_back(column(i));
  }
  return Make(std::move(schema), std::move(columns), num_rows_);
}

Result<TablePtr> Table::RemoveColumn(int i) const {
  QUIVER_RETURN_NOT_OK(CheckIndex(i, num_columns(), "column"));
  std::vector<int> keep;
  for (int c = 0; c < num_columns(); ++c) {
    if (c != i) keep.push_back(c);
  }
  return SelectColumns(keep);
}

Result<TablePtr> Table::RenameColumns(std::span<const std::string> names) const {
  if (names.size() != columns_.size()) {
    return Status::Invalid("got ", names.size(), " names for ", columns_.size(), " columns");
  }
  auto schema = std::make_shared<Schema>(*schema_);
  for (size_t i = 0; i < names.size(); ++i) schema->fields[i].name = names[i];
  return Make(std::move(schema), columns_, num_rows_);
}

Status Table::CheckColumn(const Field& field, const ChunkedArray& column) const {
  if (!field.type || !column.type()->Equals(*field.type)) {
    return Status::TypeError("column '", field.name, "' is ", column.type()->ToString(),
                             ", its field says ",
                             field.type ? field.type->ToString() : std::string("<none>"));
  }
  // A table without columns takes the new column's length.
  if (!columns_.empty() && column.length() != num_rows_) {
    return Status::Invalid("column '", field.name, "' has ", column.length(), " rows, the table ",
                           num_rows_);
  }
  return Status::OK();
}

Result<TablePtr> Table::AddColumn(int i, Field field, ChunkedArrayPtr column) const {
  if (i < 0 || i > num_columns()) {
    return Status::IndexError("position ", i, " is out of range for adding to ", num_columns(),
                              " columns");
  }
  if (!column) return Status::Invalid("no column to add");
  QUIVER_RETURN_NOT_OK(CheckColumn(field, *column));
  auto schema = std::make_shared<Schema>(*schema_);
  schema->fields.insert(schema->fields.begin() + i, std::move(field));
  std::vector<ChunkedArrayPtr> columns = columns_;
  const int64_t rows = columns.empty() ? column->length() : num_rows_;
  columns.insert(columns.begin() + i, std::move(column));
  return Make(std::move(schema), std::move(columns), rows);
}

Result<TablePtr> Table::SetColumn(int i, Field field, ChunkedArrayPtr column) const {
  QUIVER_RETURN_NOT_OK(CheckIndex(i, num_columns(), "column"));
  if (!column) return Status::Invalid("no column to set");
  QUIVER_RETURN_NOT_OK(CheckColumn(field, *column));
  auto schema = std::make_shared<Schema>(*schema_);
  schema->fields[static_cast<size_t>(i)] = std::move(field);
  std::vector<ChunkedArrayPtr> columns = columns_;
  columns[static_cast<size_t>(i)] = std::move(column);
  return Make(std::move(schema), std::move(columns), num_rows_);
}

Result<TablePtr> Table::Slice(int64_t offset, int64_t length) const {
  if (offset < 0 || length < 0 || offset > num_rows_ || length > num_rows_ - offset) {
    return Status::IndexError("slice [", offset, ", +", length, ") is out of range for ", num_rows_,
                              " rows");
  }
  std::vector<ChunkedArrayPtr> columns;
  for (const ChunkedArrayPtr& column : columns_) {
    QUIVER_ASSIGN_OR_RETURN(ChunkedArrayPtr cut, column->Slice(offset, length));
    columns.push_back(std::move(cut));
  }
  return Make(schema_, std::move(columns), length);
}

Result<TablePtr> Table::Take(std::span<const int64_t> indices) const {
  // Each column's take checks the indices as it reads them (a table
  // without columns has only its row count to check them against).
  for (size_t j = 0; j < indices.size() && columns_.empty(); ++j) {
    if (indices[j] < 0 || indices[j] >= num_rows_) {
      return Status::IndexError("index ", indices[j], " at position ", j, " is out of range for ",
                                num_rows_, " rows");
    }
  }
  std::vector<ChunkedArrayPtr> columns;
  for (size_t c = 0; c < columns_.size(); ++c) {
    Result<ChunkedArrayPtr> taken = columns_[c]->Take(indices);
    if (!taken.ok()) {
      // An index out of range is the table's, not the column's.
      if (taken.status().code() == StatusCode::kIndexError) return taken.status();
      return taken.status().WithContext(ColumnName(*schema_, c));
    }
    columns.push_back(std::move(*taken));
  }
  return Make(schema_, std::move(columns), static_cast<int64_t>(indices.size()));
}

Result<TablePtr> Table::Filter(std::span<const uint8_t> mask) const {
  return Filter(RowMask::FromBytes(mask));
}

Result<TablePtr> Table::Filter(const RowMask& mask) const {
  if (mask.length() != num_rows_) {
    return Status::Invalid("filter mask has ", mask.length(), " entries for ", num_rows_, " rows");
  }
  std::vector<ChunkedArrayPtr> columns;
  for (size_t c = 0; c < columns_.size(); ++c) {
    Result<ChunkedArrayPtr> filtered = columns_[c]->Filter(mask);
    if (!filtered.ok()) return filtered.status().WithContext(ColumnName(*schema_, c));
    columns.push_back(std::move(*filtered));
  }
  const int64_t rows = columns.empty() ? mask.kept() : columns[0]->length();
  return Make(schema_, std::move(columns), rows);
}

Result<TablePtr> Table::CombineChunks() const {
  std::vector<ChunkedArrayPtr> columns;
  for (size_t c = 0; c < columns_.size(); ++c) {
    const ChunkedArrayPtr& column = columns_[c];
    if (column->num_chunks() <= 1) {
      columns.push_back(column);
      continue;
    }
    Result<ArrayDataPtr> combined = column->Combine();
    if (!combined.ok()) return combined.status().WithContext(ColumnName(*schema_, c));
    QUIVER_ASSIGN_OR_RETURN(ChunkedArrayPtr one,
                            ChunkedArray::Make(column->type(), {std::move(*combined)}));
    columns.push_back(std::move(one));
  }
  return Make(schema_, std::move(columns), num_rows_);
}

bool Table::Equals(const Table& other) const {
  if (!schema_->Equals(*other.schema_) || num_rows_ != other.num_rows_) return false;
  for (size_t c = 0; c < columns_.size(); ++c) {
    if (!columns_[c]->Equals(*other.columns_[c])) return false;
  }
  return true;
}

Result<TablePtr> ConcatenateTables(std::span<const TablePtr> tables) {
  if (tables.empty()) return Status::Invalid("concatenating tables needs at least one table");
  const SchemaPtr& schema = tables[0]->schema();
  std::vector<std::vector<ArrayDataPtr>> chunks(schema->fields.size());
  int64_t rows = 0;
  for (size_t t = 0; t < tables.size(); ++t) {
    if (!SameColumns(*tables[t]->schema(), *schema)) {
      return Status::Invalid("table ", t, " has another schema than table 0");
    }
    for (size_t c = 0; c < chunks.size(); ++c) {
      const std::vector<ArrayDataPtr>& add = tables[t]->column(static_cast<int>(c))->chunks();
      chunks[c].insert(chunks[c].end(), add.begin(), add.end());
    }
    rows += tables[t]->num_rows();
  }
  std::vector<ChunkedArrayPtr> columns;
  for (size_t c = 0; c < chunks.size(); ++c) {
    QUIVER_ASSIGN_OR_RETURN(ChunkedArrayPtr column,
                            ChunkedArray::Make(schema->fields[c].type, std::move(chunks[c])));
    columns.push_back(std::move(column));
  }
  return Table::Make(schema, std::move(columns), rows);
}

}  // namespace quiver
