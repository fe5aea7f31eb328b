"""take, filter and combine_chunks over several chunks, against pyarrow.

Three columns, each in 1, 8 and 64 chunks: int64 numbers (10^6 rows), a
float32 fixed_shape_tensor of shape (8,) (10^6 rows) and a float32
variable_shape_tensor of ndim 1 whose rows hold 0 to 31 values (2x10^5
rows). pyarrow gets the very same buffers (the table exported without a
copy), so both read the same memory. The selections: 10 % of the rows at
random and the same rows sorted, a permutation of every row, masks
keeping 1 %, 50 % and 99 %, and combine_chunks. Each figure is the best
of several runs, quiver and pyarrow interleaved; the ratio is pyarrow's
time over quiver's (> 1: quiver is faster).

  python bench/python/bench_selection.py
  QUIVER_BENCH_SELECTION_SCALE=0.1 python ...   # a tenth of the rows
"""

import gc
import os
import time

import numpy as np
import pyarrow as pa

import quiver as qv

GOAL = 1.2  # issue 37: at least 1.2x pyarrow on each path


def best_times(fns, repeat=5, target=0.05):
    """Best seconds per call of each function, runs interleaved."""
    loops = []
    for fn in fns:
        start = time.perf_counter()
        fn()
        once = max(time.perf_counter() - start, 1e-7)
        loops.append(max(1, min(1000, int(target / once))))
    best = [float("inf")] * len(fns)
    for _ in range(repeat):
        for k, (fn, n) in enumerate(zip(fns, loops)):
            gc.collect()
            start = time.perf_counter()
            for _ in range(n):
                fn()
            best[k] = min(best[k], (time.perf_counter() - start) / n)
    return best


def columns(scale):
    rng = np.random.default_rng(0)
    rows = int(1_000_000 * scale)
    ragged_rows = int(200_000 * scale)
    sizes = rng.integers(0, 32, size=ragged_rows)
    values = rng.standard_normal(int(sizes.sum())).astype(np.float32)
    ragged = qv.VariableShapeTensorArray.from_numpy(np.split(values, np.cumsum(sizes)[:-1]))
    return {
        "int64": (rows, qv.table({"c": np.arange(rows, dtype=np.int64)})),
        "fixed_shape_tensor<float32>[8]": (
            rows,
            qv.table({"c": rng.standard_normal((rows, 8)).astype(np.float32)}),
        ),
        "variable_shape_tensor<float32>": (ragged_rows, qv.table({"c": ragged})),
    }


def chunked(table, chunks):
    rows = table.num_rows
    bounds = np.linspace(0, rows, chunks + 1).astype(int)
    return qv.concat_tables([table.slice(a, b - a) for a, b in zip(bounds[:-1], bounds[1:])])


def selections(rows):
    rng = np.random.default_rng(1)
    some = rng.integers(0, rows, size=rows // 10)
    out = [
        ("take 10% random", "take", some),
        ("take 10% sorted", "take", np.sort(some)),
        ("take permutation", "take", rng.permutation(rows)),
    ]
    for keep in (0.01, 0.5, 0.99):
        out.append((f"filter {keep:.0%}", "filter", rng.random(rows) < keep))
    out.append(("combine_chunks", "combine", None))
    return out


def verb(table, kind, arg):
    if kind == "take":
        return lambda: table.take(arg)
    if kind == "filter":
        return lambda: table.filter(arg)
    return table.combine_chunks


def measure(scale=1.0, chunk_counts=(1, 8, 64)):
    """Rows of (column, chunks, selection, quiver s, pyarrow s)."""
    out = []
    for name, (rows, table) in columns(scale).items():
        picks = selections(rows)
        for chunks in chunk_counts:
            ours = chunked(table, chunks) if chunks > 1 else table
            theirs = pa.table(ours)
            assert theirs.column(0).num_chunks == chunks
            for label, kind, arg in picks:
                peer_arg = pa.array(arg) if arg is not None else None
                q, p = best_times([verb(ours, kind, arg), verb(theirs, kind, peer_arg)])
                out.append((name, chunks, label, q, p))
            ours = theirs = None
    return out


def perf_paths(scale=1.0):
    """(path, quiver s, peer, peer s, goal) rows for bench_perf_paths.py."""
    return [
        (f"{label}, {name}, {chunks} chunks", q, "pyarrow", p, f">= {GOAL}x pyarrow")
        for name, chunks, label, q, p in measure(scale)
    ]


def fmt(seconds):
    return f"{seconds * 1e3:8.3f} ms"


def main():
    scale = float(os.environ.get("QUIVER_BENCH_SELECTION_SCALE", "1"))
    print(f"take / filter / combine_chunks, scale {scale}: best of 5, pyarrow {pa.__version__}")
    print("| column | chunks | selection | quiver | pyarrow | pa / qv |")
    print("|---|---:|---|---:|---:|---:|")
    below = 0
    for name, chunks, label, q, p in measure(scale):
        mark = "" if p / q >= GOAL else " (below goal)"
        below += p / q < GOAL
        print(f"| {name} | {chunks} | {label} | {fmt(q)} | {fmt(p)} | {p / q:5.2f}x{mark} |")
    print(f"{below} paths below {GOAL}x pyarrow")


if __name__ == "__main__":
    main()
