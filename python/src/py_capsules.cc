#include "py_capsules.h"

#include "py_errors.h"
#include "py_numpy.h"
#include "quiver/c_data.h"

namespace quiver::python {

namespace {

constexpr char kSchemaName[] = "arrow_schema";
constexpr char kArrayName[] = "arrow_array";
constexpr char kStreamName[] = "arrow_array_stream";

// Capsule destructor: releases the struct unless a consumer moved it out.
template <typename Struct, const char* kName>
void DeleteCapsule(PyObject* capsule) {
  auto* exported = static_cast<Struct*>(PyCapsule_GetPointer(capsule, kName));
  if (exported == nullptr) return PyErr_Clear();
  if (exported->release != nullptr) exported->release(exported);
  delete exported;
}

template <typename T>
T* CapsulePointer(nb::handle capsule, const char* name) {
  if (!PyCapsule_CheckExact(capsule.ptr()) || !PyCapsule_IsValid(capsule.ptr(), name)) {
    Raise(Status::TypeError(std::string("expected a PyCapsule named '") + name + "', got " +
                            nb::type_name(capsule.type()).c_str()));
  }
  return static_cast<T*>(PyCapsule_GetPointer(capsule.ptr(), name));
}

// Exports into a fresh struct and hands it over in a capsule named kName;
// the struct is freed here if the export fails.
template <typename Struct, const char* kName, typename ExportInto>
nb::object ExportToCapsule(ExportInto&& export_into) {
  auto* exported = new Struct{};
  Status st = export_into(exported);
  if (!st.ok()) {
    delete exported;
    Raise(st);
  }
  return nb::steal(PyCapsule_New(exported, kName, DeleteCapsule<Struct, kName>));
}

}  // namespace

nb::object SchemaCapsule(const Field& field) {
  return ExportToCapsule<ArrowSchema, kSchemaName>(
      [&](ArrowSchema* out) { return ExportField(field, out); });
}

nb::object ArrayCapsule(const ArrayDataPtr& data) {
  return ExportToCapsule<ArrowArray, kArrayName>(
      [&](ArrowArray* out) { return ExportArray(data, out); });
}

Field ImportSchemaCapsule(nb::handle schema_capsule) {
  auto* schema = CapsulePointer<ArrowSchema>(schema_capsule, kSchemaName);
  Field field = Unwrap(ImportField(schema));
  field.type = Unwrap(CanonicalType(field.type));  // the type imported arrays have
  return field;
}

std::pair<Field, ArrayDataPtr> ImportCapsules(nb::handle schema_capsule, nb::handle array_capsule) {
  auto* schema = CapsulePointer<ArrowSchema>(schema_capsule, kSchemaName);
  auto* array = CapsulePointer<ArrowArray>(array_capsule, kArrayName);
  Result<Field> field = ImportField(schema);
  if (!field.ok()) {
    // The array capsule is ours to dispose of too: release it now.
    if (array->release != nullptr) array->release(array);
    Raise(field.status());
  }
  Result<ArrayDataPtr> imported = Status::Invalid("not imported");
  {
    nb::gil_scoped_release no_gil;  // full validation may walk large buffers
    imported = ImportArray(array, field->type);
  }
  ArrayDataPtr data = Unwrap(std::move(imported));
  field->type = data->type;  // canonical storage (ImportArray)
  return {std::move(*field), std::move(data)};
}

ArrayDataPtr RequestedView(const ArrayDataPtr& data, nb::handle requested_schema) {
  // A requested schema is best-effort (PyCapsule protocol): quiver hands
  // over its storage when exactly that is asked for (pyarrow's pa.array(col,
  // type=<extension type>) asks for the storage type), and its own data and
  // type otherwise, leaving any cast to the consumer.
  if (!requested_schema.is_none()) {
    Field requested = ImportSchemaCapsule(requested_schema);
    if (data->type->id() == TypeId::kExtension && !requested.type->Equals(*data->type) &&
        requested.type->Equals(*data->type->storage_type())) {
      return StorageOf(data);
    }
  }
  return data;
}

nb::tuple ExportArrayWithSchema(const ArrayDataPtr& data, nb::handle requested_schema) {
  ArrayDataPtr view = RequestedView(data, requested_schema);
  return nb::make_tuple(SchemaCapsule(Field{"", view->type, true, {}}), ArrayCapsule(view));
}

void* NamedCapsulePointer(nb::handle capsule, const char* name) {
  return CapsulePointer<void>(capsule, name);
}

nb::object StreamCapsule(std::shared_ptr<ArrayReader> reader) {
  return ExportToCapsule<ArrowArrayStream, kStreamName>(
      [&](ArrowArrayStream* out) { return ExportArrayStream(std::move(reader), out); });
}

std::shared_ptr<ArrayReader> ImportStreamCapsule(nb::handle stream_capsule) {
  auto* stream = CapsulePointer<ArrowArrayStream>(stream_capsule, kStreamName);
  return Unwrap(ImportArrayStream(stream));
}

}  // namespace quiver::python
