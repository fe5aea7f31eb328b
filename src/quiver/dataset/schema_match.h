// Internal: the check that every source of a dataset (and of the loader)
// has the first one's schema, with errors naming the column that differs.
#pragma once

#include <cstddef>
#include <string>

#include "quiver/type.h"

namespace quiver::dataset {

// "column 2 'images'".
std::string ColumnName(const Schema& schema, size_t i);

// The first difference between two schemas (names, types, field metadata,
// column count), or OK; `file` and `first` name the sources in the
// message ("file b.arrow: column 1 'x' has type ... but in file a.arrow
// it has type ... (every file must have the same schema)").
Status CompareSchemas(const Schema& expected, const Schema& actual, const std::string& first,
                      const std::string& file);

}  // namespace quiver::dataset
