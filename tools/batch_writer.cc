#include "batch_writer.h"

#include <cctype>
#include <utility>

#include "quiver/build_info.h"
#include "quiver/parquet.h"
#include "quiver/table.h"
#include "signal_cleanup.h"

namespace quiver::tools {

namespace {

bool EndsWithIgnoringCase(const std::string& path, const std::string& suffix) {
  if (path.size() < suffix.size()) return false;
  for (size_t i = 0; i < suffix.size(); ++i) {
    const char c = path[path.size() - suffix.size() + i];
    if (std::tolower(static_cast<unsigned char>(c)) != suffix[i]) return false;
  }
  return true;
}

}  // namespace

bool IsParquetPath(const std::string& path) {
  return EndsWithIgnoringCase(path, ".parquet") || EndsWithIgnoringCase(path, ".pq");
}

const char* OutputKindName(const std::string& path) {
  if (IsParquetPath(path)) return "Parquet file";
  return IsStreamPath(path) ? "Arrow IPC stream" : "Arrow IPC file";
}

bool IsStreamPath(const std::string& path) {
  auto ends_with = [&](const std::string& suffix) {
    return path.size() >= suffix.size() &&
           path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return ends_with(".arrows") || ends_with(".stream");
}

std::string ForeignFormatOf(const std::string& path) {
  static constexpr std::pair<const char*, const char*> kForeign[] = {
      {".npy", "NumPy"},
      {".npz", "NumPy"},
      {".csv", "CSV"},
      {".tsv", "TSV"},
      {".json", "JSON"},
      {".jsonl", "JSON Lines"},
      {".ndjson", "JSON Lines"},
      {".pt", "PyTorch"},
      {".pth", "PyTorch"},
      {".safetensors", "safetensors"},
      {".h5", "HDF5"},
      {".hdf5", "HDF5"},
      {".hdf", "HDF5"},
      {".nc", "netCDF"},
      {".orc", "ORC"},
      {".avro", "Avro"},
      {".pkl", "pickle"},
      {".pickle", "pickle"},
      {".zarr", "Zarr"},
      {".tfrecord", "TFRecord"},
      {".txt", "text"},
      {".zip", "zip"},
      {".gz", "gzip"},
      {".zst", "zstd"},
      {".lz4", "LZ4"},
      {".bz2", "bzip2"},
      {".xz", "xz"},
      {".tar", "tar"},
      {".mat", "MATLAB"},
      {".xlsx", "Excel"},
      {".onnx", "ONNX"},
      {".ckpt", "checkpoint"},
      {".gguf", "GGUF"},
      {".msgpack", "MessagePack"},
  };
  const size_t slash = path.find_last_of('/');
  const size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return {};
  std::string extension = path.substr(dot);
  for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const auto& [name, format] : kForeign) {
    if (extension == name) return format;
  }
  return {};
}

Result<ipc::Compression> ParseCompression(const std::string& name) {
  ipc::Compression codec;
  if (name == "none") return ipc::Compression::kNone;
  if (name == "lz4") {
    codec = ipc::Compression::kLz4Frame;
  } else if (name == "zstd") {
    codec = ipc::Compression::kZstd;
  } else {
    return Status::Invalid("unknown compression '", name, "' (none, lz4 or zstd)");
  }
  if (!ipc::HasCodec(codec)) {
    return Status::NotImplemented("this build of quiver has no ", name, " codec");
  }
  return codec;
}

Result<std::unique_ptr<BatchWriter>> BatchWriter::Open(const std::string& path, SchemaPtr schema,
                                                       ipc::WriteOptions options, bool stream) {
  auto writer = std::unique_ptr<BatchWriter>(new BatchWriter());
  QUIVER_ASSIGN_OR_RETURN(writer->sink_, OpenOutputFile(path));
  if (IsParquetPath(path)) {
    parquet::ParquetWriteOptions parquet_options;
    parquet_options.compression = options.compression == ipc::Compression::kZstd ? "ZSTD"
                                  : options.compression == ipc::Compression::kLz4Frame
                                      ? "LZ4_RAW"
                                      : "UNCOMPRESSED";
    writer->parquet_rows_ = parquet_options.row_group_rows;
    QUIVER_ASSIGN_OR_RETURN(writer->parquet_,
                            parquet::ParquetWriter::Open(writer->sink_, schema, parquet_options));
    writer->parquet_schema_ = std::move(schema);
  } else if (stream) {
    QUIVER_ASSIGN_OR_RETURN(writer->stream_,
                            ipc::StreamWriter::Open(writer->sink_, schema, options));
  } else {
    QUIVER_ASSIGN_OR_RETURN(writer->file_, ipc::FileWriter::Open(writer->sink_, schema, options));
  }
  return writer;
}

Status BatchWriter::Write(const RecordBatch& batch) {
  if (!parquet_) return stream_ ? stream_->Write(batch) : file_->Write(batch);
  QUIVER_ASSIGN_OR_RETURN(RecordBatchPtr shared, batch.Slice(0, batch.num_rows()));
  for (const ArrayDataPtr& column : shared->columns()) {
    QUIVER_ASSIGN_OR_RETURN(int64_t bytes, ReferencedBytes(*column));
    if (column->dictionary) {
      // A dictionary the batches share is written once per row group, not
      // once per batch.
      QUIVER_ASSIGN_OR_RETURN(int64_t shared_bytes, ReferencedBytes(*column->dictionary));
      bytes -= shared_bytes;
    }
    pending_bytes_ += bytes;
  }
  pending_rows_ += batch.num_rows();
  pending_.push_back(std::move(shared));
  if (pending_rows_ >= parquet_rows_ || pending_bytes_ >= kRowGroupBytes) return FlushRowGroup();
  return Status::OK();
}

Status BatchWriter::FlushRowGroup() {
  if (pending_.empty()) return Status::OK();
  QUIVER_ASSIGN_OR_RETURN(TablePtr table, Table::FromRecordBatches(parquet_schema_, pending_));
  pending_.clear();
  pending_rows_ = pending_bytes_ = 0;
  return parquet_->WriteTable(*table);
}

Status BatchWriter::Close() {
  if (parquet_) {
    QUIVER_RETURN_NOT_OK(FlushRowGroup());
    QUIVER_RETURN_NOT_OK(parquet_->Close());
  } else {
    QUIVER_RETURN_NOT_OK(stream_ ? stream_->Close() : file_->Close());
  }
  return sink_->Close();
}

}  // namespace quiver::tools
