// The threads RunOnThreads hands its parts to (worker_pool.h).
#include "quiver/internal/worker_pool.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <thread>

namespace quiver::internal {

namespace {

constexpr int kMaxThreads = 64;

// One call's parts, taken one at a time by its caller and by pool threads.
// Shared: a pool thread may reach it after the call has returned, and then
// finds nothing left to take.
struct Parts {
  Parts(const std::function<void(int)>& fn, int count) : part(&fn), workers(count) {}

  // Valid while a part is untaken or running: the caller waits for all.
  const std::function<void(int)>* part;
  const int workers;
  std::atomic<int> next{1};  // part 0 is the caller's
  std::mutex mutex;
  std::condition_variable finished;
  int done = 0;  // under mutex

  // Runs part w, which counts as done however it ends (a thread ended by
  // pthread_exit unwinds through here too).
  void Run(int w) {
    struct Done {
      Parts& parts;
      ~Done() { parts.Finish(1); }
    } done_when_left{*this};
    (*part)(w);
  }
  // Takes and runs parts until none is left.
  void RunAll() {
    for (int w = next.fetch_add(1); w < workers; w = next.fetch_add(1)) Run(w);
  }
  // Counts the parts no thread took as done: none ever will.
  void Abandon() {
    const int taken = std::min(next.exchange(workers), workers);
    if (taken < workers) Finish(workers - taken);
  }
  void Finish(int count) {
    std::lock_guard<std::mutex> lock(mutex);
    done += count;
    if (done == workers) finished.notify_all();
  }
  // Waits until every part is done; gives up on the untaken ones once
  // `threads_left()` says no pool thread is left to take them (all ended
  // by pthread_exit while the caller itself was being ended).
  template <typename ThreadsLeft>
  void WaitAll(ThreadsLeft&& threads_left) {
    std::unique_lock<std::mutex> lock(mutex);
    while (
        !finished.wait_for(lock, std::chrono::milliseconds(50), [&] { return done == workers; })) {
      lock.unlock();
      if (threads_left() == 0) Abandon();
      lock.lock();
    }
  }
};

class Pool;

// The pool whose thread this is (nullptr on other threads).
thread_local const Pool* pool_of_this_thread = nullptr;

class Pool {
 public:
  explicit Pool(Pool* older) : older_(older) {}

  // Queues `parts` for `takers` threads, starting threads up to that many
  // first; whether the pool has a thread to take them.
  bool Post(const std::shared_ptr<Parts>& parts, int takers) {
    int start = 0;
    try {
      std::lock_guard<std::mutex> lock(mutex_);
      for (int i = 0; i < takers; ++i) queue_.push_back(parts);
      start = std::max(0, std::min(takers, kMaxThreads) - threads_);
      threads_ += start;
    } catch (const std::bad_alloc&) {
      // No room to queue them (threads_ was not changed then): the caller
      // takes the parts; the copies queued, if any, find none left.
      return false;
    }
    int refused = 0;
    for (int i = 0; i < start; ++i) {
      try {
        std::thread(&Pool::Work, this).detach();
      } catch (const std::exception&) {
        // std::system_error (EAGAIN: process limits) or bad_alloc: the
        // threads already there, or the caller, take the parts.
        refused = start - i;
        break;
      }
    }
    bool any = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      threads_ -= refused;
      any = threads_ > 0;
      if (!any) queue_.clear();
    }
    for (int i = 0; i < takers; ++i) wake_.notify_one();
    return any;
  }

  int threads() {
    std::lock_guard<std::mutex> lock(mutex_);
    return threads_;
  }

  // Left behind in a forked child, where its threads do not exist: never
  // used again, and kept reachable (as `older` of the pool that follows)
  // rather than destroyed, since its lock may be held.
  Pool* older_;

 private:
  void Work() {
    // Counted out however the thread ends (pthread_exit in a part).
    struct Leave {
      Pool& pool;
      ~Leave() {
        std::lock_guard<std::mutex> lock(pool.mutex_);
        --pool.threads_;
      }
    } leave{*this};
    pool_of_this_thread = this;
    std::unique_lock<std::mutex> lock(mutex_);
    while (true) {
      wake_.wait(lock, [&] { return !queue_.empty(); });
      std::shared_ptr<Parts> parts = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      parts->RunAll();
      parts.reset();
      lock.lock();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<Parts>> queue_;  // under mutex_
  int threads_ = 0;                           // started and not ended; under mutex_
};

// The pool of this process: created on first need, never destroyed (its
// detached threads outlive static destructors); replaced in a forked child.
std::atomic<Pool*> current_pool{nullptr};

Pool& CurrentPool() {
  Pool* pool = current_pool.load(std::memory_order_acquire);
  if (pool != nullptr) return *pool;
  auto* fresh = new Pool(nullptr);
  if (current_pool.compare_exchange_strong(pool, fresh, std::memory_order_acq_rel)) return *fresh;
  delete fresh;  // another thread's came first
  return *pool;
}

// In the child of a fork (one thread, nothing allocated): the next call
// starts a new pool, which keeps this one reachable.
std::atomic<Pool*> left_behind{nullptr};

void ForgetPoolInChild() {
  Pool* pool = current_pool.exchange(nullptr, std::memory_order_acq_rel);
  if (pool == nullptr) return;
  pool->older_ = left_behind.load(std::memory_order_relaxed);
  left_behind.store(pool, std::memory_order_relaxed);
}

[[maybe_unused]] const int fork_handler_registered =
    pthread_atfork(nullptr, nullptr, ForgetPoolInChild);

}  // namespace

void RunOnPool(int workers, const std::function<void(int)>& part) {
  if (workers <= 1) {
    if (workers == 1) part(0);
    return;
  }
  std::shared_ptr<Parts> parts;
  try {
    parts = std::make_shared<Parts>(part, workers);
  } catch (const std::bad_alloc&) {
    for (int w = 0; w < workers; ++w) part(w);  // no memory to share them out
    return;
  }
  // Waits for the parts on every way out, the forced unwind of the calling
  // thread included (they use `part`, which the caller owns); on that way
  // the untaken parts are left to the pool's threads, or given up on where
  // none is left.
  Pool& pool = CurrentPool();
  struct Wait {
    Parts& parts;
    Pool& pool;
    bool posted;
    ~Wait() {
      if (!posted) parts.Abandon();
      // A pool thread waiting here takes no part any more: it does not
      // count among the threads left to take them.
      parts.WaitAll([this] { return pool.threads() - (pool_of_this_thread == &pool ? 1 : 0); });
    }
  } wait{*parts, pool, pool.Post(parts, workers - 1)};
  parts->Run(0);
  parts->RunAll();
}

int PoolThreads() { return CurrentPool().threads(); }

}  // namespace quiver::internal
