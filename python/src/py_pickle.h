// Pickling: every quiver object reduces to a rebuild function and a state
// of plain tuples; array bytes travel as pickle.PickleBuffer (protocol 5,
// out-of-band when the pickler has a buffer_callback) or bytes (older
// protocols). Rebuilding validates like any import.
#pragma once

#include <nanobind/nanobind.h>

#include "quiver/array.h"
#include "quiver/tensor.h"
#include "quiver/type.h"

namespace quiver::python {

namespace nb = nanobind;

// (rebuild, (state,)) for __reduce_ex__(protocol).
nb::tuple ReduceType(const TypePtr& type);
nb::tuple ReduceArray(const ArrayDataPtr& data, int protocol);
nb::tuple ReduceTensor(const Tensor& tensor, int protocol);

// Deep copies: fresh buffers holding the same bytes.
nb::object DeepCopyArray(const ArrayDataPtr& data);

void BindPickle(nb::module_& m);

}  // namespace quiver::python
