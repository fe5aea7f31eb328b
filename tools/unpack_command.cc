// `quiver unpack FILE -o DIR [--column NAME]`: one .npy per row of a tensor
// column (or the one tensor of a Tensor message), named from the file's
// `name` column when it has one, row_<i> otherwise.
#include <cstring>
#include <filesystem>
#include <iostream>

#include "cli.h"
#include "input_file.h"
#include "output_folder.h"
#include "progress.h"
#include "quiver/fixed_shape_tensor.h"
#include "quiver/variable_shape_tensor.h"
#include "text_format.h"

namespace quiver::tools {
namespace {

namespace fs = std::filesystem;

struct UnpackArgs {
  std::string file;
  std::string output;
  std::string column;
  bool force = false;
  CommonOptions common;
};

bool IsTensorField(const Field& field) {
  return field.type->id() == TypeId::kExtension &&
         (field.type->extension_name() == FixedShapeTensorType::kExtensionName ||
          field.type->extension_name() == VariableShapeTensorType::kExtensionName);
}

Result<int> PickColumn(const Schema& schema, const std::string& wanted) {
  for (size_t i = 0; i < schema.fields.size(); ++i) {
    const Field& field = schema.fields[i];
    if (wanted.empty() ? IsTensorField(field) : field.name == wanted) {
      if (!IsTensorField(field)) {
        return Status::TypeError("column '", wanted, "' is ", field.type->ToString(),
                                 ", not a tensor column");
      }
      return static_cast<int>(i);
    }
  }
  if (wanted.empty()) return Status::Invalid("the file has no tensor column");
  return Status::IndexError("no column named '", wanted, "'");
}

Result<std::optional<std::string>> RowName(const RecordBatch& batch, int name_column, int64_t row) {
  if (name_column < 0) return std::optional<std::string>();
  const ArrayData& names = *batch.column(name_column);
  if (!names.IsValid(row)) return std::optional<std::string>();
  // The batch was validated at kFull: offsets are in order and inside the
  // data buffer, which may be absent when every name is empty.
  const int64_t slot = names.offset + row;
  int32_t begin = 0, end = 0;
  std::memcpy(&begin, names.buffers[1]->data() + slot * 4, 4);
  std::memcpy(&end, names.buffers[1]->data() + (slot + 1) * 4, 4);
  if (end == begin || names.buffers[2] == nullptr) return std::optional<std::string>("");
  return std::optional<std::string>(
      std::string(reinterpret_cast<const char*>(names.buffers[2]->data()) + begin, end - begin));
}

Status Unpack(const UnpackArgs& args) {
  QUIVER_ASSIGN_OR_RETURN(Input input, OpenInput(args.file, {}));
  if (input.kind == InputKind::kSparseTensor) {
    return Status::NotImplemented("unpack writes dense .npy files: convert the SparseTensor first");
  }
  QUIVER_ASSIGN_OR_RETURN(auto folder, OutputFolder::Open(args.output, args.force));
  if (input.kind == InputKind::kTensor) {
    const std::string stem =
        args.file == kStandardInput ? "tensor" : fs::path(args.file).stem().string();
    const std::string name = folder->NameFor(stem, 0);
    QUIVER_RETURN_NOT_OK(folder->Write(name, *input.tensor));
    if (!args.common.quiet) std::cout << EscapeText(args.output + "/" + name) << "\n";
    return Status::OK();
  }
  const Schema& schema = *input.schema();
  QUIVER_ASSIGN_OR_RETURN(int column, PickColumn(schema, args.column));
  int name_column = -1;
  for (size_t i = 0; i < schema.fields.size(); ++i) {
    const TypeId id = schema.fields[i].type->id();
    if (schema.fields[i].name == "name" && id == TypeId::kUtf8) name_column = static_cast<int>(i);
  }
  const bool fixed = schema.fields[static_cast<size_t>(column)].type->extension_name() ==
                     FixedShapeTensorType::kExtensionName;
  int64_t row_base = 0, written = 0, nulls = 0;
  Progress progress("unpack", -1, !args.common.quiet);
  QUIVER_RETURN_NOT_OK(ForEachBatch(input, [&](int, const RecordBatchPtr& batch) -> Status {
    std::optional<FixedShapeTensorArray> fixed_array;
    std::optional<VariableShapeTensorArray> variable_array;
    if (fixed) {
      QUIVER_ASSIGN_OR_RETURN(fixed_array, FixedShapeTensorArray::Make(batch->column(column)));
    } else {
      QUIVER_ASSIGN_OR_RETURN(variable_array,
                              VariableShapeTensorArray::Make(batch->column(column)));
    }
    for (int64_t row = 0; row < batch->num_rows(); ++row) {
      const int64_t index = row_base + row;
      if (!batch->column(column)->IsValid(row)) {
        ++nulls;
        continue;
      }
      QUIVER_ASSIGN_OR_RETURN(Tensor tensor,
                              fixed ? fixed_array->RowTensor(row) : variable_array->RowTensor(row));
      QUIVER_ASSIGN_OR_RETURN(auto name, RowName(*batch, name_column, row));
      Status status = folder->Write(folder->NameFor(name, index), tensor);
      if (!status.ok()) return status.WithContext("row " + std::to_string(index));
      ++written;
      progress.Advance(1);
    }
    row_base += batch->num_rows();
    return Status::OK();
  }));
  progress.Finish();
  if (!args.common.quiet) {
    std::cout << EscapeText(args.output) << ": " << written << " .npy files";
    if (nulls > 0) std::cout << " (" << nulls << " null rows skipped)";
    std::cout << "\n";
  }
  return Status::OK();
}

}  // namespace

void AddUnpackCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<UnpackArgs>();
  CLI::App* command =
      app.add_subcommand("unpack", "Write one .npy file per row of a tensor column");
  command->add_option("FILE", args->file, "An Arrow IPC file or stream, or a Tensor message")
      ->required()
      ->check(ExistingInput());
  command->add_option("-o,--output", args->output, "The folder to write into (made if missing)")
      ->required();
  command->add_option("--column", args->column, "The tensor column (default: the first one)");
  command->add_flag("--force", args->force,
                    "Replace files that exist (never through a symlink); without it they stop "
                    "unpack");
  AddCommonOptions(command, &args->common);
  command->footer(
      "Files are named from a utf8 column called 'name' ('/' makes subfolders; a name\n"
      "with an empty, '.' or '..' part becomes row_<i>; control bytes are written %XX),\n"
      "else row_<i>.npy. A name given twice (case ignored) gets _<row> appended.\n"
      "Null rows are skipped. Arrays are written as np.save writes them. FILE may be -.\n"
      "Examples:\n"
      "  quiver unpack images.arrow -o images/\n"
      "  quiver unpack data.arrow -o out/ --column embedding\n");
  command->callback([args, exit_code] {
    Status status = Unpack(*args);
    if (!status.ok()) PrintError("unpack", status);
    *exit_code = status.ok() ? kExitOk : kExitFailure;
  });
}

}  // namespace quiver::tools
