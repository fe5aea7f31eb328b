// `quiver head FILE [-n N] [--column NAME]`: the first rows, tensors
// printed as NumPy prints arrays (long axes cut to their first and last
// three entries).
#include <iostream>

#include "cli.h"
#include "input_file.h"
#include "quiver/fixed_shape_tensor.h"
#include "quiver/variable_shape_tensor.h"
#include "text_format.h"

namespace quiver::tools {
namespace {

struct HeadArgs {
  std::string file;
  int64_t rows = 5;
  std::vector<std::string> columns;
  CommonOptions common;
};

// One cell as text: tensor columns through their row views (zero-copy),
// others as plain values.
std::string FormatColumnCell(const Field& field, const ArrayDataPtr& data, int64_t row) {
  if (!data->IsValid(row)) return "null";
  if (field.type->id() == TypeId::kExtension) {
    const std::string& name = field.type->extension_name();
    Result<Tensor> tensor = Status::Invalid("");
    if (name == FixedShapeTensorType::kExtensionName) {
      auto array = FixedShapeTensorArray::Make(data, ValidationLevel::kFull);
      if (!array.ok()) return "<" + EscapeText(array.status().message()) + ">";
      tensor = array->RowTensor(row);
    } else if (name == VariableShapeTensorType::kExtensionName) {
      auto array = VariableShapeTensorArray::Make(data, ValidationLevel::kFull);
      if (!array.ok()) return "<" + EscapeText(array.status().message()) + ">";
      tensor = array->RowTensor(row);
    } else {
      return FormatCell(*data, row);
    }
    if (!tensor.ok()) return "<" + EscapeText(tensor.status().message()) + ">";
    std::string header = tensor->type()->ToString() + FormatInts(tensor->shape());
    // Cut sooner than NumPy (1000 elements): a row is one cell of a listing.
    return header + "\n" + FormatTensor(*tensor, 3, 100);
  }
  return FormatCell(*data, row);
}

// Indents every line after the first by `indent` spaces.
std::string Indent(const std::string& text, size_t indent) {
  std::string out;
  for (char c : text) {
    out += c;
    if (c == '\n') out.append(indent, ' ');
  }
  return out;
}

Status PrintBatchRows(const RecordBatch& batch, const std::vector<int>& columns, int64_t first_row,
                      int64_t count) {
  const Schema& schema = *batch.schema();
  for (int64_t row = 0; row < count; ++row) {
    std::cout << "row " << first_row + row << ":\n";
    for (int c : columns) {
      const Field& field = schema.fields[static_cast<size_t>(c)];
      std::cout << "  " << EscapeText(field.name) << ": "
                << Indent(FormatColumnCell(field, batch.column(c), row), 4) << "\n";
    }
  }
  return Status::OK();
}

Status RunHeadOn(const HeadArgs& args) {
  QUIVER_ASSIGN_OR_RETURN(Input input, OpenInput(args.file, {}));
  if (input.kind == InputKind::kTensor) {
    std::cout << input.tensor->type()->ToString() << FormatInts(input.tensor->shape()) << "\n"
              << FormatTensor(*input.tensor) << "\n";
    return Status::OK();
  }
  if (input.kind == InputKind::kSparseTensor) {
    std::cout << EscapeText(input.sparse->ToString()) << "\n";
    const Tensor& values = input.sparse->values();
    QUIVER_ASSIGN_OR_RETURN(Tensor head, values.View({TensorIndex::Slice(0, args.rows)}));
    std::cout << "values: " << FormatTensor(head) << "\n";
    return Status::OK();
  }
  const Schema& schema = *input.schema();
  std::vector<int> columns;
  if (args.columns.empty()) {
    for (size_t i = 0; i < schema.fields.size(); ++i) columns.push_back(static_cast<int>(i));
  }
  for (const std::string& name : args.columns) {
    int index = -1;
    for (size_t i = 0; i < schema.fields.size(); ++i) {
      if (schema.fields[i].name == name) index = static_cast<int>(i);
    }
    if (index < 0) {
      std::string names;
      for (const Field& f : schema.fields) names += (names.empty() ? "" : ", ") + f.name;
      return Status::IndexError("no column named '", name, "' (columns: ", names, ")");
    }
    columns.push_back(index);
  }
  int64_t printed = 0;
  int batch_index = 0;
  while (printed < args.rows) {
    RecordBatchPtr batch;
    if (input.kind != InputKind::kIpcStream) {
      if (batch_index >= input.num_batches()) break;
      auto read = input.ReadBatch(batch_index);
      if (!read.ok()) return read.status().WithContext("batch " + std::to_string(batch_index));
      batch = *read;
    } else {
      auto read = input.stream->Next();
      if (!read.ok()) return read.status().WithContext("batch " + std::to_string(batch_index));
      batch = *read;
      if (batch == nullptr) break;
    }
    ++batch_index;
    const int64_t count = std::min(batch->num_rows(), args.rows - printed);
    QUIVER_RETURN_NOT_OK(PrintBatchRows(*batch, columns, printed, count));
    printed += count;
  }
  if (printed == 0 && args.rows > 0 && !args.common.quiet) std::cout << "(no rows)\n";
  return Status::OK();
}

}  // namespace

void AddHeadCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<HeadArgs>();
  CLI::App* command = app.add_subcommand("head", "Print the first rows, tensors as NumPy does");
  command
      ->add_option("FILE", args->file,
                   "An Arrow IPC file or stream, Tensor or SparseTensor message, or Parquet file")
      ->required()
      ->check(ExistingInput());
  command->add_option("-n,--rows", args->rows, "Rows to print (default 5)")->check(AtLeast(0));
  command->add_option("-c,--column", args->columns, "Only this column (repeatable)");
  AddCommonOptions(command, &args->common);
  command->footer(
      "Examples:\n"
      "  quiver head images.arrow\n"
      "  quiver head images.arrow -n 1 --column image\n");
  command->callback([args, exit_code] {
    Status status = RunHeadOn(*args);
    std::cout.flush();
    if (!status.ok()) PrintError(args->file, status);
    *exit_code = status.ok() ? kExitOk : kExitFailure;
  });
}

}  // namespace quiver::tools
