"""Table verbs against pyarrow, measured in one run on the same tables.

A table of 10^6 rows: an int64 column "x", a float32 fixed_shape_tensor
column "emb" of shape (4,) and a string column "s", in one chunk and in 8
chunks. Both libraries get the same buffers (the pyarrow table is quiver's
exported without a copy). Each figure is the median of several runs,
quiver and pyarrow interleaved so that noise from the shared machine hits
both alike; ratios are pyarrow time / quiver time (> 1: quiver is faster).

  python bench/python/bench_tables.py
  QUIVER_BENCH_TABLES_ROWS=100000 python ...   # a smaller table
"""

import gc
import os
import statistics
import time

import numpy as np
import pyarrow as pa

import quiver as qv


def make_table(rows, chunks, seed=0):
    rng = np.random.default_rng(seed)
    x = np.arange(rows, dtype=np.int64)
    emb = rng.standard_normal((rows, 4)).astype(np.float32)
    s = pa.array([f"row{i}" for i in range(rows)], pa.string())
    one = qv.table({"x": x, "emb": emb, "s": s})
    if chunks == 1:
        return one
    bounds = np.linspace(0, rows, chunks + 1).astype(int)
    return qv.concat_tables([one.slice(a, b - a) for a, b in zip(bounds[:-1], bounds[1:])])


def loops_for(fn, target=0.02):
    """How many calls make one timing last about `target` seconds."""
    start = time.perf_counter()
    fn()
    once = max(time.perf_counter() - start, 1e-7)
    return max(1, min(100000, int(target / once)))


def median_times(*fns, repeat=7):
    """Median seconds per call of each function, runs interleaved."""
    loops = [loops_for(fn) for fn in fns]
    times = [[] for _ in fns]
    for _ in range(repeat):
        for fn, n, spent in zip(fns, loops, times):
            gc.collect()
            start = time.perf_counter()
            for _ in range(n):
                fn()
            spent.append((time.perf_counter() - start) / n)
    return [statistics.median(t) for t in times]


def fmt(seconds):
    if seconds < 1e-3:
        return f"{seconds * 1e6:9.2f} us"
    return f"{seconds * 1e3:9.2f} ms"


def row(name, ours, theirs):
    print(f"| {name:<40} | {fmt(ours)} | {fmt(theirs)} | {theirs / ours:7.2f}x |")


def main():
    rows = int(os.environ.get("QUIVER_BENCH_TABLES_ROWS", "1000000"))
    rng = np.random.default_rng(1)
    take_small = rng.integers(0, rows, size=rows // 10)
    take_all = rng.permutation(rows)
    mask = rng.random(rows) < 0.5
    pa_take_small, pa_take_all, pa_mask = pa.array(take_small), pa.array(take_all), pa.array(mask)
    print(f"{rows} rows: x int64, emb fixed_shape_tensor<float32>[4], s string")
    print("| operation                                |    quiver    |   pyarrow    | pa / qv  |")
    print("|------------------------------------------|--------------|--------------|----------|")
    for chunks in (1, 8):
        ours = make_table(rows, chunks)
        theirs = pa.table(ours)  # the same buffers
        assert theirs.column("x").num_chunks == chunks
        tag = f"({chunks} chunk{'s' if chunks > 1 else ''})"
        cases = [
            ('t["x"]', lambda: ours["x"], lambda: theirs["x"]),
            ('t["emb"]', lambda: ours["emb"], lambda: theirs["emb"]),
            (
                "t.select([s, x])",
                lambda: ours.select(["s", "x"]),
                lambda: theirs.select(["s", "x"]),
            ),
            (
                "t.slice(rows/4, rows/2)",
                lambda: ours.slice(rows // 4, rows // 2),
                lambda: theirs.slice(rows // 4, rows // 2),
            ),
            (
                "t[rows/4 : 3 rows/4]",
                lambda: ours[rows // 4 : 3 * rows // 4],
                lambda: theirs[rows // 4 : 3 * rows // 4],
            ),
            (
                f"t.take({len(take_small)} random)",
                lambda: ours.take(take_small),
                lambda: theirs.take(pa_take_small),
            ),
            (
                f"t.take({len(take_all)} permutation)",
                lambda: ours.take(take_all),
                lambda: theirs.take(pa_take_all),
            ),
            ("t.filter(half the rows)", lambda: ours.filter(mask), lambda: theirs.filter(pa_mask)),
            ("t.combine_chunks()", lambda: ours.combine_chunks(), lambda: theirs.combine_chunks()),
        ]
        for name, ours_fn, theirs_fn in cases:
            ours_time, theirs_time = median_times(ours_fn, theirs_fn)
            row(f"{name} {tag}", ours_time, theirs_time)
        # Freed before the next sizes are made (the timed lambdas ran already).
        ours = theirs = None


if __name__ == "__main__":
    main()
