// The byte sources' options as Python gives them (py_io.cc).
#pragma once

#include <nanobind/nanobind.h>

#include <memory>
#include <string>

#include "quiver/io.h"
#include "quiver/status.h"

namespace quiver::python {

// SourceOptions from None or a dict of io::RemoteOptions field names
// (timeout_seconds, max_retries, retry_delay_seconds, parallel_requests,
// coalesce_gap, readahead_bytes, tail_bytes) and memory_map; ValueError
// for an unknown name.
io::SourceOptions SourceOptionsFrom(nanobind::handle options);

// Whether a Python object names a local path (str or os.PathLike), and
// that path.
bool IsPath(nanobind::handle source);
std::string PathOf(nanobind::handle source);

// A str naming an http://, https:// or s3:// object, and that object
// (read with range requests: quiver/io.h).
bool IsRemote(nanobind::handle source);
std::shared_ptr<io::InputSource> RemoteSource(nanobind::handle source);

// TypeError for a file object open in text mode (it cannot give bytes).
void RefuseTextMode(nanobind::handle file);
// The TypeError for a read() that returned str.
Status TextReadError(nanobind::handle got);

// Random-access bytes from a Python object: a path (memory-mapped, or read
// with pread when not memory_map), a URL, a bytes-like object (shared,
// zero-copy: the object stays alive as long as any array read from it), or
// a file-like object (read whole: a file reader needs random access).
// TypeError naming `what` ("an IPC source") for anything else.
std::shared_ptr<io::InputSource> SourceFromPython(nanobind::handle source, bool memory_map,
                                                  const char* what = "an IPC source");

// Where writers write, from a Python object: a path (str or PathLike:
// io::OpenFileSink, put in place by Close) or a writable binary file object
// (write() called with the GIL taken; not closed). TypeError otherwise.
// Defined in py_ipc.cc.
std::shared_ptr<io::OutputSink> SinkFromPython(nanobind::handle sink);

}  // namespace quiver::python
