// The Arrow C Data Interface and C Stream Interface (docs/formats.md,
// "C Data Interface").
//
// Export: quiver fills caller-provided structs; the consumer owns them and
// calls `release` once on the base struct. Import: quiver takes ownership
// of the struct (marking the caller's copy released, as a move) on success
// AND on failure, so the caller never releases after calling Import*.
// Extension types travel as their storage type plus the field metadata
// keys ARROW:extension:name and ARROW:extension:metadata.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "quiver/array.h"
#include "quiver/status.h"
#include "quiver/type.h"

extern "C" {
#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
  const char* format;
  const char* name;
  const char* metadata;
  int64_t flags;
  int64_t n_children;
  struct ArrowSchema** children;
  struct ArrowSchema* dictionary;
  void (*release)(struct ArrowSchema*);
  void* private_data;
};

struct ArrowArray {
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void** buffers;
  struct ArrowArray** children;
  struct ArrowArray* dictionary;
  void (*release)(struct ArrowArray*);
  void* private_data;
};
#endif  // ARROW_C_DATA_INTERFACE

#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE
struct ArrowArrayStream {
  int (*get_schema)(struct ArrowArrayStream*, struct ArrowSchema* out);
  int (*get_next)(struct ArrowArrayStream*, struct ArrowArray* out);
  const char* (*get_last_error)(struct ArrowArrayStream*);
  void (*release)(struct ArrowArrayStream*);
  void* private_data;
};
#endif  // ARROW_C_STREAM_INTERFACE
}

namespace quiver {

// --- export -----------------------------------------------------------------

// The C Data Interface format string of a type that is not an extension
// type ("i", "+w:4", "tsu:UTC", ...; docs/formats.md, "Format strings").
std::string FormatString(const DataType& type);
// The type a format string names, given its already imported children.
// Errors name the format and what is wrong with it.
Result<TypePtr> TypeFromFormat(const std::string& format, std::vector<Field> children);

// An unnamed nullable field of `type`.
Status ExportType(const DataType& type, ArrowSchema* out);
Status ExportField(const Field& field, ArrowSchema* out);
// Zero-copy: the ArrowArray keeps `data`'s buffers alive until released.
Status ExportArray(const ArrayDataPtr& data, ArrowArray* out);

// --- import -----------------------------------------------------------------

// Takes ownership of `schema` (released before returning). The type is
// the one the producer describes, tolerated storage forms included (see
// CanonicalType): pass it to ImportArray for the arrays it describes.
Result<Field> ImportField(ArrowSchema* schema);
Result<TypePtr> ImportType(ArrowSchema* schema);
// Takes ownership of `array`; its buffers stay alive as long as any
// resulting buffer does. Buffer sizes are derived from `type`, which must
// describe the array as its producer laid it out (ImportField's type); the
// data is validated at `level` and returned in canonical storage, typed
// CanonicalType(type).
Result<ArrayDataPtr> ImportArray(ArrowArray* array, const TypePtr& type,
                                 ValidationLevel level = ValidationLevel::kFull);
// The type of the arrays ImportArray returns for `type`: every tolerated
// storage form of arrow.variable_shape_tensor in the tree (large_list
// data, as Polars exports it; shape entries of another integer type than
// int32) replaced by the canonical storage (list data,
// fixed_size_list<int32> shapes; docs/formats.md, "Tolerated storage
// forms"); `type` itself when there is none. Importing such an array
// copies its row offsets (checked to fit int32; an error names the row
// otherwise) and shapes, never its values.
Result<TypePtr> CanonicalType(const TypePtr& type);

// --- streams ----------------------------------------------------------------

// A pull-based sequence of arrays of one type (record batches are struct
// arrays). Next returns nullptr at the end.
class ArrayReader {
 public:
  virtual ~ArrayReader() = default;
  virtual const Field& field() const = 0;
  virtual Result<ArrayDataPtr> Next() = 0;
};

// An ArrayReader over arrays already in memory.
std::shared_ptr<ArrayReader> MakeArrayReader(Field field, std::vector<ArrayDataPtr> arrays);

Status ExportArrayStream(std::shared_ptr<ArrayReader> reader, ArrowArrayStream* out);
// Takes ownership of `stream`; every array read is validated at `level`
// and returned in canonical storage. The reader's field() has the
// canonical type (CanonicalType of the stream's schema).
Result<std::shared_ptr<ArrayReader>> ImportArrayStream(
    ArrowArrayStream* stream, ValidationLevel level = ValidationLevel::kFull);

}  // namespace quiver
