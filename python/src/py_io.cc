// Byte sources from Python objects (paths, URLs, bytes-like and file
// objects), shared by the IPC and Parquet bindings; and
// quiver._quiver._io_read and _io_expand: internal helpers that reach the
// byte sources of quiver/io.h (local files, http://, https://, s3://)
// directly. They exist for the test suite (tests/python/
// test_remote_sources.py), which checks the remote sources against real
// servers before a public dataset API reads through them; they are not
// part of the API and may change.
#include <nanobind/nanobind.h>

#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "py_bindings.h"
#include "py_errors.h"
#include "py_io.h"
#include "quiver/io.h"

namespace quiver::python {

bool IsPath(nb::handle source) {
  nb::module_ os = nb::module_::import_("os");
  return nb::isinstance<nb::str>(source) || nb::isinstance(source, os.attr("PathLike"));
}

std::string PathOf(nb::handle source) {
  return nb::cast<std::string>(nb::module_::import_("os").attr("fspath")(source));
}

void RefuseTextMode(nb::handle file) {
  nb::module_ io = nb::module_::import_("io");
  if (nb::isinstance(file, io.attr("TextIOBase"))) {
    Raise(Status::TypeError(
        "the file object is open in text mode; the data is binary: open it with 'rb'"));
  }
}

Status TextReadError(nb::handle got) {
  return Status::TypeError(std::string("read() of the file object returned ") +
                           nb::type_name(got.type()).c_str() +
                           ", not bytes: open it in binary mode ('rb')");
}

// A str naming an http://, https:// or s3:// object (read with range
// requests: quiver/io.h).
bool IsRemote(nb::handle source) {
  return nb::isinstance<nb::str>(source) && io::IsRemoteLocation(nb::cast<std::string>(source));
}

std::shared_ptr<io::InputSource> RemoteSource(nb::handle source) {
  const std::string url = nb::cast<std::string>(source);
  return Unwrap(WithoutGil([&] { return io::OpenSource(url); }));
}

std::shared_ptr<io::InputSource> SourceFromPython(nb::handle source, bool memory_map,
                                                  const char* what) {
  if (IsRemote(source)) return RemoteSource(source);
  if (IsPath(source)) return Unwrap(io::OpenFileSource(PathOf(source), memory_map));
  nb::object holder = nb::borrow(source);
  if (!PyObject_CheckBuffer(source.ptr()) && nb::hasattr(source, "read")) {
    RefuseTextMode(source);
    holder = source.attr("read")();  // a file-like object: its bytes
    if (nb::isinstance<nb::str>(holder)) Raise(TextReadError(holder));
  }
  auto* view = new Py_buffer;
  if (PyObject_GetBuffer(holder.ptr(), view, PyBUF_SIMPLE) != 0) {
    delete view;
    PyErr_Clear();
    Raise(Status::TypeError(std::string(what) +
                            " is a path, a bytes-like object or a readable file object, got " +
                            nb::type_name(source.type()).c_str()));
  }
  BufferPtr bytes = Buffer::Wrap(view->buf, static_cast<int64_t>(view->len), [view] {
    nb::gil_scoped_acquire gil;  // arrays may die on any thread
    PyBuffer_Release(view);
    delete view;
  });
  return io::BufferSource(std::move(bytes));
}

namespace {

// A path option: a str or os.PathLike; None leaves it unset (empty).
std::string PathOrUnset(nb::handle value, const std::string& name) {
  if (value.is_none()) return {};
  nb::object path = nb::module_::import_("os").attr("fspath")(value);
  if (!nb::isinstance<nb::str>(path)) {
    Raise(Status::TypeError(name, " is a path (str or os.PathLike), got ",
                            nb::type_name(value.type()).c_str()));
  }
  return nb::cast<std::string>(path);
}

}  // namespace

io::SourceOptions SourceOptionsFrom(nb::handle options) {
  io::SourceOptions out;
  if (options.is_none()) return out;
  for (auto [key, value] : nb::cast<nb::dict>(options)) {
    const std::string name = nb::cast<std::string>(key);
    io::RemoteOptions& r = out.remote;
    if (name == "memory_map")
      out.memory_map = nb::cast<bool>(value);
    else if (name == "timeout_seconds")
      r.timeout_seconds = nb::cast<double>(value);
    else if (name == "max_retries")
      r.max_retries = nb::cast<int>(value);
    else if (name == "retry_delay_seconds")
      r.retry_delay_seconds = nb::cast<double>(value);
    else if (name == "parallel_requests")
      r.parallel_requests = nb::cast<int>(value);
    else if (name == "coalesce_gap")
      r.coalesce_gap = nb::cast<int64_t>(value);
    else if (name == "readahead_bytes")
      r.readahead_bytes = nb::cast<int64_t>(value);
    else if (name == "tail_bytes")
      r.tail_bytes = nb::cast<int64_t>(value);
    else if (name == "ca_bundle")
      r.ca_bundle = PathOrUnset(value, name);
    else if (name == "ca_directory")
      r.ca_directory = PathOrUnset(value, name);
    else
      Raise(Status::Invalid("unknown source option '", name, "'"));
  }
  return out;
}

namespace {

nb::bytes BytesOf(const BufferPtr& buffer) {
  return nb::bytes(reinterpret_cast<const char*>(buffer->data()),
                   static_cast<size_t>(buffer->size()));
}

// Opens `location`, reads `ranges` (one: ReadAt; several: ReadRanges) and
// reports what the source did.
nb::dict Read(const std::string& location, const std::vector<std::pair<int64_t, int64_t>>& ranges,
              nb::handle options) {
  const io::SourceOptions source_options = SourceOptionsFrom(options);
  std::shared_ptr<io::InputSource> source;
  std::vector<BufferPtr> chunks;
  Check(WithoutGil([&]() -> Status {
    QUIVER_ASSIGN_OR_RETURN(source, io::OpenSource(location, source_options));
    std::vector<io::ByteRange> asked;
    for (const auto& [offset, length] : ranges) asked.push_back({offset, length});
    if (asked.size() == 1) {
      QUIVER_ASSIGN_OR_RETURN(BufferPtr one, source->ReadAt(asked[0].offset, asked[0].length));
      chunks.push_back(std::move(one));
    } else if (!asked.empty()) {
      QUIVER_ASSIGN_OR_RETURN(chunks, source->ReadRanges(asked));
    }
    return Status::OK();
  }));
  nb::list out_chunks;
  for (const BufferPtr& chunk : chunks) out_chunks.append(BytesOf(chunk));
  const io::IoStats stats = source->stats();
  nb::dict info;
  info["size"] = source->size();
  info["name"] = source->name();
  info["chunks"] = out_chunks;
  info["requests"] = stats.requests;
  info["bytes_fetched"] = stats.bytes_fetched;
  info["retries"] = stats.retries;
  return info;
}

}  // namespace

void BindIo(nb::module_& m) {
  m.def("_io_read", &Read, nb::arg("location"), nb::arg("ranges"),
        nb::arg("options").none() = nb::none(),
        "Internal, for the tests: opens a source (path or URL), reads the (offset, length) "
        "ranges and returns {size, name, chunks, requests, bytes_fetched, retries}.");
  m.def(
      "_io_expand",
      [](const std::vector<std::string>& locations, const std::vector<std::string>& extensions,
         nb::handle options) {
        const io::SourceOptions source_options = SourceOptionsFrom(options);
        return Unwrap(
            WithoutGil([&] { return io::ExpandLocations(locations, extensions, source_options); }));
      },
      nb::arg("locations"), nb::arg("extensions"), nb::arg("options").none() = nb::none(),
      "Internal, for the tests: io::ExpandLocations (directories, globs, s3:// prefixes).");
  m.def(
      "_set_curl_module", [](const std::string& path) { io::SetCurlModule(path); }, nb::arg("path"),
      "Internal: the module linking libcurl that the first remote read opens (the package "
      "names its own at import).");
}

}  // namespace quiver::python
