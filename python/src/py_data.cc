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
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
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

data::Shuffle ShuffleFrom(const std::string& name) {
  if (name == "none") return data::Shuffle::kNone;
  if (name == "global") return data::Shuffle::kGlobal;
  if (name == "window") return data::Shuffle::kWindow;
  Raise(Status::Invalid("shuffle must be False, True, 'global' or 'window', got '" + name + "'"));
}

data::RaggedLayout RaggedFrom(const std::string& name) {
  if (name == "padded") return data::RaggedLayout::kPadded;
  if (name == "jagged") return data::RaggedLayout::kJagged;
  if (name == "list") return data::RaggedLayout::kList;
  Raise(Status::Invalid("ragged must be 'padded', 'jagged' or 'list', got '" + name + "'"));
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

nb::dict BatchToDict(data::Batch batch) {
  nb::dict out;
  for (data::BatchArray& array : batch.arrays) {
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

std::unique_ptr<data::BatchReader> OpenReader(
    std::vector<std::string> sources, std::optional<std::vector<std::string>> columns,
    int64_t batch_size, const std::string& shuffle, uint64_t seed, int64_t window_rows,
    bool drop_last, int rank, int world_size, const std::string& ragged, nb::handle pad_value,
    const std::string& bucket_by, int64_t bucket_window, int prefetch, int threads,
    std::optional<std::vector<uintptr_t>> pinned, bool memory_map, int64_t max_batch_bytes,
    int64_t cache_bytes) {
  data::BatchReaderOptions options;
  if (columns) {
    if (columns->empty()) Raise(Status::Invalid("columns=[] selects nothing; None reads all"));
    options.columns = std::move(*columns);
  }
  options.batch_size = batch_size;
  options.shuffle = ShuffleFrom(shuffle);
  options.seed = seed;
  options.window_rows = window_rows;
  options.drop_last = drop_last;
  options.rank = rank;
  options.world_size = world_size;
  options.ragged = RaggedFrom(ragged);
  options.pad_value = PadValueFrom(pad_value);
  options.bucket_by = bucket_by;
  options.bucket_window = bucket_window;
  options.prefetch = prefetch;
  options.threads = threads;
  options.memory_map = memory_map;
  options.max_batch_bytes = max_batch_bytes;
  options.cache_bytes = cache_bytes;
  if (pinned) {
    // (cudaHostAlloc, cudaFreeHost[, cudaDeviceSynchronize])
    if (pinned->size() != 2 && pinned->size() != 3) {
      Raise(Status::Invalid("pinned takes 2 or 3 function addresses, got ", pinned->size()));
    }
    options.allocate = PinnedAllocator((*pinned)[0], (*pinned)[1]);
    if (pinned->size() == 3) options.before_reuse = DeviceSync((*pinned)[2]);
  }
  return Unwrap(WithoutGil([&] { return data::BatchReader::Open(sources, std::move(options)); }));
}

}  // namespace

void BindData(nb::module_& parent) {
  nb::module_ m = parent.def_submodule("data", "The training input pipeline (quiver.data).");
  nb::class_<PyBatchReader>(m, "_BatchReader")
      .def(
          "__init__",
          [](PyBatchReader* self, std::vector<std::string> sources,
             std::optional<std::vector<std::string>> columns, int64_t batch_size,
             const std::string& shuffle, uint64_t seed, int64_t window_rows, bool drop_last,
             int rank, int world_size, const std::string& ragged, nb::handle pad_value,
             const std::string& bucket_by, int64_t bucket_window, int prefetch, int threads,
             std::optional<std::vector<uintptr_t>> pinned, bool memory_map, int64_t max_batch_bytes,
             int64_t cache_bytes) {
            new (self) PyBatchReader{OpenReader(
                std::move(sources), std::move(columns), batch_size, shuffle, seed, window_rows,
                drop_last, rank, world_size, ragged, pad_value, bucket_by, bucket_window, prefetch,
                threads, pinned, memory_map, max_batch_bytes, cache_bytes)};
          },
          nb::arg("sources"), nb::arg("columns").none(), nb::arg("batch_size"), nb::arg("shuffle"),
          nb::arg("seed"), nb::arg("window_rows"), nb::arg("drop_last"), nb::arg("rank"),
          nb::arg("world_size"), nb::arg("ragged"), nb::arg("pad_value"), nb::arg("bucket_by"),
          nb::arg("bucket_window"), nb::arg("prefetch"), nb::arg("threads"),
          nb::arg("pinned").none(), nb::arg("memory_map"), nb::arg("max_batch_bytes"),
          nb::arg("cache_bytes"))
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
      .def_prop_ro("padding_ratio", [](PyBatchReader& r) {
        return r.Locked([&](data::BatchReader& reader) { return reader.padding_ratio(); });
      });
}

}  // namespace quiver::python
