#include "py_record_batch.h"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include "py_c_device.h"
#include "py_capsules.h"
#include "py_convert.h"
#include "py_objects.h"
#include "py_pickle.h"
#include "quiver/fixed_shape_tensor.h"

namespace quiver::python {

namespace {

nb::dict MetadataToPython(const KeyValueMetadata& metadata) {
  nb::dict out;
  for (const auto& [key, value] : metadata) {
    out[nb::bytes(key.data(), key.size())] = nb::bytes(value.data(), value.size());
  }
  return out;
}

// Column i or the column named `key`.
int ColumnIndex(const Schema& schema, nb::handle key) {
  const int count = static_cast<int>(schema.fields.size());
  if (nb::isinstance<nb::str>(key)) {
    const std::string name = nb::cast<std::string>(key);
    for (int i = 0; i < count; ++i) {
      if (schema.fields[static_cast<size_t>(i)].name == name) return i;
    }
    throw nb::key_error(("no column named '" + name + "'").c_str());
  }
  if (!nb::isinstance<nb::int_>(key)) Raise(Status::TypeError("a column is chosen by int or str"));
  return static_cast<int>(ResolveIndex(nb::cast<int64_t>(key), count));
}

PyRecordBatch BatchFromPython(nb::handle obj) {
  if (nb::isinstance<PyRecordBatch>(obj)) return nb::cast<PyRecordBatch>(obj);
  if (HasArrayProtocol(obj)) {
    auto [field, data] = ImportArrayFrom(obj);
    return PyRecordBatch{Unwrap(RecordBatch::FromStructArray(field, data, ValidationLevel::kNone))};
  }
  PyTable table = TableFromPython(obj);
  if (table.batches.size() != 1) {
    Raise(Status::Invalid("expected one record batch, the stream holds " +
                          std::to_string(table.batches.size())));
  }
  return PyRecordBatch{table.batches[0]};
}

PyChunkedArray ChunkedFromPython(nb::handle obj) {
  if (nb::isinstance<PyChunkedArray>(obj)) return nb::cast<PyChunkedArray>(obj);
  if (HasStreamProtocol(obj)) {
    std::shared_ptr<ArrayReader> reader = ImportStreamFrom(obj);
    PyChunkedArray out{reader->field().type, {}};
    while (ArrayDataPtr chunk = Unwrap(reader->Next())) out.chunks.push_back(std::move(chunk));
    return out;
  }
  if (HasArrayProtocol(obj)) {
    auto [field, data] = ImportArrayFrom(obj);
    return PyChunkedArray{field.type, {data}};
  }
  Raise(Status::TypeError(std::string("chunked_array() needs an object with __arrow_c_stream__ or "
                                      "__arrow_c_array__, got ") +
                          nb::type_name(obj.type()).c_str()));
}

nb::list WrapChunks(const std::vector<ArrayDataPtr>& chunks) {
  nb::list out;
  for (const ArrayDataPtr& chunk : chunks) out.append(WrapArray(chunk));
  return out;
}

}  // namespace

Field BatchField(const SchemaPtr& schema) {
  return Field{"", struct_(schema->fields), false, schema->metadata};
}

SchemaPtr SchemaFromPython(nb::handle obj) {
  if (nb::isinstance<PySchema>(obj)) return nb::cast<PySchema>(obj).schema;
  if (!nb::hasattr(obj, "__arrow_c_schema__")) {
    Raise(Status::TypeError(std::string("expected a schema (qv.Schema or an object with "
                                        "__arrow_c_schema__), got ") +
                            nb::type_name(obj.type()).c_str()));
  }
  Field field = ImportSchemaCapsule(obj.attr("__arrow_c_schema__")());
  if (field.type->id() != TypeId::kStruct) {
    Raise(Status::TypeError("a schema is a struct type, got " + field.type->ToString()));
  }
  auto schema = std::make_shared<Schema>();
  schema->fields = field.type->children();
  schema->metadata = field.metadata;
  return schema;
}

PyTable TableFromPython(nb::handle obj) {
  if (nb::isinstance<PyTable>(obj)) return nb::cast<PyTable>(obj);
  if (nb::isinstance<PyRecordBatch>(obj)) {
    RecordBatchPtr batch = nb::cast<PyRecordBatch>(obj).batch;
    return PyTable{batch->schema(), {batch}};
  }
  if (HasStreamProtocol(obj)) {
    std::shared_ptr<ArrayReader> reader = ImportStreamFrom(obj);
    const Field& field = reader->field();
    if (field.type->id() != TypeId::kStruct) {
      Raise(Status::TypeError("a table comes from a stream of struct arrays, got " +
                              field.type->ToString()));
    }
    auto schema = std::make_shared<Schema>();
    schema->fields = field.type->children();
    schema->metadata = field.metadata;
    PyTable out{schema, {}};
    while (ArrayDataPtr data = Unwrap(reader->Next())) {
      // Already validated by the stream import.
      RecordBatchPtr batch =
          Unwrap(RecordBatch::FromStructArray(field, data, ValidationLevel::kNone));
      out.batches.push_back(Unwrap(
          RecordBatch::Make(schema, batch->num_rows(), batch->columns(), ValidationLevel::kNone)));
    }
    return out;
  }
  if (HasArrayProtocol(obj)) {
    RecordBatchPtr batch = BatchFromPython(obj).batch;
    return PyTable{batch->schema(), {batch}};
  }
  Raise(Status::TypeError(std::string("table() needs an object with __arrow_c_stream__ or "
                                      "__arrow_c_array__, got ") +
                          nb::type_name(obj.type()).c_str()));
}

std::shared_ptr<ArrayReader> BatchArrayReader(const SchemaPtr& schema,
                                              std::vector<RecordBatchPtr> batches) {
  std::vector<ArrayDataPtr> arrays;
  for (const RecordBatchPtr& batch : batches) arrays.push_back(batch->ToStructArray());
  return MakeArrayReader(BatchField(schema), std::move(arrays));
}

void BindRecordBatch(nb::module_& m) {
  nb::class_<PyField>(m, "Field", "A named, typed column with key/value metadata.")
      .def_prop_ro("name", [](const PyField& f) { return f.field.name; })
      .def_prop_ro("type", [](const PyField& f) { return WrapType(f.field.type); })
      .def_prop_ro("nullable", [](const PyField& f) { return f.field.nullable; })
      .def_prop_ro("metadata", [](const PyField& f) { return MetadataToPython(f.field.metadata); })
      .def("equals", [](const PyField& a, const PyField& b) { return a.field.Equals(b.field); })
      .def("__eq__",
           [](const PyField& a, nb::handle b) {
             return nb::isinstance<PyField>(b) && a.field.Equals(nb::cast<PyField>(b).field);
           })
      .def("__arrow_c_schema__", [](const PyField& f) { return SchemaCapsule(f.field); })
      .def("__repr__", [](const PyField& f) { return "quiver.Field<" + f.field.ToString() + ">"; })
      .def("__reduce__", [](const PyField& f) { return ReduceField(f.field); })
      .def("__copy__", [](nb::handle self) { return nb::borrow(self); })
      .def(
          "__deepcopy__", [](nb::handle self, nb::handle) { return nb::borrow(self); },
          nb::arg("memo"));

  nb::class_<PySchema>(m, "Schema", "Named, typed fields and key/value metadata.")
      .def_prop_ro("names",
                   [](const PySchema& s) {
                     nb::list out;
                     for (const Field& f : s.schema->fields) out.append(f.name);
                     return out;
                   })
      .def_prop_ro("types",
                   [](const PySchema& s) {
                     nb::list out;
                     for (const Field& f : s.schema->fields) out.append(WrapType(f.type));
                     return out;
                   })
      .def_prop_ro("metadata",
                   [](const PySchema& s) { return MetadataToPython(s.schema->metadata); })
      .def(
          "field",
          [](const PySchema& s, nb::handle key) {
            return PyField{s.schema->fields[static_cast<size_t>(ColumnIndex(*s.schema, key))]};
          },
          nb::arg("i"), "Field i, or the field of that name.")
      .def("__len__", [](const PySchema& s) { return s.schema->fields.size(); })
      .def("equals",
           [](const PySchema& a, const PySchema& b) { return a.schema->Equals(*b.schema); })
      .def("__eq__",
           [](const PySchema& a, nb::handle b) {
             return nb::isinstance<PySchema>(b) && a.schema->Equals(*nb::cast<PySchema>(b).schema);
           })
      .def("__arrow_c_schema__",
           [](const PySchema& s) { return SchemaCapsule(BatchField(s.schema)); })
      .def("__repr__",
           [](const PySchema& s) {
             std::string out = "quiver.Schema";
             for (const Field& f : s.schema->fields) out += "\n  " + f.ToString();
             return out;
           })
      .def("__reduce__", [](const PySchema& s) { return ReduceSchema(*s.schema); })
      .def("__copy__", [](nb::handle self) { return nb::borrow(self); })
      .def(
          "__deepcopy__", [](nb::handle self, nb::handle) { return nb::borrow(self); },
          nb::arg("memo"));

  nb::class_<PyRecordBatch>(m, "RecordBatch", "Equal-length columns under a schema.")
      .def_prop_ro("schema", [](const PyRecordBatch& b) { return PySchema{b.batch->schema()}; })
      .def_prop_ro("num_rows", [](const PyRecordBatch& b) { return b.batch->num_rows(); })
      .def_prop_ro("num_columns", [](const PyRecordBatch& b) { return b.batch->num_columns(); })
      .def("__len__", [](const PyRecordBatch& b) { return b.batch->num_rows(); })
      .def(
          "column",
          [](const PyRecordBatch& b, nb::handle key) {
            return WrapArray(b.batch->column(ColumnIndex(*b.batch->schema(), key)));
          },
          nb::arg("i"), "Column i, or the column of that name, as its quiver array class.")
      .def_prop_ro("columns", [](const PyRecordBatch& b) { return WrapChunks(b.batch->columns()); })
      .def(
          "slice",
          [](const PyRecordBatch& b, int64_t offset, std::optional<int64_t> length) {
            return PyRecordBatch{
                Unwrap(b.batch->Slice(offset, length.value_or(b.batch->num_rows() - offset)))};
          },
          nb::arg("offset") = 0, nb::arg("length").none() = nb::none())
      .def("equals",
           [](const PyRecordBatch& a, const PyRecordBatch& b) { return a.batch->Equals(*b.batch); })
      .def("__arrow_c_schema__",
           [](const PyRecordBatch& b) { return SchemaCapsule(BatchField(b.batch->schema())); })
      .def(
          "__arrow_c_array__",
          [](const PyRecordBatch& b, nb::handle /*requested_schema: best-effort, ignored*/) {
            nb::object schema = SchemaCapsule(BatchField(b.batch->schema()));
            return nb::make_tuple(schema, ArrayCapsule(b.batch->ToStructArray()));
          },
          nb::arg("requested_schema").none() = nb::none())
      .def(
          "__arrow_c_device_array__",
          [](const PyRecordBatch& b, nb::handle /*requested_schema: best-effort, ignored*/,
             nb::kwargs kwargs) {
            CheckDeviceKwargs(kwargs);
            return DeviceArrayCapsules(BatchField(b.batch->schema()), b.batch->ToStructArray());
          },
          nb::arg("requested_schema").none() = nb::none(), nb::arg("kwargs"))
      .def("__repr__",
           [](const PyRecordBatch& b) {
             return "quiver.RecordBatch: " + std::to_string(b.batch->num_rows()) + " rows\n" +
                    nb::cast<std::string>(nb::repr(nb::cast(PySchema{b.batch->schema()})));
           })
      .def(
          "__reduce_ex__",
          [](const PyRecordBatch& b, int protocol) {
            return ReduceRecordBatch(*b.batch, protocol);
          },
          nb::arg("protocol"))
      .def("__copy__", [](nb::handle self) { return nb::borrow(self); })
      .def(
          "__deepcopy__",
          [](const PyRecordBatch& b, nb::handle) {
            return Rebuild(ReduceRecordBatch(*b.batch, 4));
          },
          nb::arg("memo"));

  nb::class_<PyChunkedArray>(m, "ChunkedArray", "Arrays of one type, in order.")
      .def_prop_ro("type", [](const PyChunkedArray& c) { return WrapType(c.type); })
      .def_prop_ro("chunks", [](const PyChunkedArray& c) { return WrapChunks(c.chunks); })
      .def_prop_ro("num_chunks", [](const PyChunkedArray& c) { return c.chunks.size(); })
      .def("__len__",
           [](const PyChunkedArray& c) {
             int64_t rows = 0;
             for (const ArrayDataPtr& chunk : c.chunks) rows += chunk->length;
             return rows;
           })
      .def(
          "__arrow_c_stream__",
          [](const PyChunkedArray& c, nb::handle /*requested_schema: best-effort, ignored*/) {
            return StreamCapsule(MakeArrayReader(Field{"", c.type, true, {}}, c.chunks));
          },
          nb::arg("requested_schema").none() = nb::none())
      .def(
          "__arrow_c_device_stream__",
          [](const PyChunkedArray& c, nb::handle /*requested_schema: best-effort, ignored*/,
             nb::kwargs kwargs) {
            return DeviceStreamCapsule(MakeArrayReader(Field{"", c.type, true, {}}, c.chunks),
                                       kwargs);
          },
          nb::arg("requested_schema").none() = nb::none(), nb::arg("kwargs"))
      .def(
          "to_numpy",
          [](const PyChunkedArray& c, bool allow_nulls) -> nb::object {
            // One chunk: the chunk's own zero-copy view. Several: one copy,
            // joined by NumPy (fixed-shape columns only; ragged rows have no
            // common shape).
            if (c.type->id() != TypeId::kExtension ||
                c.type->extension_name() != FixedShapeTensorType::kExtensionName) {
              Raise(Status::TypeError("to_numpy() needs a fixed_shape_tensor column, got " +
                                      c.type->ToString()));
            }
            nb::list views;
            for (const ArrayDataPtr& chunk : c.chunks) {
              views.append(WrapArray(chunk).attr("to_numpy")(nb::arg("allow_nulls") = allow_nulls));
            }
            if (views.size() == 1) return views[0];
            if (views.size() == 0)
              Raise(Status::Invalid("to_numpy() of a chunked array without chunks"));
            return Numpy().attr("concatenate")(views);
          },
          nb::arg("allow_nulls") = false,
          "The column as one NumPy array: zero-copy with one chunk, one copy otherwise.")
      .def("__repr__",
           [](const PyChunkedArray& c) {
             return "quiver.ChunkedArray<" + c.type->ToString() +
                    ">: " + std::to_string(c.chunks.size()) + " chunks";
           })
      .def(
          "__reduce_ex__",
          [](const PyChunkedArray& c, int protocol) { return ReduceChunkedArray(c, protocol); },
          nb::arg("protocol"))
      .def("__copy__", [](nb::handle self) { return nb::borrow(self); })
      .def(
          "__deepcopy__",
          [](const PyChunkedArray& c, nb::handle) { return Rebuild(ReduceChunkedArray(c, 4)); },
          nb::arg("memo"));

  nb::class_<PyTable>(m, "Table", "Record batches of one schema, in order.")
      .def_prop_ro("schema", [](const PyTable& t) { return PySchema{t.schema}; })
      .def_prop_ro("num_rows",
                   [](const PyTable& t) {
                     int64_t rows = 0;
                     for (const RecordBatchPtr& batch : t.batches) rows += batch->num_rows();
                     return rows;
                   })
      .def_prop_ro("num_columns", [](const PyTable& t) { return t.schema->fields.size(); })
      .def("__len__",
           [](const PyTable& t) {
             int64_t rows = 0;
             for (const RecordBatchPtr& batch : t.batches) rows += batch->num_rows();
             return rows;
           })
      .def("to_batches",
           [](const PyTable& t) {
             nb::list out;
             for (const RecordBatchPtr& batch : t.batches) out.append(PyRecordBatch{batch});
             return out;
           })
      .def(
          "column",
          [](const PyTable& t, nb::handle key) {
            const int i = ColumnIndex(*t.schema, key);
            PyChunkedArray out{t.schema->fields[static_cast<size_t>(i)].type, {}};
            for (const RecordBatchPtr& batch : t.batches) out.chunks.push_back(batch->column(i));
            return out;
          },
          nb::arg("i"), "Column i, or the column of that name, as a ChunkedArray (zero-copy).")
      .def("equals",
           [](const PyTable& a, const PyTable& b) {
             // Equal schemas and values, whatever the batch boundaries.
             if (!a.schema->Equals(*b.schema)) return false;
             auto flatten = [](const PyTable& t) {
               std::vector<std::pair<RecordBatchPtr, int64_t>> rows;
               for (const RecordBatchPtr& batch : t.batches) {
                 for (int64_t r = 0; r < batch->num_rows(); ++r) rows.emplace_back(batch, r);
               }
               return rows;
             };
             auto ra = flatten(a), rb = flatten(b);
             if (ra.size() != rb.size()) return false;
             for (size_t r = 0; r < ra.size(); ++r) {
               RecordBatchPtr sa = Unwrap(ra[r].first->Slice(ra[r].second, 1));
               RecordBatchPtr sb = Unwrap(rb[r].first->Slice(rb[r].second, 1));
               if (!sa->Equals(*sb)) return false;
             }
             return true;
           })
      .def("__arrow_c_schema__",
           [](const PyTable& t) { return SchemaCapsule(BatchField(t.schema)); })
      .def(
          "__arrow_c_stream__",
          [](const PyTable& t, nb::handle /*requested_schema: best-effort, ignored*/) {
            return StreamCapsule(BatchArrayReader(t.schema, t.batches));
          },
          nb::arg("requested_schema").none() = nb::none())
      .def(
          "__arrow_c_device_stream__",
          [](const PyTable& t, nb::handle /*requested_schema: best-effort, ignored*/,
             nb::kwargs kwargs) {
            return DeviceStreamCapsule(BatchArrayReader(t.schema, t.batches), kwargs);
          },
          nb::arg("requested_schema").none() = nb::none(), nb::arg("kwargs"))
      .def("__repr__",
           [](const PyTable& t) {
             return "quiver.Table: " + std::to_string(t.batches.size()) + " batches\n" +
                    nb::cast<std::string>(nb::repr(nb::cast(PySchema{t.schema})));
           })
      .def(
          "__reduce_ex__", [](const PyTable& t, int protocol) { return ReduceTable(t, protocol); },
          nb::arg("protocol"))
      .def("__copy__", [](nb::handle self) { return nb::borrow(self); })
      .def(
          "__deepcopy__", [](const PyTable& t, nb::handle) { return Rebuild(ReduceTable(t, 4)); },
          nb::arg("memo"));

  m.def(
      "record_batch", [](nb::handle obj) { return BatchFromPython(obj); }, nb::arg("obj"),
      "A RecordBatch from any __arrow_c_array__ producer of a struct array (pyarrow "
      "RecordBatch, ...), validated fully.");
  m.def(
      "table", [](nb::handle obj) { return TableFromPython(obj); }, nb::arg("obj"),
      "A Table from any __arrow_c_stream__ producer (pyarrow Table, polars DataFrame, DuckDB "
      "results) or record batch, without combining chunks; validated fully.");
  m.def(
      "chunked_array", [](nb::handle obj) { return ChunkedFromPython(obj); }, nb::arg("obj"),
      "A ChunkedArray from any __arrow_c_stream__ (pyarrow ChunkedArray, polars Series) or "
      "__arrow_c_array__ producer; validated fully.");
}

}  // namespace quiver::python
