// quiver._quiver.data: the compiled half of quiver.data (the BatchReader
// over quiver/data.h). quiver/data.py wraps it with the Python signature,
// iteration and the framework adapters.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <unistd.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "py_bindings.h"
#include "py_errors.h"
#include "py_numpy.h"
#include "py_objects.h"
#include "py_record_batch.h"
#include "quiver/data.h"

namespace quiver::python {

namespace {

struct PyBatchReader {
  // Shared, so that close() in one Python thread leaves a call running in
  // another its reader until that call returns.
  std::shared_ptr<data::BatchReader> reader;
  // One call at a time: Python threads may share a reader, and the calls
  // run without the GIL.
  std::unique_ptr<std::mutex> mutex = std::make_unique<std::mutex>();
  pid_t owner = getpid();

  // The reader, or ValueError once close() ran.
  data::BatchReader& Get() const {
    if (!reader) Raise(Status::Invalid("the BatchReader is closed"));
    return *reader;
  }

  // fn(reader) without the GIL, one call at a time.
  template <typename Fn>
  auto Locked(Fn&& fn) {
    Get();
    std::shared_ptr<data::BatchReader> held = reader;
    std::mutex& lock_first = Mutex();
    return WithoutGil([&] {
      std::lock_guard<std::mutex> lock(lock_first);
      return fn(*held);
    });
  }

