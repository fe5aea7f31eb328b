"""quiver in everyday Python: per-call costs of the protocols and the
copies users make, each next to its peer, measured in one run.

Ratios are quiver / peer (< 1: quiver faster; the targets are stated
next to each line). Memory stays below about 4 GiB (the 1 GiB column is
shared by the two pickle rows, the rest is small).

  python bench/python/bench_python_practice.py [--gib G]
"""

import argparse
import gc
import pickle
import timeit

import numpy as np
import pyarrow as pa

import quiver as qv
from bench_timing import best_of


def per_call(fn, repeat=7):
    timer = timeit.Timer(fn)
    number, _ = timer.autorange()
    return min(timer.repeat(repeat=repeat, number=number)) / number


def line(name, ours, peer_name, peer, target):
    ratio = ours / peer
    unit, scale = ("us", 1e6) if peer < 1e-2 else ("ms", 1e3)
    print(
        f"{name:<46} {ours * scale:9.2f} {unit}  {peer_name:<34} {peer * scale:9.2f} {unit}"
        f"  {ratio:5.2f}x  (target {target})"
    )


def pickle_round_trip(obj, out_of_band):
    if out_of_band:
        buffers = []
        data = pickle.dumps(obj, protocol=5, buffer_callback=buffers.append)
        return pickle.loads(data, buffers=buffers)
    return pickle.loads(pickle.dumps(obj, protocol=5))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gib", type=float, default=1.0, help="size of the pickled column")
    args = parser.parse_args()
    print("quiver / peer, one run (per call; lower ratio = quiver faster)")

    # C Data import: quiver from pyarrow vs pyarrow from pyarrow.
    x = np.arange(10**5 * 16, dtype=np.float32).reshape(10**5, 4, 4)
    pa_col = pa.array(qv.FixedShapeTensorArray.from_numpy(x))
    line(
        "import fixed-shape column from pyarrow",
        per_call(lambda: qv.array(pa_col)),
        "pyarrow's own capsule exchange",
        per_call(lambda: pa.array(_Wrap(pa_col))),
        "<= 1.0x",
    )

    # DLPack export (quiver -> NumPy) and import (NumPy -> quiver).
    for shape in [(1024,), (4, 8, 8, 4)]:
        a = np.ones(shape, np.float32)
        t = qv.Tensor.from_numpy(a)
        line(
            f"DLPack export {len(shape)}-D -> np.from_dlpack",
            per_call(lambda: np.from_dlpack(t)),
            "NumPy -> np.from_dlpack",
            per_call(lambda: np.from_dlpack(a)),
            "<= 1.2x",
        )
    a = np.ones(1024, np.float32)
    line(
        "qv.from_dlpack(ndarray)",
        per_call(lambda: qv.from_dlpack(a)),
        "np.from_dlpack(ndarray)",
        per_call(lambda: np.from_dlpack(a)),
        "<= 1.5x",
    )

    line(
        "qv.Tensor.from_numpy(ndarray), zero-copy",
        per_call(lambda: qv.Tensor.from_numpy(a)),
        "pa.Tensor.from_numpy(ndarray)",
        per_call(lambda: pa.Tensor.from_numpy(a)),
        "none; < 1.0x",
    )

    col = qv.FixedShapeTensorArray.from_numpy(x)
    line(
        "np.asarray(col)",
        per_call(lambda: np.asarray(col)),
        "col.to_numpy()",
        per_call(lambda: col.to_numpy()),
        "~1.0x",
    )

    # Pickle protocol 5 of a large column, in-band and out-of-band.
    n = int(args.gib * 2**30 / (64 * 4))
    big = np.ones((n, 8, 8), np.float32)
    q_big = qv.FixedShapeTensorArray.from_numpy(big)
    p_big = pa.array(q_big)
    # In-band, both sides copy the bytes twice (into the pickle, out of it):
    # single calls of about a second. Out-of-band nothing is copied and a
    # round trip takes microseconds, timed over many calls like the other
    # per-call rows (a single call of that length is mostly noise).
    line(
        f"pickle 5 dumps+loads {args.gib:g} GiB, in-band",
        best_of(lambda: pickle_round_trip(q_big, False), 3),
        "pyarrow, same column",
        best_of(lambda: pickle_round_trip(p_big, False), 3),
        "< 1.0x",
    )
    line(
        f"pickle 5 dumps+loads {args.gib:g} GiB, out-of-band",
        per_call(lambda: pickle_round_trip(q_big, True)),
        "pyarrow, same column",
        per_call(lambda: pickle_round_trip(p_big, True)),
        "< 1.0x",
    )
    small = q_big[:1000]
    p_small = p_big[:1000]
    line(
        "pickle 5 out-of-band, 1000 rows of the same",
        per_call(lambda: pickle_round_trip(small, True)),
        "pyarrow, same rows",
        per_call(lambda: pickle_round_trip(p_small, True)),
        "flat in size",
    )
    # Freed before what follows is made (the timed lambdas ran already).
    big = q_big = p_big = small = p_small = None
    gc.collect()

    # to_padded(out=) of 256 images 3 x [200..256] x [200..256].
    rng = np.random.default_rng(0)
    rows = [
        rng.standard_normal((3, h, w), dtype=np.float32)
        for h, w in rng.integers(200, 257, size=(256, 2))
    ]
    images = qv.VariableShapeTensorArray.from_numpy(rows)
    cell = tuple(max(r.shape[k] for r in rows) for k in range(3))
    out = np.empty((256,) + cell, np.float32)
    images.to_padded(out=out)
    src = np.ones_like(out)
    line(
        "to_padded(out=) 256 x 3 x [200..256]^2",
        best_of(lambda: images.to_padded(out=out)),
        "np.copyto of the same bytes",
        best_of(lambda: np.copyto(out, src)),
        "<= 1.2x",
    )

    def numpy_loop():
        out.fill(0)
        for i, r in enumerate(rows):
            out[i, : r.shape[0], : r.shape[1], : r.shape[2]] = r

    line(
        "to_padded(out=) 256 x 3 x [200..256]^2",
        best_of(lambda: images.to_padded(out=out)),
        "NumPy loop into the same out",
        best_of(numpy_loop),
        "< 1.0x",
    )
    # Freed before what follows is made (the timed lambdas ran already).
    out = src = images = rows = None
    gc.collect()

    # from_numpy(list) of 10^5 tensors.
    sizes = rng.integers(8, 33, size=(10**5, 2))
    rows = [np.ones((3, h, w), np.float32) for h, w in sizes]
    nbytes = sum(r.nbytes for r in rows)
    flat = np.ones(nbytes, np.uint8)
    ours = best_of(lambda: qv.VariableShapeTensorArray.from_numpy(rows), 3)
    line(
        "VariableShapeTensorArray.from_numpy 10^5",
        ours,
        "one copy into a fresh buffer",
        best_of(lambda: flat.copy(), 3),
        "<= 1.2x",
    )

    def pyarrow_build():
        data = pa.array([r.ravel() for r in rows], type=pa.list_(pa.float32()))
        shapes = pa.array([r.shape for r in rows], type=pa.list_(pa.int32(), 3))
        return pa.StructArray.from_arrays([data, shapes], names=["data", "shape"])

    line(
        "VariableShapeTensorArray.from_numpy 10^5",
        ours,
        "pyarrow StructArray of the same",
        best_of(pyarrow_build, 3),
        "<= 0.125x (>= 8x faster)",
    )


class _Wrap:
    """Hides the pyarrow class so pa.array goes through the capsules."""

    def __init__(self, array):
        self.array = array

    def __arrow_c_array__(self, requested_schema=None):
        return self.array.__arrow_c_array__(requested_schema)


if __name__ == "__main__":
    main()
