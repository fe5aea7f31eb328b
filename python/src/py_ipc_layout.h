// Record batch layouts for Python: where a batch's body keeps what, read
// from its header alone, and single body buffers as stored (docs/ipc.md,
// "Layouts"). This is also how data kept in a non-native byte order
// (swap_endian=False) can be reached: as bytes, never as arrays.
#pragma once

#include <nanobind/nanobind.h>

#include "quiver/ipc.h"

namespace quiver::python {

namespace nb = nanobind;

// {"num_rows", "compression" (None, "lz4_frame" or "zstd"), "body_length",
//  "buffers": [(offset, length), ...], "columns": [node, ...]} where a node
// is {"name", "type", "length", "null_count", "buffers": [index, ...],
// "dictionary_id" (None when not dictionary-encoded), "children": [...]}.
nb::dict BatchLayoutToPython(const ipc::BatchLayout& layout);

// A body buffer as a zero-copy one-dimensional uint8 quiver.Tensor.
nb::object BodyBufferToPython(const BufferPtr& buffer);

}  // namespace quiver::python
