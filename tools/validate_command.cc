// `quiver validate FILE...`: every check quiver has (ValidationLevel::kFull
// on every column, every tensor column's rows, Tensor and SparseTensor
// indices), each problem reported with where it is.
#include <iostream>

#include "cli.h"
#include "input_file.h"
#include "progress.h"
#include "quiver/fixed_shape_tensor.h"
#include "quiver/variable_shape_tensor.h"

namespace quiver::tools {
namespace {

struct ValidateArgs {
  std::vector<std::string> files;
  CommonOptions common;
};

// Checks one column at kFull; tensor columns also through their array
// classes (which check every row's shape against its data).
Status ValidateColumn(const Field& field, const ArrayDataPtr& data) {
  QUIVER_RETURN_NOT_OK(Validate(*data, ValidationLevel::kFull));
  if (field.type->id() != TypeId::kExtension) return Status::OK();
  if (field.type->extension_name() == FixedShapeTensorType::kExtensionName) {
    return FixedShapeTensorArray::Make(data, ValidationLevel::kFull).status();
  }
  if (field.type->extension_name() == VariableShapeTensorType::kExtensionName) {
    return VariableShapeTensorArray::Make(data, ValidationLevel::kFull).status();
  }
  return Status::OK();
}

// Problems of one file, each on its own line; returns how many.
int64_t ValidateFile(const std::string& path, bool quiet) {
  ipc::ReadOptions options;
  // Batches are read at kMinimal (enough to reach every column safely) so
  // that a bad column is reported as that column, and the other columns
  // and batches are still checked.
  options.validation = ValidationLevel::kMinimal;
  auto input = OpenInput(path, options);
  if (!input.ok()) {
    PrintError(path, input.status());
    return 1;
  }
  int64_t problems = 0;
  if (input->kind == InputKind::kTensor) return 0;  // ReadTensor checked the strides
  if (input->kind == InputKind::kSparseTensor) {
    Status status = input->sparse->Validate(ValidationLevel::kFull);
    if (!status.ok()) PrintError(path, status);
    return status.ok() ? 0 : 1;
  }
  const Schema& schema = *input->schema();
  const int batches = input->num_batches();
  Progress progress("validate", batches, !quiet);
  auto check_batch = [&](int index, const RecordBatchPtr& batch) {
    for (int c = 0; c < batch->num_columns(); ++c) {
      const Field& field = schema.fields[static_cast<size_t>(c)];
      Status status = ValidateColumn(field, batch->column(c));
      if (!status.ok()) {
        progress.Clear();
        PrintError(path + ": batch " + std::to_string(index) + ", column '" + field.name + "'",
                   status);
        ++problems;
      }
    }
    progress.Advance(1);
    return Status::OK();
  };
  if (input->kind != InputKind::kIpcStream) {
    // A file's batches (a Parquet file's row groups) are independent: a
    // broken one does not hide the rest.
    for (int i = 0; i < batches; ++i) {
      auto batch = input->ReadBatch(i);
      if (!batch.ok()) {
        progress.Clear();
        PrintError(path + ": batch " + std::to_string(i), batch.status());
        ++problems;
        continue;
      }
      (void)check_batch(i, *batch);
    }
  } else {
    Status status = ForEachBatch(*input, check_batch);
    if (!status.ok()) {
      progress.Clear();
      PrintError(path, status);
      ++problems;
    }
  }
  progress.Finish();
  return problems;
}

int RunValidate(const ValidateArgs& args) {
  int exit_code = kExitOk;
  for (const std::string& path : args.files) {
    const int64_t problems = ValidateFile(path, args.common.quiet);
    if (problems > 0) exit_code = kExitFailure;
    if (!args.common.quiet) {
      if (problems == 0) {
        std::cout << path << ": OK" << std::endl;
      } else {
        std::cout << path << ": " << problems << (problems == 1 ? " problem" : " problems")
                  << std::endl;
      }
    }
  }
  return exit_code;
}

}  // namespace

void AddValidateCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<ValidateArgs>();
  CLI::App* command =
      app.add_subcommand("validate", "Check every byte a reader relies on; exit 1 on any problem");
  command
      ->add_option("FILE", args->files,
                   "Arrow IPC files or streams, Tensor or SparseTensor messages, Parquet files")
      ->required()
      ->check(ExistingInput());
  AddCommonOptions(command, &args->common);
  command->footer(
      "Each problem goes to stderr as 'quiver: FILE: batch B, column 'NAME': message'\n"
      "(messages name the row, axis or byte offset). Exit code 0: sound; 1: problems.\n"
      "Examples:\n"
      "  quiver validate data.arrow\n"
      "  quiver validate -q *.arrow && echo all sound\n");
  command->callback([args, exit_code] { *exit_code = RunValidate(*args); });
}

}  // namespace quiver::tools
