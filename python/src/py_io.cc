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
