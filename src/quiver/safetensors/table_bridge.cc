// A safetensors file as a one-row table of fixed_shape_tensor columns and
// back: the form `quiver convert` writes to Arrow files and Python's
// qv.safetensors.to_table / from_table hand out.
#include <map>
#include <string>
#include <vector>

#include "quiver/fixed_shape_tensor.h"
#include "quiver/safetensors.h"

namespace quiver {
namespace {

bool IsFixedShapeTensor(const Field& field) {
  return field.type->id() == TypeId::kExtension &&
         field.type->extension_name() == FixedShapeTensorType::kExtensionName;
}

// The dtype to write a column with: only BF16 and F8_* need saying (a
// bfloat16 / float8 column says it itself, but a uint16 / uint8 column of
// such bits, as pyarrow hands them back, needs the note); any other
// recorded dtype may be stale (the column was rewritten with another
// element type), so the element type decides.
std::string DtypeToWrite(const Field& field) {
  for (const auto& [key, value] : field.metadata) {
    if (key == kSafetensorsDtypeKey && (value == "BF16" || value.starts_with("F8_"))) return value;
  }
  return "";
}

// The one row of a column, whichever chunk holds it.
Result<Tensor> RowOf(const Field& field, const ChunkedArray& column) {
  for (const ArrayDataPtr& chunk : column.chunks()) {
    if (chunk->length == 0) continue;
    QUIVER_ASSIGN_OR_RETURN(auto array, FixedShapeTensorArray::Make(chunk));
    auto tensor = array.RowTensor(0);
    if (!tensor.ok()) return tensor.status().WithContext("column '" + field.name + "'");
    return tensor;
  }
  return Status::Invalid("column '", field.name, "' has no row");
}

}  // namespace

Result<TablePtr> SafetensorsToTable(const SafetensorsFile& file) {
  auto schema = std::make_shared<Schema>();
  for (const auto& [key, value] : file.metadata()) schema->metadata.emplace_back(key, value);
  std::vector<ArrayDataPtr> columns;
  columns.reserve(file.entries().size());
  for (const SafetensorsEntry& entry : file.entries()) {
    QUIVER_ASSIGN_OR_RETURN(Tensor tensor, file.GetTensor(entry.name));
    // A leading axis of 1 makes the tensor one row; row-major, so the
    // column's values are the file's bytes themselves.
    QUIVER_ASSIGN_OR_RETURN(Tensor row, tensor.View({TensorIndex::NewAxis()}));
    auto array = FixedShapeTensorArray::FromTensor(row, CopyMode::kNever);
    if (!array.ok()) return array.status().WithContext("tensor '" + entry.name + "'");
    schema->fields.push_back(
        Field{entry.name, array->data()->type, true, {{kSafetensorsDtypeKey, entry.dtype}}});
    columns.push_back(array->data());
  }
  QUIVER_ASSIGN_OR_RETURN(auto batch, RecordBatch::Make(schema, 1, std::move(columns)));
  return Table::FromRecordBatches(schema, {&batch, 1});
}

Result<SafetensorsContents> SafetensorsFromTable(const Table& table) {
  if (table.num_rows() != 1) {
    return Status::Invalid("the table holds ", table.num_rows(),
                           " rows; a safetensors file is written from exactly one");
  }
  const Schema& schema = *table.schema();
  SafetensorsContents contents;
  contents.tensors.reserve(schema.fields.size());
  for (int i = 0; i < table.num_columns(); ++i) {
    const Field& field = schema.fields[static_cast<size_t>(i)];
    if (!IsFixedShapeTensor(field)) {
      return Status::Invalid("column '", field.name, "' is ", field.type->ToString(),
                             ", not a fixed_shape_tensor");
    }
    QUIVER_ASSIGN_OR_RETURN(Tensor tensor, RowOf(field, *table.column(i)));
    contents.tensors.push_back({field.name, std::move(tensor), DtypeToWrite(field)});
  }
  // std::map's range constructor keeps the first value of a repeated key.
  contents.metadata =
      std::map<std::string, std::string>(schema.metadata.begin(), schema.metadata.end());
  return contents;
}

}  // namespace quiver
