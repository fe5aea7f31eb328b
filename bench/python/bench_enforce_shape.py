"""enforce_shape per-call cost against einops.parse_shape, and a ragged
column of 10^6 rows against one NumPy pass over its shapes.

One run, the same NumPy arrays and patterns for both. einops caches its
parsed patterns; quiver is measured with a string pattern (parsed once,
then found in its cache) and with a pre-parsed qv.ShapePattern. Ratios
are einops / quiver (above 1 = quiver is faster). The ragged column is
checked with 'n 3 h w' (one constant axis proved, two per-row int32
arrays returned) against a copy of its (N, 3) int32 shape array, best of
several runs taken in turn.

  python bench/python/bench_enforce_shape.py
"""

import sys
import timeit

import numpy as np

import quiver as qv
from bench_timing import best_each

try:
    import einops
except ImportError:  # pragma: no cover - scripts/setup installs it
    einops = None


def per_call(fn):
    timer = timeit.Timer(fn)
    number, _ = timer.autorange()
    return min(timer.repeat(repeat=7, number=number)) / number


# (label, array, quiver pattern, einops pattern): the same axes named in both.
CASES = [
    ("images b h w c", np.zeros((8, 32, 32, 3), np.float32), "b h w 3", "b h w c"),
    ("matrix m n", np.zeros((64, 32)), "m n", "m n"),
    ("skip _ n c", np.zeros((7, 5, 3)), "_ n 3", "_ n c"),
    ("ellipsis b ... c", np.zeros((2, 3, 4, 5, 6)), "b ... c", "b ... c"),
]


RAGGED_ROWS = 10**6
RAGGED_REPEAT = 30


def ragged_column(rows=RAGGED_ROWS, seed=0):
    """rows of 3 x [1..4] x [1..4] float32, built from their shapes."""
    rng = np.random.default_rng(seed)
    shapes = np.empty((rows, 3), np.int32)
    shapes[:, 0] = 3
    shapes[:, 1:] = rng.integers(1, 5, size=(rows, 2))
    values = np.zeros(int(np.prod(shapes, axis=1).sum()), np.float32)
    return qv.VariableShapeTensorArray.from_jagged(values, None, shapes)


def ragged_check(repeat=RAGGED_REPEAT, with_sum=False):
    """Best seconds of enforce_shape(col, 'n 3 h w') over 10^6 rows and of
    one NumPy pass over the same shapes: a copy of the (N, 3) array (the
    peer), and with_sum its sum as well (the pass the C++ bound makes)."""
    col = ragged_column()
    shapes = np.asarray(col.shapes())
    fns = [lambda: qv.enforce_shape(col, "n 3 h w"), lambda: shapes.copy()]
    if with_sum:
        fns.append(lambda: shapes.sum())
    return best_each(*fns, repeat=repeat)


def perf_paths():
    """(path, quiver s, peer, peer s, goal) for bench_perf_paths.py."""
    ours, peer = ragged_check()
    return [
        (
            "enforce_shape 10^6 ragged rows 'n 3 h w'",
            ours,
            "NumPy pass over the shapes (copy of the (N, 3) int32 array)",
            peer,
            "<= 2x",
        )
    ]


def main():
    header = (
        f"{'pattern':<20}{'quiver str':>12}{'ShapePattern':>14}{'einops':>10}"
        f"{'einops/str':>12}{'einops/pre':>12}"
    )
    print("per call, microseconds")
    print(header)
    worst = None
    for label, x, ours, theirs in CASES:
        parsed = qv.ShapePattern(ours)
        qv.enforce_shape(x, ours)  # fill the pattern cache
        t_str = per_call(lambda: qv.enforce_shape(x, ours))
        t_pre = per_call(lambda: qv.enforce_shape(x, parsed))
        if einops is not None:
            einops.parse_shape(x, theirs)
            t_ein = per_call(lambda: einops.parse_shape(x, theirs))
            r_str, r_pre = t_ein / t_str, t_ein / t_pre
            worst = r_str if worst is None else min(worst, r_str)
            ein_cols = f"{t_ein * 1e6:>10.3f}{r_str:>11.1f}x{r_pre:>11.1f}x"
        else:
            ein_cols = f"{'n/a':>10}{'':>12}{'':>12}"
        print(f"{label:<20}{t_str * 1e6:>12.3f}{t_pre * 1e6:>14.3f}{ein_cols}")
    # A ragged column: per-row bindings for the sizes that vary.
    rng = np.random.default_rng(0)
    rows = [np.zeros((3, h, w), np.float32) for h, w in rng.integers(8, 64, size=(10_000, 2))]
    col = qv.VariableShapeTensorArray.from_numpy(rows)
    t_col = per_call(lambda: qv.enforce_shape(col, "n 3 h w"))
    print(
        f"ragged column, 10^4 rows 'n 3 h w': {t_col * 1e6:.1f} us per call "
        f"({t_col / len(col) * 1e9:.2f} ns per row)"
    )
    ours, copy, total = ragged_check(with_sum=True)
    print(
        f"ragged column, 10^6 rows 'n 3 h w': {ours * 1e3:.2f} ms; one NumPy pass over its "
        f"shapes: copy {copy * 1e3:.2f} ms ({ours / copy:.2f}x, goal <= 2x), "
        f"sum {total * 1e3:.2f} ms ({ours / total:.2f}x); best of {RAGGED_REPEAT}"
    )
    if worst is not None:
        print(f"slowest ratio (string pattern): einops is {worst:.1f}x slower than quiver")
    return 0


if __name__ == "__main__":
    sys.exit(main())
