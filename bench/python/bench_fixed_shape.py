"""quiver vs pyarrow: fixed-shape tensor columns to and from NumPy.

Both libraries are measured in the same run on the same arrays; the table
reports per-call times and the ratio pyarrow / quiver (> 1: quiver faster).
"""

import sys
import timeit

import numpy as np
import pyarrow as pa

import quiver as qv

CELL = (4, 4)
ROWS = [10**3, 10**4, 10**5, 10**6]


def per_call(fn, budget=0.2):
    """Best-of-5 seconds per call, with the repeat count sized to the budget."""
    timer = timeit.Timer(fn)
    number, _ = timer.autorange()
    number = max(1, int(number * budget / 0.2))
    return min(timer.repeat(repeat=5, number=number)) / number


def pyarrow_self_exchange(array):
    """pyarrow's own export + import through PyCapsules."""
    return pa.Array._import_from_c_capsule(*array.__arrow_c_array__())


def main():
    rows_out = []
    for n in ROWS:
        x = np.random.default_rng(0).standard_normal((n,) + CELL).astype(np.float32)
        ours = qv.FixedShapeTensorArray.from_numpy(x)
        theirs = pa.FixedShapeTensorArray.from_numpy_ndarray(x)
        timings = {
            "from_numpy": (
                per_call(lambda: qv.FixedShapeTensorArray.from_numpy(x)),
                per_call(lambda: pa.FixedShapeTensorArray.from_numpy_ndarray(x)),
            ),
            "to_numpy": (per_call(ours.to_numpy), per_call(theirs.to_numpy_ndarray)),
            # The peer column is pyarrow exporting to and importing from itself.
            "import from pyarrow": (
                per_call(lambda: qv.array(theirs)),
                per_call(lambda: pyarrow_self_exchange(theirs)),
            ),
            "export to pyarrow": (
                per_call(lambda: pa.array(ours)),
                per_call(lambda: pyarrow_self_exchange(theirs)),
            ),
        }
        for op, (q, p) in timings.items():
            rows_out.append((op, n, q, p))

    print(f"{'operation':<26}{'rows':>9}{'quiver us':>12}{'pyarrow us':>12}{'pyarrow/quiver':>16}")
    for op, n, q, p in sorted(rows_out, key=lambda r: (r[0], r[1])):
        ratio = p / q
        print(f"{op:<26}{n:>9}{q * 1e6:>12.2f}{p * 1e6:>12.2f}{ratio:>16.2f}")
    # O(1) check, reported not asserted: time at 10^6 rows over time at 10^3.
    for op in ("from_numpy", "to_numpy"):
        t = {n: q for o, n, q, _ in rows_out if o == op}
        print(
            f"{op}: quiver time at 10^6 rows / at 10^3 rows = "
            f"{t[ROWS[-1]] / t[ROWS[0]]:.2f} (1.0 = flat)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
