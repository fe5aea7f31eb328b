// The byte sources' options as Python gives them (py_io.cc).
#pragma once

#include <nanobind/nanobind.h>

#include "quiver/io.h"

namespace quiver::python {

// SourceOptions from None or a dict of io::RemoteOptions field names
// (timeout_seconds, max_retries, retry_delay_seconds, parallel_requests,
// coalesce_gap, readahead_bytes, tail_bytes) and memory_map; ValueError
// for an unknown name.
io::SourceOptions SourceOptionsFrom(nanobind::handle options);

}  // namespace quiver::python
