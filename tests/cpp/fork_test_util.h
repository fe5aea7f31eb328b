// Test helper: runs a check in a forked child, bounded in time, for the
// tests that a reader or a process-wide memo keep working across fork().
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <thread>

namespace quiver::test {

// Runs `child` in a forked process; its exit status (0: passed), or -1
// when it did not finish within `seconds` (it hung) and was killed.
inline int InForkedChild(const std::function<int()>& child, int seconds = 30) {
  const pid_t pid = fork();
  if (pid == 0) _exit(child());
  for (int waited = 0; waited < seconds * 100; ++waited) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  return -1;
}

}  // namespace quiver::test
