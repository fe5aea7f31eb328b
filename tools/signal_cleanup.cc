#include "signal_cleanup.h"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstring>
#include <optional>

namespace quiver::tools {
namespace {

constexpr int kSlots = 16;
constexpr int kHandled[] = {SIGINT, SIGTERM, SIGHUP};

// A slot is free, being filled or withdrawn by the program (the handler
// skips it), or holds a path the handler removes.
enum SlotState : int { kFree, kBusy, kArmed };

struct Slot {
  std::atomic<int> state{kFree};
  char path[PATH_MAX];
};
static_assert(std::atomic<int>::is_always_lock_free, "the handler reads the states");

Slot slots[kSlots];

extern "C" void RemoveFilesAndDie(int signal_number) {
  const int saved_errno = errno;
  for (Slot& slot : slots) {
    if (slot.state.load(std::memory_order_acquire) == kArmed) unlink(slot.path);
  }
  errno = saved_errno;
  // SA_RESETHAND restored the default action; the signal is blocked while
  // this handler runs, so it ends the process as soon as the handler returns.
  raise(signal_number);
}

}  // namespace

void InstallSignalCleanup() {
  for (int signal_number : kHandled) {
    struct sigaction current;
    if (sigaction(signal_number, nullptr, &current) != 0 || current.sa_handler == SIG_IGN) {
      continue;
    }
    struct sigaction action;
    std::memset(&action, 0, sizeof(action));
    action.sa_handler = RemoveFilesAndDie;
    sigemptyset(&action.sa_mask);
    for (int other : kHandled) sigaddset(&action.sa_mask, other);  // one cleanup at a time
    action.sa_flags = SA_RESETHAND;
    sigaction(signal_number, &action, nullptr);
  }
}

void RemoveOnSignal::Arm(const std::string& path) {
  Release();
  if (path.empty() || path.size() >= PATH_MAX) return;
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (slots[i].state.compare_exchange_strong(expected, kBusy, std::memory_order_acquire)) {
      std::memcpy(slots[i].path, path.c_str(), path.size() + 1);
      slots[i].state.store(kArmed, std::memory_order_release);
      slot_ = i;
      return;
    }
  }
}

void RemoveOnSignal::Release() {
  if (slot_ < 0) return;
  slots[slot_].state.store(kFree, std::memory_order_release);
  slot_ = -1;
}

SignalsHeld::SignalsHeld() {
  sigset_t held;
  sigemptyset(&held);
  for (int signal_number : kHandled) sigaddset(&held, signal_number);
  sigprocmask(SIG_BLOCK, &held, &saved_);
}

SignalsHeld::~SignalsHeld() { sigprocmask(SIG_SETMASK, &saved_, nullptr); }

namespace {

// The sink, with its temporary file registered until Close has renamed it
// (or a failure, or the destructor, removed it).
class CleanedSink : public ipc::OutputSink {
 public:
  explicit CleanedSink(std::shared_ptr<ipc::OutputSink> sink)
      : sink_(std::move(sink)), guard_(sink_->temporary_path()) {}
  ~CleanedSink() override {
    sink_.reset();  // removes an unfinished temporary file
    guard_.Release();
  }
  Status Write(const void* data, int64_t size) override { return sink_->Write(data, size); }
  void Reserve(int64_t bytes) override { sink_->Reserve(bytes); }
  int64_t position() const override { return sink_->position(); }
  Status Flush() override { return sink_->Flush(); }
  Status Close() override {
    Status status = sink_->Close();
    guard_.Release();
    return status;
  }
  std::string temporary_path() const override { return sink_->temporary_path(); }

 private:
  std::shared_ptr<ipc::OutputSink> sink_;
  RemoveOnSignal guard_;
};

}  // namespace

Result<std::shared_ptr<ipc::OutputSink>> OpenOutputFile(const std::string& path) {
  struct stat info;
  const bool in_place = stat(path.c_str(), &info) == 0 && !S_ISREG(info.st_mode);
  std::optional<SignalsHeld> held;
  if (!in_place) held.emplace();
  QUIVER_ASSIGN_OR_RETURN(auto sink, ipc::OpenFileSink(path));
  return std::shared_ptr<ipc::OutputSink>(std::make_shared<CleanedSink>(std::move(sink)));
}

}  // namespace quiver::tools
