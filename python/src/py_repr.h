// Reprs: NumPy-style text of values, the repr of a column, and the reprs
// of schemas, record batches and tables: the schema's fields with
// their types spelled out (tensor types by their parameters, never as
// storage structs), then a one-line preview of each column.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nanobind/nanobind.h>

#include "quiver/array.h"
#include "quiver/type.h"

#include "quiver/tensor.h"

namespace quiver::python {

namespace nb = nanobind;

// NumPy-style text of one array (summarised past a few elements);
// continuation lines start with `prefix` (the text before the array).
std::string FormatValues(nb::handle array, const std::string& prefix = "");
// A host tensor as a NumPy array to print: TensorToNumpy, except that
// bfloat16 / float8 values print as float32 when ml_dtypes is missing (a
// repr never needs the optional package).
nb::object ValuesForRepr(const Tensor& tensor);
// The repr of a column: `header`, then one line per shown row (the first
// and last three of long columns), `row(i)` giving an array or None (null).
template <typename RowFn>
std::string FormatColumn(const std::string& header, int64_t length, RowFn&& row) {
  std::string out = header + "\n[";
  auto show = [&](int64_t i) {
    out += i == 0 ? "\n  " : ",\n  ";
    out += row(i);
  };
  if (length <= 8) {
    for (int64_t i = 0; i < length; ++i) show(i);
  } else {
    for (int64_t i = 0; i < 3; ++i) show(i);
    out += ",\n  ...";
    for (int64_t i = length - 3; i < length; ++i) show(i);
  }
  out += length > 0 ? "\n]" : "]";
  return out;
}

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
