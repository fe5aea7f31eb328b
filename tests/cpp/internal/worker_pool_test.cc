// The pool RunOnThreads hands its parts to (worker_pool.h): every part runs
// once, threads are kept and reused, calls nest and run side by side
// without waiting on a busy pool, a forked child starts a pool of its own,
// and a pool thread ended by pthread_exit is replaced.
#include "quiver/internal/worker_pool.h"

#include <gtest/gtest.h>

#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace quiver {
namespace {

// The ids of the threads that ran the parts of a call of `workers` parts.
std::set<std::thread::id> ThreadsOfACall(int workers) {
  std::mutex mutex;
  std::set<std::thread::id> ids;
  internal::RunOnPool(workers, [&](int) {
    std::lock_guard<std::mutex> lock(mutex);
    ids.insert(std::this_thread::get_id());
  });
  return ids;
}

TEST(WorkerPool, EveryPartRunsOncePartZeroOnTheCaller) {
  for (int workers : {0, 1, 2, 3, 8, 70}) {
    std::vector<std::atomic<int>> runs(static_cast<size_t>(workers));
    std::thread::id zero;
    internal::RunOnPool(workers, [&](int w) {
      ++runs[static_cast<size_t>(w)];
      if (w == 0) zero = std::this_thread::get_id();
    });
    for (int w = 0; w < workers; ++w) {
      EXPECT_EQ(runs[static_cast<size_t>(w)], 1) << workers << " " << w;
    }
    if (workers > 0) {
      EXPECT_EQ(zero, std::this_thread::get_id());
    }
  }
  EXPECT_LE(internal::PoolThreads(), 64);
}

TEST(WorkerPool, ThreadsAreKeptAndReused) {
  // Parts that wait for each other a little, so every pool thread takes one.
  std::set<std::thread::id> seen;
  for (int call = 0; call < 20; ++call) {
    std::atomic<int> started{0};
    std::mutex mutex;
    internal::RunOnPool(4, [&](int) {
      ++started;
      for (int spin = 0; spin < 2000 && started < 4; ++spin) std::this_thread::yield();
      std::lock_guard<std::mutex> lock(mutex);
      seen.insert(std::this_thread::get_id());
    });
  }
  EXPECT_GE(internal::PoolThreads(), 3);
  // 20 calls of 4 parts ran on the caller and the same few pool threads,
  // not on 60 threads started for them.
  EXPECT_LE(seen.size(), static_cast<size_t>(internal::PoolThreads()) + 1);
}

TEST(WorkerPool, NestedCallsAndCallsFromManyThreadsFinish) {
  std::atomic<int> leaves{0};
  auto nested = [&](auto&& self, int depth) -> void {
    internal::RunOnPool(4, [&](int) {
      if (depth == 0) {
        ++leaves;
      } else {
        self(self, depth - 1);
      }
    });
  };
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t) callers.emplace_back([&] { nested(nested, 3); });
  for (std::thread& t : callers) t.join();
  EXPECT_EQ(leaves.load(), 4 * 4 * 4 * 4 * 4);
}

#if !defined(__SANITIZE_THREAD__)
// In a forked child the parent's pool threads do not exist (and a lock
// one of them held stays held): the child starts a pool of its own.
TEST(WorkerPool, AForkedChildStartsAPoolOfItsOwn) {
  ThreadsOfACall(4);
  ASSERT_GE(internal::PoolThreads(), 1);
  // A pool thread busy at the fork, holding nothing but a part.
  std::atomic<bool> stop{false};
  std::thread busy([&] {
    internal::RunOnPool(2, [&](int) {
      while (!stop) std::this_thread::yield();
    });
  });
  const pid_t pid = fork();
  if (pid == 0) {
    alarm(20);  // a hang ends the child with SIGALRM
    std::atomic<int> runs{0};
    internal::RunOnPool(6, [&](int) { ++runs; });
    _exit(runs == 6 && internal::PoolThreads() >= 1 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  stop = true;
  busy.join();
}

// A nested call made on the only pool thread, whose part 0 ends that
// thread by pthread_exit: the thread waits for the nested parts no other
// thread is left to take, so it gives them up, and the outer call ends.
TEST(WorkerPool, ANestedCallEndedOnTheOnlyPoolThreadFinishes) {
  const pid_t pid = fork();  // a child starts with no pool threads
  if (pid == 0) {
    alarm(20);  // a hang ends the child with SIGALRM
    std::atomic<bool> taken{false};
    internal::RunOnPool(2, [&](int w) {
      if (w == 0) {
        while (!taken) std::this_thread::yield();  // part 1 goes to the pool thread
        return;
      }
      taken = true;
      internal::RunOnPool(2, [&](int v) {
        if (v == 0) pthread_exit(nullptr);
      });
    });
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}
#endif

// A pool thread ended by pthread_exit counts its part as done and leaves
// the pool; the next call that needs it starts another.
TEST(WorkerPool, AThreadEndedByPthreadExitIsReplaced) {
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<int> ended{0}, finished{0};
  std::atomic<bool> taken{false};
  internal::RunOnPool(2, [&](int w) {
    if (w == 1) {
      taken = true;
      ++ended;
      pthread_exit(nullptr);
    }
    while (!taken) std::this_thread::yield();  // part 1 goes to a pool thread
    ++finished;
  });
  EXPECT_EQ(ended.load(), 1);
  EXPECT_EQ(finished.load(), 1);
  EXPECT_EQ(ThreadsOfACall(3).count(caller), 1u);
  std::atomic<int> runs{0};
  internal::RunOnPool(5, [&](int) { ++runs; });
  EXPECT_EQ(runs.load(), 5);
}

}  // namespace
}  // namespace quiver
