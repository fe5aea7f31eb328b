// quiver.ipc: Arrow IPC streams and files, and the Tensor message.
#include <nanobind/nanobind.h>

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>
#include <mutex>

#include "py_bindings.h"
#include "py_c_device.h"
#include "py_capsules.h"
#include "py_errors.h"
#include "py_index.h"
#include "py_io.h"
#include "py_ipc_layout.h"
#include "py_objects.h"
#include "py_record_batch.h"
#include "py_writer.h"
#include "quiver/ipc.h"

namespace quiver::python {

namespace {

namespace ipc = quiver::ipc;

// A Python file object read front to back (pipes, sockets, subprocess
// output): readinto() where it has one, read() otherwise, with the GIL
// taken for each call. The stream reader asks for exactly the bytes of the
// message it reads, so nothing past that message is waited for.
class PythonStream : public ipc::ReadSomeStream {
 public:
  explicit PythonStream(nb::object file)
      : file_(std::move(file)), has_readinto_(nb::hasattr(file_, "readinto")) {}
  ~PythonStream() override {
    nb::gil_scoped_acquire gil;
    file_.reset();
  }

 protected:
  Result<int64_t> ReadSome(uint8_t* out, int64_t capacity) override {
    nb::gil_scoped_acquire gil;
    try {
      if (has_readinto_) {
        nb::object view = nb::steal(PyMemoryView_FromMemory(
            reinterpret_cast<char*>(out), static_cast<Py_ssize_t>(capacity), PyBUF_WRITE));
        if (!view) throw nb::python_error();
        // The view must not outlive this call: it points into quiver's buffer.
        struct Release {
          nb::handle view;
          ~Release() {
            if (PyObject* r = PyObject_CallMethod(view.ptr(), "release", nullptr))
              Py_DECREF(r);
            else
              PyErr_Clear();
          }
        } release{view};
        nb::object got = file_.attr("readinto")(view);
        if (got.is_none()) {
          return Status::IOError(
              "the file object is non-blocking and had no data (readinto() returned None)");
        }
        int overflow = 0;
        const long long n = PyLong_Check(got.ptr()) && !PyBool_Check(got.ptr())
                                ? PyLong_AsLongLongAndOverflow(got.ptr(), &overflow)
                                : -1;
        if (overflow != 0 || n < 0 || n > capacity) {
          return Status::IOError("readinto() of ", capacity, " bytes at byte ", position(),
                                 " returned ", nb::repr(got).c_str(),
                                 ", not a count of the bytes it read");
        }
        return static_cast<int64_t>(n);
      }
      nb::object got = file_.attr("read")(capacity);
      if (nb::isinstance<nb::str>(got)) return TextReadError(got);
      Py_buffer view;
      if (PyObject_GetBuffer(got.ptr(), &view, PyBUF_SIMPLE) != 0) throw nb::python_error();
      const auto n = static_cast<int64_t>(view.len);
      if (n <= capacity && n > 0) std::memcpy(out, view.buf, static_cast<size_t>(n));
      PyBuffer_Release(&view);
      if (n > capacity) {
        return Status::IOError("read(", capacity, ") at byte ", position(), " returned ", n,
                               " bytes, more than it was asked for");
      }
      return n;
    } catch (nb::python_error& e) {
      if (KeepInterrupt(e)) return Status::IOError(kInterruptedMessage);  // Raise() raises e
      return Status::IOError(std::string("reading the file object at byte ") +
                             std::to_string(position()) + " failed: " + e.what());
    } catch (std::exception& e) {
      return Status::IOError("reading the file object at byte ", position(), " failed: ", e.what());
    }
  }

