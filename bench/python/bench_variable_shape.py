"""quiver vs peers: variable-shape tensor columns on ragged image batches.

Everything is measured in one run on the same rows: N float32 tensors of
shape 3 x [8..64] x [8..64] (N = 10^5 by default; about 1.5 GB of data).
Ratios are peer / quiver (> 1: quiver faster) and bound / quiver (1.0 =
as fast as one plain copy of the bytes written).

  python bench/python/bench_variable_shape.py [--rows N] [--repeat R]
"""

import argparse
import gc
import sys

import numpy as np
import pyarrow as pa

import quiver as qv
from bench_timing import best_of


def make_rows(n, seed=0):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(8, 65, size=(n, 2))
    pool = rng.standard_normal(3 * 64 * 64 * 16).astype(np.float32)
    rows = []
    for h, w in sizes:
        start = int(rng.integers(0, pool.size - 3 * 64 * 64))
        rows.append(pool[start : start + 3 * h * w].reshape(3, h, w).copy())
    return rows


def pyarrow_build(rows):
    """The same storage built with pyarrow: flattened lists + shapes in a struct."""
    data = pa.array([r.ravel() for r in rows], type=pa.list_(pa.float32()))
    shapes = pa.array([r.shape for r in rows], type=pa.list_(pa.int32(), 3))
    return pa.StructArray.from_arrays([data, shapes], names=["data", "shape"])


def numpy_pad(rows, cell):
    out = np.zeros((len(rows),) + cell, dtype=np.float32)
    for i, r in enumerate(rows):
        out[i, : r.shape[0], : r.shape[1], : r.shape[2]] = r
    return out


def fresh_copy(nbytes):
    """The memcpy bound: copying `nbytes` into newly allocated memory."""
    source = np.ones(nbytes, dtype=np.uint8)
    return lambda: source.copy()


def report(title, ours, peers):
    print(f"\n{title}")
    print(f"  {'quiver':<34}{ours * 1e3:>10.1f} ms")
    for name, seconds in peers:
        print(
            f"  {name:<34}{seconds * 1e3:>10.1f} ms   "
            f"{name.split(' ')[0]}/quiver = {seconds / ours:.2f}"
        )


def row_access(n, repeat):
    """Seconds per row for v[i] and to_numpy() at n rows."""
    rows = [np.ones((3, 8 + i % 5, 8), np.float32) for i in range(n)]
    v = qv.VariableShapeTensorArray.from_numpy(rows)
    index = best_of(lambda: [v[i] for i in range(n)], repeat) / n
    views = best_of(v.to_numpy, repeat) / n
    return index, views


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10**5)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    n, repeat = args.rows, args.repeat

    print(f"building {n} rows of 3 x [8..64] x [8..64] float32 ...", flush=True)
    rows = make_rows(n)
    data_bytes = sum(r.nbytes for r in rows)
    print(f"{data_bytes / 2**30:.2f} GiB of tensor data", flush=True)

    ours = best_of(lambda: qv.VariableShapeTensorArray.from_numpy(rows), repeat)
    theirs = best_of(lambda: pyarrow_build(rows), 1)
    bound = best_of(fresh_copy(data_bytes), repeat)
    report(
        "from_numpy(list of arrays)",
        ours,
        [
            ("pyarrow StructArray.from_arrays(pa.array(flat lists))", theirs),
            ("memcpy of the data bytes", bound),
        ],
    )

    v = qv.VariableShapeTensorArray.from_numpy(rows)
    cell = tuple(int(s) for s in v.shapes().max(axis=0))
    padded_bytes = n * int(np.prod(cell)) * 4
    ours = best_of(lambda: v.to_padded(), repeat)
    theirs = best_of(lambda: numpy_pad(rows, cell), repeat)
    bound = best_of(fresh_copy(padded_bytes), repeat)
    report(
        f"to_padded -> {(n,) + cell} ({padded_bytes / 2**30:.2f} GiB)",
        ours,
        [("numpy loop into np.zeros", theirs), ("memcpy of the padded bytes", bound)],
    )

    # Freed before what follows is made (the timed lambdas ran already).
    v = rows = None
    gc.collect()
    print("\nrow access (seconds per row; flat across sizes = O(1) per row)")
    print(f"  {'rows':>8}{'v[i] us/row':>14}{'to_numpy us/row':>18}")
    for size in (10**3, 10**4, 10**5):
        index, views = row_access(size, repeat)
        print(f"  {size:>8}{index * 1e6:>14.2f}{views * 1e6:>18.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
