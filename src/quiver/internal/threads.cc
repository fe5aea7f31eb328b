#include "quiver/internal/threads.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace quiver::internal {

int ThreadCount(int requested) {
  const int cores = requested > 0 ? requested : static_cast<int>(std::thread::hardware_concurrency());
  return std::max(cores, 1);
}

void RunOnThreads(int workers, const std::function<void(int)>& fn) {
  std::mutex failure_mutex;
  std::exception_ptr failure;
  auto run = [&](int w) {
    try {
      fn(w);
    } catch (...) {
      std::lock_guard<std::mutex> lock(failure_mutex);
      if (!failure) failure = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  int started = 1;
  try {
    pool.reserve(static_cast<size_t>(std::max(workers - 1, 0)));
    for (; started < workers; ++started) pool.emplace_back(run, started);
  } catch (const std::exception&) {
    // std::system_error from a refused thread, or bad_alloc from the
    // pool: the parts no thread took run here below.
  }
  run(0);
  for (int w = started; w < workers; ++w) run(w);
  for (std::thread& t : pool) t.join();
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

}  // namespace quiver::internal
