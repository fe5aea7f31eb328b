// The verbs Table and RecordBatch share, with pyarrow's names and meanings,
// written once over quiver::Table: a RecordBatch is viewed as a table of
// one batch and each result turned back into one batch.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <optional>
#include <string>
#include <vector>

#include "py_errors.h"
#include "py_index.h"
#include "py_objects.h"
#include "py_record_batch.h"
#include "quiver/table.h"

namespace quiver::python {

namespace nb = nanobind;

// A RecordBatch as a one-batch table (zero-copy), and a table back as one
// batch (chunks combined: a copy only where a column has several).
TablePtr AsTable(const PyRecordBatch& batch);
inline TablePtr AsTable(const PyTable& table) { return table.table(); }
PyRecordBatch Rewrap(const PyRecordBatch&, const TablePtr& table);
inline PyTable Rewrap(const PyTable&, const TablePtr& table) { return PyTable{table}; }
// For the schema and the counts alone: a table read with
// read_all(validate="lazy") stays unchecked.
inline TablePtr Outline(const PyRecordBatch& batch) { return AsTable(batch); }
inline TablePtr Outline(const PyTable& table) { return table.outline(); }

// Column positions from names and ints (KeyError / IndexError).
std::vector<int> ColumnIndices(const Schema& schema, nb::handle columns);
// A field for a column being added: a name, or a qv.Field or any Arrow
// field with __arrow_c_schema__ (a pyarrow.Field) of the column's type
// (TypeError otherwise). `type` is the column's.
Field FieldForColumn(nb::handle field_or_name, const TypePtr& type);
// New names from a list (one per column) or a {old: new} dict.
std::vector<std::string> NewNames(const Schema& schema, nb::handle names);
// Rows as dicts / columns as lists, through each column's to_pylist().
nb::list RowsToPylist(nb::handle self);
nb::dict ColumnsToPydict(nb::handle self);

template <typename Py>
void AddTableVerbs(nb::class_<Py>& cls) {
  cls.def(
         "__getitem__",
         [](nb::handle self, nb::handle key) -> nb::object {
           if (nb::isinstance<nb::slice>(key)) {
             const Py& py = nb::cast<const Py&>(self);
             TablePtr table = AsTable(py);
             nb::slice slice = nb::borrow<nb::slice>(key);
             std::vector<int64_t> rows;
             if (SliceRows(slice, table->num_rows(), &rows)) {
               return nb::cast(Rewrap(py, Unwrap(table->Take(rows))));
             }
             auto [start, count] = ResolveSlice(slice, table->num_rows());
             return nb::cast(Rewrap(py, Unwrap(table->Slice(start, count))));
           }
           return self.attr("column")(key);
         },
         nb::arg("key"),
         "A column by name or position (negative counts from the end), or rows by a slice "
         "(zero-copy; a copy of the rows for a step other than 1, as pyarrow).")
      .def_prop_ro("column_names",
                   [](const Py& py) {
                     nb::list out;
                     for (const Field& f : Outline(py)->schema()->fields) out.append(f.name);
                     return out;
                   })
      .def_prop_ro("shape",
                   [](const Py& py) {
                     TablePtr table = Outline(py);
                     return nb::make_tuple(table->num_rows(), table->num_columns());
                   })
      .def(
          "field",
          [](const Py& py, nb::handle key) {
            TablePtr table = Outline(py);
            return PyField{
                table->schema()->fields[static_cast<size_t>(ColumnIndex(*table->schema(), key))]};
          },
          nb::arg("i"), "Field i, or the field of that name.")
      .def(
          "select",
          [](const Py& py, nb::handle columns) {
            TablePtr table = AsTable(py);
            return Rewrap(py,
                          Unwrap(table->SelectColumns(ColumnIndices(*table->schema(), columns))));
          },
          nb::arg("columns"), "These columns (names or positions), in this order; no copy.")
      .def(
          "drop_columns",
          [](const Py& py, nb::handle columns) {
            TablePtr table = AsTable(py);
            nb::object list = nb::isinstance<nb::str>(columns) ? nb::object(nb::make_tuple(columns))
                                                               : nb::borrow(columns);
            std::vector<int> drop = ColumnIndices(*table->schema(), list);
            std::vector<int> keep;
            for (int c = 0; c < table->num_columns(); ++c) {
              if (std::find(drop.begin(), drop.end(), c) == drop.end()) keep.push_back(c);
            }
            return Rewrap(py, Unwrap(table->SelectColumns(keep)));
          },
          nb::arg("columns"), "Without these columns (a name or a list of names); no copy.")
      .def(
          "remove_column",
          [](const Py& py, int64_t i) {
            TablePtr table = AsTable(py);
            const int index = static_cast<int>(ResolveIndex(i, table->num_columns(), "columns"));
            return Rewrap(py, Unwrap(table->RemoveColumn(index)));
          },
          nb::arg("i"), "Without column i; no copy.")
      .def(
          "rename_columns",
          [](const Py& py, nb::handle names) {
            TablePtr table = AsTable(py);
            std::vector<std::string> renamed = NewNames(*table->schema(), names);
            return Rewrap(py, Unwrap(table->RenameColumns(renamed)));
          },
          nb::arg("names"), "New names: a list with one per column, or a {old: new} dict.")
      .def(
          "add_column",
          [](const Py& py, int64_t i, nb::handle field, nb::handle column) {
            TablePtr table = AsTable(py);
            ChunkedArrayPtr values = ColumnFromPython(column, "column");
            if (i < 0 || i > table->num_columns()) {
              Raise(Status::IndexError("position " + std::to_string(i) +
                                       " is out of range for adding to " +
                                       std::to_string(table->num_columns()) + " columns"));
            }
            return Rewrap(py,
                          Unwrap(table->AddColumn(static_cast<int>(i),
                                                  FieldForColumn(field, values->type()), values)));
          },
          nb::arg("i"), nb::arg("field_"), nb::arg("column"),
          "With `column` inserted at position i, named by `field_` (a name, a qv.Field or a "
          "pyarrow.Field of the column's type).")
      .def(
          "append_column",
          [](const Py& py, nb::handle field, nb::handle column) {
            TablePtr table = AsTable(py);
            ChunkedArrayPtr values = ColumnFromPython(column, "column");
            return Rewrap(py,
                          Unwrap(table->AddColumn(table->num_columns(),
                                                  FieldForColumn(field, values->type()), values)));
          },
          nb::arg("field_"), nb::arg("column"), "With `column` added at the end.")
      .def(
          "set_column",
          [](const Py& py, int64_t i, nb::handle field, nb::handle column) {
            TablePtr table = AsTable(py);
            ChunkedArrayPtr values = ColumnFromPython(column, "column");
            const int index = static_cast<int>(ResolveIndex(i, table->num_columns(), "columns"));
            return Rewrap(
                py, Unwrap(table->SetColumn(index, FieldForColumn(field, values->type()), values)));
          },
          nb::arg("i"), nb::arg("field_"), nb::arg("column"), "With column i replaced.")
      .def(
          "slice",
          [](const Py& py, int64_t offset, std::optional<int64_t> length) {
            TablePtr table = AsTable(py);
            auto [start, count] = ClipSlice(offset, length, table->num_rows());
            return Rewrap(py, Unwrap(table->Slice(start, count)));
          },
          nb::arg("offset") = 0, nb::arg("length").none() = nb::none(),
          "Rows [offset, offset + length), clipped to the rows there are; no copy.")
      .def(
          "take",
          [](const Py& py, nb::handle indices) {
            TablePtr table = AsTable(py);
            auto index = IndexArray(indices, table->num_rows());
            std::span<const int64_t> span(index.data(), index.shape(0));
            return Rewrap(py, Unwrap(WithoutGil([&] { return table->Take(span); })));
          },
          nb::arg("indices"),
          "The rows `indices` picks (ints, repeats allowed), copied; one run of consecutive "
          "rows of one chunk is a zero-copy slice.")
      .def(
          "filter",
          [](const Py& py, nb::handle mask) {
            TablePtr table = AsTable(py);
            const RowMask rows = MaskRows(mask);
            return Rewrap(py, Unwrap(WithoutGil([&] { return table->Filter(rows); })));
          },
          nb::arg("mask"),
          "The rows where `mask` (bools, one per row) is True, copied; a null in the mask "
          "(an Arrow null, a numpy.ma masked entry, None) selects nothing, as in pyarrow.")
      .def("to_pylist", &RowsToPylist, "One dict per row: column name -> value.")
      .def("to_pydict", &ColumnsToPydict, "Column name -> the column's to_pylist().")
      .def(
          "to_pandas",
          [](nb::handle self) {
            return nb::module_::import_("quiver._pandas").attr("to_pandas")(self);
          },
          "A pandas DataFrame (through pyarrow): tensor columns hold one NumPy array per row "
          "(None for a null row), read-only views of quiver's buffers; other columns as "
          "pyarrow converts them.")
      .def(
          "__eq__",
          [](const Py& a, nb::handle b) {
            return nb::isinstance<Py>(b) && AsTable(a)->Equals(*AsTable(nb::cast<const Py&>(b)));
          },
          nb::arg("other"));
}

}  // namespace quiver::python
