// qv.dataset(): random access to the rows of IPC files and streams, local
// or remote (quiver/dataset.h).
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "py_bindings.h"
#include "py_errors.h"
#include "py_index.h"
#include "py_io.h"
#include "py_objects.h"
#include "quiver/dataset.h"

namespace quiver::python {

namespace {

struct PyDataset {
  // Shared, so that close() in one thread leaves a call running in another
  // its dataset until that call returns.
  std::shared_ptr<dataset::Dataset> dataset;
  // What it was opened with: a pickle reopens it (spawned DataLoader
  // workers, Ray and Dask tasks).
  std::vector<std::string> sources;
  std::optional<std::vector<std::string>> columns;
  bool memory_map = true;
  std::optional<int64_t> cache_bytes;
  nb::object remote;

  std::shared_ptr<dataset::Dataset> Get() const {
    if (!dataset) Raise(Status::Invalid("the Dataset is closed"));
    return dataset;
  }
};

// A path or URL, or a list of them: os.PathLike objects count as paths.
std::vector<std::string> Sources(nb::handle source) {
  nb::object os = nb::module_::import_("os");
  auto one = [&](nb::handle item) -> std::string {
    if (nb::isinstance<nb::str>(item)) return nb::cast<std::string>(item);
    if (nb::hasattr(item, "__fspath__")) return nb::cast<std::string>(os.attr("fspath")(item));
    Raise(Status::TypeError("a dataset source is a path or a URL (str or os.PathLike), got ",
                            nb::type_name(item.type()).c_str()));
  };
  if (nb::isinstance<nb::list>(source) || nb::isinstance<nb::tuple>(source)) {
    std::vector<std::string> out;
    for (nb::handle item : source) out.push_back(one(item));
    return out;
  }
  return {one(source)};
}

// A copy of remote options with the certificate paths made absolute: a
// pickle reopens the dataset where the working folder may be another.
nb::dict WithAbsolutePaths(const nb::dict& remote) {
  nb::dict out;
  nb::object os = nb::module_::import_("os");
  for (auto [key, value] : remote) {
    out[key] = value;
    if (!nb::isinstance<nb::str>(key) || value.is_none()) continue;
    const std::string name = nb::cast<std::string>(key);
    if (name != "ca_bundle" && name != "ca_directory") continue;
    // Joined as C++ makes it absolute (no ".." folded away); "" (unset)
    // and lists of folders stay as they are.
    const std::string path = nb::cast<std::string>(os.attr("fspath")(value));
    if (path.empty() || path.find(':') != std::string::npos) continue;
    out[key] = os.attr("path").attr("join")(os.attr("getcwd")(), path);
  }
  return out;
}

PyDataset Open(nb::handle source, std::optional<std::vector<std::string>> columns, bool memory_map,
               std::optional<int64_t> cache_bytes, nb::object remote) {
  dataset::DatasetOptions options;
  if (!remote.is_none() && !nb::isinstance<nb::dict>(remote)) {
    Raise(Status::TypeError("remote= takes a dict of remote source options, got ",
                            nb::type_name(remote.type()).c_str()));
  }
  if (!remote.is_none() && nb::cast<nb::dict>(remote).contains("memory_map")) {
    Raise(Status::Invalid("remote= does not take memory_map (a keyword of its own)"));
  }
  options.remote = SourceOptionsFrom(remote).remote;
  if (!remote.is_none()) remote = WithAbsolutePaths(nb::cast<nb::dict>(remote));
  if (columns) options.columns = *columns;
  options.memory_map = memory_map;
  if (cache_bytes) {
    if (*cache_bytes < 0) Raise(Status::Invalid("cache_bytes must be >= 0, got ", *cache_bytes));
    options.cache_bytes = *cache_bytes;
  }
  const std::vector<std::string> sources = Sources(source);
  return PyDataset{Unwrap(WithoutGil([&] { return dataset::Dataset::Open(sources, options); })),
                   sources,
                   columns,
                   memory_map,
                   cache_bytes,
                   remote};
}

PyTable Take(const PyDataset& self, nb::handle indices) {
  std::shared_ptr<dataset::Dataset> dataset = self.Get();
  auto index = IndexArray(indices, dataset->num_rows());
  std::span<const int64_t> span(index.data(), index.shape(0));
  return PyTable{Unwrap(WithoutGil([&] { return dataset->Take(span); }))};
}

PyTable GetItem(const PyDataset& self, nb::handle key) {
  std::shared_ptr<dataset::Dataset> dataset = self.Get();
  const int64_t rows = dataset->num_rows();
  if (nb::isinstance<nb::slice>(key)) {
    nb::slice slice = nb::borrow<nb::slice>(key);
    std::vector<int64_t> picked;
    if (SliceRows(slice, rows, &picked)) {
      return PyTable{Unwrap(WithoutGil([&] { return dataset->Take(picked); }))};
    }
    auto [start, count] = ResolveSlice(slice, rows);
    return PyTable{Unwrap(WithoutGil([&] { return dataset->Slice(start, count); }))};
  }
  // One row for an integer scalar (a NumPy array is an index too, to
  // Python, when it has no dimension); a float or bool scalar is refused
  // as take refuses them in a list; arrays and lists are takes.
  const bool scalar = !nb::hasattr(key, "ndim") || nb::cast<int64_t>(key.attr("ndim")) == 0;
  if (scalar && (PyBool_Check(key.ptr()) || !PyIndex_Check(key.ptr())) &&
      !nb::isinstance<nb::list>(key) && !nb::isinstance<nb::tuple>(key) &&
      !nb::hasattr(key, "__len__") && !nb::hasattr(key, "__iter__")) {
    Raise(Status::TypeError("indices must be integers, got ", nb::type_name(key.type()).c_str()));
  }
  if (scalar && PyIndex_Check(key.ptr()) && !PyBool_Check(key.ptr())) {
    const int64_t row = ResolveIndex(key, rows);
    return PyTable{Unwrap(WithoutGil([&] { return dataset->Slice(row, 1); }))};
  }
  return Take(self, key);
}

// to_batches(): record batch after record batch, each group of them
// (Dataset::WarmBudget) warmed at once when the first of it is reached, so
// remote record batches come over parallel connections and compressed
// ones decode on every core.
struct PyBatchIterator {
  std::shared_ptr<dataset::Dataset> dataset;
  int next = 0;
  int warm_until = 0;

