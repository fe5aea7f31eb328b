// Internal: the threads RunOnThreads (threads.h) hands its parts to,
// started on first need and kept, parked, for the calls that follow.
//
// Starting a thread costs tens of microseconds, and a fresh thread has
// none of the per-thread state the decoders keep (a ZSTD decompression
// context is ~100 KiB of freshly faulted pages): a take of a few rows that
// fans out to a new thread each time paid both on every call.
#pragma once

#include <functional>

namespace quiver::internal {

// Runs part(w) for every w in [0, workers): part(0) on the calling thread,
// the others on the pool's threads, the caller taking any part no pool
// thread has taken yet once its own is done (so nothing waits on a busy
// pool, and a part may itself call Run). Returns once every part has
// returned. The pool grows to workers - 1 threads (at most 64); a thread
// the system refuses to start is not an error: the caller runs its parts.
//
// `part` must not throw, but may end its thread (pthread_exit, or Python
// ending a thread that calls into it at shutdown): the part counts as
// done, its thread ends, and the pool starts another when next needed.
// Ended on the calling thread (part(0) or one the caller took), the call
// still waits for the parts running elsewhere, and takes no more.
//
// In a process forked since the pool started, its threads do not exist:
// the first call there starts a new pool (the old one is left behind).
void RunOnPool(int workers, const std::function<void(int)>& part);

// Threads the pool of this process has started and not lost (for tests).
int PoolThreads();

}  // namespace quiver::internal
