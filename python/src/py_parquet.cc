// Parquet files: the private binding quiver.parquet wraps (ParquetFile's
// schema, metadata and columns).
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <string>
#include <type_traits>

#include "py_bindings.h"
#include "py_errors.h"
#include "py_io.h"
#include "py_objects.h"
#include "py_record_batch.h"
#include "py_writer.h"
#include "quiver/parquet.h"

namespace quiver::python {

namespace {

struct PyParquetFile {
  std::shared_ptr<parquet::ParquetFile> file;
};

nb::object Optional(const std::optional<int64_t>& value) {
  if (!value) return nb::none();
  return nb::int_(*value);
}

nb::object OptionalBytes(const std::optional<std::string>& value) {
  if (!value) return nb::none();
  return nb::bytes(value->data(), value->size());
}

nb::dict StatisticsDict(const parquet::ColumnStatistics& s) {
  nb::dict out;
  out["min"] = OptionalBytes(s.min);
  out["max"] = OptionalBytes(s.max);
  out["null_count"] = Optional(s.null_count);
  out["distinct_count"] = Optional(s.distinct_count);
  out["nan_count"] = Optional(s.nan_count);
  return out;
}

nb::dict ColumnDict(const parquet::ColumnChunkInfo& c) {
  nb::dict out;
  out["path"] = nb::cast(c.path);
  out["physical_type"] = c.physical_type;
  out["codec"] = c.codec;
  out["encodings"] = nb::cast(c.encodings);
  out["num_values"] = c.num_values;
  out["compressed_size"] = c.compressed_size;
  out["uncompressed_size"] = c.uncompressed_size;
  out["data_page_offset"] = c.data_page_offset;
  out["dictionary_page_offset"] = Optional(c.dictionary_page_offset);
  out["statistics"] = c.statistics ? nb::object(StatisticsDict(*c.statistics)) : nb::none();
  out["has_page_index"] = c.has_page_index;
  out["has_offset_index"] = c.has_offset_index;
  out["has_column_index"] = c.has_column_index;
  return out;
}

nb::dict RowGroupDict(const parquet::RowGroupInfo& g) {
  nb::dict out;
  out["num_rows"] = g.num_rows;
  out["total_byte_size"] = g.total_byte_size;
  nb::list columns;
  for (const parquet::ColumnChunkInfo& c : g.columns) columns.append(ColumnDict(c));
  out["columns"] = columns;
  return out;
}

nb::object OffsetIndexObject(const std::optional<parquet::OffsetIndex>& index) {
  if (!index) return nb::none();
  nb::list out;
  for (const parquet::PageLocation& page : index->page_locations) {
    nb::dict d;
    d["offset"] = page.offset;
    d["compressed_page_size"] = page.compressed_page_size;
    d["first_row_index"] = page.first_row_index;
    out.append(d);
  }
  return out;
}

nb::object ColumnIndexObject(const std::optional<parquet::ColumnIndex>& index) {
  if (!index) return nb::none();
  nb::dict out;
  nb::list null_pages, min_values, max_values;
  for (bool null_page : index->null_pages) null_pages.append(nb::bool_(null_page));
  for (const std::string& v : index->min_values) min_values.append(nb::bytes(v.data(), v.size()));
  for (const std::string& v : index->max_values) max_values.append(nb::bytes(v.data(), v.size()));
  out["null_pages"] = null_pages;
  out["min_values"] = min_values;
  out["max_values"] = max_values;
  out["boundary_order"] = parquet::BoundaryOrderName(index->boundary_order);
  out["null_counts"] = index->null_counts ? nb::cast(*index->null_counts) : nb::none();
  return out;
}

parquet::ParquetReadOptions ReadOptions(const std::optional<std::vector<std::string>>& columns,
                                        const std::optional<std::vector<int>>& row_groups,
                                        int threads) {
  parquet::ParquetReadOptions options;
  if (columns) {
    if (columns->empty()) Raise(Status::Invalid("columns=[] selects no column to read"));
    options.columns = *columns;
  }
  options.row_groups = row_groups;
  options.threads = threads;
  return options;
}

// Option `name`'s value as T: TypeError naming it for another Python
// type (a float for an int, an int for a bool), ValueError when an int
// does not fit.
template <typename T>
T OptionValue(nb::handle value, const std::string& name) {
  const bool is_bool = nb::isinstance<nb::bool_>(value);
  if constexpr (std::is_same_v<T, bool>) {
    if (!is_bool)
      Raise(Status::TypeError(name, " must be a bool, not ", nb::type_name(value.type()).c_str()));
  } else if constexpr (std::is_integral_v<T>) {
    if (is_bool || !nb::isinstance<nb::int_>(value)) {
      Raise(Status::TypeError(name, " must be an int, not ", nb::type_name(value.type()).c_str()));
    }
  } else {
    if (!nb::isinstance<nb::str>(value)) {
      Raise(Status::TypeError(name, " must be a str, not ", nb::type_name(value.type()).c_str()));
    }
  }
  T out{};
  if (!nb::try_cast<T>(value, out)) {
    Raise(Status::Invalid(name, " is out of range: ", nb::cast<std::string>(nb::repr(value))));
  }
  return out;
}

// ParquetWriteOptions from the dict quiver.parquet builds (its keys are
// write_table's argument names; None leaves the default).
parquet::ParquetWriteOptions WriteOptionsFrom(const nb::dict& given) {
  parquet::ParquetWriteOptions options;
  for (auto [key, value] : given) {
    const std::string name = nb::cast<std::string>(key);
    if (value.is_none()) continue;
    if (name == "row_group_size") {
      options.row_group_rows = OptionValue<int64_t>(value, name);
    } else if (name == "data_page_size") {
      options.data_page_bytes = OptionValue<int64_t>(value, name);
    } else if (name == "compression") {
      options.compression = OptionValue<std::string>(value, name);
    } else if (name == "compression_level") {
      options.compression_level = OptionValue<int>(value, name);
    } else if (name == "use_dictionary") {
      options.use_dictionary = OptionValue<bool>(value, name);
    } else if (name == "use_byte_stream_split") {
      options.byte_stream_split = OptionValue<bool>(value, name);
    } else if (name == "write_statistics") {
      options.write_statistics = OptionValue<bool>(value, name);
    } else if (name == "data_page_version") {
      options.data_page_version = OptionValue<int>(value, name);
    } else if (name == "dictionary_pagesize_limit") {
      options.dictionary_page_bytes = OptionValue<int64_t>(value, name);
    } else if (name == "write_page_index") {
      options.write_page_index = OptionValue<bool>(value, name);
    } else {
      Raise(Status::Invalid("unknown Parquet write option '", name, "'"));
    }
  }
  return options;
}

}  // namespace

void BindParquet(nb::module_& m) {
  nb::class_<PyParquetFile>(m, "_ParquetFile")
      .def_prop_ro("schema", [](const PyParquetFile& f) { return PySchema{f.file->schema()}; })
      .def_prop_ro("num_rows", [](const PyParquetFile& f) { return f.file->num_rows(); })
      .def_prop_ro("num_row_groups",
                   [](const PyParquetFile& f) { return f.file->num_row_groups(); })
      .def_prop_ro("column_paths", [](const PyParquetFile& f) { return f.file->column_paths(); })
      .def_prop_ro("created_by", [](const PyParquetFile& f) { return f.file->created_by(); })
      .def_prop_ro("format_version",
                   [](const PyParquetFile& f) { return f.file->format_version(); })
      .def_prop_ro(
          "key_value_metadata",
          [](const PyParquetFile& f) { return MetadataToPython(f.file->key_value_metadata()); })
      .def("row_group",
           [](const PyParquetFile& f, int64_t i) {
             const int64_t count = f.file->num_row_groups();
             if (i < -count || i >= count) {
               Raise(Status::IndexError("row group ", i, " of a file with ", count, " row groups"));
             }
             return RowGroupDict(f.file->row_group(static_cast<int>(i < 0 ? i + count : i)));
           })
      .def("offset_index",
           [](const PyParquetFile& f, int row_group, int column) {
             return OffsetIndexObject(
                 Unwrap(WithoutGil([&] { return f.file->ReadOffsetIndex(row_group, column); })));
           })
      .def("column_index",
           [](const PyParquetFile& f, int row_group, int column) {
             return ColumnIndexObject(
                 Unwrap(WithoutGil([&] { return f.file->ReadColumnIndex(row_group, column); })));
           })
      .def(
          "read_row_group",
          [](const PyParquetFile& f, int64_t i, std::optional<std::vector<std::string>> columns,
             int threads) {
            const int64_t count = f.file->num_row_groups();
            if (i < -count || i >= count) {
              Raise(Status::IndexError("row group ", i, " of a file with ", count, " row groups"));
            }
            const auto options = ReadOptions(columns, std::nullopt, threads);
            const int g = static_cast<int>(i < 0 ? i + count : i);
            return PyRecordBatch{
                Unwrap(WithoutGil([&] { return f.file->ReadRowGroup(g, options); }))};
          },
          nb::arg("i"), nb::arg("columns") = nb::none(), nb::arg("threads") = 0)
      .def(
          "read_row_range",
          [](const PyParquetFile& f, int64_t i, int64_t first, int64_t count,
             std::optional<std::vector<std::string>> columns, int threads) {
            const int64_t groups = f.file->num_row_groups();
            if (i < -groups || i >= groups) {
              Raise(Status::IndexError("row group ", i, " of a file with ", groups, " row groups"));
            }
            const auto options = ReadOptions(columns, std::nullopt, threads);
            const int g = static_cast<int>(i < 0 ? i + groups : i);
            return PyRecordBatch{
                Unwrap(WithoutGil([&] { return f.file->ReadRowRange(g, first, count, options); }))};
          },
          nb::arg("i"), nb::arg("first"), nb::arg("count"), nb::arg("columns") = nb::none(),
          nb::arg("threads") = 0)
      .def(
          "read",
          [](const PyParquetFile& f, std::optional<std::vector<std::string>> columns,
             std::optional<std::vector<int>> row_groups, int threads) {
            const int count = f.file->num_row_groups();
            if (row_groups) {
              for (int& g : *row_groups) {
                if (g < -count || g >= count) {
                  Raise(Status::IndexError("row group ", g, " of a file with ", count,
                                           " row groups"));
                }
                if (g < 0) g += count;
              }
            }
            const auto options = ReadOptions(columns, row_groups, threads);
            return PyTable{Unwrap(WithoutGil([&] { return f.file->ReadTable(options); }))};
          },
          nb::arg("columns") = nb::none(), nb::arg("row_groups") = nb::none(),
          nb::arg("threads") = 0);
  m.def(
      "_parquet_write",
      [](nb::handle data, nb::handle where, const nb::dict& given) {
        const TablePtr table = TableFromPython(data);
        const auto options = WriteOptionsFrom(given);
        if (IsPath(where)) {
          const std::string path = PathOf(where);
          Check(WithoutGil([&] { return parquet::WriteParquetFile(*table, path, options); }));
          return;
        }
        // A file object: pages go to its write() as they are made.
        auto sink = SinkFromPython(where);
        Check(WithoutGil([&] {
          QUIVER_RETURN_NOT_OK(parquet::WriteParquet(*table, sink.get(), options));
          return sink->Flush();
        }));
      },
      nb::arg("data"), nb::arg("where"), nb::arg("options"));
  BindWriter<parquet::ParquetWriter>(m, "_ParquetWriter", "Writes a Parquet file.");
  m.def(
      "_parquet_writer",
      [](nb::handle where, nb::handle schema, const nb::dict& given) {
        PyWriter<parquet::ParquetWriter> out;
        out.name = "Parquet writer";
        const auto options = WriteOptionsFrom(given);
        out.sink = SinkFromPython(where);
        out.owns_sink = IsPath(where);
        out.writer =
            Unwrap(parquet::ParquetWriter::Open(out.sink, SchemaFromPython(schema), options));
        return out;
      },
      nb::arg("where"), nb::arg("schema"), nb::arg("options"));
  m.def("_parquet_codecs", [] { return parquet::ReadableCodecs(); });
  m.def(
      "_parquet_open",
      [](nb::handle source, bool memory_map) {
        auto input = SourceFromPython(source, memory_map, "a Parquet source");
        return PyParquetFile{Unwrap(WithoutGil([&] { return parquet::ParquetFile::Open(input); }))};
      },
      nb::arg("source"), nb::arg("memory_map") = true);
}

}  // namespace quiver::python