 private:
  nb::object file_;
  bool has_readinto_;
};

// What open_stream reads: paths and bytes-like objects as sources (zero-
// copy), file objects message by message.
std::shared_ptr<ipc::InputStream> StreamFromPython(nb::handle source) {
  if (IsRemote(source)) return ipc::SourceStream(RemoteSource(source));
  if (IsPath(source)) {  // FIFOs and /dev/stdin too, message by message
    const std::string path = PathOf(source);
    return Unwrap(WithoutGil([&] { return ipc::OpenFileStream(path); }));
  }
  if (PyObject_CheckBuffer(source.ptr()) || !nb::hasattr(source, "read")) {
    return ipc::SourceStream(SourceFromPython(source, true));
  }
  RefuseTextMode(source);
  return std::make_shared<PythonStream>(nb::borrow(source));
}

// Writes go to a Python object's write() (with the GIL held).
class PythonSink : public ipc::OutputSink {
 public:
  explicit PythonSink(nb::object target)
      : target_(std::move(target)),
        has_raw_write_(nb::isinstance(target_, nb::module_::import_("io").attr("RawIOBase"))) {}
  // write() may take fewer bytes than it was given (raw files, sockets,
  // pipes): the rest is offered again. None (a non-blocking object that
  // could take nothing) is an error, as is a count outside [0, given].
  Status Write(const void* data, int64_t size) override {
    nb::gil_scoped_acquire gil;
    const auto* bytes = static_cast<const char*>(data);
    int64_t done = 0;
    while (done < size) {
      try {
        nb::object taken =
            target_.attr("write")(nb::bytes(bytes + done, static_cast<size_t>(size - done)));
        if (taken.is_none() && has_raw_write_) {
          return Status::IOError("write() at byte ", position_ + done, " of the file object ",
                                 nb::repr(target_).c_str(),
                                 " took nothing (a non-blocking object that is full)");
        }
        // Buffered and text-like objects return None or the whole size.
        const int64_t n = taken.is_none() ? size - done : CountOf(taken);
        if (n < 0 || n > size - done) {
          return Status::IOError("write() at byte ", position_ + done, " of the file object ",
                                 nb::repr(target_).c_str(), " reported ", n, " bytes written of ",
                                 size - done);
        }
        done += n;
      } catch (nb::python_error& e) {
        position_ += done;
        return Failed("write() of " + std::to_string(size - done) + " bytes", e);
      }
    }
    position_ += size;
    return Status::OK();
  }
  Status Flush() override {
    nb::gil_scoped_acquire gil;
    if (!nb::hasattr(target_, "flush")) return Status::OK();
    try {
      target_.attr("flush")();
    } catch (nb::python_error& e) {
      return Failed("flush()", e);
    }
    return Status::OK();
  }
  int64_t position() const override { return position_; }
  Status Close() override { return Status::OK(); }

 private:
  Status Failed(const std::string& call, nb::python_error& e) const {
    if (KeepInterrupt(e)) return Status::IOError(kInterruptedMessage);  // Raise() raises e
    return Status::IOError(call + " at byte " + std::to_string(position_) + " of the file object " +
                           nb::repr(target_).c_str() + " failed: " + e.what());
  }

  static int64_t CountOf(nb::handle taken) {
    if (!PyLong_Check(taken.ptr()) || PyBool_Check(taken.ptr())) return -1;
    int overflow = 0;
    const long long n = PyLong_AsLongLongAndOverflow(taken.ptr(), &overflow);
    return overflow != 0 ? -1 : static_cast<int64_t>(n);
  }

