// The reprs of schemas, record batches and tables: the schema's fields with
// their types spelled out (tensor types by their parameters, never as
// storage structs), then a one-line preview of each column.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "quiver/array.h"
#include "quiver/type.h"

namespace quiver::python {

// "quiver.Schema" then one "name: type" line per field and the schema
// metadata, if any, under "-- schema metadata --".
std::string SchemaRepr(const Schema& schema);

// "quiver.<cls>: <rows> rows", the schema's fields, "----", then per
// column its first rows on one line ("img: [[0, 1], null, ...]"): the
// repr of a RecordBatch or Table. `columns` holds each column's chunks in
// order. Columns in device memory are not read: they show "<device memory>".
std::string TabularRepr(const char* cls, int64_t rows, const Schema& schema,
                        const std::vector<std::vector<ArrayDataPtr>>& columns);

}  // namespace quiver::python