  // The lock; in a forked child a new one: another thread of the parent
  // may have held the old one at the fork, and nobody here releases it.
  std::mutex& Mutex() {
    if (owner != getpid()) {
      (void)mutex.release();
      mutex = std::make_unique<std::mutex>();
      owner = getpid();
    }
    return *mutex;
  }
};

// cudaHostAlloc(void**, size_t, unsigned) and cudaFreeHost(void*), whose
// addresses quiver/data.py finds in the CUDA runtime when there is one.
using HostAlloc = int (*)(void**, size_t, unsigned);
using HostFree = int (*)(void*);

// shuffle=: False / None, True, "global", "window", or a Shuffle value.
data::Shuffle ShuffleFrom(nb::handle value) {
  if (value.is_none() || value.ptr() == Py_False) return data::Shuffle::kNone;
  if (value.ptr() == Py_True) return data::Shuffle::kGlobal;
  if (nb::isinstance<data::Shuffle>(value)) return nb::cast<data::Shuffle>(value);
  if (nb::isinstance<nb::str>(value)) {
    const std::string name = nb::cast<std::string>(value);
    if (name == "global") return data::Shuffle::kGlobal;
    if (name == "window") return data::Shuffle::kWindow;
    if (name == "none") return data::Shuffle::kNone;
  }
  Raise(Status::Invalid("shuffle must be False, True, 'global' or 'window', got ",
                        nb::cast<std::string>(nb::repr(value))));
}

data::RaggedLayout RaggedFrom(nb::handle value) {
  if (nb::isinstance<data::RaggedLayout>(value)) return nb::cast<data::RaggedLayout>(value);
  if (nb::isinstance<nb::str>(value)) {
    const std::string name = nb::cast<std::string>(value);
    if (name == "padded") return data::RaggedLayout::kPadded;
    if (name == "jagged") return data::RaggedLayout::kJagged;
    if (name == "list") return data::RaggedLayout::kList;
  }
  Raise(Status::Invalid("ragged must be 'padded', 'jagged' or 'list', got ",
                        nb::cast<std::string>(nb::repr(value))));
}

// An integer option: TypeError for anything but an int (bool included),
// ValueError naming the option past what T holds; None gives `none`.
template <typename T>
T IntFrom(nb::handle value, const char* name, T none = 0) {
  if (value.is_none()) return none;
  if (PyBool_Check(value.ptr()) || !PyIndex_Check(value.ptr())) {
    Raise(Status::TypeError(name, " must be an int, got ", nb::type_name(value.type()).c_str()));
  }
  nb::object index = nb::steal(PyNumber_Index(value.ptr()));
  if (!index.is_valid()) throw nb::python_error();
  const nb::int_ number = nb::borrow<nb::int_>(index);
  if (number < nb::int_(std::numeric_limits<T>::min())) {
    Raise(Status::Invalid(name, " must be >= ", std::numeric_limits<T>::min(), ", got ",
                          Str(number)));
  }
  if (number > nb::int_(std::numeric_limits<T>::max())) {
    Raise(Status::Invalid(name, " must be <= ", std::numeric_limits<T>::max(), ", got ",
                          Str(number)));
  }
  return nb::cast<T>(number);
}

// A flag option: its truth value, as Python's `if` reads it (1, 0, NumPy
// bools).
bool Truth(nb::handle value, const char* name) {
  const int truth = PyObject_IsTrue(value.ptr());
  if (truth < 0) {
    PyErr_Clear();
    Raise(Status::TypeError(name, " must be true or false, got ",
                            nb::type_name(value.type()).c_str()));
  }
  return truth == 1;
}

// columns= and valid_masks=: None (all / none) or a list of names.
std::vector<std::string> NamesFrom(nb::handle value, const char* name, bool empty_ok) {
  if (value.is_none()) return {};
  if (nb::isinstance<nb::str>(value) || !nb::hasattr(value, "__iter__")) {
    Raise(Status::TypeError(name, " must be a list of column names"));
  }
  std::vector<std::string> names;
  for (nb::handle item : value) {
    if (!nb::isinstance<nb::str>(item))
      Raise(Status::TypeError(name, " must be a list of column names"));
    names.push_back(nb::cast<std::string>(item));
  }
  if (names.empty() && !empty_ok) {
    Raise(Status::Invalid(name, "=[] selects nothing; None reads all"));
  }
  return names;
}

PadValue PadValueFrom(nb::handle given) {
  nb::object value = nb::borrow(given);
  if (PyBool_Check(value.ptr())) return PadValue(value.ptr() == Py_True ? 1 : 0);
  // NumPy scalars: integers through __index__, floats through __float__.
  if (!PyLong_Check(value.ptr()) && !PyFloat_Check(value.ptr())) {
    if (nb::hasattr(value, "__index__")) {
      value = nb::steal(PyNumber_Index(value.ptr()));
    } else if (nb::hasattr(value, "__float__") && !nb::hasattr(value, "__complex__")) {
      value = nb::steal(PyNumber_Float(given.ptr()));
    }
    if (!value.is_valid()) throw nb::python_error();
  }
  if (PyLong_Check(value.ptr())) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
    if (!overflow) return PadValue(static_cast<int64_t>(v));
    const unsigned long long u = PyLong_AsUnsignedLongLong(value.ptr());
    if (PyErr_Occurred()) {
      PyErr_Clear();
      Raise(Status::Invalid("pad_value " + Str(value) + " does not fit 64 bits"));
    }
    return PadValue(static_cast<uint64_t>(u));
  }
  if (PyFloat_Check(value.ptr())) return PadValue(PyFloat_AsDouble(value.ptr()));
  Raise(Status::TypeError("pad_value must be an int or a float, got " +
                          Str(nb::handle(reinterpret_cast<PyObject*>(Py_TYPE(given.ptr()))))));
}

// Batch buffers in page-locked memory from the CUDA runtime, portable
// (cudaHostAllocPortable): pinned for every device's context, so a batch
// copies asynchronously to whichever GPU the training step runs on.
std::function<Result<BufferPtr>(int64_t)> PinnedAllocator(uintptr_t alloc, uintptr_t free) {
  const HostAlloc host_alloc = reinterpret_cast<HostAlloc>(alloc);
  const HostFree host_free = reinterpret_cast<HostFree>(free);
  return [host_alloc, host_free](int64_t bytes) -> Result<BufferPtr> {
    void* memory = nullptr;
    const size_t size = static_cast<size_t>(bytes > 0 ? bytes : 1);
    constexpr unsigned kHostAllocPortable = 1;
    const int error = host_alloc(&memory, size, kHostAllocPortable);
    if (error != 0 || memory == nullptr) {
      return Status::OutOfMemory("cudaHostAlloc of ", bytes, " bytes failed (error ", error, ")");
    }
    return Buffer::Wrap(memory, bytes, [host_free, memory] { host_free(memory); });
  };
}

// Waits for every copy queued on the device before a pinned buffer is
// written again: `tensor.to("cuda", non_blocking=True)` only queues its
// copy, and the consumer may let go of the batch long before the copy runs
// (it waits behind the training step's kernels). Reusing the buffer then
// would hand the copy the next batch's rows. Runs on the reader's thread,
// so only the prefetch waits, and only while the device is busy.
std::function<Status()> DeviceSync(uintptr_t address) {
  const auto synchronize = reinterpret_cast<int (*)()>(address);
  return [synchronize]() -> Status {
    const int error = synchronize();
    if (error != 0) {
      return Status::IOError("cudaDeviceSynchronize failed (error ", error,
                             ") before a pinned batch buffer was reused");
    }
    return Status::OK();
  };
}

// A string or binary column's rows: a list of str (utf8) or bytes, None
// for null rows.
nb::list StringRows(const data::BatchArray& array) {
  const auto* bytes = reinterpret_cast<const char*>(array.tensor.raw_data());
  const auto* offsets = reinterpret_cast<const int64_t*>(array.offsets.raw_data());
  nb::list rows;
  for (size_t i = 0; i < array.valid.size(); ++i) {
    if (!array.valid[i]) {
      rows.append(nb::none());
      continue;
    }
    const char* start = bytes + offsets[i];
    const auto size = static_cast<Py_ssize_t>(offsets[i + 1] - offsets[i]);
    PyObject* row = array.strings == data::BatchArray::Strings::kUtf8
                        ? PyUnicode_DecodeUTF8(start, size, "strict")
                        : PyBytes_FromStringAndSize(start, size);
    if (row == nullptr) throw nb::python_error();
    rows.append(nb::steal(row));
  }
  return rows;
}

nb::dict BatchToDict(data::Batch batch) {
  nb::dict out;
  for (data::BatchArray& array : batch.arrays) {
    if (array.objects) {
      // As to_pylist() reads the type; None for rows a null struct hides.
      nb::list rows = nb::borrow<nb::list>(ArrayToPylist(array.objects));
      for (size_t i = 0; i < array.valid.size(); ++i) {
        if (!array.valid[i]) rows[i] = nb::none();
      }
      out[array.name.c_str()] = rows;
      continue;
    }
    if (array.strings != data::BatchArray::Strings::kNone) {
      out[array.name.c_str()] = StringRows(array);
      continue;
    }
    if (!array.is_list) {
      // Writable, and keeping the buffer alive: the reader writes that
      // buffer again only once this array is gone.
      out[array.name.c_str()] = TensorToNumpy(array.tensor, NumpyAccess::kWritable);
      continue;
    }
    nb::list rows;
    for (const std::optional<Tensor>& row : array.rows) {
      rows.append(row ? TensorToNumpy(*row) : nb::none());
    }
    out[array.name.c_str()] = rows;
  }
  return out;
}

// The options of BatchReader (quiver/data.h), one property per field,
// each converted and range-checked here; BatchReader::Open checks how they
// fit together (CheckOptions). Python names the arguments: threads is
// num_threads, rank and world_size come from shard=.
void BindOptions(nb::module_& m) {
  using Options = data::BatchReaderOptions;
  nb::enum_<data::Shuffle>(m, "Shuffle")
      .value("none", data::Shuffle::kNone)
      .value("global_", data::Shuffle::kGlobal)
      .value("window", data::Shuffle::kWindow);
  nb::enum_<data::RaggedLayout>(m, "RaggedLayout")
      .value("padded", data::RaggedLayout::kPadded)
      .value("jagged", data::RaggedLayout::kJagged)
      .value("list", data::RaggedLayout::kList);
  auto int_option = [](auto member, const char* name) {
    using T = std::remove_reference_t<decltype(std::declval<Options&>().*member)>;
    return std::make_pair(
        [member](const Options& o) { return o.*member; },
        [member, name](Options& o, nb::handle value) { o.*member = IntFrom<T>(value, name); });
  };
  nb::class_<Options> options(m, "BatchReaderOptions",
                              "The options of a BatchReader, checked as they are set.");
  options.def(nb::init<>());
  auto bind_int = [&](const char* property, auto member, const char* name) {
    auto [get, set] = int_option(member, name);
    options.def_prop_rw(property, get, set, nb::arg("value").none());
  };
  bind_int("batch_size", &Options::batch_size, "batch_size");
  bind_int("seed", &Options::seed, "seed");
  // 0 is C++'s "unset" (None here): a 0 given is refused, not read as it.
  options.def_prop_rw(
      "window_rows", [](const Options& o) { return o.window_rows; },
      [](Options& o, nb::handle value) {
        const auto rows = IntFrom<int64_t>(value, "window_rows");
        if (!value.is_none() && rows <= 0) {
          Raise(Status::Invalid("window_rows must be > 0, got ", rows));
        }
        o.window_rows = rows;
      },
      nb::arg("value").none());
  bind_int("rank", &Options::rank, "shard rank");
  bind_int("world_size", &Options::world_size, "shard world_size");
  bind_int("bucket_window", &Options::bucket_window, "bucket_window");
  bind_int("prefetch", &Options::prefetch, "prefetch");
  bind_int("threads", &Options::threads, "num_threads");
  bind_int("max_batch_bytes", &Options::max_batch_bytes, "max_batch_bytes");
  options
      .def_prop_rw(
          "cache_bytes", [](const Options& o) { return o.cache_bytes; },
          [](Options& o, nb::handle value) {
            o.cache_bytes = IntFrom<int64_t>(value, "cache_bytes", dataset::kDefaultCacheBytes);
          },
          nb::arg("value").none())
      .def_prop_rw(
          "drop_last", [](const Options& o) { return o.drop_last; },
          [](Options& o, nb::handle value) { o.drop_last = Truth(value, "drop_last"); })
      .def_prop_rw(
          "memory_map", [](const Options& o) { return o.memory_map; },
          [](Options& o, nb::handle value) { o.memory_map = Truth(value, "memory_map"); })
      .def_prop_rw(
          "columns", [](const Options& o) { return o.columns; },
          [](Options& o, nb::handle value) { o.columns = NamesFrom(value, "columns", false); },
          nb::arg("value").none())
      .def_prop_rw(
          "valid_masks", [](const Options& o) { return o.valid_masks; },
          [](Options& o, nb::handle value) {
            o.valid_masks = NamesFrom(value, "valid_masks", true);
          },
          nb::arg("value").none())
      .def_prop_rw(
          "bucket_by", [](const Options& o) { return o.bucket_by; },
          [](Options& o, nb::handle value) {
            if (!value.is_none() && !nb::isinstance<nb::str>(value)) {
              Raise(Status::TypeError("bucket_by must be a column name"));
            }
            o.bucket_by = value.is_none() ? "" : nb::cast<std::string>(value);
          },
          nb::arg("value").none())
      .def_prop_rw(
          "shuffle", [](const Options& o) { return o.shuffle; },
          [](Options& o, nb::handle value) { o.shuffle = ShuffleFrom(value); },
          nb::arg("value").none())
      .def_prop_rw(
          "ragged", [](const Options& o) { return o.ragged; },
          [](Options& o, nb::handle value) { o.ragged = RaggedFrom(value); })
      .def_prop_rw(
          "pad_value",
          [](const Options& o) -> nb::object {
            switch (o.pad_value.kind()) {
              case PadValue::Kind::kInt64: return nb::cast(o.pad_value.int64_value());
              case PadValue::Kind::kUInt64: return nb::cast(o.pad_value.uint64_value());
              case PadValue::Kind::kDouble: break;
            }
            return nb::cast(o.pad_value.double_value());
          },
          [](Options& o, nb::handle value) { o.pad_value = PadValueFrom(value); })
      .def(
          "set_pinned",
          [](Options& o, std::vector<uintptr_t> pinned) {
            // (cudaHostAlloc, cudaFreeHost[, cudaDeviceSynchronize])
            if (pinned.size() != 2 && pinned.size() != 3) {
              Raise(Status::Invalid("pinned takes 2 or 3 function addresses, got ", pinned.size()));
            }
            o.allocate = PinnedAllocator(pinned[0], pinned[1]);
            if (pinned.size() == 3) o.before_reuse = DeviceSync(pinned[2]);
          },
          nb::arg("addresses"),
          "Batch buffers from cudaHostAlloc / cudaFreeHost (and cudaDeviceSynchronize before "
          "a buffer is written again).");
}

}  // namespace

