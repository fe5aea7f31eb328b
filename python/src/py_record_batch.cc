#include "py_record_batch.h"
#include "py_bindings.h"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include "py_c_device.h"
#include "py_capsules.h"
#include "py_errors.h"
#include "py_objects.h"
#include "py_pickle.h"
#include "py_repr.h"
#include "py_table_verbs.h"
#include "quiver/fixed_shape_tensor.h"

namespace quiver::python {

nb::dict MetadataToPython(const KeyValueMetadata& metadata) {
  nb::dict out;
  for (const auto& [key, value] : metadata) {
    out[nb::bytes(key.data(), key.size())] = nb::bytes(value.data(), value.size());
  }
  return out;
}

namespace {

PyRecordBatch BatchFromPython(nb::handle obj) {
  if (nb::isinstance<PyRecordBatch>(obj)) return nb::cast<PyRecordBatch>(obj);
  if (HasArrayProtocol(obj)) {
    auto [field, data] = ImportArrayFrom(obj);
    return PyRecordBatch{Unwrap(RecordBatch::FromStructArray(field, data, ValidationLevel::kNone))};
  }
  SchemaPtr schema;
  const std::vector<RecordBatchPtr> all = BatchesFromPython(obj, &schema);
  std::vector<RecordBatchPtr> batches;
  // Zero-row batches add no rows: a stream of [], [rows], [] is one batch,
  // and a stream of zero-row batches only is one of them.
  for (const RecordBatchPtr& batch : all) {
    if (batch->num_rows() > 0) batches.push_back(batch);
  }
  if (batches.empty() && !all.empty()) batches.push_back(all[0]);
  if (batches.size() != 1) {
    Raise(Status::Invalid("expected one record batch, the stream holds " +
                          std::to_string(batches.size())));
  }
  return PyRecordBatch{batches[0]};
}

nb::list WrapChunks(const std::vector<ArrayDataPtr>& chunks) {
  nb::list out;
  for (const ArrayDataPtr& chunk : chunks) out.append(WrapArray(chunk));
  return out;
}

}  // namespace

PyTable::PyTable(TablePtr table) : table_(std::move(table)) {}

PyTable PyTable::Deferred(TablePtr table, int64_t first_batch) {
  PyTable out(std::move(table));
  out.deferred_ = std::make_shared<DeferredValidation>(out.table_->num_columns(), first_batch);
  return out;
}

const TablePtr& PyTable::table() const {
  if (deferred_) Check(WithoutGil([&] { return deferred_->All(*table_); }));
  return table_;
}

const ChunkedArrayPtr& PyTable::column(int i) const {
  if (deferred_) Check(WithoutGil([&] { return deferred_->Column(*table_, i); }));
  return table_->column(i);
}

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

std::vector<RecordBatchPtr> BatchesFromPython(nb::handle obj, SchemaPtr* schema) {
  std::vector<RecordBatchPtr> batches;
  if (nb::isinstance<PyTable>(obj)) {
    const TablePtr& table = nb::cast<const PyTable&>(obj).table();
    *schema = table->schema();
    return Unwrap(table->ToRecordBatches());
  }
  if (nb::isinstance<PyRecordBatch>(obj)) {
    batches.push_back(nb::cast<const PyRecordBatch&>(obj).batch);
  } else if (HasStreamProtocol(obj)) {
    std::shared_ptr<ArrayReader> reader = ImportStreamFrom(obj);
    const Field& field = reader->field();
    if (field.type->id() != TypeId::kStruct) {
      Raise(Status::TypeError("a table comes from a stream of struct arrays, got " +
                              field.type->ToString()));
    }
    auto fields = std::make_shared<Schema>();
    fields->fields = field.type->children();
    fields->metadata = field.metadata;
    *schema = fields;
    while (ArrayDataPtr data = Unwrap(reader->Next())) {
      // Already validated by the stream import.
      RecordBatchPtr batch =
          Unwrap(RecordBatch::FromStructArray(field, data, ValidationLevel::kNone));
      batches.push_back(Unwrap(
          RecordBatch::Make(fields, batch->num_rows(), batch->columns(), ValidationLevel::kNone)));
    }
    return batches;
  } else if (HasArrayProtocol(obj)) {
    batches.push_back(BatchFromPython(obj).batch);
  } else {
    Raise(Status::TypeError(std::string("table() needs a dict or list of columns, or an object "
                                        "with __arrow_c_stream__ or __arrow_c_array__, got ") +
                            nb::type_name(obj.type()).c_str()));
  }
  *schema = batches[0]->schema();
  return batches;
}

TablePtr TableFromPython(nb::handle obj) {
  if (nb::isinstance<PyTable>(obj)) return nb::cast<const PyTable&>(obj).table();
  SchemaPtr schema;
  std::vector<RecordBatchPtr> batches = BatchesFromPython(obj, &schema);
  return Unwrap(Table::FromRecordBatches(schema, batches));
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
      .def(
          "equals", [](const PyField& a, const PyField& b) { return a.field.Equals(b.field); },
          nb::arg("other"))
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
      .def(
          "equals",
          [](const PySchema& a, const PySchema& b) { return a.schema->Equals(*b.schema); },
          nb::arg("other"))
      .def("__eq__",
           [](const PySchema& a, nb::handle b) {
             return nb::isinstance<PySchema>(b) && a.schema->Equals(*nb::cast<PySchema>(b).schema);
           })
      .def("__arrow_c_schema__",
           [](const PySchema& s) { return SchemaCapsule(BatchField(s.schema)); })
      .def("__repr__", [](const PySchema& s) { return SchemaRepr(*s.schema); })
      .def("__reduce__", [](const PySchema& s) { return ReduceSchema(*s.schema); })
      .def("__copy__", [](nb::handle self) { return nb::borrow(self); })
      .def(
          "__deepcopy__", [](nb::handle self, nb::handle) { return nb::borrow(self); },
          nb::arg("memo"));

  auto batch_class =
      nb::class_<PyRecordBatch>(m, "RecordBatch", "Equal-length columns under a schema.");
  batch_class
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
          "equals",
          [](const PyRecordBatch& a, const PyRecordBatch& b) { return a.batch->Equals(*b.batch); },
          nb::arg("other"))
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
      .def(
          "to_pyarrow",
          [](nb::handle self) {
            nb::object pa =
                nb::module_::import_("quiver._optional").attr("import_optional")("pyarrow");
            return pa.attr("record_batch")(self);
          },
          "A pyarrow.RecordBatch over the same buffers (no copy), tensor columns as the "
          "canonical extension types.")
      .def("__repr__",
           [](const PyRecordBatch& b) {
             std::vector<std::vector<ArrayDataPtr>> columns;
             for (const ArrayDataPtr& column : b.batch->columns()) columns.push_back({column});
             return TabularRepr("RecordBatch", b.batch->num_rows(), *b.batch->schema(), columns);
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

  AddTableVerbs(batch_class);
  nb::setattr(batch_class, "__hash__", nb::none());

  m.def(
      "record_batch",
      [](nb::handle obj, nb::handle names) {
        if (nb::isinstance<nb::dict>(obj) || nb::isinstance<nb::list>(obj) ||
            nb::isinstance<nb::tuple>(obj)) {
          nb::object table = nb::module_::import_("quiver._quiver").attr("table")(obj, names);
          PyRecordBatch any{nullptr};
          return Rewrap(any, nb::cast<const PyTable&>(table).table());
        }
        if (!names.is_none()) Raise(Status::TypeError("names= goes with a list of columns"));
        return BatchFromPython(WithCanonicalTensorTypes(obj));
      },
      nb::arg("obj"), nb::arg("names").none() = nb::none(),
      "A RecordBatch from a {name: column} dict or a list of columns with names= (as "
      "qv.table() takes them; chunked columns are combined), or from any __arrow_c_array__ "
      "producer of a struct array (pyarrow RecordBatch, ...), validated fully.");
}

}  // namespace quiver::python