  nb::object target_;
  bool has_raw_write_;
  int64_t position_ = 0;
};

}  // namespace

std::shared_ptr<ipc::OutputSink> SinkFromPython(nb::handle sink) {
  nb::module_ os = nb::module_::import_("os");
  if (nb::isinstance<nb::str>(sink) || nb::isinstance(sink, os.attr("PathLike"))) {
    return Unwrap(ipc::OpenFileSink(nb::cast<std::string>(os.attr("fspath")(sink))));
  }
  if (nb::hasattr(sink, "write")) return std::make_shared<PythonSink>(nb::borrow(sink));
  Raise(Status::TypeError(std::string("an IPC sink is a path or a writable file object, got ") +
                          nb::type_name(sink.type()).c_str()));
}

namespace {

// An int keyword argument `name` as int64: a TypeError saying it must be
// `what` unless it is an int (a bool is not); nullopt where it does not
// fit in int64.
std::optional<int64_t> Int64From(nb::handle value, const char* name, const char* what) {
  if (PyBool_Check(value.ptr()) || !PyIndex_Check(value.ptr())) {
    Raise(Status::TypeError(name, " must be ", what, ", got ", Py_TYPE(value.ptr())->tp_name));
  }
  int overflow = 0;
  const long long out = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
  if (out == -1 && PyErr_Occurred()) throw nb::python_error();
  if (overflow != 0) return std::nullopt;
  return out;
}

// max_batch_rows= / max_batch_bytes=: None (no limit) or an int of 1 or
// more. 0 is refused although the C++ option reads it as no limit: a
// caller writing 0 more likely meant a tiny limit than none.
int64_t BatchLimitFrom(nb::handle value, const char* name) {
  if (value.is_none()) return 0;
  const std::optional<int64_t> limit = Int64From(value, name, "an int or None");
  if (!limit || *limit < 1) {
    Raise(Status::Invalid(name, " must be in [1, 2^63 - 1] (None: no limit), got ", Str(value)));
  }
  return *limit;
}

// compression_block_bytes=: None (unset) or an int, a power of two from
// 4 KiB to 4 MiB, which the writer checks when it opens (0, a negative int
// and one past int64 are refused with the same message).
int64_t BlockBytesFrom(nb::handle value) {
  if (value.is_none()) return 0;
  const std::optional<int64_t> bytes =
      Int64From(value, "compression_block_bytes", "an int or None");
  if (!bytes || *bytes <= 0) {
    Raise(Status::Invalid("compression_block_bytes must be a power of two from ",
                          ipc::WriteOptions::kMinCompressionBlockBytes, " to ",
                          ipc::WriteOptions::kMaxCompressionBlockBytes,
                          " (4 KiB to 4 MiB), or None; got ", Str(value)));
  }
  return *bytes;
}

// compression= takes the codec's name in any case ("zstd", "ZSTD",
// "lz4", "lz4_frame"); compression_level= any Python int, checked against
// the codec's range when the writer opens.
ipc::WriteOptions WriteOptionsFrom(std::optional<std::string> compression, nb::handle level,
                                   nb::handle max_batch_rows, nb::handle max_batch_bytes,
                                   nb::handle block_bytes) {
  ipc::WriteOptions options;
  options.max_batch_rows = BatchLimitFrom(max_batch_rows, "max_batch_rows");
  options.max_batch_bytes = BatchLimitFrom(max_batch_bytes, "max_batch_bytes");
  options.compression_block_bytes = BlockBytesFrom(block_bytes);
  if (compression) {
    std::string name = *compression;
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (name == "lz4" || name == "lz4_frame") {
      options.compression = ipc::Compression::kLz4Frame;
    } else if (name == "zstd") {
      options.compression = ipc::Compression::kZstd;
    } else if (name != "none" && name != "uncompressed") {
      Raise(
          Status::Invalid("compression='" + *compression + "' is not one of None, 'lz4', 'zstd'"));
    }
  }
  if (!level.is_none()) {
    if (!PyLong_Check(level.ptr()) || PyBool_Check(level.ptr())) {
      Raise(Status::TypeError(std::string("compression_level must be an int, got ") +
                              nb::type_name(level.type()).c_str()));
    }
    int overflow = 0;
    const long long value = PyLong_AsLongLongAndOverflow(level.ptr(), &overflow);
    if (overflow != 0 || value < std::numeric_limits<int>::min() + 1 ||
        value > std::numeric_limits<int>::max()) {
      Raise(Status::Invalid("compression_level=" + nb::cast<std::string>(nb::str(level)) +
                            " is outside every codec's range"));
    }
    if (options.compression == ipc::Compression::kNone) {
      Raise(Status::Invalid("compression_level is set but compression is not"));
    }
    options.compression_level = static_cast<int>(value);
  }
  return options;
}

// Batches from a file reader, one after the other, as struct arrays.
class FileBatches : public ArrayReader {
 public:
  explicit FileBatches(std::shared_ptr<ipc::FileReader> reader)
      : reader_(std::move(reader)), field_(BatchField(reader_->schema())) {}
  const Field& field() const override { return field_; }
  Result<ArrayDataPtr> Next() override {
    if (next_ >= reader_->num_record_batches()) return ArrayDataPtr{};
    QUIVER_ASSIGN_OR_RETURN(RecordBatchPtr batch, reader_->ReadRecordBatch(next_++));
    return batch->ToStructArray();
  }

