// Parquet files: the private binding quiver.parquet wraps (ParquetFile's
// schema, metadata and columns).
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <string>

#include "py_bindings.h"
#include "py_errors.h"
#include "py_io.h"
#include "py_objects.h"
#include "py_record_batch.h"
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

parquet::ParquetWriteOptions WriteOptions(
    std::optional<int64_t> row_group_size, std::optional<int64_t> data_page_size,
    const std::string& compression, std::optional<int> compression_level, bool use_dictionary,
    bool use_byte_stream_split, bool write_statistics, int data_page_version,
    std::optional<int64_t> dictionary_pagesize_limit, bool write_page_index) {
  parquet::ParquetWriteOptions options;
  if (row_group_size) options.row_group_rows = *row_group_size;
  if (data_page_size) options.data_page_bytes = *data_page_size;
  options.compression = compression;
  if (compression_level) options.compression_level = *compression_level;
  options.use_dictionary = use_dictionary;
  options.byte_stream_split = use_byte_stream_split;
  options.write_statistics = write_statistics;
  options.data_page_version = data_page_version;
  if (dictionary_pagesize_limit) options.dictionary_page_bytes = *dictionary_pagesize_limit;
  options.write_page_index = write_page_index;
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
      [](nb::handle data, nb::handle where, std::optional<int64_t> row_group_size,
         std::optional<int64_t> data_page_size, const std::string& compression,
         std::optional<int> compression_level, bool use_dictionary, bool use_byte_stream_split,
         bool write_statistics, int data_page_version,
         std::optional<int64_t> dictionary_pagesize_limit, bool write_page_index) {
        const TablePtr table = TableFromPython(data);
        const auto options =
            WriteOptions(row_group_size, data_page_size, compression, compression_level,
                         use_dictionary, use_byte_stream_split, write_statistics, data_page_version,
                         dictionary_pagesize_limit, write_page_index);
        if (IsPath(where)) {
          const std::string path =
              nb::cast<std::string>(nb::module_::import_("os").attr("fspath")(where));
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
      nb::arg("data"), nb::arg("where"), nb::arg("row_group_size").none(),
      nb::arg("data_page_size").none(), nb::arg("compression"), nb::arg("compression_level").none(),
      nb::arg("use_dictionary"), nb::arg("use_byte_stream_split"), nb::arg("write_statistics"),
      nb::arg("data_page_version"), nb::arg("dictionary_pagesize_limit").none(),
      nb::arg("write_page_index"));
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
