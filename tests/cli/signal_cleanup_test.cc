// tools/signal_cleanup: files being written are removed when a signal ends
// the process, which still dies of that signal.
#include "signal_cleanup.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>

namespace quiver::tools {
namespace {

namespace fs = std::filesystem;

// Runs `body` in a child process and returns its wait status.
template <typename Body>
int InChild(Body body) {
  const pid_t pid = fork();
  if (pid == 0) {
    body();
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

TEST(SignalCleanup, ASignalRemovesRegisteredFilesAndStillKills) {
  char name[] = "/tmp/quiver_signal_testXXXXXX";
  const fs::path dir = mkdtemp(name);
  for (int signal_number : {SIGTERM, SIGINT, SIGHUP}) {
    const int status = InChild([&] {
      InstallSignalCleanup();
      std::ofstream(dir / "writing") << "partial";
      std::ofstream(dir / "released") << "done";
      std::ofstream(dir / "other") << "not ours";
      RemoveOnSignal writing((dir / "writing").string());
      RemoveOnSignal released((dir / "released").string());
      released.Release();
      raise(signal_number);
      _exit(3);  // not reached: the signal ends the child
    });
    ASSERT_TRUE(WIFSIGNALED(status)) << signal_number;
    EXPECT_EQ(WTERMSIG(status), signal_number);
    EXPECT_FALSE(fs::exists(dir / "writing"));
    EXPECT_TRUE(fs::exists(dir / "released"));
    EXPECT_TRUE(fs::exists(dir / "other"));
  }
  fs::remove_all(dir);
}

TEST(SignalCleanup, AnOutputFileLeavesNoTemporaryWhenKilled) {
  char name[] = "/tmp/quiver_signal_testXXXXXX";
  const fs::path dir = mkdtemp(name);
  std::ofstream(dir / "out.arrow") << "previous";
  const int status = InChild([&] {
    InstallSignalCleanup();
    auto sink = OpenOutputFile((dir / "out.arrow").string());
    if (!sink.ok() || (*sink)->temporary_path().empty()) _exit(4);
    (void)(*sink)->Write("new", 3);
    (void)(*sink)->Flush();
    raise(SIGTERM);
    _exit(3);
  });
  ASSERT_TRUE(WIFSIGNALED(status)) << (WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  std::vector<std::string> left;
  for (const auto& entry : fs::directory_iterator(dir)) left.push_back(entry.path().filename());
  EXPECT_EQ(left, std::vector<std::string>{"out.arrow"});
  std::ifstream in(dir / "out.arrow");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "previous");
  fs::remove_all(dir);
}

TEST(SignalCleanup, AnIgnoredSignalStaysIgnored) {
  const int status = InChild([] {
    signal(SIGHUP, SIG_IGN);
    InstallSignalCleanup();
    raise(SIGHUP);
    _exit(0);
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace quiver::tools