 private:
  std::shared_ptr<ipc::FileReader> reader_;
  Field field_;
  int next_ = 0;
};

class StreamBatches : public ArrayReader {
 public:
  explicit StreamBatches(std::shared_ptr<ipc::StreamReader> reader)
      : reader_(std::move(reader)), field_(BatchField(reader_->schema())) {}
  const Field& field() const override { return field_; }
  Result<ArrayDataPtr> Next() override {
    QUIVER_ASSIGN_OR_RETURN(RecordBatchPtr batch, reader_->Next());
    return batch ? batch->ToStructArray() : ArrayDataPtr{};
  }

 private:
  std::shared_ptr<ipc::StreamReader> reader_;
  Field field_;
};

// Both readers: the C++ reader until close(). Every method takes its own
// reference (Open) with the GIL held before it releases the GIL, so a
// close() from another thread never frees a reader still reading; what was
// already read (batches, exported streams) keeps the file alive by itself.
template <typename Reader>
struct PyReader {
  std::shared_ptr<Reader> reader;
  const char* name = nullptr;  // "the RecordBatchFileReader": for "... is closed"

  std::shared_ptr<Reader> Open() const {
    if (!reader) Raise(Status::Invalid(name, " is closed"));
    return reader;
  }
  void Close() { reader.reset(); }
};

struct PyFileReader : PyReader<ipc::FileReader> {
  PyFileReader() { name = "the RecordBatchFileReader"; }
  // Batch i of the file, negative counting from the end (IndexError
  // naming the batch count when out of range).
  static int BatchIndex(const ipc::FileReader& open, int64_t i) {
    return static_cast<int>(ResolveIndex(i, open.num_record_batches(), "batches"));
  }
};

struct PyStreamReader : PyReader<ipc::StreamReader> {
  PyStreamReader() { name = "the RecordBatchStreamReader"; }
};

template <typename R>
void BindReaderLifetime(nb::class_<R>& cls) {
  cls.def("close", &R::Close,
          "Drops the reader's hold on its source (the mapping, the file or the bytes); batches "
          "and tables already read stay valid. Any later use raises ValueError; closing again "
          "does nothing.")
      .def_prop_ro(
          "closed", [](const R& r) { return !r.reader; }, "Whether close() was called.")
      .def("__enter__", [](nb::handle self) { return nb::borrow(self); })
      .def(
          "__exit__",
          [](R& r, nb::handle, nb::handle, nb::handle) {
            r.Close();
            return false;
          },
          nb::arg("exc_type").none(), nb::arg("exc_value").none(), nb::arg("traceback").none());
}

// __arrow_c_stream__ and __arrow_c_device_stream__ of a reader: the batches
// it has not handed out yet, as `Batches` reads them.
template <typename Batches, typename R>
void BindStreamExports(nb::class_<R>& cls) {
  cls.def(
         "__arrow_c_stream__",
         [](R& r, nb::handle) { return StreamCapsule(std::make_shared<Batches>(r.Open())); },
         nb::arg("requested_schema").none() = nb::none())
      .def(
          "__arrow_c_device_stream__",
          [](R& r, nb::handle, nb::kwargs kwargs) {
            return DeviceStreamCapsule(std::make_shared<Batches>(r.Open()), kwargs);
          },
          nb::arg("requested_schema").none() = nb::none(), nb::arg("kwargs"));
}

template <typename Writer>
PyWriter<Writer> OpenWriter(nb::handle sink, nb::handle schema,
                            std::optional<std::string> compression, nb::handle level,
                            nb::handle max_batch_rows, nb::handle max_batch_bytes,
                            nb::handle block_bytes) {
  PyWriter<Writer> out;
  out.name = "IPC writer";
  const ipc::WriteOptions options =
      WriteOptionsFrom(compression, level, max_batch_rows, max_batch_bytes, block_bytes);
  out.sink = SinkFromPython(sink);
  out.owns_sink = IsPath(sink);
  out.writer = Unwrap(Writer::Open(out.sink, SchemaFromPython(schema), options));
  return out;
}

// read_all's validate=: "eager" (every value checked before the table is
// returned) or "lazy" (each column checked the first time it is used; see
// py_deferred_validation.h). Anything else is ValueError.
bool LazyValidation(const std::string& validate) {
  if (validate == "eager") return false;
  if (validate == "lazy") return true;
  Raise(Status::Invalid("validate must be 'eager' or 'lazy', got '" + validate + "'"));
}

// The level read_all decodes batches at: the reader's own (kFull) when
// eager; kMinimal (buffer sizes only) when the columns are checked later.
std::optional<ValidationLevel> BatchValidation(bool lazy) {
  if (lazy) return ValidationLevel::kMinimal;
  return std::nullopt;
}

// `first_batch`: the index of batches[0] in its file or stream.
PyTable ReadTable(const SchemaPtr& schema, const std::vector<RecordBatchPtr>& batches, bool lazy,
                  int64_t first_batch) {
  TablePtr table = Unwrap(Table::FromRecordBatches(schema, batches));
  return lazy ? PyTable::Deferred(std::move(table), first_batch) : PyTable{std::move(table)};
}

constexpr const char* kReadAllDoc =
    "Every (remaining) batch as one Table, each batch a chunk. validate='eager' (the default) "
    "checks every value before returning: offsets, UTF-8, union type ids, dictionary indices "
    "(docs/validation.md). validate='lazy' returns after the O(1) checks (buffer sizes) and "
    "checks each column in full the first time its values are used (column(), take, export, "
    "pickling, ...); a bad column then raises there, naming the column and record batch, and "
    "again on every later use. schema, num_rows, num_columns, shape and field() never check.";

// Read options from open_file / open_stream's keywords.
ipc::ReadOptions ReadOptionsFromPython(bool swap_endian, nb::handle max_decompressed) {
  ipc::ReadOptions options;
  options.swap_endian = swap_endian;
  if (max_decompressed.is_none()) return options;
  const std::optional<int64_t> limit =
      Int64From(max_decompressed, "max_decompressed_buffer", "an int (bytes)");
  if (!limit || *limit < 0) {
    Raise(Status::Invalid("max_decompressed_buffer must be in [0, 2^63 - 1] bytes, got ",
                          Str(max_decompressed)));
  }
  options.max_decompressed_buffer = *limit;
  return options;
}

}  // namespace

void BindIpc(nb::module_& parent) {
  nb::module_ m = parent.def_submodule(
      "ipc", "Arrow IPC streams and files, and the Tensor and SparseTensor messages.");

  auto file_reader =
      nb::class_<PyFileReader>(m, "RecordBatchFileReader",
                               "Random access to the batches of an IPC file.")
          .def_prop_ro("schema", [](const PyFileReader& r) { return PySchema{r.Open()->schema()}; })
          .def_prop_ro(
              "endianness",
              [](const PyFileReader& r) {
                return r.Open()->endianness() == ipc::Endianness::kBig ? "big" : "little";
              },
              "The byte order the file's schema declares: 'little' or 'big'.")
          .def_prop_ro("num_record_batches",
                       [](const PyFileReader& r) { return r.Open()->num_record_batches(); })
          .def_prop_ro(
              "footer_record_batch_rows",
              [](const PyFileReader& r) { return r.Open()->FooterRecordBatchRows(); },
              "The row count of every record batch as a quiver writer lists them in the "
              "footer (read without the batches' headers), or None where the footer lists "
              "none (other writers) or a malformed list. A hint from the file's bytes: each "
              "batch read still has its header's rows.")
          .def("__len__", [](const PyFileReader& r) { return r.Open()->num_record_batches(); })
          .def(
              "__getitem__",
              [](PyFileReader& r, int64_t i) {
                auto reader = r.Open();
                const int index = r.BatchIndex(*reader, i);
                return PyRecordBatch{
                    Unwrap(WithoutGil([&] { return reader->ReadRecordBatch(index); }))};
              },
              nb::arg("i"),
              "Batch i (negative counts from the end); iterating reads the batches in order.")
          .def(
              "get_batch",
              [](PyFileReader& r, int i) {
                auto reader = r.Open();
                return PyRecordBatch{
                    Unwrap(WithoutGil([&] { return reader->ReadRecordBatch(i); }))};
              },
              nb::arg("i"))
          .def(
              "record_batch_layout",
              [](PyFileReader& r, int64_t i) {
                auto reader = r.Open();
                const int index = r.BatchIndex(*reader, i);
                return BatchLayoutToPython(
                    Unwrap(WithoutGil([&] { return reader->RecordBatchLayout(index); })));
              },
              nb::arg("i"),
              "Where batch i's body keeps what, read from its header alone (nothing in the body is "
              "read or decompressed): a dict of num_rows, compression, body_length, buffers "
              "[(offset, length)] and columns (field nodes: name, type, length, null_count, "
              "buffers as indexes into buffers, dictionary_id, children). See docs/ipc.md, "
              "'Layouts'.")
          .def(
              "read_body_buffer",
              [](PyFileReader& r, int64_t i, int64_t buffer) {
                auto reader = r.Open();
                const int index = r.BatchIndex(*reader, i);
                return BodyBufferToPython(
                    Unwrap(WithoutGil([&] { return reader->ReadBodyBuffer(index, buffer); })));
              },
              nb::arg("i"), nb::arg("buffer"),
              "Buffer `buffer` (an index into the layout's buffers) of batch i alone, as a uint8 "
              "quiver.Tensor: zero-copy when stored raw, decompressed when compressed. The bytes "
              "are as stored, in the file's byte order (endianness), and unvalidated.")
          .def(
              "read_all",
              [](PyFileReader& r, const std::string& validate) {
                auto reader = r.Open();
                const bool lazy = LazyValidation(validate);
                // Batches are read (and validated) on every core at once.
                std::vector<RecordBatchPtr> batches = Unwrap(WithoutGil(
                    [&] { return reader->ReadAllRecordBatches(0, BatchValidation(lazy)); }));
                return ReadTable(reader->schema(), batches, lazy, 0);
              },
              nb::kw_only(), nb::arg("validate") = "eager", kReadAllDoc);

  auto stream_reader =
      nb::class_<PyStreamReader>(m, "RecordBatchStreamReader",
                                 "The batches of an IPC stream, in order.")
          .def_prop_ro("schema",
                       [](const PyStreamReader& r) { return PySchema{r.Open()->schema()}; })
          .def_prop_ro(
              "endianness",
              [](const PyStreamReader& r) {
                return r.Open()->endianness() == ipc::Endianness::kBig ? "big" : "little";
              },
              "The byte order the stream's schema declares: 'little' or 'big'.")
          .def("read_next_batch",
               [](PyStreamReader& r) {
                 auto reader = r.Open();
                 RecordBatchPtr batch = Unwrap(WithoutGil([&] { return reader->Next(); }));
                 if (!batch) throw nb::stop_iteration();
                 return PyRecordBatch{batch};
               })
          .def(
              "read_next_layout",
              [](PyStreamReader& r) -> nb::object {
                auto reader = r.Open();
                auto layout = Unwrap(WithoutGil([&] { return reader->NextLayout(); }));
                if (!layout) return nb::none();
                return BatchLayoutToPython(*layout);
              },
              "The layout of the next batch (as RecordBatchFileReader.record_batch_layout), "
              "without decoding its body, or None at the end of the stream. Its buffers can be "
              "read "
              "with read_body_buffer until the next read.")
          .def(
              "read_body_buffer",
              [](PyStreamReader& r, int64_t buffer) {
                auto reader = r.Open();
                return BodyBufferToPython(
                    Unwrap(WithoutGil([&] { return reader->ReadBodyBuffer(buffer); })));
              },
              nb::arg("buffer"),
              "Buffer `buffer` of the batch read_next_layout last returned, as a uint8 "
              "quiver.Tensor, as stored (the stream's byte order) and unvalidated.")
          .def("__iter__", [](nb::handle self) { return nb::borrow(self); })
          .def("__next__",
               [](PyStreamReader& r) {
                 auto reader = r.Open();
                 RecordBatchPtr batch = Unwrap(WithoutGil([&] { return reader->Next(); }));
                 if (!batch) throw nb::stop_iteration();
                 return PyRecordBatch{batch};
               })
          .def(
              "read_all",
              [](PyStreamReader& r, const std::string& validate) {
                auto reader = r.Open();
                const bool lazy = LazyValidation(validate);
                const int64_t first = reader->record_batches_read();
                // Batches are decoded (and validated) on every core at once.
                std::vector<RecordBatchPtr> batches =
                    Unwrap(WithoutGil([&] { return reader->ReadAll(0, BatchValidation(lazy)); }));
                return ReadTable(reader->schema(), batches, lazy, first);
              },
              nb::kw_only(), nb::arg("validate") = "eager", kReadAllDoc);

  BindReaderLifetime(file_reader);
  BindReaderLifetime(stream_reader);
  BindStreamExports<FileBatches>(file_reader);
  BindStreamExports<StreamBatches>(stream_reader);

  BindWriter<ipc::StreamWriter>(m, "RecordBatchStreamWriter", "Writes an IPC stream.");
  BindWriter<ipc::FileWriter>(m, "RecordBatchFileWriter", "Writes an IPC file.");

  m.def(
      "open_file",
      [](nb::handle source, bool memory_map, bool swap_endian, nb::handle max_decompressed) {
        auto input = SourceFromPython(source, memory_map);
        const ipc::ReadOptions options = ReadOptionsFromPython(swap_endian, max_decompressed);
        PyFileReader out;
        out.reader = Unwrap(ipc::FileReader::Open(input, options));
        return out;
      },
      nb::arg("source"), nb::arg("memory_map") = true, nb::arg("swap_endian") = true,
      nb::arg("max_decompressed_buffer").none() = nb::none(),
      "Opens an IPC file (a path, memory-mapped by default; an http://, https:// or s3:// URL, "
      "read with range requests; or bytes): reads only the footer. "
      "Big-endian files are swapped to native order as batches are read (swap_endian=False "
      "keeps them: their batches are then refused). max_decompressed_buffer (bytes, default "
      "16 GiB) is the most one compressed buffer may claim: larger claims are refused before "
      "anything is allocated.");
  m.def(
      "open_stream",
      [](nb::handle source, bool swap_endian, nb::handle max_decompressed) {
        auto input = StreamFromPython(source);
        const ipc::ReadOptions options = ReadOptionsFromPython(swap_endian, max_decompressed);
        PyStreamReader out;
        out.reader = Unwrap(WithoutGil([&] { return ipc::StreamReader::Open(input, options); }));
        return out;
      },
      nb::arg("source"), nb::arg("swap_endian") = true,
      nb::arg("max_decompressed_buffer").none() = nb::none(),
      "Opens an IPC stream: a path or bytes (zero-copy), an http://, https:// or s3:// URL, or a "
      "readable binary file object (a pipe, "
      "a "
      "socket file), read message by message: each batch is returned as soon as its bytes "
      "arrived.");
  m.def(
      "new_file", &OpenWriter<ipc::FileWriter>, nb::arg("sink"), nb::arg("schema"),
      nb::arg("compression").none() = nb::none(), nb::arg("compression_level").none() = nb::none(),
      nb::arg("max_batch_rows").none() = nb::none(), nb::arg("max_batch_bytes").none() = nb::none(),
      nb::arg("compression_block_bytes").none() = nb::none(),
      "A writer of an IPC file to a path or a writable file object. Each batch written is "
      "cut into record batches of at most max_batch_rows rows and max_batch_bytes bytes of "
      "uncompressed body (None: no limit; a single row over max_batch_bytes is written "
      "alone). The footer lists every record batch's rows. compression_block_bytes (a power "
      "of two from 4096 to 4194304) compresses each larger buffer in independent blocks of "
      "that size, so that taking a few rows decodes only their blocks.");
  m.def(
      "new_stream", &OpenWriter<ipc::StreamWriter>, nb::arg("sink"), nb::arg("schema"),
      nb::arg("compression").none() = nb::none(), nb::arg("compression_level").none() = nb::none(),
      nb::arg("max_batch_rows").none() = nb::none(), nb::arg("max_batch_bytes").none() = nb::none(),
      nb::arg("compression_block_bytes").none() = nb::none(),
      "A writer of an IPC stream to a path or a writable file object; max_batch_rows, "
      "max_batch_bytes and compression_block_bytes work as new_file's do.");
  m.def(
      "write_tensor",
      [](const PyTensor& tensor, nb::handle sink) {
        auto out = SinkFromPython(sink);
        Check(ipc::WriteTensor(tensor.tensor, out.get()));
        if (IsPath(sink)) Check(out->Close());
      },
      nb::arg("tensor"), nb::arg("sink"), "Writes a quiver Tensor as one Tensor message.");
  m.def(
      "read_tensor",
      [](nb::handle source, bool memory_map) {
        return PyTensor{Unwrap(ipc::ReadTensor(SourceFromPython(source, memory_map)))};
      },
      nb::arg("source"), nb::arg("memory_map") = true,
      "Reads a Tensor message (zero-copy from a memory-mapped file or bytes).");
  m.def(
      "write_sparse_tensor",
      [](nb::handle tensor, nb::handle sink) {
        if (!nb::isinstance<PySparseTensor>(tensor)) {
          Raise(Status::TypeError(
              std::string("tensor must be a quiver sparse tensor (SparseCOOTensor, "
                          "SparseCSRMatrix, SparseCSCMatrix or SparseCSFTensor), got ") +
              nb::type_name(tensor.type()).c_str()));
        }
        const SparseTensor& t = nb::cast<PySparseTensor&>(tensor).tensor;
        auto out = SinkFromPython(sink);
        Check(WithoutGil([&] { return ipc::WriteSparseTensor(t, out.get()); }));
        if (IsPath(sink)) Check(out->Close());
      },
      nb::arg("tensor"), nb::arg("sink"),
      "Writes a quiver sparse tensor as one SparseTensor message.");
  m.def(
      "read_sparse_tensor",
      [](nb::handle source, bool memory_map) {
        auto input = SourceFromPython(source, memory_map);
        return WrapSparse(Unwrap(WithoutGil([&] { return ipc::ReadSparseTensor(input); })));
      },
      nb::arg("source"), nb::arg("memory_map") = true,
      "Reads a SparseTensor message, fully validated (zero-copy from a memory-mapped file or "
      "bytes).");
}

}  // namespace quiver::python
