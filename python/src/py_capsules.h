// PyCapsule protocol: wrapping exported C Data structs in capsules, and
// importing from any object with __arrow_c_schema__ / __arrow_c_array__.
#pragma once

#include <nanobind/nanobind.h>

#include "quiver/array.h"
#include "quiver/c_data.h"
#include "quiver/type.h"

namespace quiver::python {

namespace nb = nanobind;

// An "arrow_schema" capsule for `field`; unconsumed, it releases on deletion.
nb::object SchemaCapsule(const Field& field);
// An "arrow_array" capsule for `data`.
nb::object ArrayCapsule(const ArrayDataPtr& data);

// Imports a capsule pair as returned by __arrow_c_array__(); the field has
// the array's type (canonical storage: CanonicalType in quiver/c_data.h).
std::pair<Field, ArrayDataPtr> ImportCapsules(nb::handle schema_capsule, nb::handle array_capsule);
// Imports the field behind an "arrow_schema" capsule, with the type that
// arrays imported under it have (CanonicalType).
Field ImportSchemaCapsule(nb::handle schema_capsule);

// Producer side of __arrow_c_array__(requested_schema), best-effort: `requested_schema`
// may be None or any schema capsule: the storage goes out when exactly the
// storage type is requested, the array with its own type otherwise.
nb::tuple ExportArrayWithSchema(const ArrayDataPtr& data, nb::handle requested_schema);
// What ExportArrayWithSchema hands over for `requested_schema`: `data` or
// its storage.
ArrayDataPtr RequestedView(const ArrayDataPtr& data, nb::handle requested_schema);

// The struct inside a capsule named `name`; TypeError for anything else.
void* NamedCapsulePointer(nb::handle capsule, const char* name);

}  // namespace quiver::python

namespace quiver::python {

// An "arrow_array_stream" capsule over `reader`; unconsumed, it releases
// on deletion.
nb::object StreamCapsule(std::shared_ptr<ArrayReader> reader);
// The reader behind an "arrow_array_stream" capsule (arrays are validated
// fully as they are read).
std::shared_ptr<ArrayReader> ImportStreamCapsule(nb::handle stream_capsule);

}  // namespace quiver::python
