#include "cli.h"
namespace quiver::tools {
void AddConvertCommand(CLI::App&, int*) {}
void AddDemoCommand(CLI::App&, int*) {}
}  // namespace quiver::tools
