// Files the `quiver` tool is writing must not outlive it when it is
// interrupted: a path sink's hidden temporary (renamed over the output by a
// successful Close) or a .npy that unpack created and has not finished.
// SIGINT, SIGTERM and SIGHUP remove every such file, then end the process
// with the signal's default action, so its exit status still says "killed
// by signal N" (docs/cli.md, "Signals").
//
// The handler may run between any two instructions, so it only calls
// unlink(2) and raise(3) on paths kept in a fixed registry of plain char
// arrays, each slot published and withdrawn through a lock-free atomic.
#pragma once

#include <csignal>
#include <memory>
#include <string>

#include "quiver/ipc.h"
#include "quiver/status.h"

namespace quiver::tools {

// Installs the handlers (once, before any output is opened). A signal the
// process inherited as ignored (nohup, a background job) stays ignored.
void InstallSignalCleanup();

// `path` is removed if a signal ends the process while this object lives.
// Paths longer than PATH_MAX, or more than the registry's 16 at once, are
// not registered (the tool writes one file at a time).
class RemoveOnSignal {
 public:
  RemoveOnSignal() = default;
  explicit RemoveOnSignal(const std::string& path) { Arm(path); }
  ~RemoveOnSignal() { Release(); }
  RemoveOnSignal(const RemoveOnSignal&) = delete;
  RemoveOnSignal& operator=(const RemoveOnSignal&) = delete;
  // Registers `path` (after Release of any path registered before).
  void Arm(const std::string& path);
  // Forgets the path: it is the finished output now (or gone).
  void Release();

 private:
  int slot_ = -1;
};

// Signals held back while a file and its registration come into being
// together: one arriving meanwhile is handled once this is destroyed, by
// then with the file registered.
class SignalsHeld {
 public:
  SignalsHeld();
  ~SignalsHeld();
  SignalsHeld(const SignalsHeld&) = delete;
  SignalsHeld& operator=(const SignalsHeld&) = delete;

 private:
  sigset_t saved_;  // the mask before
};

// ipc::OpenFileSink(path), its temporary file removed on a signal until
// Close has renamed it over `path`. A FIFO or a device is written in place
// (no temporary), and opened with signals free: waiting for a FIFO's
// reader can be interrupted.
Result<std::shared_ptr<ipc::OutputSink>> OpenOutputFile(const std::string& path);

}  // namespace quiver::tools
