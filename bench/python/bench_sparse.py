"""Sparse tensors against pyarrow (Arrow C++) and SciPy, measured in one run.

10^7-element float64 tensors (1000 x 10000 for the matrix formats,
100 x 100 x 1000 for CSF) at densities 10^-1, 10^-2 and 10^-4:

- dense to COO / CSR / CSF: quiver's from_dense_numpy against pyarrow's
  from_dense_numpy and SciPy's coo_array(dense) / csr_array(dense);
- COO to CSR: quiver's to_csr against SciPy's tocsr (both from canonical
  COO);
- sparse to dense: quiver's to_dense against SciPy's toarray (CSR);
- the bound: reading the dense tensor once (np.bitwise_or.reduce over its
  bits, a pass at memory speed).

Each figure is the best of interleaved runs (the machine is shared and
noisy). Ratios are peer time / quiver time: > 1 means quiver is faster.
The targets: >= 3x pyarrow, >= 1x SciPy, and dense scans within 2x of the
one-read bound.
"""

import functools
import os

# No BLAS runs here; OpenBLAS's idle worker threads would otherwise spin on
# the 2-core machine and take turns away from whichever contender is
# multi-threaded.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import pyarrow as pa  # noqa: E402
import scipy.sparse as sp  # noqa: E402

import quiver as qv  # noqa: E402
from bench_timing import best_each  # noqa: E402

best = functools.partial(best_each, repeat=7)

DENSITIES = (1e-1, 1e-2, 1e-4)


def dense(density, shape, seed=0):
    rng = np.random.default_rng(seed)
    values = rng.random(shape)
    values[rng.random(shape) >= density] = 0.0
    return values


def row(name, ours, peers):
    cells = "  ".join(f"{peer}: {t * 1e3:8.2f} ms ({t / ours:5.2f}x)" for peer, t in peers)
    print(f"{name:<34} quiver {ours * 1e3:8.2f} ms  {cells}")


def main():
    print("sparse tensors, 10^7 float64 elements; (x) = peer time / quiver time")
    for density in DENSITIES:
        matrix = dense(density, (1000, 10000))
        cube = dense(density, (100, 100, 1000))
        bits = matrix.view(np.uint64)
        print(f"\ndensity {density:g} (nnz {np.count_nonzero(matrix)})")
        ours, bound = best(
            lambda: qv.SparseCOOTensor.from_dense_numpy(matrix),
            lambda: np.bitwise_or.reduce(bits, axis=None),
        )
        arrow, scipy = best(
            lambda: pa.SparseCOOTensor.from_dense_numpy(matrix), lambda: sp.coo_array(matrix)
        )
        row("dense -> COO", ours, [("pyarrow", arrow), ("SciPy", scipy), ("one read", bound)])

        ours, arrow, scipy = best(
            lambda: qv.SparseCSRMatrix.from_dense_numpy(matrix),
            lambda: pa.SparseCSRMatrix.from_dense_numpy(matrix),
            lambda: sp.csr_array(matrix),
        )
        row("dense -> CSR", ours, [("pyarrow", arrow), ("SciPy", scipy), ("one read", bound)])

        ours, arrow = best(
            lambda: qv.SparseCSFTensor.from_dense_numpy(cube),
            lambda: pa.SparseCSFTensor.from_dense_numpy(cube),
        )
        row("dense -> CSF (3-D)", ours, [("pyarrow", arrow), ("one read", bound)])

        q_coo = qv.SparseCOOTensor.from_dense_numpy(matrix, index_type="int32")
        s_coo = sp.coo_array(matrix)
        s_coo.sum_duplicates()  # canonical, as quiver's is
        ours, scipy = best(lambda: q_coo.to_csr(index_type="int32"), lambda: s_coo.tocsr())
        row("COO -> CSR", ours, [("SciPy", scipy)])

        q_csr = qv.SparseCSRMatrix.from_dense_numpy(matrix, index_type="int32")
        s_csr = sp.csr_array(matrix)
        ours, scipy = best(lambda: q_csr.to_dense(), lambda: s_csr.toarray())
        row("CSR -> dense", ours, [("SciPy", scipy)])


if __name__ == "__main__":
    main()
