// libFuzzer's entry point for the target named by QUIVER_FUZZ_TARGET (a
// compile definition): it calls that target's function from fuzz_targets.h,
// the same function the corpus replay test calls.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_targets.h"

namespace {

using Entry = int (*)(const uint8_t*, size_t);

constexpr Entry FindEntry(std::string_view name) {
  for (const auto& target : quiver::fuzz::kTargets) {
    if (name == target.name) return target.run;
  }
  return nullptr;
}

constexpr Entry kEntry = FindEntry(QUIVER_FUZZ_TARGET);
static_assert(kEntry != nullptr, "QUIVER_FUZZ_TARGET is not in fuzz/targets.txt");

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return kEntry(data, size);
}
