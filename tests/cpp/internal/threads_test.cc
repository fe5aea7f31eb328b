#include "quiver/internal/threads.h"

#include <gtest/gtest.h>

#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "no_threads.h"
#include "quiver/variable_shape_tensor.h"
#include "sparse_test_util.h"
#include "test_util.h"

namespace quiver {
namespace {

TEST(Threads, EveryPartRunsOnce) {
  for (int workers : {1, 2, 5}) {
    std::vector<std::atomic<int>> runs(static_cast<size_t>(workers));
    internal::RunOnThreads(workers, [&](int w) { ++runs[static_cast<size_t>(w)]; });
    for (int w = 0; w < workers; ++w)
      EXPECT_EQ(runs[static_cast<size_t>(w)], 1) << workers << " " << w;
  }
}

TEST(Threads, AnExceptionComesBackAfterEveryPartHasRun) {
  std::atomic<int> finished{0};
  EXPECT_THROW(internal::RunOnThreads(4,
                                      [&](int w) {
                                        if (w == 2) throw std::runtime_error("part 2");
                                        ++finished;
                                      }),
               std::runtime_error);
  EXPECT_EQ(finished, 3);
}

TEST(Threads, QueueRunsEveryItemOnceAndStopsWhenAsked) {
  for (int workers : {1, 2, 4}) {
    std::vector<std::atomic<int>> runs(100);
    internal::RunQueue(100, workers, [&](int64_t i) {
      ++runs[static_cast<size_t>(i)];
      return true;
    });
    for (const auto& r : runs) EXPECT_EQ(r, 1) << workers;
  }
  // On one thread the items come in order: none after the one that stops.
  std::vector<int64_t> seen;
  internal::RunQueue(10, 1, [&](int64_t i) {
    seen.push_back(i);
    return i != 3;
  });
  EXPECT_EQ(seen, (std::vector<int64_t>{0, 1, 2, 3}));
}

TEST(Threads, ParallelRangesCoverEveryItemAndCarryExceptions) {
  std::vector<std::atomic<int>> hits(1000);
  internal::ParallelRanges(1000, 4, 10, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) ++hits[static_cast<size_t>(i)];
  });
  for (auto& h : hits) EXPECT_EQ(h.load(), 1);
  std::atomic<int64_t> done{0};
  auto throwing = [&](int64_t begin, int64_t end) {
    if (begin > 0) throw std::bad_alloc();
    done += end - begin;
  };
  EXPECT_THROW(internal::ParallelRanges(int64_t{1} << 20, 2, 1, throwing), std::bad_alloc);
  EXPECT_EQ(done.load(), int64_t{1} << 19);  // the other range still ran to its end
}

TEST(Threads, WorkerCountKeepsAMinimumPerThread) {
  EXPECT_EQ(internal::WorkerCount(0, 8, 100), 1);
  EXPECT_EQ(internal::WorkerCount(250, 8, 100), 2);
  EXPECT_EQ(internal::WorkerCount(int64_t{1} << 40, 3, 1), 3);
  EXPECT_EQ(internal::WorkerCount(10, 1, 0), 1);
}

TEST(Threads, ParallelTasksReturnTheFirstErrorAndStop) {
  std::atomic<int> ran{0};
  EXPECT_TRUE(internal::ParallelTasks(64, 4, [&](int64_t) {
                ++ran;
                return Status::OK();
              }).ok());
  EXPECT_EQ(ran.load(), 64);
  ran = 0;
  Status st = internal::ParallelTasks(100000, 2, [&](int64_t i) {
    ++ran;
    return i == 5 ? Status::Invalid("item 5") : Status::OK();
  });
  EXPECT_EQ(st.message(), "item 5");
  EXPECT_LT(ran.load(), 100000);  // the queue stopped handing items out
}

// Two items fail; the later one fails first in time, yet the error is the
// lower item's, the one a run in order meets.
TEST(Threads, ParallelTasksReturnTheLowestFailingItemsError) {
  for (int run = 0; run < 20; ++run) {
    std::atomic<bool> seven_failed{false};
    Status st = internal::ParallelTasks(16, 4, [&](int64_t i) {
      if (i == 7) {
        seven_failed = true;
        return Status::Invalid("item 7");
      }
      if (i == 3) {
        while (!seven_failed) std::this_thread::yield();
        return Status::Invalid("item 3");
      }
      return Status::OK();
    });
    EXPECT_EQ(st.message(), "item 3");
  }
}

TEST(Threads, ThreadCountIsAtLeastOne) {
  EXPECT_EQ(internal::ThreadCount(3), 3);
  EXPECT_GE(internal::ThreadCount(0), 1);
  EXPECT_GE(internal::ThreadCount(-2), 1);
}

