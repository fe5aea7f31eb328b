#include "quiver/internal/threads.h"

#if defined(__GLIBCXX__)
#include <cxxabi.h>
#endif

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "quiver/internal/worker_pool.h"

namespace quiver::internal {

namespace {

// Runs fn(); an exception it throws is handled by on_failure (called
// inside the handler, so std::current_exception() sees it), except the
// unwind of a thread ended by pthread_exit or cancellation
// (abi::__forced_unwind), which must go on: swallowing it aborts the
// process ("FATAL: exception not rethrown"). Python ends a thread that
// calls into it during interpreter shutdown that way (a quiver thread
// running a Python allocator or file object).
//
// The forced unwind carries no C++ object, so the handler's reference is
// bound to null by design (libstdc++'s own threads catch it this way):
// UBSan's null check is off for this function alone.
template <typename Fn, typename OnFailure>
__attribute__((no_sanitize("null"))) void Catching(Fn&& fn, OnFailure&& on_failure) {
  try {
    fn();
  }
#if defined(__GLIBCXX__)
  catch (abi::__forced_unwind&) {
    throw;
  }
#endif
  catch (...) {
    on_failure();
  }
}

std::atomic<uint64_t> fork_generation{0};

void CountFork() { fork_generation.fetch_add(1, std::memory_order_relaxed); }

// Registered when the library is loaded, before any object can record a
// generation.
[[maybe_unused]] const int fork_handler_registered = pthread_atfork(nullptr, nullptr, CountFork);

}  // namespace

uint64_t ForkGeneration() { return fork_generation.load(std::memory_order_relaxed); }

bool ReplaceIfHeldAtFork(std::unique_ptr<std::mutex>& mutex) {
  if (mutex->try_lock()) {
    mutex->unlock();
    return false;
  }
  (void)mutex.release();
  mutex = std::make_unique<std::mutex>();
  return true;
}

int ThreadCount(int requested) {
  if (requested > 0) return requested;
  // Asked once: each call reads /sys/devices/system/cpu/online (an open, a
  // read and a close), and a take of a few rows asks for every batch it
  // reads; the count of cores online does not change under a process.
  static const int cores = std::max(static_cast<int>(std::thread::hardware_concurrency()), 1);
  return cores;
}

void RunOnThreads(int workers, const std::function<void(int)>& fn) {
  std::mutex failure_mutex;
  std::exception_ptr failure;
  RunOnPool(workers, [&](int w) {
    Catching([&] { fn(w); },
             [&] {
               std::lock_guard<std::mutex> lock(failure_mutex);
               if (!failure) failure = std::current_exception();
             });
  });
  if (failure) std::rethrow_exception(failure);
}

void RunQueue(int64_t count, int workers, const std::function<bool(int64_t)>& fn) {
  std::atomic<int64_t> next{0};
  RunOnThreads(workers, [&](int) {
    for (int64_t i = next++; i < count; i = next++) {
      if (!fn(i)) next = count;
    }
  });
}

int WorkerCount(int64_t n, int threads, int64_t min_per_thread) {
  return static_cast<int>(
      std::clamp<int64_t>(n / std::max<int64_t>(min_per_thread, 1), 1, ThreadCount(threads)));
}

void ParallelRanges(int64_t n, int threads, int64_t min_per_thread,
                    const std::function<void(int64_t, int64_t)>& fn) {
  const int workers = WorkerCount(n, threads, min_per_thread);
  if (workers <= 1) {
    if (n > 0) fn(0, n);
    return;
  }
  const int64_t step = (n + workers - 1) / workers;
  RunOnThreads(workers, [&](int w) {
    const int64_t begin = std::min(n, w * step), end = std::min(n, begin + step);
    if (begin < end) fn(begin, end);
  });
}

Status ParallelTasks(int64_t count, int threads, const std::function<Status(int64_t)>& fn) {
  const int workers = static_cast<int>(std::clamp<int64_t>(count, 1, ThreadCount(threads)));
  std::mutex mutex;
  int64_t lowest_failure = count;
  Status error;
  RunQueue(count, workers, [&](int64_t i) {
    Status st = fn(i);
    if (st.ok()) return true;
    std::lock_guard<std::mutex> lock(mutex);
    if (i < lowest_failure) {
      lowest_failure = i;
      error = std::move(st);
    }
    return false;
  });
  return error;
}

struct BackgroundThread::Impl {
  std::thread thread;
  uint64_t generation = ForkGeneration();
};

BackgroundThread::BackgroundThread(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

BackgroundThread::~BackgroundThread() {
  if (!impl_) return;
  if (orphaned()) {
    // Joining a thread that does not exist in this process waits forever,
    // and destroying a joinable std::thread terminates: the handle is
    // left behind, untouched.
    (void)impl_.release();
    return;
  }
  if (impl_->thread.joinable()) impl_->thread.join();
}

bool BackgroundThread::orphaned() const { return impl_ && impl_->generation != ForkGeneration(); }

Result<std::unique_ptr<BackgroundThread>> BackgroundThread::Start(std::function<void()> fn) {
  auto impl = std::make_unique<Impl>();
  try {
    impl->thread = std::thread([fn = std::move(fn)]() { Catching(fn, [] {}); });
  } catch (const std::exception& e) {
    return Status::IOError("cannot start a thread: ", e.what());
  }
  return std::unique_ptr<BackgroundThread>(new BackgroundThread(std::move(impl)));
}

}  // namespace quiver::internal
