// A progress bar on stderr, drawn only when stderr is a terminal (and not
// --quiet): pipes and log files never see it.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace quiver::tools {

class Progress {
 public:
  // `total` units of work (-1: unknown, a counter is shown instead).
  Progress(std::string label, int64_t total, bool wanted);
  ~Progress() { Finish(); }
  void Advance(int64_t units);
  // Erases the bar (before other output goes to the terminal).
  void Clear();
  // Erases the bar for good.
  void Finish();
  bool active() const { return active_; }

 private:
  void Draw();

  std::string label_;
  int64_t total_;
  int64_t done_ = 0;
  bool active_;
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace quiver::tools
