// The Python face of quiver's writers (IPC files and streams, Parquet
// files): the C++ writer, its sink, and whether the sink is ours to close
// (paths) or the caller's (file objects); one call at a time; a `with`
// block left by an exception abandons a path's file.
#pragma once

#include <nanobind/nanobind.h>

#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "py_errors.h"
#include "py_record_batch.h"
#include "quiver/io.h"
#include "quiver/table.h"

namespace quiver::python {

namespace nb = nanobind;

template <typename Writer>
struct PyWriter {
  std::shared_ptr<Writer> writer;
  std::shared_ptr<io::OutputSink> sink;
  bool owns_sink = false;
  const char* name = "writer";  // for errors: "the IPC writer is closed"
  // One call at a time: write() releases the GIL while it encodes, and a
  // close() or write() from another thread must wait for it, not free or
  // interleave with it.
  std::shared_ptr<std::mutex> busy = std::make_shared<std::mutex>();
  Status close_status;  // what close() said, repeated by later calls

  // Every batch `data` holds is written, zero-row ones included, as
  // pyarrow writes them. A writer that takes tables (Parquet: its row
  // groups are cut from the table's rows, whatever its chunks) gets one.
  void Write(nb::handle data) {
    SchemaPtr schema;
    std::vector<RecordBatchPtr> batches = BatchesFromPython(data, &schema);
    if constexpr (requires(Writer & w, const Table& t) { w.WriteTable(t); }) {
      const TablePtr table = Unwrap(Table::FromRecordBatches(schema, batches));
      Check(Locked([&] { return Open() ? writer->WriteTable(*table) : Closed(); }));
    } else {
      for (const RecordBatchPtr& batch : batches) {
        Check(Locked([&] { return Open() ? writer->Write(*batch) : Closed(); }));
      }
    }
  }
  void Close() {
    Released released;  // dies after Locked, with the GIL (a file object's sink holds it)
    Check(Locked([&] {
      if (!writer) return close_status;  // closed or abandoned before
      Status written = writer->Close();
      // A path sink renames its file into place only when everything was
      // written; otherwise dropping it removes the temporary file.
      if (owns_sink && written.ok()) written = sink->Close();
      released = Release();
      close_status = written;
      return written;
    }));
  }
  // Leaving a `with` block by an exception: a path's file is not put in
  // place (the previous file, if any, stays); a file object gets the
  // footer or end marker so that what was written stays readable.
  void Abandon() {
    Released released;
    (void)Locked([&] {
      if (!writer) return Status::OK();
      if (!owns_sink) (void)writer->Close();
      released = Release();
      close_status = Status::Invalid("the ", name, " was abandoned by an exception");
      return Status::OK();
    });
  }

 private:
  bool Open() const { return writer != nullptr; }
  Status Closed() const { return Status::Invalid("the ", name, " is closed"); }
  // Runs fn without the GIL, holding `busy`.
  template <typename Fn>
  Status Locked(Fn&& fn) {
    std::shared_ptr<std::mutex> guard = busy;
    nb::gil_scoped_release no_gil;  // Python errors are raised by the caller, with the GIL
    std::lock_guard<std::mutex> lock(*guard);
    return fn();
  }
  using Released = std::pair<std::shared_ptr<Writer>, std::shared_ptr<io::OutputSink>>;
  // Hands the writer and sink to the caller, to be dropped with the GIL.
  Released Release() { return {std::move(writer), std::move(sink)}; }
};

// The Python class of PyWriter<Writer>: write / write_batch / write_table,
// close, and the context manager.
template <typename Writer>
void BindWriter(nb::module_& m, const char* name, const char* doc) {
  using W = PyWriter<Writer>;
  nb::class_<W>(m, name, doc)
      .def(
          "write", &W::Write, nb::arg("data"),
          "Writes a RecordBatch, a Table, or anything with __arrow_c_stream__ / __arrow_c_array__.")
      .def("write_batch", &W::Write, nb::arg("batch"))
      .def("write_table", &W::Write, nb::arg("table"))
      .def("close", &W::Close)
      .def("__enter__", [](nb::handle self) { return nb::borrow(self); })
      .def(
          "__exit__",
          [](W& w, nb::handle exc_type, nb::handle, nb::handle) {
            if (exc_type.is_none()) {
              w.Close();
            } else {
              w.Abandon();
            }
            return false;
          },
          nb::arg("exc_type").none(), nb::arg("exc_value").none(), nb::arg("traceback").none());
}

}  // namespace quiver::python
