// Internal: arrays read from IPC data written in the other byte order,
// swapped to native order (docs/ipc.md, "Byte order").
#pragma once

#include "quiver/array.h"
#include "quiver/status.h"

namespace quiver::ipc {

// `data` and its children (not its dictionary, which is swapped when its
// own dictionary batch is read) with every multi-byte number byte-swapped
// according to the type's layout: offsets, fixed-width values (whole
// values for integers, floats and decimals; each field for intervals),
// view lengths and buffer indices / offsets, list-view offsets and sizes,
// union offsets and dictionary indices. Bitmaps, bytes, fixed-size binary
// values and union type ids are kept. Each swapped buffer is a new copy;
// a trailing part shorter than one value is copied as it is (validation
// then reports the short buffer).
Result<ArrayDataPtr> SwapByteOrder(const ArrayDataPtr& data, int depth = 0);

}  // namespace quiver::ipc
