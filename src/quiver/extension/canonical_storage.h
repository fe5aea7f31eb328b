// Internal: the one place that knows the storage forms of
// arrow.variable_shape_tensor quiver tolerates on import and rewrites into
// the canonical form (docs/formats.md, "Tolerated storage forms"):
//
//   data:  list<value>  (canonical) or large_list<value> (Polars exports
//          every list as a large_list);
//   shape: fixed_size_list<int32>[ndim] (canonical) or a fixed_size_list of
//          any other integer type (the drafts' uint32; int64 from a Polars
//          Array(Int64)); field names are the producer's in every case.
//
// The import boundaries (ImportArray, C streams, IPC readers) and the IPC
// writers run every array through CanonicalArray, so the rest of quiver
// (and whatever it exports or writes) only sees the canonical form.
// Rewriting copies the row offsets (int64 -> int32, checked) and the shape
// entries (-> int32, checked) of the rows an array covers, plus the
// validity bitmaps of a sliced array; the values are never copied.
#pragma once

#include <vector>

#include "quiver/array.h"
#include "quiver/record_batch.h"
#include "quiver/status.h"
#include "quiver/type.h"
#include "quiver/variable_shape_tensor.h"

namespace quiver::internal {

// Whether a variable_shape_tensor storage type (already checked to be a
// struct<data: list or large_list, shape: fixed_size_list of integers>)
// is the canonical one: list data and int32 shape entries.
bool IsCanonicalVariableShapeStorage(const DataType& storage);

// The canonical storage for such a storage type: the same field names,
// nullability and metadata, list data and fixed_size_list<int32>[ndim]
// shapes.
TypePtr CanonicalVariableShapeStorage(const DataType& storage);

// `type` with every tolerated variable_shape_tensor storage in its tree
// (struct fields, list items, extension storage, dictionary values)
// replaced by its canonical type, VariableShapeTensorType::data_type();
// `type` itself when there is none. Errors: those of parsing the
// extension types it meets, and types nested too deep.
Result<TypePtr> CanonicalType(const TypePtr& type);

// `data` with every variable_shape_tensor array in its tree in the
// canonical storage (of CanonicalType(data->type)); `data` itself when
// there is none to rewrite. `data` must be laid out as its type says (as
// imports and the IPC decoder build it); the nodes that are rewritten are
// checked at ValidationLevel::kMinimal first. Errors name the field and
// the row: offsets that do not fit int32 ("row 7: its data ends 2147483650
// elements after row 0's start, ..."), shape entries that do not fit
// int32, offsets or shapes in device memory (NotImplemented).
Result<ArrayDataPtr> CanonicalArray(const ArrayDataPtr& data);

// One variable_shape_tensor array (`data->type` parsed as `type`) in the
// canonical storage, typed type.data_type(); `data` itself when its
// storage is canonical already.
Result<ArrayDataPtr> CanonicalVariableShapeArray(const ArrayDataPtr& data,
                                                 const VariableShapeTensorType& type);

// `schema` with CanonicalType applied to every field (the same pointer
// when nothing changes).
Result<SchemaPtr> CanonicalSchema(const SchemaPtr& schema);

// `batch` with CanonicalArray applied to every column, under `canonical`
// (which must be CanonicalSchema(batch->schema())); `batch` itself when
// nothing changes. Errors name the column: "column 2 (images): row 5: ...".
Result<RecordBatchPtr> CanonicalBatch(const RecordBatchPtr& batch, const SchemaPtr& canonical);

}  // namespace quiver::internal
