#include "py_c_device.h"

#include <memory>
#include <string>

#include "py_capsules.h"
#include "py_errors.h"
#include "quiver/c_device.h"

namespace quiver::python {

namespace {

constexpr char kSchemaName[] = "arrow_schema";
constexpr char kDeviceArrayName[] = "arrow_device_array";
constexpr char kDeviceStreamName[] = "arrow_device_array_stream";

// Releases a struct a consumer has not moved out (release still set).
void ReleaseIfLive(ArrowSchema* s) {
  if (s->release != nullptr) s->release(s);
}
void ReleaseIfLive(ArrowDeviceArray* s) {
  if (s->array.release != nullptr) s->array.release(&s->array);
}
void ReleaseIfLive(ArrowDeviceArrayStream* s) {
  if (s->release != nullptr) s->release(s);
}

// Capsule destructor: releases the struct unless consumed, then frees it.
template <typename Struct, const char* kName>
void DeleteCapsule(PyObject* capsule) {
  auto* exported = static_cast<Struct*>(PyCapsule_GetPointer(capsule, kName));
  if (exported == nullptr) return PyErr_Clear();
  ReleaseIfLive(exported);
  delete exported;
}

// Hands an exported struct over to a capsule, which owns it from here on
// (released and freed here if the capsule cannot be made).
template <typename Struct, const char* kName>
nb::object Capsule(std::unique_ptr<Struct> exported) {
  PyObject* capsule = PyCapsule_New(exported.get(), kName, DeleteCapsule<Struct, kName>);
  if (capsule == nullptr) {
    ReleaseIfLive(exported.get());
    throw nb::python_error();
  }
  exported.release();
  return nb::steal(capsule);
}

// The two capsules a __arrow_c_[device_]array__ method returned.
std::pair<nb::handle, nb::handle> CapsulePair(const nb::object& result, const char* method) {
  if (!PyTuple_Check(result.ptr()) || PyTuple_GET_SIZE(result.ptr()) != 2) {
    Raise(Status::TypeError(std::string(method) + "() must return a (schema, array) tuple"));
  }
  return {PyTuple_GET_ITEM(result.ptr(), 0), PyTuple_GET_ITEM(result.ptr(), 1)};
}

}  // namespace

void CheckDeviceKwargs(const nb::kwargs& kwargs) {
  std::string names;
  for (auto [key, value] : kwargs) {
    if (value.is_none()) continue;
    names += (names.empty() ? "" : ", ") + std::string(nb::repr(key).c_str());
  }
  if (!names.empty()) {
    Raise(Status::NotImplemented("unsupported keyword argument(s) with a value other than None: ",
                                 names));
  }
}

nb::tuple DeviceArrayCapsules(const Field& field, const ArrayDataPtr& data) {
  nb::object schema = SchemaCapsule(field);
  auto array = std::make_unique<ArrowDeviceArray>();
  Check(ExportDeviceArray(data, array.get()));
  return nb::make_tuple(schema, Capsule<ArrowDeviceArray, kDeviceArrayName>(std::move(array)));
}

nb::tuple ExportDeviceArrayWithSchema(const ArrayDataPtr& data, nb::handle requested_schema,
                                      const nb::kwargs& kwargs) {
  CheckDeviceKwargs(kwargs);
  ArrayDataPtr view = RequestedView(data, requested_schema);
  return DeviceArrayCapsules(Field{"", view->type, true, {}}, view);
}

nb::tuple TensorDeviceCapsules(const Tensor& tensor, const nb::kwargs& kwargs) {
  CheckDeviceKwargs(kwargs);
  auto schema = std::make_unique<ArrowSchema>();
  auto array = std::make_unique<ArrowDeviceArray>();
  // A CPU tensor whose cells are not contiguous is copied: no GIL for that.
  Check(WithoutGil([&] { return ExportDeviceTensor(tensor, schema.get(), array.get()); }));
  nb::object schema_capsule;
  try {
    schema_capsule = Capsule<ArrowSchema, kSchemaName>(std::move(schema));
  } catch (...) {
    ReleaseIfLive(array.get());
    throw;
  }
  return nb::make_tuple(schema_capsule,
                        Capsule<ArrowDeviceArray, kDeviceArrayName>(std::move(array)));
}

nb::object DeviceStreamCapsule(std::shared_ptr<ArrayReader> reader, const nb::kwargs& kwargs) {
  CheckDeviceKwargs(kwargs);
  auto stream = std::make_unique<ArrowDeviceArrayStream>();
  Check(ExportDeviceArrayStream(std::move(reader), stream.get()));
  return Capsule<ArrowDeviceArrayStream, kDeviceStreamName>(std::move(stream));
}

std::pair<Field, ArrayDataPtr> ImportDeviceCapsules(nb::handle schema_capsule,
                                                    nb::handle array_capsule) {
  auto* schema = static_cast<ArrowSchema*>(NamedCapsulePointer(schema_capsule, kSchemaName));
  auto* array =
      static_cast<ArrowDeviceArray*>(NamedCapsulePointer(array_capsule, kDeviceArrayName));
  Result<Field> field = ImportField(schema);
  if (!field.ok()) {
    // The array capsule is ours to dispose of too: release it now.
    ReleaseIfLive(array);
    Raise(field.status());
  }
  // Full validation may walk large buffers.
  ArrayDataPtr data = Unwrap(WithoutGil([&] { return ImportDeviceArray(array, field->type); }));
  field->type = data->type;  // canonical storage (ImportArray)
  return {std::move(*field), std::move(data)};
}

std::shared_ptr<ArrayReader> ImportDeviceStreamCapsule(nb::handle stream_capsule) {
  auto* stream =
      static_cast<ArrowDeviceArrayStream*>(NamedCapsulePointer(stream_capsule, kDeviceStreamName));
  return Unwrap(ImportDeviceArrayStream(stream));
}

bool HasArrayProtocol(nb::handle obj) {
  return nb::hasattr(obj, "__arrow_c_array__") || nb::hasattr(obj, "__arrow_c_device_array__");
}

bool HasStreamProtocol(nb::handle obj) {
  return nb::hasattr(obj, "__arrow_c_stream__") || nb::hasattr(obj, "__arrow_c_device_stream__");
}

std::pair<Field, ArrayDataPtr> ImportArrayFrom(nb::handle obj) {
  // The plain protocol first: a producer offering both promises host
  // pointers there (PyCapsule protocol, "Device Support").
  if (nb::hasattr(obj, "__arrow_c_array__")) {
    nb::object result = obj.attr("__arrow_c_array__")();
    auto [schema, array] = CapsulePair(result, "__arrow_c_array__");
    return ImportCapsules(schema, array);
  }
  nb::object result = obj.attr("__arrow_c_device_array__")();
  auto [schema, array] = CapsulePair(result, "__arrow_c_device_array__");
  return ImportDeviceCapsules(schema, array);
}

std::shared_ptr<ArrayReader> ImportStreamFrom(nb::handle obj) {
  if (nb::hasattr(obj, "__arrow_c_stream__")) {
    return ImportStreamCapsule(obj.attr("__arrow_c_stream__")());
  }
  return ImportDeviceStreamCapsule(obj.attr("__arrow_c_device_stream__")());
}

}  // namespace quiver::python
