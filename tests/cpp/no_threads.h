// Runs a check in a child process that cannot start threads (an
// unprivileged user at its process limit: pthread_create fails with
// EAGAIN), to show that work asked to use threads still finishes.
#pragma once

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <functional>
#include <string>

namespace quiver::test {

// The child's verdict: "" when `check` returned 0, else why not. The
// child may start `threads` threads (1: the first starts and the next are
// refused, so some run while others fail). Only root can drop to an
// unprivileged user: `*skipped` is set otherwise.
inline std::string RunWithoutThreads(const std::function<int()>& check, bool* skipped,
                                     int threads = 1) {
  *skipped = geteuid() != 0;
  if (*skipped) return "";
  const pid_t child = fork();
  if (child < 0) return "fork failed";
  if (child == 0) {
    try {
      if (setgid(65534) != 0 || setuid(65534) != 0) std::_Exit(100);
      const rlim_t tasks = static_cast<rlim_t>(1 + threads);
      const rlimit limit{tasks, tasks};
      if (setrlimit(RLIMIT_NPROC, &limit) != 0) std::_Exit(101);
      std::_Exit(check());
    } catch (...) {
      std::_Exit(102);  // an exception escaped the C++ API
    }
  }
  int status = 0;
  if (waitpid(child, &status, 0) != child) return "waitpid failed";
  if (!WIFEXITED(status)) return "the child died of signal " + std::to_string(WTERMSIG(status));
  if (WEXITSTATUS(status) != 0)
    return "the child exited with " + std::to_string(WEXITSTATUS(status));
  return "";
}

}  // namespace quiver::test
