#include "cli.h"
namespace quiver::tools {
void AddPackCommand(CLI::App&, int*) {}
void AddUnpackCommand(CLI::App&, int*) {}
void AddConvertCommand(CLI::App&, int*) {}
void AddDemoCommand(CLI::App&, int*) {}
}  // namespace quiver::tools
