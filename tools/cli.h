// The pieces every `quiver` subcommand shares: how it registers with the
// command line, reports errors and ends.
//
// Exit codes: 0 success, 1 a problem with the input or the work (bad
// file, failed write, validation problems), 2 a usage error (unknown
// flag, missing argument, missing input file), which CLI11 reports.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "quiver/status.h"

namespace quiver::tools {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

// Options every subcommand takes.
struct CommonOptions {
  bool quiet = false;
};

// Adds -q/--quiet to `command`.
void AddCommonOptions(CLI::App* command, CommonOptions* options);

// "quiver: <where>: <message>" on stderr (where may be empty).
void PrintError(const std::string& where, const Status& status);
void PrintError(const std::string& where, const std::string& message);

// Command-line checks (a failed one is a usage error, exit 2):
// an input argument: "-" (standard input) or a path that exists, which may
// be a folder only where `folders`;
CLI::Validator ExistingInput(bool folders = false);
// a whole number of at least `min` ("must be 0 or more, got -1");
CLI::Validator AtLeast(int64_t min);
// an output file name whose extension does not say another format (see
// ForeignFormatOf in batch_writer.h).
CLI::Validator IpcOutputName();

// Each subcommand adds itself to `app`; when it runs it stores its exit
// code in `*exit_code`.
// `quiver pack`'s arguments: .npy files, .npz archives and folders of them
// become one tensor column (and a name column) of `output`.
struct PackArgs {
  std::vector<std::string> inputs;
  std::string output;
  std::string column = "tensor";
  std::vector<std::string> dim_names;
  std::string tensor = "auto";
  std::string compression = "none";
  int64_t batch_bytes = int64_t{64} << 20;
  CommonOptions common;
};
// Packs them (`convert` of a .npy or .npz input does too).
Status Pack(const PackArgs& args);

void AddInspectCommand(CLI::App& app, int* exit_code);
void AddValidateCommand(CLI::App& app, int* exit_code);
void AddHeadCommand(CLI::App& app, int* exit_code);
void AddPackCommand(CLI::App& app, int* exit_code);
void AddUnpackCommand(CLI::App& app, int* exit_code);
void AddConvertCommand(CLI::App& app, int* exit_code);
void AddDemoCommand(CLI::App& app, int* exit_code);

}  // namespace quiver::tools
