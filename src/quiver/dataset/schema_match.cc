// Whether the sources of a dataset share one schema, and the first
// difference where they do not (schema_match.h).
#include "quiver/dataset/schema_match.h"

#include <algorithm>

#include "quiver/fixed_shape_tensor.h"
#include "quiver/variable_shape_tensor.h"

namespace quiver::dataset {

namespace {

// A type as users know it: tensor types with their parameters.
std::string TypeText(const TypePtr& type) {
  if (type->id() == TypeId::kExtension &&
      type->extension_name() == VariableShapeTensorType::kExtensionName) {
    Result<VariableShapeTensorType> ragged = VariableShapeTensorType::FromDataType(type);
    if (ragged.ok()) return ragged->ToString();
  }
  if (type->id() == TypeId::kExtension &&
      type->extension_name() == FixedShapeTensorType::kExtensionName) {
    Result<FixedShapeTensorType> fixed = FixedShapeTensorType::FromDataType(type);
    if (fixed.ok()) return fixed->ToString();
  }
  return type->ToString();
}

}  // namespace

std::string ColumnName(const Schema& schema, size_t i) {
  return "column " + std::to_string(i) + " '" + schema.fields[i].name + "'";
}

Status CompareSchemas(const Schema& expected, const Schema& actual, const std::string& first,
                      const std::string& file) {
  const size_t n = std::min(expected.fields.size(), actual.fields.size());
  for (size_t i = 0; i < n; ++i) {
    const Field& want = expected.fields[i];
    const Field& got = actual.fields[i];
    if (want.name != got.name) {
      return Status::Invalid("file ", file, ": ", ColumnName(actual, i), " differs from ",
                             ColumnName(expected, i), " of file ", first,
                             " (every file must have the same schema)");
    }
    if (!want.type->Equals(*got.type) || want.metadata != got.metadata) {
      // Ragged columns of another ndim land here too: rows of one column
      // must agree in ndim across files to be padded into one batch.
      return Status::Invalid("file ", file, ": ", ColumnName(actual, i), " has type ",
                             TypeText(got.type), " but in file ", first, " it has type ",
                             TypeText(want.type), " (every file must have the same schema)");
    }
  }
  if (expected.fields.size() != actual.fields.size()) {
    const bool more = actual.fields.size() > expected.fields.size();
    const Schema& longer = more ? actual : expected;
    return Status::Invalid("file ", file, ": ", ColumnName(longer, n),
                           more ? " is not in file " : " is missing (it is in file ", first,
                           more ? "" : ")", " (every file must have the same schema)");
  }
  return Status::OK();
}

}  // namespace quiver::dataset