TEST(Threads, RefusedThreadsRunTheirPartsOnTheCaller) {
  bool skipped = false;
  const std::string failure = test::RunWithoutThreads(
      [] {
        std::vector<int> runs(6, 0);
        internal::RunOnThreads(6, [&](int w) { ++runs[static_cast<size_t>(w)]; });
        for (int r : runs) {
          if (r != 1) return 1;
        }
        return 0;
      },
      &skipped);
  if (skipped) GTEST_SKIP() << "needs root to drop to an unprivileged user with no threads left";
  EXPECT_EQ(failure, "");
}

TEST(Threads, BackgroundThreadRunsBesideTheCallerAndIsJoined) {
  std::atomic<int> ran{0};
  {
    ASSERT_OK_AND_ASSIGN(auto thread, internal::BackgroundThread::Start([&] { ran = 1; }));
  }  // joined here
  EXPECT_EQ(ran.load(), 1);
  // An exception in fn stays on its thread.
  ASSERT_OK_AND_ASSIGN(auto throwing,
                       internal::BackgroundThread::Start([] { throw std::runtime_error("boom"); }));
  throwing.reset();
}

#if !defined(__SANITIZE_THREAD__)
// In a forked child the thread does not exist: the handle is orphaned and
// its destructor returns instead of joining (which would wait forever).
TEST(Threads, ABackgroundThreadIsForgottenInAForkedChild) {
  std::atomic<bool> stop{false};
  const uint64_t generation = internal::ForkGeneration();
  ASSERT_OK_AND_ASSIGN(auto thread, internal::BackgroundThread::Start([&] {
                         while (!stop) std::this_thread::sleep_for(std::chrono::milliseconds(1));
                       }));
  EXPECT_FALSE(thread->orphaned());
  const pid_t pid = fork();
  if (pid == 0) {
    const bool counted = internal::ForkGeneration() == generation + 1;
    const bool orphaned = thread->orphaned();
    alarm(20);       // a hang ends the child with SIGALRM
    thread.reset();  // must not wait for the parent's thread
    _exit(counted && orphaned ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_EQ(internal::ForkGeneration(), generation);  // the parent's count is unchanged
  stop = true;
  thread.reset();
}
#endif

// A thread ended by pthread_exit (as Python ends a thread that calls into
// it while the interpreter shuts down) unwinds through quiver's handlers:
// it must end, not abort the process ("FATAL: exception not rethrown").
TEST(Threads, AThreadEndedByPthreadExitEndsQuietly) {
  std::atomic<int> after{0};
  {
    ASSERT_OK_AND_ASSIGN(auto thread, internal::BackgroundThread::Start([&] {
                           pthread_exit(nullptr);
                           after = 1;  // never reached
                         }));
  }
  EXPECT_EQ(after.load(), 0);
  // Part 0 holds the caller until a pool thread has taken part 1 (which
  // the caller would otherwise take itself once its part is done).
  std::atomic<int> done{0};
  std::atomic<bool> taken{false};
  internal::RunOnThreads(2, [&](int w) {
    if (w == 1) {
      taken = true;
      pthread_exit(nullptr);
    }
    while (!taken) std::this_thread::yield();
    ++done;
  });
  EXPECT_EQ(done.load(), 1);  // the caller's part; the ended worker's is not done
  // The calling thread itself ended while its workers run: they are waited for.
  std::atomic<int> workers_done{0};
  ASSERT_OK_AND_ASSIGN(auto caller, internal::BackgroundThread::Start([&] {
                         internal::RunOnThreads(3, [&](int w) {
                           if (w == 0) pthread_exit(nullptr);
                           ++workers_done;
                         });
                       }));
  caller.reset();
  EXPECT_EQ(workers_done.load(), 2);
}

// A lock that was free is kept; one held (as by a thread of the parent
// that a forked child does not have) is left behind for a new one.
TEST(Threads, ReplaceIfHeldAtForkKeepsAFreeLockAndReplacesAHeldOne) {
  auto mutex = std::make_unique<std::mutex>();
  std::mutex* free_one = mutex.get();
  EXPECT_FALSE(internal::ReplaceIfHeldAtFork(mutex));
  EXPECT_EQ(mutex.get(), free_one);
  mutex->lock();  // held, and never released: as after a fork
  std::mutex* held = mutex.get();
  EXPECT_TRUE(internal::ReplaceIfHeldAtFork(mutex));
  EXPECT_NE(mutex.get(), held);
  EXPECT_TRUE(mutex->try_lock());  // the new one is usable
  mutex->unlock();
  held->unlock();
  delete held;  // left behind by the call; released here, where it is known free
}

}  // namespace
}  // namespace quiver