void BindData(nb::module_& parent) {
  nb::module_ m = parent.def_submodule("data", "The training input pipeline (quiver.data).");
  BindOptions(m);
  nb::class_<PyBatchReader>(m, "_BatchReader")
      .def(
          "__init__",
          [](PyBatchReader* self, std::vector<std::string> sources,
             const data::BatchReaderOptions& options) {
            new (self) PyBatchReader{Unwrap(
                WithoutGil([&] { return data::BatchReader::Open(std::move(sources), options); }))};
          },
          nb::arg("sources"), nb::arg("options"))
      .def("close",
           [](PyBatchReader& r) {
             if (!r.reader) return;
             // Stops the prefetch thread (joined without the GIL, after any
             // call in another thread) and releases the files; the arrays
             // of batches already returned stay valid.
             std::shared_ptr<data::BatchReader> reader = std::move(r.reader);
             std::mutex& mutex = r.Mutex();
             WithoutGil([&] {
               std::lock_guard<std::mutex> lock(mutex);
               reader.reset();
               return 0;
             });
           })
      .def_prop_ro("closed", [](const PyBatchReader& r) { return !r.reader; })
      .def("next",
           [](PyBatchReader& r) -> nb::object {
             std::optional<data::Batch> batch =
                 Unwrap(r.Locked([&](data::BatchReader& reader) { return reader.Next(); }));
             if (!batch) return nb::none();
             return BatchToDict(std::move(*batch));
           })
      .def(
          "read_batch",
          [](PyBatchReader& r, int64_t i) {
            return BatchToDict(
                Unwrap(r.Locked([&](data::BatchReader& reader) { return reader.ReadBatch(i); })));
          },
          nb::arg("i"))
      .def(
          "read_rows",
          [](PyBatchReader& r, nb::handle rows) {
            auto index = IndexArray(rows, r.Get().num_rows());
            std::span<const int64_t> span(index.data(), index.shape(0));
            return BatchToDict(
                Unwrap(r.Locked([&](data::BatchReader& reader) { return reader.ReadRows(span); })));
          },
          nb::arg("rows"))
      .def(
          "set_epoch",
          [](PyBatchReader& r, int64_t epoch, int64_t position) {
            Check(r.Locked(
                [&](data::BatchReader& reader) { return reader.SetEpoch(epoch, position); }));
          },
          nb::arg("epoch"), nb::arg("position") = 0)
      .def_prop_ro("order_key",
                   [](PyBatchReader& r) {
                     return r.Locked([&](data::BatchReader& reader) { return reader.order_key(); });
                   })
      .def_prop_ro("position",
                   [](PyBatchReader& r) {
                     return r.Locked([&](data::BatchReader& reader) { return reader.position(); });
                   })
      .def("stats",
           [](PyBatchReader& r) {
             return CacheStatsToDict(
                 r.Locked([&](data::BatchReader& reader) { return reader.stats(); }));
           })
      .def_prop_ro(
          "plan_bytes",
          [](PyBatchReader& r) {
            return r.Locked([&](data::BatchReader& reader) { return reader.plan_bytes(); });
          })
      .def("epoch_rows",
           [](PyBatchReader& r) {
             std::vector<int64_t> rows =
                 Unwrap(r.Locked([&](data::BatchReader& reader) { return reader.EpochRows(); }));
             nb::object numpy = Numpy();
             return numpy.attr("array")(nb::cast(rows), "int64");
           })
      .def_prop_ro("epoch",
                   [](PyBatchReader& r) {
                     return r.Locked([&](data::BatchReader& reader) { return reader.epoch(); });
                   })
      .def_prop_ro("num_batches", [](const PyBatchReader& r) { return r.Get().num_batches(); })
      .def_prop_ro("num_rows", [](const PyBatchReader& r) { return r.Get().num_rows(); })
      .def_prop_ro("shard_rows", [](const PyBatchReader& r) { return r.Get().shard_rows(); })
      .def_prop_ro("files", [](const PyBatchReader& r) { return r.Get().files(); })
      .def_prop_ro("output_names", [](const PyBatchReader& r) { return r.Get().output_names(); })
      .def_prop_ro("schema", [](const PyBatchReader& r) { return PySchema{r.Get().schema()}; })
      .def(
          "dictionary",
          [](PyBatchReader& r, const std::string& name) {
            return PyArray{Unwrap(
                r.Locked([&](data::BatchReader& reader) { return reader.Dictionary(name); }))};
          },
          nb::arg("name"))
      .def_prop_ro("padding_ratio", [](PyBatchReader& r) {
        return r.Locked([&](data::BatchReader& reader) { return reader.padding_ratio(); });
      });
}

}  // namespace quiver::python
