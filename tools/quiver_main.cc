// The `quiver` command: inspect, validate, head, pack, unpack, convert and
// demo for tensor files (docs/cli.md).
#include <cstdio>
#include <exception>
#include <iostream>

#include "cli.h"
#include "quiver/build_info.h"

namespace quiver::tools {

void AddCommonOptions(CLI::App* command, CommonOptions* options) {
  command->add_flag("-q,--quiet", options->quiet, "No progress bars or summary lines");
}

void PrintError(const std::string& where, const std::string& message) {
  std::fflush(stdout);
  std::cerr << "quiver: " << (where.empty() ? "" : where + ": ") << message << std::endl;
}

void PrintError(const std::string& where, const Status& status) {
  PrintError(where, status.message());
}

namespace {

int Run(int argc, char** argv) {
  CLI::App app{"quiver: inspect, check and convert tensor files in Apache Arrow formats", "quiver"};
  app.set_version_flag("--version", std::string("quiver ") + Version());
  app.require_subcommand(1);
  app.footer(
      "Examples:\n"
      "  quiver inspect data.arrow\n"
      "  quiver validate data.arrow\n"
      "  quiver head data.arrow -n 2 --column image\n"
      "  quiver pack images/ -o images.arrow\n"
      "  quiver unpack images.arrow -o out/\n"
      "  quiver convert data.arrows data.arrow --compression zstd\n"
      "  quiver demo\n"
      "Run 'quiver COMMAND --help' for a command's options.\n");
  int exit_code = kExitOk;
  AddInspectCommand(app, &exit_code);
  AddValidateCommand(app, &exit_code);
  AddHeadCommand(app, &exit_code);
  AddPackCommand(app, &exit_code);
  AddUnpackCommand(app, &exit_code);
  AddConvertCommand(app, &exit_code);
  AddDemoCommand(app, &exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    PrintError("", e.what());
    std::cerr << "Run 'quiver --help' or 'quiver COMMAND --help' for usage." << std::endl;
    return kExitUsage;
  }
  return exit_code;
}

}  // namespace
}  // namespace quiver::tools

int main(int argc, char** argv) {
  // Nothing in quiver throws; CLI11 and the standard library can (bad_alloc).
  try {
    return quiver::tools::Run(argc, argv);
  } catch (const std::exception& e) {
    quiver::tools::PrintError("", e.what());
    return quiver::tools::kExitFailure;
  }
}
