"""DLPack per-call cost: quiver as producer and consumer against peers.

One run, same data: a 1-D float32 array of 1024 elements (pyarrow exports
1-D arrays only). Reported per call, with ratios against NumPy handing the
array to NumPy (1.0 = as cheap as NumPy-to-NumPy).

  python bench/python/bench_dlpack.py
"""

import sys
import timeit

import numpy as np
import pyarrow as pa

import quiver as qv


def per_call(fn):
    timer = timeit.Timer(fn)
    number, _ = timer.autorange()
    return min(timer.repeat(repeat=7, number=number)) / number


def main():
    x = np.arange(1024, dtype=np.float32)
    ours = qv.Tensor.from_numpy(x)
    theirs = pa.array(x)
    baseline = per_call(lambda: np.from_dlpack(x))
    rows = [
        ("NumPy -> NumPy (baseline)", baseline),
        ("quiver export -> NumPy import", per_call(lambda: np.from_dlpack(ours))),
        ("pyarrow export -> NumPy import", per_call(lambda: np.from_dlpack(theirs))),
        ("NumPy export -> quiver import", per_call(lambda: qv.from_dlpack(x))),
        ("quiver -> quiver", per_call(lambda: qv.from_dlpack(ours))),
    ]
    print(f"{'exchange':<34}{'us/call':>10}{'/ NumPy->NumPy':>16}")
    for name, seconds in rows:
        print(f"{name:<34}{seconds * 1e6:>10.2f}{seconds / baseline:>16.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
