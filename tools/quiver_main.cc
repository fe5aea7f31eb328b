// The `quiver` command: inspect, validate, head, pack, unpack, convert and
// demo for tensor files (docs/cli.md).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>

#include "cli.h"
#include "curl_module.h"
#include "quiver/build_info.h"
#include "quiver/io.h"
#include "signal_cleanup.h"
#include "text_format.h"

namespace quiver::tools {

void AddCommonOptions(CLI::App* command, CommonOptions* options) {
  command->add_flag("-q,--quiet", options->quiet, "No progress bars or summary lines");
}

// Messages may quote names and bytes from the input: escaped line by line,
// so that a file cannot send terminal escape sequences through them.
void PrintError(const std::string& where, const std::string& message) {
  std::fflush(stdout);
  // A message that names its source first (a remote source's errors start
  // with the URL) is not given the name twice.
  const bool named = !where.empty() && message.rfind(where + ": ", 0) == 0;
  std::string text = where.empty() || named ? message : where + ": " + message;
  std::string escaped;
  for (size_t begin = 0; begin <= text.size();) {
    const size_t end = std::min(text.find('\n', begin), text.size());
    escaped += EscapeText(std::string_view(text).substr(begin, end - begin));
    if (end < text.size()) escaped += '\n';
    begin = end + 1;
  }
  std::cerr << "quiver: " << escaped << std::endl;
}

void PrintError(const std::string& where, const Status& status) {
  PrintError(where, status.message());
}

namespace {

constexpr const char* kCommands[] = {"inspect", "validate", "head", "pack",
                                     "unpack",  "convert",  "demo"};

// The command line's first word when it is not an option and names no
// command, else empty. CLI11 would call it "extra" and ask for a subcommand.
std::string UnknownCommand(int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return {};
  for (const char* command : kCommands) {
    if (std::strcmp(argv[1], command) == 0) return {};
  }
  return argv[1];
}

// Whether --version comes before any "--" (which ends the options).
bool AsksForVersion(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--") == 0) return false;
    if (std::strcmp(argv[i], "--version") == 0) return true;
  }
  return false;
}

int Run(int argc, char** argv) {
  // --version anywhere, as a command's own flag too ("quiver inspect --version").
  if (AsksForVersion(argc, argv)) {
    std::cout << "quiver " << Version() << std::endl;
    return kExitOk;
  }
  if (const std::string unknown = UnknownCommand(argc, argv); !unknown.empty()) {
    std::string commands;
    for (const char* command : kCommands)
      commands += (commands.empty() ? "" : ", ") + std::string(command);
    PrintError("", "unknown command '" + unknown + "' (commands: " + commands + ")");
    std::cerr << "Run 'quiver --help' for usage." << std::endl;
    return kExitUsage;
  }
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
  quiver::tools::InstallSignalCleanup();
#ifdef QUIVER_PLATLIB_FROM_SCRIPTS
  // The wheel's executable, in the scripts folder: URLs are read through
  // the package's libquiver_curl.so, which brings the wheel's libcurl
  // (curl_module.h). A few access(2) calls; libcurl itself is opened only
  // when a URL is read. QUIVER_CURL_MODULE, where set, still decides.
  if (const char* env = std::getenv("QUIVER_CURL_MODULE"); env == nullptr || env[0] == '\0') {
    std::string module =
        quiver::tools::FindCurlModule(quiver::tools::ProgramFolder(), QUIVER_PLATLIB_FROM_SCRIPTS);
    if (!module.empty()) quiver::io::SetCurlModule(std::move(module));
  }
#endif
  try {
    return quiver::tools::Run(argc, argv);
  } catch (const std::exception& e) {
    quiver::tools::PrintError("", e.what());
    return quiver::tools::kExitFailure;
  }
}
