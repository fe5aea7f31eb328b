// Pickling: every quiver object reduces to a rebuild function and a state
// of plain tuples; array bytes travel as pickle.PickleBuffer (protocol 5,
// out-of-band when the pickler has a buffer_callback) or bytes (older
// protocols). Rebuilding validates like any import.
#pragma once

#include <nanobind/nanobind.h>

#include "py_objects.h"
#include "quiver/array.h"
#include "quiver/sparse_tensor.h"
#include "quiver/tensor.h"
#include "quiver/type.h"

namespace quiver::python {

namespace nb = nanobind;

// (rebuild, (state,)) for __reduce_ex__(protocol).
nb::tuple ReduceType(const TypePtr& type);
nb::tuple ReduceArray(const ArrayDataPtr& data, int protocol);
nb::tuple ReduceTensor(const Tensor& tensor, int protocol);
// Format, shape, names, canonical flag, axis order, then each of the
// values and index tensors as a Tensor state; rebuilt through the
// builders' full validation.
nb::tuple ReduceSparseTensor(const SparseTensor& tensor, int protocol);
nb::tuple ReduceField(const Field& field);
nb::tuple ReduceSchema(const Schema& schema);
// Columns are cut to the batch's rows, then compacted like arrays.
nb::tuple ReduceRecordBatch(const RecordBatch& batch, int protocol);
nb::tuple ReduceTable(const PyTable& table, int protocol);
nb::tuple ReduceChunkedArray(const PyChunkedArray& chunked, int protocol);

// Calls the rebuild function of a reduced object on its state.
nb::object Rebuild(const nb::tuple& reduced);
// Deep copies: fresh buffers holding the same bytes.
nb::object DeepCopyArray(const ArrayDataPtr& data);

}  // namespace quiver::python