  PyRecordBatch Next() {
    const int count = dataset->num_record_batches();
    if (next >= count) throw nb::stop_iteration();
    return PyRecordBatch{Unwrap(WithoutGil([&]() -> Result<RecordBatchPtr> {
      if (next >= warm_until) {
        const int64_t end = std::min<int64_t>(count, next + dataset->WarmBudget());
        std::vector<int64_t> group;
        for (int64_t k = next; k < end; ++k) group.push_back(k);
        // A failure is met again, naming the batch, when it is read.
        (void)dataset->Warm(group);
        warm_until = static_cast<int>(end);
      }
      return dataset->ReadRecordBatch(next++);
    }))};
  }
};

nb::dict Stats(const PyDataset& self) { return CacheStatsToDict(self.Get()->cache_stats()); }

}  // namespace

nb::dict CacheStatsToDict(const dataset::CacheStats& stats) {
  nb::dict out;
  out["hits"] = stats.hits;
  out["misses"] = stats.misses;
  out["evictions"] = stats.evictions;
  out["bytes_decoded"] = stats.bytes_decoded;
  out["bytes_cached"] = stats.bytes_cached;
  out["bytes_fetched"] = stats.bytes_fetched;
  out["requests"] = stats.requests;
  return out;
}

void BindDataset(nb::module_& m) {
  nb::class_<PyBatchIterator>(m, "_RecordBatchIterator")
      .def("__iter__", [](nb::handle self) { return nb::borrow(self); })
      .def("__next__", &PyBatchIterator::Next);
  nb::class_<PyDataset>(m, "Dataset",
                        "Rows of IPC files and streams, local or remote, read in any order "
                        "(see quiver.dataset()).")
      .def_prop_ro("schema", [](const PyDataset& d) { return PySchema{d.Get()->schema()}; })
      .def_prop_ro("num_rows", [](const PyDataset& d) { return d.Get()->num_rows(); })
      .def_prop_ro("num_record_batches",
                   [](const PyDataset& d) { return d.Get()->num_record_batches(); })
      .def_prop_ro(
          "sources", [](const PyDataset& d) { return d.Get()->locations(); },
          "The files and objects read, in order.")
      .def_prop_ro(
          "cache_bytes",
          [](const PyDataset& d) {
            d.Get();
            return d.cache_bytes.value_or(dataset::kDefaultCacheBytes);
          },
          "The budget of the cache of decoded record batches, in bytes (256 MiB unless "
          "quiver.dataset() was given cache_bytes).")
      .def_prop_ro(
          "memory_map",
          [](const PyDataset& d) {
            d.Get();
            return d.memory_map;
          },
          "Whether local files are memory-mapped (the default) rather than read with pread.")
      .def("__len__", [](const PyDataset& d) { return d.Get()->num_rows(); })
      .def("take", &Take, nb::arg("indices"),
           "The rows `indices` picks (ints in [0, num_rows), any order, repeats allowed) as a "
           "Table in that order (a copy).")
      .def("__getitem__", &GetItem, nb::arg("key"),
           "Row i (negative counts from the end) as a one-row Table, rows [a:b] (zero-copy "
           "views of the decoded batches), or the rows a list or array of ints picks.")
      .def("__getitems__", &Take, nb::arg("indices"),
           "The rows of a list of indices as one Table (PyTorch's batched map-style protocol).")
      .def(
          "to_batches", [](const PyDataset& d) { return PyBatchIterator{d.Get()}; },
          "An iterator over every record batch in order (projected columns only); record "
          "batches that must be fetched or decoded are read a group ahead, in parallel.")
      .def("cache_stats", &Stats,
           "hits, misses, evictions, bytes_decoded, bytes_cached, bytes_fetched and requests "
           "since the dataset opened.")
      .def(
          "close", [](PyDataset& d) { d.dataset.reset(); },
          "Releases the sources and the cache; later calls raise ValueError.")
      .def(
          "__reduce__",
          [](const PyDataset& d) {
            d.Get();
            nb::object reopen = nb::module_::import_("quiver._pickle").attr("_unpickle_dataset");
            return nb::make_tuple(reopen, nb::make_tuple(d.sources, d.columns, d.memory_map,
                                                         d.cache_bytes, d.remote));
          },
          "Pickles as the sources and options: unpickling opens the sources again.")
      .def("__enter__", [](nb::handle self) { return nb::borrow(self); })
      .def("__exit__", [](PyDataset& d, nb::args) { d.dataset.reset(); })
      .def("__repr__", [](const PyDataset& d) {
        if (!d.dataset) return std::string("quiver.Dataset (closed)");
        return "quiver.Dataset num_rows=" + std::to_string(d.dataset->num_rows()) +
               " sources=" + std::to_string(d.dataset->locations().size()) +
               " columns=" + std::to_string(d.dataset->schema()->fields.size());
      });
  m.def("dataset", &Open, nb::arg("source"), nb::kw_only(), nb::arg("columns").none() = nb::none(),
        nb::arg("memory_map") = true, nb::arg("cache_bytes").none() = nb::none(),
        nb::arg("remote").none() = nb::none(),
        "Opens IPC files and streams for random access to their rows: `source` is a path, a "
        "directory, a glob pattern, an http(s):// or s3:// URL, or a list of them "
        "(docs/dataset.md). `remote`: a dict of remote source options (timeout_seconds, "
        "max_retries, retry_delay_seconds, parallel_requests, coalesce_gap, readahead_bytes, "
        "tail_bytes, ca_bundle, ca_directory; docs/remote.md).");
}

}  // namespace quiver::python
