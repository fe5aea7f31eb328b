// `quiver convert IN OUT`: IPC stream <-> file (OUT's extension: .arrows
// or .stream writes a stream), body compression, fixed <-> variable
// tensor columns; Tensor and SparseTensor messages between dense and the
// sparse formats; safetensors files to a one-row batch of tensor columns
// and back.
#include <cctype>
#include <iostream>
#include <map>

#include "batch_writer.h"
#include "cli.h"
#include "input_file.h"
#include "progress.h"
#include "quiver/fixed_shape_tensor.h"
#include "quiver/safetensors.h"
#include "quiver/variable_shape_tensor.h"
#include "signal_cleanup.h"
#include "text_format.h"

namespace quiver::tools {
namespace {

struct ConvertArgs {
  std::string input;
  std::string output;
  std::string compression = "none";
  std::string tensor = "keep";
  std::string sparse;
  bool dense = false;
  CommonOptions common;
};

bool IsExtension(const Field& field, const char* name) {
  return field.type->id() == TypeId::kExtension && field.type->extension_name() == name;
}

// One column in the form --tensor asks for (others unchanged, zero-copy).
Result<ArrayDataPtr> ConvertColumn(const Field& field, const ArrayDataPtr& data,
                                   const std::string& tensor) {
  if (tensor == "variable" && IsExtension(field, FixedShapeTensorType::kExtensionName)) {
    QUIVER_ASSIGN_OR_RETURN(auto fixed, FixedShapeTensorArray::Make(data));
    QUIVER_ASSIGN_OR_RETURN(auto variable, VariableShapeTensorArray::FromFixed(fixed));
    return variable.data();
  }
  if (tensor == "fixed" && IsExtension(field, VariableShapeTensorType::kExtensionName)) {
    QUIVER_ASSIGN_OR_RETURN(auto variable, VariableShapeTensorArray::Make(data));
    auto fixed = variable.ToFixed(CopyMode::kIfNeeded);
    if (!fixed.ok()) {
      return fixed.status().WithContext("column '" + field.name +
                                        "' cannot become fixed_shape_tensor");
    }
    return fixed->data();
  }
  return data;
}

Result<RecordBatchPtr> ConvertBatch(const RecordBatch& batch, const ConvertArgs& args,
                                    SchemaPtr* schema) {
  const Schema& in = *batch.schema();
  std::vector<ArrayDataPtr> columns;
  auto out = std::make_shared<Schema>(in);
  for (int i = 0; i < batch.num_columns(); ++i) {
    const Field& field = in.fields[static_cast<size_t>(i)];
    QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr column,
                            ConvertColumn(field, batch.column(i), args.tensor));
    out->fields[static_cast<size_t>(i)].type = column->type;
    columns.push_back(std::move(column));
  }
  if (*schema == nullptr) {
    *schema = out;
  } else if (!(*schema)->Equals(*out)) {
    // variable -> fixed: every batch must come out with the same shape.
    return Status::Invalid("the converted columns' types differ from batch 0's (shapes that ",
                           "differ between batches cannot share one fixed_shape_tensor type)");
  }
  return RecordBatch::Make(*schema, batch.num_rows(), std::move(columns), ValidationLevel::kNone);
}

// The converted schema of a file without batches: types converted where
// the type alone says how.
Result<SchemaPtr> ConvertEmptySchema(const Schema& in, const std::string& tensor) {
  auto out = std::make_shared<Schema>(in);
  for (Field& field : out->fields) {
    if (tensor == "variable" && IsExtension(field, FixedShapeTensorType::kExtensionName)) {
      QUIVER_ASSIGN_OR_RETURN(auto fixed, FixedShapeTensorType::FromDataType(field.type));
      UniformShape uniform(fixed.shape().begin(), fixed.shape().end());
      QUIVER_ASSIGN_OR_RETURN(auto variable, VariableShapeTensorType::Make(
                                                 fixed.value_type(), fixed.ndim(),
                                                 fixed.dim_names(), fixed.permutation(), uniform));
      field.type = variable.data_type();
    } else if (tensor == "fixed" && IsExtension(field, VariableShapeTensorType::kExtensionName)) {
      return Status::Invalid("column '", field.name,
                             "': a file without rows gives no shape for a fixed_shape_tensor");
    }
  }
  return SchemaPtr(out);
}

Status ConvertBatches(Input& input, const ConvertArgs& args) {
  QUIVER_ASSIGN_OR_RETURN(ipc::Compression compression, ParseCompression(args.compression));
  ipc::WriteOptions options;
  options.compression = compression;
  SchemaPtr schema;
  std::unique_ptr<BatchWriter> writer;
  const int64_t total = input.num_batches();
  Progress progress("convert", total, !args.common.quiet);
  int64_t rows = 0, batches = 0;
  QUIVER_RETURN_NOT_OK(ForEachBatch(input, [&](int, const RecordBatchPtr& batch) -> Status {
    QUIVER_ASSIGN_OR_RETURN(auto converted, ConvertBatch(*batch, args, &schema));
    if (writer == nullptr) {
      QUIVER_ASSIGN_OR_RETURN(
          writer, BatchWriter::Open(args.output, schema, options, IsStreamPath(args.output)));
    }
    rows += batch->num_rows();
    ++batches;
    progress.Advance(1);
    return writer->Write(*converted);
  }));
  if (writer == nullptr) {
    QUIVER_ASSIGN_OR_RETURN(schema, ConvertEmptySchema(*input.schema(), args.tensor));
    QUIVER_ASSIGN_OR_RETURN(
        writer, BatchWriter::Open(args.output, schema, options, IsStreamPath(args.output)));
  }
  QUIVER_RETURN_NOT_OK(writer->Close());
  progress.Finish();
  if (!args.common.quiet) {
    std::cout << args.output << ": " << OutputKindName(args.output) << ", " << batches
              << " record batches, " << rows << " rows, " << FormatBytes(writer->position())
              << "\n";
  }
  return Status::OK();
}

Result<SparseFormat> ParseSparse(const std::string& name) {
  if (name == "coo") return SparseFormat::kCOO;
  if (name == "csr") return SparseFormat::kCSR;
  if (name == "csc") return SparseFormat::kCSC;
  if (name == "csf") return SparseFormat::kCSF;
  return Status::Invalid("unknown sparse format '", name, "'");
}

Status WriteMessage(const std::string& path, const Tensor* dense, const SparseTensor* sparse,
                    bool quiet) {
  QUIVER_ASSIGN_OR_RETURN(auto sink, OpenOutputFile(path));
  QUIVER_RETURN_NOT_OK(dense ? ipc::WriteTensor(*dense, sink.get())
                             : ipc::WriteSparseTensor(*sparse, sink.get()));
  const int64_t bytes = sink->position();
  QUIVER_RETURN_NOT_OK(sink->Close());
  if (!quiet) {
    std::cout << path << ": "
              << (dense ? "Tensor message " + dense->type()->ToString() + FormatInts(dense->shape())
                        : "SparseTensor message " + sparse->ToString())
              << ", " << FormatBytes(bytes) << "\n";
  }
  return Status::OK();
}

Status ConvertTensor(Input& input, const ConvertArgs& args) {
  if (args.tensor != "keep" || args.compression != "none") {
    return Status::Invalid("--tensor and --compression apply to record batches; ", args.input,
                           " is a ", InputKindName(input.kind));
  }
  if (input.kind == InputKind::kTensor) {
    if (args.dense) return Status::Invalid("--dense: the input is already a dense Tensor message");
    if (args.sparse.empty())
      return WriteMessage(args.output, &*input.tensor, nullptr, args.common.quiet);
    QUIVER_ASSIGN_OR_RETURN(SparseFormat format, ParseSparse(args.sparse));
    QUIVER_ASSIGN_OR_RETURN(auto sparse, SparseTensor::FromDense(*input.tensor, format));
    return WriteMessage(args.output, nullptr, &sparse, args.common.quiet);
  }
  if (args.dense) {
    QUIVER_ASSIGN_OR_RETURN(Tensor dense, input.sparse->ToDense());
    return WriteMessage(args.output, &dense, nullptr, args.common.quiet);
  }
  if (args.sparse.empty())
    return WriteMessage(args.output, nullptr, &*input.sparse, args.common.quiet);
  QUIVER_ASSIGN_OR_RETURN(SparseFormat format, ParseSparse(args.sparse));
  QUIVER_ASSIGN_OR_RETURN(auto sparse, input.sparse->Convert(format));
  return WriteMessage(args.output, nullptr, &sparse, args.common.quiet);
}

std::string Lowered(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

bool IsSafetensorsPath(const std::string& path) { return Lowered(path).ends_with(".safetensors"); }

// A safetensors file as one row: a fixed_shape_tensor column per tensor
// (zero-copy over the mapped file), its metadata in the schema's.
Status SafetensorsToArrow(const ConvertArgs& args) {
  if (args.tensor != "keep" || !args.sparse.empty() || args.dense) {
    return Status::Invalid("--tensor, --sparse and --dense do not apply to safetensors files");
  }
  QUIVER_ASSIGN_OR_RETURN(SafetensorsFile file, SafetensorsFile::Open(args.input));
  QUIVER_ASSIGN_OR_RETURN(TablePtr table, SafetensorsToTable(file));
  QUIVER_ASSIGN_OR_RETURN(auto batches, table->ToRecordBatches());
  const SchemaPtr& schema = table->schema();
  QUIVER_ASSIGN_OR_RETURN(ipc::Compression compression, ParseCompression(args.compression));
  ipc::WriteOptions options;
  options.compression = compression;
  QUIVER_ASSIGN_OR_RETURN(
      auto writer, BatchWriter::Open(args.output, schema, options, IsStreamPath(args.output)));
  for (const RecordBatchPtr& batch : batches) QUIVER_RETURN_NOT_OK(writer->Write(*batch));
  QUIVER_RETURN_NOT_OK(writer->Close());
  if (!args.common.quiet) {
    std::cout << args.output << ": " << OutputKindName(args.output) << ", 1 row, "
              << schema->fields.size() << " tensor columns, " << FormatBytes(writer->position())
              << "\n";
  }
  return Status::OK();
}

// One row of fixed_shape_tensor columns (the form above) as a safetensors
// file: a tensor per column, the schema's metadata as __metadata__.
Status ArrowToSafetensors(Input& input, const ConvertArgs& args) {
  if (args.tensor != "keep" || args.compression != "none" || !args.sparse.empty() || args.dense) {
    return Status::Invalid("--tensor, --compression, --sparse and --dense do not apply to ",
                           "safetensors files");
  }
  if (!input.has_batches()) {
    return Status::Invalid(args.input, " is a ", InputKindName(input.kind),
                           "; a safetensors file is written from one row of tensor columns");
  }
  std::vector<RecordBatchPtr> batches;
  QUIVER_RETURN_NOT_OK(ForEachBatch(input, [&](int, const RecordBatchPtr& batch) -> Status {
    batches.push_back(batch);
    return Status::OK();
  }));
  QUIVER_ASSIGN_OR_RETURN(TablePtr table, Table::FromRecordBatches(input.schema(), batches));
  auto contents = SafetensorsFromTable(*table);
  if (!contents.ok()) return contents.status().WithContext(args.input);
  QUIVER_RETURN_NOT_OK(WriteSafetensorsFile(contents->tensors, contents->metadata, args.output));
  if (!args.common.quiet) {
    std::cout << args.output << ": safetensors, " << contents->tensors.size() << " tensors\n";
  }
  return Status::OK();
}

// A .npy file or .npz archive (case ignored): NumPy's, packed into a
// tensor column as `quiver pack` does.
bool IsNumpyPath(const std::string& path) {
  const std::string lowered = Lowered(path);
  return lowered.ends_with(".npy") || lowered.ends_with(".npz");
}

Status NumpyToTable(const ConvertArgs& args) {
  if (!args.sparse.empty() || args.dense) {
    return Status::Invalid("--sparse and --dense apply to Tensor and SparseTensor messages; ",
                           args.input, " is a NumPy file");
  }
  PackArgs pack;
  pack.inputs = {args.input};
  pack.output = args.output;
  pack.compression = args.compression;
  pack.tensor = args.tensor == "keep" ? "auto" : args.tensor;
  pack.common = args.common;
  return Pack(pack);
}

Status Convert(const ConvertArgs& args) {
  if (IsSafetensorsPath(args.input)) return SafetensorsToArrow(args);
  if (IsNumpyPath(args.input)) {
    if (IsSafetensorsPath(args.output)) {
      return Status::Invalid(args.input, " is a NumPy file: convert writes it as Arrow IPC or ",
                             "Parquet (a tensor column), not safetensors");
    }
    return NumpyToTable(args);
  }
  QUIVER_ASSIGN_OR_RETURN(Input input, OpenInput(args.input, {}));
  if (IsSafetensorsPath(args.output)) return ArrowToSafetensors(input, args);
  if (input.kind == InputKind::kTensor || input.kind == InputKind::kSparseTensor) {
    return ConvertTensor(input, args);
  }
  if (!args.sparse.empty() || args.dense) {
    return Status::Invalid("--sparse and --dense apply to Tensor and SparseTensor messages; ",
                           args.input, " is an ", InputKindName(input.kind));
  }
  return ConvertBatches(input, args);
}

}  // namespace

void AddConvertCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<ConvertArgs>();
  CLI::App* command = app.add_subcommand(
      "convert",
      "Rewrite a file: stream <-> file, compression, tensor column kinds, sparse formats");
  command
      ->add_option("IN", args->input,
                   "An Arrow IPC file or stream, Tensor or SparseTensor message, Parquet file, "
                   ".safetensors file, or .npy file or .npz archive (packed into a tensor column "
                   "as `quiver pack` does)")
      ->required()
      ->check(ExistingInput());
  command
      ->add_option("OUT", args->output,
                   "The file to write (.arrows or .stream: an IPC stream; .parquet: a Parquet "
                   "file; .safetensors: one row of tensor columns as a safetensors file)")
      ->required()
      ->check(CLI::Validator(
          [](std::string& path) -> std::string {
            return IsSafetensorsPath(path) ? std::string() : IpcOutputName()(path);
          },
          ""));
  command
      ->add_option("--compression", args->compression,
                   "Body compression of the output (default: none)")
      ->check(CLI::IsMember({"none", "lz4", "zstd"}));
  command
      ->add_option("--tensor", args->tensor,
                   "Tensor columns as they are (keep), all fixed_shape_tensor (needs one shape) "
                   "or all variable_shape_tensor")
      ->check(CLI::IsMember({"keep", "fixed", "variable"}));
  auto* sparse = command
                     ->add_option("--sparse", args->sparse,
                                  "Tensor / SparseTensor messages: write this sparse format")
                     ->check(CLI::IsMember({"coo", "csr", "csc", "csf"}));
  command->add_flag("--dense", args->dense, "SparseTensor messages: write the dense Tensor")
      ->excludes(sparse);
  AddCommonOptions(command, &args->common);
  command->footer(
      "Examples:\n"
      "  quiver convert data.arrows data.arrow --compression zstd\n"
      "  quiver convert images.arrow images_fixed.arrow --tensor fixed\n"
      "  quiver convert matrix.arrow matrix_csc.arrow --sparse csc\n"
      "  quiver convert matrix.arrow dense.arrow --dense\n"
      "  quiver convert model.safetensors model.arrow\n"
      "  quiver convert model.arrow model.safetensors\n"
      "  quiver convert data.arrow data.parquet --compression zstd\n"
      "  quiver convert data.parquet data.arrow\n"
      "  quiver convert images.npy images.parquet\n");
  command->callback([args, exit_code] {
    Status status = Convert(*args);
    if (!status.ok()) PrintError("convert", status);
    *exit_code = status.ok() ? kExitOk : kExitFailure;
  });
}

}  // namespace quiver::tools
