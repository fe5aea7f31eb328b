// Running work on a few threads without ever letting a thread's failure
// escape: with worker_pool.cc, the one place in quiver that starts
// std::threads.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>

#include "quiver/status.h"

namespace quiver::internal {

// Threads to use for `requested` (0: one per core), at least 1.
int ThreadCount(int requested);

// Runs fn(w) for every w in [0, workers): fn(0) on the calling thread, the
// others on the threads of a pool kept for the process (worker_pool.h),
// or on the calling thread where no pool thread has taken them by the time
// its own part is done. A thread the system refuses to start (EAGAIN:
// process limits, memory) is not an error: the work is always done. An
// exception thrown by any fn(w) (std::bad_alloc from a workspace) is
// carried to the calling thread and the first one rethrown once every part
// has returned; nothing reaches std::terminate. Parts must not wait for
// one another: any of them may run after another on the same thread.
void RunOnThreads(int workers, const std::function<void(int)>& fn);

// Runs fn(i) for every i in [0, count) on `workers` threads (as
// RunOnThreads does), each thread taking the next i not yet taken: a
// thread that the machine slows down (a core shared with other work) takes
// fewer instead of holding up a fixed share. fn returns false to stop the
// handing out (an error): the items no thread has taken yet are skipped.
void RunQueue(int64_t count, int workers, const std::function<bool(int64_t)>& fn);

// RunQueue for work that cannot fail: fn(i) for every i in [0, count).
template <typename Fn>
void RunQueueAll(int64_t count, int workers, Fn&& fn) {
  RunQueue(count, workers, [&](int64_t i) {
    fn(i);
    return true;
  });
}

// Threads for `n` items when each thread should have at least
// `min_per_thread` of them: between 1 and ThreadCount(threads).
int WorkerCount(int64_t n, int threads, int64_t min_per_thread);

// Runs fn(begin, end) over [0, n) split into WorkerCount(n, threads,
// min_per_thread) contiguous ranges of equal size, one per thread (for
// work whose cost is even across items). Exceptions as RunOnThreads.
void ParallelRanges(int64_t n, int threads, int64_t min_per_thread,
                    const std::function<void(int64_t, int64_t)>& fn);

// Runs fn(i) for every i in [0, count) through RunQueue on up to
// ThreadCount(threads) threads (for items of uneven cost, such as buffers
// of different sizes); OK when every fn(i) was. A failure stops the
// handing out. Items are handed out in order, so every item below a
// failing one runs, and the error returned is the lowest failing item's:
// the one a run in order meets, whatever the threads' timing.
Status ParallelTasks(int64_t count, int threads, const std::function<Status(int64_t)>& fn);

// How many times this process's ancestors forked on the way to it: 0 in
// the process that loaded quiver, incremented in a child by a
// pthread_atfork handler. An object that owns threads or locks records it
// and compares before each use: in a forked child only the thread that
// called fork() exists, so the object's threads are gone and a lock one of
// them held stays held forever. Such an object then drops what it had
// (without joining or unlocking anything) and starts afresh (docs/loader.md).
uint64_t ForkGeneration();

// In a forked child: whether `mutex` was held at the fork, by a thread
// that does not exist here and will never release it. A held one is left
// behind (a few bytes; never unlocked or destroyed) and replaced by a new
// one; the caller leaves behind what it guarded too, which may be half
// changed. A free one is kept.
bool ReplaceIfHeldAtFork(std::unique_ptr<std::mutex>& mutex);

// A thread of its own running fn() once, beside the caller (a producer
// working ahead of its consumer); the destructor waits for fn to return,
// so fn must be told to stop first. An exception escaping fn is swallowed
// (fn reports its failures through the state it shares).
//
// In a process forked after Start, the thread does not exist: the
// destructor then forgets it instead of waiting for it (its handle's few
// bytes are left behind), and orphaned() says so.
class BackgroundThread {
 public:
  // IOError when the system refuses to start a thread (fn never runs then).
  static Result<std::unique_ptr<BackgroundThread>> Start(std::function<void()> fn);
  ~BackgroundThread();
  // True in a process forked since Start: the thread is not running here.
  bool orphaned() const;
  BackgroundThread(const BackgroundThread&) = delete;
  BackgroundThread& operator=(const BackgroundThread&) = delete;

 private:
  struct Impl;
  explicit BackgroundThread(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace quiver::internal
