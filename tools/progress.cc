#include "progress.h"

#include <unistd.h>

#include <cstdio>

namespace quiver::tools {

Progress::Progress(std::string label, int64_t total, bool wanted)
    : label_(std::move(label)), total_(total), active_(wanted && isatty(STDERR_FILENO) == 1) {}

void Progress::Advance(int64_t units) {
  done_ += units;
  if (!active_) return;
  // At most ten redraws a second: a terminal is slow next to a fast loop.
  const auto now = std::chrono::steady_clock::now();
  if (now - last_draw_ < std::chrono::milliseconds(100) && done_ != total_) return;
  last_draw_ = now;
  Draw();
}

void Progress::Draw() {
  constexpr int kWidth = 30;
  if (total_ > 0) {
    const int64_t done = done_ < total_ ? done_ : total_;
    const int filled = static_cast<int>(done * kWidth / total_);
    std::fprintf(stderr, "\r%s [%.*s%*s] %lld/%lld", label_.c_str(), filled,
                 "##############################", kWidth - filled, "",
                 static_cast<long long>(done), static_cast<long long>(total_));
  } else {
    std::fprintf(stderr, "\r%s %lld", label_.c_str(), static_cast<long long>(done_));
  }
  std::fflush(stderr);
}

void Progress::Clear() {
  if (!active_ || last_draw_ == std::chrono::steady_clock::time_point{}) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  last_draw_ = {};
}

void Progress::Finish() {
  Clear();
  active_ = false;
}

}  // namespace quiver::tools
