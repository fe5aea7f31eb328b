// The checks of `quiver`'s arguments that CLI11 has no validator for (or
// whose message would not say what is wrong, such as the 309-digit upper
// bound of CLI::NonNegativeNumber).
#include <sys/stat.h>

#include <cerrno>
#include <charconv>
#include <cstring>

#include "batch_writer.h"
#include "cli.h"
#include "input_file.h"

namespace quiver::tools {

CLI::Validator ExistingInput(bool folders) {
  return CLI::Validator(
      [folders](std::string& path) -> std::string {
        // URLs are read when the command runs: their errors name the status.
        if (path == kStandardInput || io::IsRemoteLocation(path)) return {};
        struct stat info;
        if (stat(path.c_str(), &info) != 0) {
          return "cannot read '" + path + "': " + std::strerror(errno);
        }
        if (!folders && S_ISDIR(info.st_mode)) return "'" + path + "' is a folder, not a file";
        return {};
      },
      folders ? "PATH, URL or - (standard input)" : "FILE, URL or - (standard input)");
}

CLI::Validator AtLeast(int64_t min) {
  return CLI::Validator(
      [min](std::string& text) -> std::string {
        int64_t value = 0;
        const char* end = text.data() + text.size();
        auto [at, error] = std::from_chars(text.data(), end, value);
        if (error == std::errc::result_out_of_range) return "'" + text + "' is too large";
        if (error != std::errc() || at != end) return "expects a whole number, got '" + text + "'";
        if (value < min) {
          return (min == 0 ? std::string("must be 0 or more")
                           : "must be at least " + std::to_string(min)) +
                 ", got " + text;
        }
        return {};
      },
      min == 0 ? "INT >= 0" : "INT >= " + std::to_string(min));
}

CLI::Validator IpcOutputName() {
  return CLI::Validator(
      [](std::string& path) -> std::string {
        const std::string format = ForeignFormatOf(path);
        if (format.empty()) return {};
        return "'" + path + "' names a " + format + " file, but quiver writes Arrow IPC: use " +
               kIpcExtensions;
      },
      "");
}

}  // namespace quiver::tools
