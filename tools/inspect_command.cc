// `quiver inspect FILE...`: what a file holds, from its metadata and shape
// buffers only (docs/cli.md, "inspect"). Record batches are never decoded:
// their layouts say where every column's buffers lie and how large they
// are (inspect_summary.h), and only the validity bitmaps and shape buffers
// of variable-shape tensors are read, decompressed alone when compressed.
#include <algorithm>
#include <iostream>
#include <map>
#include <optional>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli.h"
#include "input_file.h"
#include "inspect_summary.h"
#include "quiver/fixed_shape_tensor.h"
#include "quiver/variable_shape_tensor.h"
#include "text_format.h"

namespace quiver::tools {
namespace {

using Json = nlohmann::ordered_json;

// Absent, or all empty (as pyarrow writes a Tensor without names): null.
Json NamesOrNull(const std::vector<std::string>& names) {
  bool any = false;
  for (const std::string& name : names) any = any || !name.empty();
  return any ? Json(names) : Json(nullptr);
}
Json IntsOrNull(const std::vector<int64_t>& values) {
  return values.empty() ? Json(nullptr) : Json(values);
}

Json AxisStatsJson(const ColumnSummary& column) {
  Json out = Json::array();
  const auto names = column.variable->logical_dim_names();
  for (size_t axis = 0; axis < column.axes.size(); ++axis) {
    const AxisStats& stats = column.axes[axis];
    Json entry;
    entry["axis"] = axis;
    entry["name"] = names.empty() ? Json(nullptr) : Json(names[axis]);
    if (column.rows_with_shape == 0) {
      entry["min"] = entry["max"] = entry["most_common"] = nullptr;
    } else {
      // Ties go to the smaller size, so the output is deterministic.
      std::pair<int64_t, int64_t> best{0, 0};
      for (const auto& [size, count] : stats.counts) {
        if (count > best.second || (count == best.second && size < best.first)) {
          best = {size, count};
        }
      }
      entry["min"] = stats.min;
      entry["max"] = stats.max;
      entry["most_common"] = best.first;
      entry["most_common_rows"] = best.second;
    }
    out.push_back(entry);
  }
  return out;
}

Json ColumnJson(const ColumnSummary& column) {
  Json out;
  out["name"] = column.name;
  out["type"] = column.field->type->ToString();
  if (column.nested) {
    out["path"] = column.path;
    out["in_list"] = column.in_list;
  }
  if (column.fixed) {
    const FixedShapeTensorType& type = *column.fixed;
    out["kind"] = "fixed_shape_tensor";
    out["value_type"] = type.value_type()->ToString();
    out["ndim"] = type.ndim();
    out["shape"] = type.shape();
    out["logical_shape"] = type.logical_shape();
    out["dim_names"] = NamesOrNull(type.dim_names());
    out["permutation"] = IntsOrNull(type.permutation());
    out["uniform_shape"] = type.shape();
  } else if (column.variable) {
    const VariableShapeTensorType& type = *column.variable;
    out["kind"] = "variable_shape_tensor";
    out["value_type"] = type.value_type()->ToString();
    out["ndim"] = type.ndim();
    out["dim_names"] = NamesOrNull(type.dim_names());
    out["permutation"] = IntsOrNull(type.permutation());
    if (type.uniform_shape().empty()) {
      out["uniform_shape"] = nullptr;
    } else {
      Json uniform = Json::array();
      for (const auto& size : type.uniform_shape()) {
        uniform.push_back(size ? Json(*size) : Json(nullptr));
      }
      out["uniform_shape"] = uniform;
    }
    out["shape_stats"] = AxisStatsJson(column);
  } else {
    out["kind"] = "array";
  }
  out["null_count"] = column.null_count;
  out["bytes"] = column.bytes;
  out["stored_bytes"] = column.stored_bytes;
  if (!column.problem.ok()) out["problem"] = column.problem.message();
  return out;
}

Json SchemaJson(const Schema& schema) {
  Json fields = Json::array();
  for (const Field& field : schema.fields) {
    fields.push_back(
        {{"name", field.name}, {"type", field.type->ToString()}, {"nullable", field.nullable}});
  }
  Json metadata = Json::array();
  for (const auto& [key, value] : schema.metadata) {
    metadata.push_back({{"key", key}, {"value", value}});
  }
  return {{"fields", fields}, {"metadata", metadata}};
}

const char* CodecName(ipc::Compression codec) {
  switch (codec) {
    case ipc::Compression::kLz4Frame: return "lz4";
    case ipc::Compression::kZstd: return "zstd";
    case ipc::Compression::kNone: break;
  }
  return "none";
}

// "uncompressed", "compressed (zstd)", or for a header that names a codec
// whose buffers were all stored raw, "uncompressed (zstd declared, ...)".
std::string CompressionText(const Json& info) {
  const std::string codec = info["compression"].get<std::string>();
  if (info["compressed"].get<bool>()) return "compressed (" + codec + ")";
  if (codec == "none") return "uncompressed";
  return "uncompressed (" + codec + " declared, every buffer stored raw)";
}

// Every batch's layout, in order, handed to `visit(index, body)`; the
// first error stops the walk (returned with "batch N: " before it).
template <typename Visit>
Status ForEachLayout(Input& input, Visit&& visit) {
  if (input.kind == InputKind::kIpcFile) {
    ipc::FileReader& file = *input.file;
    for (int i = 0; i < file.num_record_batches(); ++i) {
      auto layout = file.RecordBatchLayout(i);
      if (!layout.ok()) return layout.status().WithContext("batch " + std::to_string(i));
      BatchBody body;
      body.layout = &*layout;
      body.read = [&file, i](int64_t b) { return file.ReadBodyBuffer(i, b); };
      body.read_size = [&file, i](int64_t b) { return file.ReadBodyBufferSize(i, b); };
      body.endianness = file.endianness();
      visit(body);
    }
    return Status::OK();
  }
  ipc::StreamReader& stream = *input.stream;
  for (int i = 0;; ++i) {
    auto layout = stream.NextLayout();
    if (!layout.ok()) return layout.status().WithContext("batch " + std::to_string(i));
    if (!*layout) return Status::OK();
    BatchBody body;
    body.layout = &**layout;
    body.read = [&stream](int64_t b) { return stream.ReadBodyBuffer(b); };
    body.read_size = [&stream](int64_t b) { return stream.ReadBodyBufferSize(b); };
    body.endianness = stream.endianness();
    visit(body);
  }
}

Result<Json> InspectBatches(Input& input, Json out) {
  const Schema& schema = *input.schema();
  std::vector<ColumnSummary> columns = PlanColumns(schema);
  int64_t batches = 0;
  int64_t rows = 0;
  bool rows_overflow = false;  // headers claim any row count: their sum may pass int64
  bool compressed = false;
  std::vector<std::string> codecs;  // named by the batches' headers, in order, once each
  QUIVER_RETURN_NOT_OK(ForEachLayout(input, [&](const BatchBody& body) {
    const std::string name = CodecName(body.layout->compression);
    if (body.layout->compression != ipc::Compression::kNone &&
        std::find(codecs.begin(), codecs.end(), name) == codecs.end()) {
      codecs.push_back(name);
    }
    ++batches;
    rows_overflow = rows_overflow || __builtin_add_overflow(rows, body.layout->num_rows, &rows);
    AddBatch(columns, body, &compressed);
  }));
  if (rows_overflow) {
    return Status::Invalid("the row counts of its ", batches,
                           " record batches add up past 2^63 - 1");
  }
  out["compressed"] = compressed;
  std::string compression = "none";
  for (size_t k = 0; k < codecs.size(); ++k) compression = (k ? compression + "," : "") + codecs[k];
  out["compression"] = compression;
  out["num_record_batches"] = batches;
  out["num_rows"] = rows;
  out["schema"] = SchemaJson(schema);
  Json column_list = Json::array();
  for (const ColumnSummary& column : columns) column_list.push_back(ColumnJson(column));
  out["columns"] = column_list;
  return out;
}

Json TensorJson(const Tensor& tensor) {
  Json out;
  out["value_type"] = tensor.type()->ToString();
  out["ndim"] = tensor.ndim();
  out["shape"] = std::vector<int64_t>(tensor.shape());
  out["strides"] = std::vector<int64_t>(tensor.strides());
  out["dim_names"] = NamesOrNull(tensor.dim_names());
  out["layout"] = tensor.IsContiguous()    ? "row-major"
                  : tensor.IsColumnMajor() ? "column-major"
                                           : "strided";
  out["bytes"] = tensor.size() * tensor.type()->byte_width();
  return out;
}

int64_t TensorBytes(const Tensor& tensor) { return tensor.size() * tensor.type()->byte_width(); }

Json SparseJson(const SparseTensor& sparse) {
  Json out;
  out["format"] = SparseFormatName(sparse.format());
  out["value_type"] = sparse.type()->ToString();
  out["ndim"] = sparse.ndim();
  out["shape"] = sparse.shape();
  out["dim_names"] = NamesOrNull(sparse.dim_names());
  out["nnz"] = sparse.non_zero_length();
  out["density"] = sparse.size() == 0 ? 0.0
                                      : static_cast<double>(sparse.non_zero_length()) /
                                            static_cast<double>(sparse.size());
  int64_t bytes = TensorBytes(sparse.values());
  Json index_types = Json::array();
  if (const auto* coo = sparse.coo_index()) {
    index_types.push_back(coo->coords.type()->ToString());
    bytes += TensorBytes(coo->coords);
    out["canonical"] = coo->canonical;
  } else if (const auto* csx = sparse.csx_index()) {
    index_types.push_back(csx->indptr.type()->ToString());
    index_types.push_back(csx->indices.type()->ToString());
    bytes += TensorBytes(csx->indptr) + TensorBytes(csx->indices);
  } else if (const auto* csf = sparse.csf_index()) {
    for (const Tensor& t : csf->indptr) bytes += TensorBytes(t);
    for (const Tensor& t : csf->indices) {
      bytes += TensorBytes(t);
      index_types.push_back(t.type()->ToString());
    }
    out["axis_order"] = csf->axis_order;
  }
  // One name when every index array has the same type, else each in order
  // (CSR/CSC: indptr, indices; CSF: each level's indices).
  bool same = true;
  for (const auto& type : index_types) same = same && type == index_types[0];
  out["index_type"] = same && !index_types.empty() ? index_types[0] : Json(index_types);
  out["bytes"] = bytes;
  return out;
}

// A Parquet file from its footer alone: the schema, the row groups, and per
// leaf column its physical type, codecs, encodings, sizes and null count
// summed over the row groups (null when a row group's statistics lack it).
Json InspectParquet(const parquet::ParquetFile& file, Json out) {
  out["num_row_groups"] = file.num_row_groups();
  out["num_rows"] = file.num_rows();
  out["created_by"] = file.created_by();
  out["schema"] = SchemaJson(*file.schema());
  Json columns = Json::array();
  for (size_t c = 0; c < file.column_paths().size(); ++c) {
    Json column;
    column["path"] = file.column_paths()[c];
    std::vector<std::string> codecs, encodings;
    int64_t stored = 0, bytes = 0;
    int64_t nulls = 0;
    bool nulls_known = true;  // every row group's statistics give a null count
    for (int g = 0; g < file.num_row_groups(); ++g) {
      const parquet::ColumnChunkInfo& chunk = file.row_group(g).columns[c];
      column["physical_type"] = chunk.physical_type;
      if (std::find(codecs.begin(), codecs.end(), chunk.codec) == codecs.end()) {
        codecs.push_back(chunk.codec);
      }
      for (const std::string& e : chunk.encodings) {
        if (std::find(encodings.begin(), encodings.end(), e) == encodings.end()) {
          encodings.push_back(e);
        }
      }
      stored += chunk.compressed_size;
      bytes += chunk.uncompressed_size;
      if (chunk.statistics && chunk.statistics->null_count) {
        nulls += *chunk.statistics->null_count;
      } else {
        nulls_known = false;
      }
    }
    column["codecs"] = codecs;
    column["encodings"] = encodings;
    column["stored_bytes"] = stored;
    column["bytes"] = bytes;
    column["null_count"] = nulls_known ? Json(nulls) : Json(nullptr);
    columns.push_back(std::move(column));
  }
  out["columns"] = std::move(columns);
  return out;
}

Result<Json> Inspect(const std::string& path) {
  ipc::ReadOptions options;
  options.validation = ValidationLevel::kMinimal;
  QUIVER_ASSIGN_OR_RETURN(Input input, OpenInput(path, options));
  Json out;
  out["path"] = path;
  out["format"] = InputKindId(input.kind);
  out["size_bytes"] = input.size();
  switch (input.kind) {
    case InputKind::kIpcFile:
    case InputKind::kIpcStream: {
      QUIVER_ASSIGN_OR_RETURN(out, InspectBatches(input, std::move(out)));
      out["size_bytes"] = input.size();  // a pipe's size is known once it has been read
      return out;
    }
    case InputKind::kTensor: out["tensor"] = TensorJson(*input.tensor); break;
    case InputKind::kSparseTensor: out["sparse_tensor"] = SparseJson(*input.sparse); break;
    case InputKind::kParquet: return InspectParquet(*input.parquet, std::move(out));
  }
  return out;
}

// --- text output ----------------------------------------------------------

std::string Text(const Json& value) {
  if (value.is_null()) return "none";
  if (value.is_string()) return EscapeText(value.get<std::string>());
  if (value.is_array()) {
    std::string out = "[";
    for (size_t i = 0; i < value.size(); ++i) {
      out += (i ? ", " : "") + (value[i].is_null() ? std::string("null") : Text(value[i]));
    }
    return out + "]";
  }
  return value.dump();
}

void PrintColumn(const Json& column) {
  std::cout << "  " << Text(column["name"]) << ": " << Text(column["kind"])
            << (column.value("in_list", false) ? " (counted per list element)" : "") << "\n";
  if (column["kind"] != "array") {
    std::cout << "    value type " << Text(column["value_type"]) << ", ndim " << column["ndim"]
              << ", dim_names " << Text(column["dim_names"]) << ", permutation "
              << Text(column["permutation"]) << ", uniform_shape " << Text(column["uniform_shape"])
              << "\n";
  }
  if (column.contains("shape_stats")) {
    for (const Json& axis : column["shape_stats"]) {
      std::cout << "    axis " << axis["axis"];
      if (!axis["name"].is_null()) std::cout << " (" << Text(axis["name"]) << ")";
      if (axis["min"].is_null()) {
        std::cout << ": no rows\n";
        continue;
      }
      std::cout << ": min " << axis["min"] << ", max " << axis["max"] << ", most common "
                << axis["most_common"] << " (" << axis["most_common_rows"]
                << (column.value("in_list", false) ? " elements)\n" : " rows)\n");
    }
  }
  const int64_t bytes = column["bytes"].get<int64_t>();
  const int64_t stored = column["stored_bytes"].get<int64_t>();
  std::cout << "    nulls " << column["null_count"] << ", " << FormatBytes(bytes);
  if (stored != bytes) std::cout << " (" << FormatBytes(stored) << " stored)";
  std::cout << "\n";
  if (column.contains("problem")) {
    std::cout << "    problem: " << Text(column["problem"]) << "\n";
  }
}

void PrintParquetColumn(const Json& column) {
  std::cout << "  " << Text(column["path"]) << ": " << Text(column["physical_type"]) << ", "
            << Text(column["codecs"]) << ", " << Text(column["encodings"]) << "\n";
  std::cout << "    nulls " << Text(column["null_count"]) << ", "
            << FormatBytes(column["bytes"].get<int64_t>()) << " ("
            << FormatBytes(column["stored_bytes"].get<int64_t>()) << " stored)\n";
}

void PrintText(const Json& info) {
  std::cout << Text(info["path"]) << ": ";
  const std::string format = info["format"];
  const std::string size = FormatBytes(info["size_bytes"].get<int64_t>());
  if (format == "tensor" || format == "sparse_tensor") {
    const bool sparse = format == "sparse_tensor";
    const Json& t = sparse ? info["sparse_tensor"] : info["tensor"];
    std::cout << (sparse ? "SparseTensor message" : "Tensor message") << ", " << size << "\n";
    if (sparse) std::cout << "  format " << Text(t["format"]) << "\n";
    std::cout << "  value type " << Text(t["value_type"]) << ", shape " << Text(t["shape"])
              << ", dim_names " << Text(t["dim_names"]) << "\n";
    if (sparse) {
      std::cout << "  nnz " << t["nnz"] << ", density " << t["density"].get<double>()
                << ", index type " << Text(t["index_type"]) << "\n";
    } else {
      std::cout << "  layout " << Text(t["layout"]) << ", strides " << Text(t["strides"]) << "\n";
    }
    std::cout << "  " << FormatBytes(t["bytes"].get<int64_t>()) << " of values and indices\n";
    return;
  }
  if (format == "parquet") {
    std::cout << "Parquet file, " << size << ", " << info["num_row_groups"] << " row groups, "
              << info["num_rows"] << " rows, written by " << Text(info["created_by"]) << "\n";
  } else {
    std::cout << (format == "ipc_file" ? "Arrow IPC file" : "Arrow IPC stream") << ", " << size
              << ", " << info["num_record_batches"] << " record batches, " << info["num_rows"]
              << " rows, " << CompressionText(info) << "\n";
  }
  std::cout << "schema:\n";
  for (const Json& field : info["schema"]["fields"]) {
    std::cout << "  " << Text(field["name"]) << ": " << Text(field["type"])
              << (field["nullable"].get<bool>() ? "" : " not null") << "\n";
  }
  for (const Json& entry : info["schema"]["metadata"]) {
    std::cout << "  metadata " << Text(entry["key"]) << " = "
              << EscapeText(entry["value"].get<std::string>().substr(0, 64)) << "\n";
  }
  std::cout << "columns:\n";
  for (const Json& column : info["columns"]) {
    if (format == "parquet") {
      PrintParquetColumn(column);
    } else {
      PrintColumn(column);
    }
  }
}

struct InspectArgs {
  std::vector<std::string> files;
  bool json = false;
  CommonOptions common;
};

int RunInspect(const InspectArgs& args) {
  Json all = Json::array();
  int exit_code = kExitOk;
  for (size_t i = 0; i < args.files.size(); ++i) {
    auto info = Inspect(args.files[i]);
    if (!info.ok()) {
      PrintError(args.files[i], info.status());
      exit_code = kExitFailure;
      continue;
    }
    if (args.json) {
      all.push_back(*info);
    } else {
      if (i > 0) std::cout << "\n";
      PrintText(*info);
    }
  }
  if (args.json) {
    Json out;
    out["quiver_inspect_version"] = 1;
    out["files"] = all;
    // Metadata may hold bytes that are not UTF-8: replaced, never thrown.
    std::cout << out.dump(2, ' ', false, Json::error_handler_t::replace) << "\n";
  }
  std::cout.flush();
  return exit_code;
}

}  // namespace

void AddInspectCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<InspectArgs>();
  CLI::App* command = app.add_subcommand(
      "inspect", "Show what a file holds: format, schema, tensor columns and their shapes");
  command
      ->add_option("FILE", args->files,
                   "Arrow IPC files or streams, Tensor or SparseTensor messages, Parquet files")
      ->required()
      ->check(ExistingInput());
  command->add_flag("--json", args->json,
                    "Write JSON (schema in docs/cli.md, 'quiver_inspect_version': 1)");
  AddCommonOptions(command, &args->common);
  command->footer(
      "Decodes only metadata, validity bitmaps and shape buffers, never tensor values,\n"
      "also in compressed files (nothing is decompressed but those). Tensor fields inside\n"
      "struct and list columns are listed too, named by their path (sample.image, clips[]).\n"
      "A Parquet file is described from its footer: row groups, and per column its\n"
      "physical type, codecs, encodings, sizes and null count.\n"
      "FILE may be - (standard input), a pipe or a FIFO.\n"
      "Examples:\n"
      "  quiver inspect images.arrow\n"
      "  quiver inspect --json a.arrow b.arrows | python3 -m json.tool\n");
  command->callback([args, exit_code] { *exit_code = RunInspect(*args); });
}

}  // namespace quiver::tools
