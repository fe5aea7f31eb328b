"""The timer the Python benchmarks share: best wall time of several runs
(the machine is shared and noisy, so the least disturbed run is the
figure), contenders interleaved so that noise hits each alike."""

import gc
import time


def best_each(*fns, repeat=5):
    """The best time of each function, run in turn `repeat` times; each
    result is dropped before the next run."""
    times = [float("inf")] * len(fns)
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            gc.collect()
            start = time.perf_counter()
            result = fn()
            times[i] = min(times[i], time.perf_counter() - start)
            del result
    return times


def best_of(fn, repeat=5):
    """The best time of one function over `repeat` runs."""
    return best_each(fn, repeat=repeat)[0]
