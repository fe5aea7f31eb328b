// quiver.Table, qv.table() and qv.concat_tables(), and the verbs Table and
// RecordBatch share (py_table_verbs.h).
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <string>
#include <vector>

#include "py_bindings.h"
#include "py_c_device.h"
#include "py_capsules.h"
#include "py_errors.h"
#include "py_index.h"
#include "py_numpy.h"
#include "py_objects.h"
#include "py_pickle.h"
#include "py_record_batch.h"
#include "py_repr.h"
#include "py_table_verbs.h"
#include "quiver/table.h"

namespace quiver::python {

namespace {

// The type's name with its module (pyarrow.lib.Table, not just Table, so a
// pyarrow object is not taken for quiver's class of the same name).
std::string TypeName(nb::handle obj) {
  nb::handle type = obj.type();
  std::string name = nb::type_name(type).c_str();
  nb::object module = nb::getattr(type, "__module__", nb::none());
  if (!nb::isinstance<nb::str>(module)) return name;
  const std::string prefix = nb::cast<std::string>(module);
  if (prefix == "builtins" || name.rfind(prefix + ".", 0) == 0) return name;
  return prefix + "." + name;
}

std::string TableRepr(const PyTable& t) {
  std::vector<std::vector<ArrayDataPtr>> columns;
  const TablePtr& table = t.table();
  for (const ChunkedArrayPtr& column : table->columns()) columns.push_back(column->chunks());
  return TabularRepr("Table", table->num_rows(), *table->schema(), columns);
}

// Columns from a {name: column} dict or a list of columns with `names`.
TablePtr TableFromColumns(nb::handle obj, nb::handle names) {
  std::vector<nb::object> keys, values;
  if (nb::isinstance<nb::dict>(obj)) {
    if (!names.is_none())
      Raise(Status::TypeError("names= goes with a list of columns, not a dict"));
    for (auto [key, value] : nb::borrow<nb::dict>(obj)) {
      keys.push_back(nb::borrow(key));
      values.push_back(nb::borrow(value));
    }
  } else {
    if (names.is_none()) Raise(Status::TypeError("a list of columns needs names="));
    for (nb::handle value : obj) values.push_back(nb::borrow(value));
    for (nb::handle key : names) keys.push_back(nb::borrow(key));
    if (keys.size() != values.size()) {
      Raise(Status::Invalid("got " + std::to_string(keys.size()) + " names for " +
                            std::to_string(values.size()) + " columns"));
    }
  }
  auto schema = std::make_shared<Schema>();
  std::vector<ChunkedArrayPtr> columns;
  for (size_t i = 0; i < values.size(); ++i) {
    if (!nb::isinstance<nb::str>(keys[i])) {
      Raise(Status::TypeError("column names are str, got " + TypeName(keys[i])));
    }
    const std::string name = nb::cast<std::string>(keys[i]);
    ChunkedArrayPtr column = ColumnFromPython(values[i], ("column '" + name + "'").c_str());
    schema->fields.push_back(Field{name, column->type(), true, {}});
    columns.push_back(std::move(column));
  }
  return Unwrap(Table::Make(std::move(schema), std::move(columns)));
}

// 1-D NumPy arrays of strings, dates or objects, or with a mask: pyarrow
// makes these columns (nulls where masked), as pyarrow.table() would.
bool NumpyNeedsPyarrow(nb::handle ndarray) {
  if (nb::cast<int64_t>(ndarray.attr("ndim")) != 1) return false;
  const bool masked = nb::isinstance(ndarray, Numpy().attr("ma").attr("MaskedArray"));
  // NumPy user dtypes (ml_dtypes' bfloat16, float8 and the rest): pyarrow
  // has no type for them; quiver makes the ones it holds and names the others.
  if (nb::cast<int>(ndarray.attr("dtype").attr("num")) >= 256) return masked;
  const std::string kind = nb::cast<std::string>(ndarray.attr("dtype").attr("kind"));
  if (kind != "i" && kind != "u" && kind != "f" && kind != "b") return true;
  return masked;
}

// A 1-D NumPy array of a numeric dtype as a quiver array over its memory
// (zero-copy when contiguous); N-D arrays become fixed_shape_tensor columns.
ArrayDataPtr ArrayFromNumpy(nb::handle ndarray, const char* what) {
  const int64_t ndim = nb::cast<int64_t>(ndarray.attr("ndim"));
  if (ndim == 0) Raise(Status::Invalid(std::string(what) + " is a 0-d array, not a column"));
  if (ndim > 1) {
    nb::object fixed = nb::module_::import_("quiver._quiver").attr("FixedShapeTensorArray");
    return nb::cast<const PyFixedShapeTensorArray&>(fixed.attr("from_numpy")(ndarray)).array.data();
  }
  Tensor tensor = TensorFromArray(ViewArray(ndarray, what), {});
  Tensor contiguous = tensor.IsContiguous() ? tensor : Unwrap(tensor.ToContiguous());
  const int64_t length = contiguous.shape()[0];
  const int64_t width = contiguous.type()->byte_width();
  BufferPtr values =
      Unwrap(Buffer::Slice(contiguous.buffer(), contiguous.byte_offset(), length * width));
  auto data = std::make_shared<ArrayData>();
  data->type = contiguous.type();
  data->length = length;
  data->null_count = 0;
  data->buffers = {nullptr, std::move(values)};
  return data;
}

bool Imported(const char* module) {
  return PyDict_GetItemString(PyImport_GetModuleDict(), module) != nullptr;
}

}  // namespace

nb::object WithCanonicalTensorTypes(nb::handle obj) {
  // Ray's and Hugging Face datasets' tensor types exist only once their
  // library is imported; quiver.ray and quiver.huggingface turn them into
  // the canonical ones (values shared). Nothing is looked up otherwise, so
  // qv.table's per-call cost stays what it was.
  nb::object out = nb::borrow(obj);
  if (Imported("ray.data")) {
    out = nb::module_::import_("quiver.ray").attr("_canonical_if_ray")(out);
  }
  if (Imported("datasets")) {
    out = nb::module_::import_("quiver.huggingface").attr("_canonical_if_huggingface")(out);
  }
  return out;
}

ChunkedArrayPtr ColumnFromPython(nb::handle obj, const char* what) {
  if (nb::isinstance<PyChunkedArray>(obj)) return nb::cast<const PyChunkedArray&>(obj).column;
  ArrayDataPtr data;
  if (nb::isinstance<PyArray>(obj)) {
    data = nb::cast<const PyArray&>(obj).data;
  } else if (nb::isinstance<PyFixedShapeTensorArray>(obj)) {
    data = nb::cast<const PyFixedShapeTensorArray&>(obj).array.data();
  } else if (nb::isinstance<PyVariableShapeTensorArray>(obj)) {
    data = nb::cast<const PyVariableShapeTensorArray&>(obj).array.data();
  } else if (PyObject_TypeCheck(obj.ptr(), NumpyArrayType()) && !NumpyNeedsPyarrow(obj)) {
    data = ArrayFromNumpy(obj, what);
  } else if (PyObject_TypeCheck(obj.ptr(), NumpyArrayType())) {
    nb::object pa = nb::module_::import_("quiver._optional").attr("import_optional")("pyarrow");
    return ColumnFromPython(pa.attr("array")(obj), what);
  } else if (HasStreamProtocol(obj)) {
    std::shared_ptr<ArrayReader> reader = ImportStreamFrom(obj);
    std::vector<ArrayDataPtr> chunks;
    while (ArrayDataPtr chunk = Unwrap(reader->Next())) chunks.push_back(std::move(chunk));
    return Unwrap(ChunkedArray::Make(reader->field().type, std::move(chunks)));
  } else if (HasArrayProtocol(obj)) {
    data = ImportArrayFrom(obj).second;
  } else if (nb::isinstance<nb::list>(obj) || nb::isinstance<nb::tuple>(obj)) {
    // Python values: pyarrow infers their type, as pa.table() would.
    nb::object pa = nb::module_::import_("quiver._optional").attr("import_optional")("pyarrow");
    return ColumnFromPython(pa.attr("array")(obj), what);
  } else {
    Raise(Status::TypeError(std::string(what) +
                            " must be a quiver column, a NumPy array, a list, or an object with "
                            "__arrow_c_array__ / __arrow_c_stream__; got " +
                            TypeName(obj)));
  }
  return Unwrap(ChunkedArray::Make(data->type, {data}));
}

int ColumnIndex(const Schema& schema, nb::handle key) {
  const int count = static_cast<int>(schema.fields.size());
  if (nb::isinstance<nb::str>(key)) {
    const std::string name = nb::cast<std::string>(key);
    for (int i = 0; i < count; ++i) {
      if (schema.fields[static_cast<size_t>(i)].name == name) return i;
    }
    throw nb::key_error(("no column named '" + name + "'").c_str());
  }
  if (!nb::isinstance<nb::int_>(key) || nb::isinstance<nb::bool_>(key)) {
    Raise(Status::TypeError("a column is chosen by int or str, got " + TypeName(key)));
  }
  return static_cast<int>(ResolveIndex(nb::cast<int64_t>(key), count, "columns"));
}

std::vector<int> ColumnIndices(const Schema& schema, nb::handle columns) {
  if (nb::isinstance<nb::str>(columns)) {
    Raise(Status::TypeError("columns must be a list of names or positions, got a str"));
  }
  std::vector<int> out;
  for (nb::handle key : columns) out.push_back(ColumnIndex(schema, key));
  return out;
}

Field FieldForColumn(nb::handle field_or_name, const TypePtr& type) {
  if (nb::isinstance<nb::str>(field_or_name)) {
    return Field{nb::cast<std::string>(field_or_name), type, true, {}};
  }
  if (nb::isinstance<PyField>(field_or_name)) {
    Field field = nb::cast<const PyField&>(field_or_name).field;
    if (!field.type->Equals(*type)) {
      Raise(Status::TypeError("field '" + field.name + "' is " + field.type->ToString() +
                              ", the column is " + type->ToString()));
    }
    return field;
  }
  if (nb::hasattr(field_or_name, "__arrow_c_schema__")) {  // a pyarrow.Field, as pyarrow takes
    Field field = ImportSchemaCapsule(field_or_name.attr("__arrow_c_schema__")());
    if (!field.type->Equals(*type)) {
      Raise(Status::TypeError("field '" + field.name + "' is " + field.type->ToString() +
                              ", the column is " + type->ToString()));
    }
    return field;
  }
  Raise(
      Status::TypeError("a column is named by a str, a quiver.Field or an Arrow field "
                        "(__arrow_c_schema__), got " +
                        TypeName(field_or_name)));
}

std::vector<std::string> NewNames(const Schema& schema, nb::handle names) {
  std::vector<std::string> out;
  for (const Field& field : schema.fields) out.push_back(field.name);
  if (nb::isinstance<nb::dict>(names)) {
    for (auto [old_name, new_name] : nb::borrow<nb::dict>(names)) {
      const std::string from = nb::cast<std::string>(old_name);
      bool found = false;
      for (std::string& name : out) {
        if (schema.fields[static_cast<size_t>(&name - out.data())].name == from) {
          name = nb::cast<std::string>(new_name);
          found = true;
        }
      }
      if (!found) throw nb::key_error(("no column named '" + from + "'").c_str());
    }
    return out;
  }
  if (nb::isinstance<nb::str>(names)) {
    Raise(Status::TypeError("names must be a list or a dict, got a str"));
  }
  return nb::cast<std::vector<std::string>>(names);
}

nb::dict ColumnsToPydict(nb::handle self) {
  nb::dict out;
  nb::list names = self.attr("column_names");
  const size_t count = nb::len(names);
  for (size_t i = 0; i < count; ++i) {
    out[names[i]] = self.attr("column")(i).attr("to_pylist")();
  }
  return out;
}

nb::list RowsToPylist(nb::handle self) {
  nb::list names = self.attr("column_names");
  std::vector<nb::list> columns;
  for (size_t i = 0; i < nb::len(names); ++i) {
    columns.push_back(nb::cast<nb::list>(self.attr("column")(i).attr("to_pylist")()));
  }
  nb::list rows;
  const int64_t count = nb::cast<int64_t>(self.attr("num_rows"));
  for (int64_t r = 0; r < count; ++r) {
    nb::dict row;
    for (size_t c = 0; c < columns.size(); ++c) row[names[c]] = columns[c][static_cast<size_t>(r)];
    rows.append(row);
  }
  return rows;
}

TablePtr AsTable(const PyRecordBatch& batch) {
  std::vector<RecordBatchPtr> one = {batch.batch};
  return Unwrap(Table::FromRecordBatches(batch.batch->schema(), one));
}

PyRecordBatch Rewrap(const PyRecordBatch&, const TablePtr& table) {
  TablePtr combined = Unwrap(table->CombineChunks());
  std::vector<ArrayDataPtr> columns;
  for (const ChunkedArrayPtr& column : combined->columns())
    columns.push_back(Unwrap(column->Combine()));
  return PyRecordBatch{Unwrap(RecordBatch::Make(combined->schema(), combined->num_rows(),
                                                std::move(columns), ValidationLevel::kNone))};
}

void BindTable(nb::module_& m) {
  auto cls = nb::class_<PyTable>(m, "Table", "Named chunked columns of equal length.");
  cls.def_prop_ro("schema", [](const PyTable& t) { return PySchema{t.outline()->schema()}; })
      .def_prop_ro("num_rows", [](const PyTable& t) { return t.outline()->num_rows(); })
      .def_prop_ro("num_columns", [](const PyTable& t) { return t.outline()->num_columns(); })
      .def("__len__", [](const PyTable& t) { return t.outline()->num_rows(); })
      .def_prop_ro("columns",
                   [](const PyTable& t) {
                     nb::list out;
                     for (const ChunkedArrayPtr& c : t.table()->columns())
                       out.append(PyChunkedArray{c});
                     return out;
                   })
      .def(
          "column",
          [](const PyTable& t, nb::handle key) {
            return PyChunkedArray{t.column(ColumnIndex(*t.outline()->schema(), key))};
          },
          nb::arg("i"), "Column i, or the column of that name, as a ChunkedArray (zero-copy).")
      .def(
          "to_batches",
          [](const PyTable& t, std::optional<int64_t> max_chunksize) {
            if (max_chunksize && *max_chunksize <= 0) {
              Raise(Status::Invalid("max_chunksize must be positive, got " +
                                    std::to_string(*max_chunksize)));
            }
            nb::list out;
            for (const RecordBatchPtr& batch :
                 Unwrap(t.table()->ToRecordBatches(max_chunksize.value_or(0)))) {
              out.append(PyRecordBatch{batch});
            }
            return out;
          },
          nb::arg("max_chunksize").none() = nb::none(),
          "The rows as record batches (zero-copy): a batch ends where any column's chunk ends, "
          "and holds at most max_chunksize rows.")
      .def_static(
          "from_batches",
          [](nb::handle batches, nb::handle schema) {
            std::vector<RecordBatchPtr> list;
            for (nb::handle batch : batches) {
              if (!nb::isinstance<PyRecordBatch>(batch) && !HasArrayProtocol(batch)) {
                Raise(Status::TypeError("from_batches() takes record batches, got " +
                                        TypeName(batch)));
              }
              list.push_back(nb::cast<PyRecordBatch>(
                                 nb::module_::import_("quiver._quiver").attr("record_batch")(batch))
                                 .batch);
            }
            SchemaPtr resolved;
            if (!schema.is_none()) {
              resolved = SchemaFromPython(schema);
            } else if (!list.empty()) {
              resolved = list[0]->schema();
            } else {
              Raise(Status::Invalid("from_batches() of no batches needs schema="));
            }
            return PyTable{Unwrap(Table::FromRecordBatches(resolved, list))};
          },
          nb::arg("batches"), nb::arg("schema").none() = nb::none(),
          "A table of these record batches, in order, without copying; they must share one "
          "schema (schema= for none at all).")
      .def(
          "combine_chunks",
          [](const PyTable& t) {
            const TablePtr& table = t.table();
            return PyTable{Unwrap(WithoutGil([&] { return table->CombineChunks(); }))};
          },
          "Every column as one chunk (a copy of the columns that have several).")
      .def(
          "to_pyarrow",
          [](nb::handle self) {
            nb::object pa =
                nb::module_::import_("quiver._optional").attr("import_optional")("pyarrow");
            return pa.attr("table")(self);
          },
          "A pyarrow.Table over the same buffers (no copy), tensor columns as the canonical "
          "extension types.")
      .def(
          "equals",
          [](const PyTable& a, const PyTable& b) { return a.table()->Equals(*b.table()); },
          nb::arg("other"), "Equal schemas and values, wherever the chunk boundaries fall.")
      .def(
          "validate",
          [](const PyTable& t, bool full) {
            if (t.deferred()) {
              (void)t.table();  // the checks read_all(validate="lazy") put off, in full
              return;
            }
            const ValidationLevel level = full ? ValidationLevel::kFull : ValidationLevel::kDefault;
            const Table& table = *t.table();
            for (int c = 0; c < table.num_columns(); ++c) {
              Check(WithoutGil([&] { return table.ValidateColumn(c, level); }));
            }
          },
          nb::arg("full") = true,
          "Checks every column (full=False: the O(1) checks and the first and last offsets); "
          "raises ArrowInvalid naming the column, chunk and row. A table from "
          "read_all(validate='lazy') is validated in full here, once.")
      .def("__arrow_c_schema__",
           [](const PyTable& t) { return SchemaCapsule(BatchField(t.outline()->schema())); })
      .def(
          "__arrow_c_stream__",
          [](const PyTable& t, nb::handle /*requested_schema: best-effort, ignored*/) {
            const TablePtr& table = t.table();
            return StreamCapsule(
                BatchArrayReader(table->schema(), Unwrap(table->ToRecordBatches())));
          },
          nb::arg("requested_schema").none() = nb::none())
      .def(
          "__arrow_c_device_stream__",
          [](const PyTable& t, nb::handle /*requested_schema: best-effort, ignored*/,
             nb::kwargs kwargs) {
            const TablePtr& table = t.table();
            return DeviceStreamCapsule(
                BatchArrayReader(table->schema(), Unwrap(table->ToRecordBatches())), kwargs);
          },
          nb::arg("requested_schema").none() = nb::none(), nb::arg("kwargs"))
      .def("__repr__", &TableRepr)
      .def(
          "__reduce_ex__", [](const PyTable& t, int protocol) { return ReduceTable(t, protocol); },
          nb::arg("protocol"))
      .def("__copy__", [](nb::handle self) { return nb::borrow(self); })
      .def(
          "__deepcopy__", [](const PyTable& t, nb::handle) { return Rebuild(ReduceTable(t, 4)); },
          nb::arg("memo"));
  AddTableVerbs(cls);
  nb::setattr(cls, "__hash__", nb::none());

  m.def(
      "table",
      [](nb::handle given, nb::handle names) {
        // First: a datasets.DatasetDict is a dict, and must not pass for columns.
        nb::object obj = WithCanonicalTensorTypes(given);
        if (nb::isinstance<nb::dict>(obj) || nb::isinstance<nb::list>(obj) ||
            nb::isinstance<nb::tuple>(obj)) {
          return PyTable{TableFromColumns(obj, names)};
        }
        if (!names.is_none()) Raise(Status::TypeError("names= goes with a list of columns"));
        return PyTable{TableFromPython(obj)};
      },
      nb::arg("obj"), nb::arg("names").none() = nb::none(),
      "A Table from a {name: column} dict, a list of columns with names=, or any "
      "__arrow_c_stream__ producer (pyarrow Table, polars DataFrame, DuckDB results) or record "
      "batch. Columns: quiver arrays and chunked arrays, NumPy arrays (1-D numeric: zero-copy; "
      "N-D: fixed_shape_tensor), anything with __arrow_c_array__ / __arrow_c_stream__, lists "
      "(through pyarrow). Nothing is copied but lists; foreign data is validated fully.");
  m.def(
      "concat_tables",
      [](nb::handle tables) {
        std::vector<TablePtr> list;
        for (nb::handle t : tables) {
          if (!nb::isinstance<PyTable>(t)) {
            Raise(Status::TypeError("concat_tables() takes quiver Tables, got " + TypeName(t)));
          }
          list.push_back(nb::cast<const PyTable&>(t).table());
        }
        return PyTable{Unwrap(ConcatenateTables(list))};
      },
      nb::arg("tables"),
      "The rows of these tables one after another, their chunks kept (no copy); the schemas "
      "must be equal.");
}

}  // namespace quiver::python
