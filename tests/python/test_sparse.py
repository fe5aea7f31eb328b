"""Sparse tensors in Python: SparseCOOTensor, SparseCSRMatrix,
SparseCSCMatrix and SparseCSFTensor against NumPy, SciPy and pydata sparse
on random data; zero-copy by address; every invalid-index class through
the Python constructors; pickling, reprs, equality and IPC."""

import copy
import io
import pickle

import numpy as np
import pytest

import quiver as qv

scipy_sparse = pytest.importorskip("scipy.sparse")
pydata = pytest.importorskip("sparse")

CLASSES = {
    "coo": qv.SparseCOOTensor,
    "csr": qv.SparseCSRMatrix,
    "csc": qv.SparseCSCMatrix,
    "csf": qv.SparseCSFTensor,
}
VALUE_DTYPES = [
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "float32",
    "float64",
    "bool",
]
INDEX_TYPES = [None, "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


# --- random data ----------------------------------------------------------------


def random_values(rng, dtype, shape):
    """Non-zero values of `dtype`; floats include NaN."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return np.ones(shape, bool)
    if dtype.kind == "f":
        x = rng.standard_normal(shape).astype(dtype)
        x[rng.random(shape) < 0.1] = np.nan
        x[x == 0] = 1
        return x
    info = np.iinfo(dtype)
    x = rng.integers(max(info.min, -100), min(info.max, 100), size=shape, endpoint=True).astype(
        dtype
    )
    x[x == 0] = 1
    return x


def random_shape(rng):
    ndim = int(rng.integers(1, 7))
    limit = 5 if ndim <= 3 else 3
    shape = [int(rng.integers(1, limit + 1)) for _ in range(ndim)]
    if rng.random() < 0.15:
        shape[int(rng.integers(ndim))] = 0  # a zero-size axis
    return shape


def random_dense(rng, shape=None, dtype=None):
    """A dense array in a random layout (row-major, column-major, strided or
    transposed), random density (empty and full included), random value
    type; float zeros are a mix of 0.0 and -0.0."""
    shape = random_shape(rng) if shape is None else list(shape)
    dtype = np.dtype(dtype or rng.choice(VALUE_DTYPES))
    density = rng.choice([0.0, 1.0, rng.random(), rng.random()])
    layout = rng.choice(["c", "f", "strided", "transposed"])
    if layout == "strided":
        axis = int(rng.integers(len(shape)))
        big = list(shape)
        big[axis] *= 2
        build, pick = big, (slice(None),) * axis + (slice(None, None, 2),)
    elif layout == "transposed":
        perm = rng.permutation(len(shape))
        build, pick = [shape[p] for p in np.argsort(perm)], None
    else:
        build, pick = shape, None
    x = random_values(rng, dtype, build)
    zero = rng.random(build) >= density
    x[zero] = 0
    if dtype.kind == "f":
        x[zero & (rng.random(build) < 0.5)] = -0.0
    if layout == "f":
        x = np.asfortranarray(x)
    elif layout == "strided":
        x = x[pick]
    elif layout == "transposed":
        x = x.transpose(perm)
    assert list(x.shape) == shape
    return x


def assert_same_dense(out, expected):
    """Equal values (NaN-aware), -0.0 read back as +0.0 (it is not stored)."""
    assert out.shape == expected.shape and out.dtype == expected.dtype
    np.testing.assert_array_equal(out, np.where(expected == 0, np.zeros_like(expected), expected))
    if out.dtype.kind == "f":
        assert not np.signbit(out[out == 0]).any()


def index_bound(fmt, shape, nnz):
    """The largest index value a canonical tensor of `fmt` stores."""
    bound = max([d - 1 for d in shape] + [0])
    if fmt != "coo" and len(shape) >= 2:
        bound = max(bound, nnz)  # indptr ends at a level's size, nnz at the last
    return bound


def fits(index_type, bound):
    return index_type is None or np.iinfo(index_type).max >= bound


def index_arrays(s):
    """Every index array of a sparse tensor, in to_numpy's order."""
    parts = s.to_numpy()[1:]
    out = []
    for p in parts:
        out.extend(p if isinstance(p, list) else [p])
    return out


def check_canonical_against(s, expected):
    """A canonical tensor holds exactly the non-zeros of `expected` (NaN
    counted, -0.0 not) in its format's order, with no zero stored."""
    data = s.to_numpy()[0]
    assert s.has_canonical_format
    assert s.non_zero_length == np.count_nonzero(expected)
    assert not (data == 0).any()
    assert s.dtype == expected.dtype and s.shape == expected.shape


# --- property tests -------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(80))
def test_every_path_round_trips(seed):
    rng = np.random.default_rng(seed)
    x = random_dense(rng)
    expected = np.array(x)
    has_nan = expected.dtype.kind == "f" and bool(np.isnan(expected).any())
    index_type = INDEX_TYPES[int(rng.integers(len(INDEX_TYPES)))]
    formats = ["coo", "csf"] + (["csr", "csc"] if x.ndim == 2 else [])
    built = {}
    for fmt in formats:
        bound = index_bound(fmt, x.shape, np.count_nonzero(expected))
        if not fits(index_type, bound):
            with pytest.raises(ValueError, match="does not fit"):
                CLASSES[fmt].from_dense_numpy(x, index_type=index_type)
            continue
        s = CLASSES[fmt].from_dense_numpy(x, index_type=index_type)
        assert type(s) is CLASSES[fmt] and s.format == fmt
        check_canonical_against(s, expected)
        if index_type is not None:
            assert all(a.dtype == np.dtype(index_type) for a in index_arrays(s))
        assert_same_dense(s.to_dense(), expected)
        assert_same_dense(s.to_tensor().to_numpy(), expected)
        built[fmt] = s
    for fmt, s in built.items():
        targets = {"coo": s.to_coo(), "csf": s.to_csf(axis_order=list(rng.permutation(x.ndim)))}
        if x.ndim == 2:
            targets.update(csr=s.to_csr(), csc=s.to_csc())
        targets["canonical"] = s.canonicalize()
        for name, t in targets.items():
            check_canonical_against(t, expected)
            assert_same_dense(t.to_dense(), expected)
            # NaN != NaN, as in NumPy: with NaNs stored, no tensor equals another.
            assert (t.equals(s) and t == s) == (not has_nan), (fmt, name)
    # Every format built from the same array is the same tensor.
    assert all((a == b) == (not has_nan) for a in built.values() for b in built.values())


@pytest.mark.parametrize("seed", range(40))
def test_agrees_with_scipy(seed):
    rng = np.random.default_rng(1000 + seed)
    dtype = rng.choice([d for d in VALUE_DTYPES if d != "float16"])  # SciPy has no float16
    x = random_dense(rng, shape=[int(rng.integers(0, 7)), int(rng.integers(0, 7))], dtype=dtype)
    expected = np.array(x)
    ref = {
        "coo": scipy_sparse.coo_array(expected),
        "csr": scipy_sparse.csr_array(expected),
        "csc": scipy_sparse.csc_array(expected),
    }
    for fmt in ("coo", "csr", "csc"):
        s = CLASSES[fmt].from_dense_numpy(x)
        assert s.non_zero_length == ref[fmt].nnz
        got = s.to_scipy()
        assert type(got).__name__ == f"{fmt}_array"
        np.testing.assert_array_equal(got.toarray(), ref[fmt].toarray())
        np.testing.assert_array_equal(got.data, ref[fmt].data)
        if fmt == "coo":
            data, coords = s.to_numpy()
            np.testing.assert_array_equal(coords, np.stack(ref[fmt].coords, axis=1))
        else:
            data, indptr, indices = s.to_numpy()
            np.testing.assert_array_equal(indptr, ref[fmt].indptr)
            np.testing.assert_array_equal(indices, ref[fmt].indices)
        np.testing.assert_array_equal(data, ref[fmt].data)
        back = CLASSES[fmt].from_scipy(ref[fmt])
        assert back.has_canonical_format
        np.testing.assert_array_equal(back.to_dense(), s.to_dense())
        # Sparse matrices (the older classes) as well as sparse arrays.
        np.testing.assert_array_equal(
            CLASSES[fmt].from_scipy(scipy_sparse.csr_matrix(expected)).to_dense(), s.to_dense()
        )


@pytest.mark.parametrize("seed", range(40))
def test_agrees_with_pydata_sparse(seed):
    rng = np.random.default_rng(2000 + seed)
    x = random_dense(rng)
    expected = np.array(x)
    # pydata stores -0.0 (it compares bits with the fill value); quiver
    # counts by value, so the reference is built with -0.0 made +0.0.
    ref = pydata.COO.from_numpy(np.where(expected == 0, np.zeros_like(expected), expected))
    s = qv.SparseCOOTensor.from_dense_numpy(x)
    assert s.non_zero_length == ref.nnz
    data, coords = s.to_numpy()
    np.testing.assert_array_equal(coords, ref.coords.T)
    np.testing.assert_array_equal(data, ref.data)
    got = s.to_pydata_sparse()
    assert got.shape == ref.shape and got.dtype == ref.dtype
    np.testing.assert_array_equal(got.todense(), ref.todense())
    back = qv.SparseCOOTensor.from_pydata_sparse(ref)
    assert back.has_canonical_format
    np.testing.assert_array_equal(back.to_numpy()[1], coords)
    np.testing.assert_array_equal(back.to_numpy()[0], data)


@pytest.mark.parametrize("seed", range(20))
def test_non_canonical_input_sums_duplicates(seed):
    # Duplicated, unsorted coordinates are summed by to_dense and
    # canonicalize, as SciPy's sum_duplicates does.
    rng = np.random.default_rng(3000 + seed)
    shape = (int(rng.integers(1, 5)), int(rng.integers(1, 5)))
    nnz = int(rng.integers(0, 12))
    coords = np.stack([rng.integers(0, d, nnz) for d in shape], axis=1)
    data = rng.integers(1, 9, nnz).astype(np.float64)
    s = qv.SparseCOOTensor.from_numpy(data, coords, shape)
    expected = scipy_sparse.coo_array((data, (coords[:, 0], coords[:, 1])), shape=shape).toarray()
    np.testing.assert_array_equal(s.to_dense(), expected)
    c = s.canonicalize()
    assert c.has_canonical_format and c == s
    np.testing.assert_array_equal(c.to_dense(), expected)
    ref = scipy_sparse.coo_array((data, (coords[:, 0], coords[:, 1])), shape=shape)
    ref.sum_duplicates()
    assert c.non_zero_length == ref.nnz
    np.testing.assert_array_equal(c.to_numpy()[1], np.stack(ref.coords, axis=1))
    assert s.to_csr() == s and s.to_csr().has_canonical_format
    np.testing.assert_array_equal(s.to_scipy().toarray(), expected)


# --- zero-copy -------------------------------------------------------------------------


def test_from_numpy_and_to_numpy_share_memory():
    data = np.array([1.0, 2.0, 3.0])
    coords = np.array([[0, 0], [1, 2], [2, 1]], dtype=np.int16)
    coo = qv.SparseCOOTensor.from_numpy(data, coords, (3, 3))
    d, c = coo.to_numpy()
    assert np.shares_memory(d, data) and np.shares_memory(c, coords)
    assert not d.flags.writeable and not c.flags.writeable
    # Column-major coordinates (pydata's layout, transposed) keep their strides.
    cf = np.asfortranarray(coords)
    assert np.shares_memory(qv.SparseCOOTensor.from_numpy(data, cf, (3, 3)).to_numpy()[1], cf)

    indptr, indices = np.array([0, 1, 2, 3], np.uint8), np.array([0, 2, 1], np.int64)
    for cls in (qv.SparseCSRMatrix, qv.SparseCSCMatrix):
        s = cls.from_numpy(data, indptr, indices, (3, 3))
        for mine, theirs in zip(s.to_numpy(), (data, indptr, indices)):
            assert np.shares_memory(mine, theirs)

    ptrs = [np.array([0, 2, 3], np.int32)]
    idxs = [np.array([0, 2], np.int32), np.array([0, 2, 1], np.int32)]
    csf = qv.SparseCSFTensor.from_numpy(data, ptrs, idxs, (3, 3))
    d, p, i = csf.to_numpy()
    assert np.shares_memory(d, data)
    assert all(np.shares_memory(a, b) for a, b in zip(p + i, ptrs + idxs))


def test_from_numpy_copies_only_what_is_not_contiguous():
    data = np.arange(1.0, 7.0)[::2]  # strided: copied into a contiguous array
    indptr, indices = np.array([0, 1, 2, 3]), np.array([0, 2, 1])
    s = qv.SparseCSRMatrix.from_numpy(data, indptr, indices, (3, 3))
    assert not np.shares_memory(s.to_numpy()[0], data)
    np.testing.assert_array_equal(s.to_numpy()[0], data)
    assert np.shares_memory(s.to_numpy()[1], indptr)
    # pyarrow's (nnz, 1) data column is accepted as a view.
    col = np.array([[1.0], [2.0], [3.0]])
    coo = qv.SparseCOOTensor.from_numpy(col, np.array([[0, 0], [1, 1], [2, 2]]), (3, 3))
    assert np.shares_memory(coo.to_numpy()[0], col)


def test_scipy_zero_copy_both_ways():
    x = np.array([[0, 1.5, 0], [2, 0, 3]])
    for fmt in ("csr", "csc"):
        m = getattr(scipy_sparse, f"{fmt}_array")(x)
        s = CLASSES[fmt].from_scipy(m)
        for mine, theirs in zip(s.to_numpy(), (m.data, m.indptr, m.indices)):
            assert np.shares_memory(mine, theirs)
        for index_type in ("int32", "int64"):
            t = CLASSES[fmt].from_dense_numpy(x, index_type=index_type)
            back = t.to_scipy()
            assert back.indices.dtype == np.dtype(index_type)
            for mine, theirs in zip(t.to_numpy(), (back.data, back.indptr, back.indices)):
                assert np.shares_memory(mine, theirs)
            assert back.has_canonical_format
        # Other index types are widened in a copy (SciPy takes int32 / int64 only).
        narrow = CLASSES[fmt].from_dense_numpy(x, index_type="uint8")
        back = narrow.to_scipy()
        assert back.indices.dtype == np.int32 and back.indptr.dtype == np.int32
        assert not np.shares_memory(back.indices, narrow.to_numpy()[2])
        assert np.shares_memory(back.data, narrow.to_numpy()[0])
        np.testing.assert_array_equal(back.toarray(), x)

    coo = scipy_sparse.coo_array(x)
    s = qv.SparseCOOTensor.from_scipy(coo)
    assert np.shares_memory(s.to_numpy()[0], coo.data)  # values shared, coordinates stacked
    t = qv.SparseCOOTensor.from_dense_numpy(x, index_type="int64")
    back = t.to_scipy()
    assert all(np.shares_memory(c, t.to_numpy()[1]) for c in back.coords)
    assert np.shares_memory(back.data, t.to_numpy()[0])
    # n-D COO: SciPy indexes with int64.
    cube = qv.SparseCOOTensor.from_dense_numpy(np.arange(24.0).reshape(2, 3, 4) % 5)
    back = cube.to_scipy()
    assert back.shape == (2, 3, 4) and back.coords[0].dtype == np.int64
    np.testing.assert_array_equal(back.toarray(), cube.to_dense())


def test_scipy_shared_arrays_are_read_only_and_non_canonical_ones_writable():
    x = np.array([[0, 1.5], [2, 0]])
    m = qv.SparseCSRMatrix.from_dense_numpy(x, index_type="int32").to_scipy()
    with pytest.raises(ValueError, match="read-only"):
        m.data[0] = 7
    # Unsorted rows: SciPy may sort in place, so it gets its own arrays.
    s = qv.SparseCSRMatrix.from_numpy([1.0, 2.0], [0, 2, 2], [1, 0], (2, 2))
    assert not s.has_canonical_format
    m = s.to_scipy()
    assert not np.shares_memory(m.indices, s.to_numpy()[2])
    m.sort_indices()
    np.testing.assert_array_equal(m.toarray(), s.to_dense())


def test_pydata_sparse_zero_copy_both_ways():
    x = np.arange(24.0).reshape(2, 3, 4) % 5
    ref = pydata.COO.from_numpy(x)
    s = qv.SparseCOOTensor.from_pydata_sparse(ref)
    d, c = s.to_numpy()
    assert np.shares_memory(d, ref.data) and np.shares_memory(c, ref.coords)
    t = qv.SparseCOOTensor.from_dense_numpy(x, index_type="int64")
    back = t.to_pydata_sparse()
    assert np.shares_memory(back.coords, t.to_numpy()[1]) and np.shares_memory(
        back.data, t.to_numpy()[0]
    )
    np.testing.assert_array_equal(back.todense(), x)
    # Narrow coordinates are widened to pydata's index type.
    narrow = qv.SparseCOOTensor.from_dense_numpy(x)
    assert narrow.to_numpy()[1].dtype == np.int8
    assert narrow.to_pydata_sparse().coords.dtype == np.intp
    # -0.0 stored by pydata stays a stored value, equal to an absent one.
    signed = pydata.COO.from_numpy(np.array([0.0, -0.0, 1.0]))
    assert signed.nnz == 2
    mine = qv.SparseCOOTensor.from_pydata_sparse(signed)
    assert mine.non_zero_length == 2 and mine == qv.SparseCOOTensor.from_dense_numpy(
        np.array([0.0, 0.0, 1.0])
    )
    # Other pydata formats are converted by pydata first.
    gcxs = pydata.GCXS.from_numpy(x)
    assert qv.SparseCOOTensor.from_pydata_sparse(gcxs) == s


def test_from_dense_reads_without_copying_and_to_dense_copies():
    x = np.asfortranarray(np.arange(12.0).reshape(3, 4) % 3)
    s = qv.SparseCSRMatrix.from_dense_numpy(x)
    dense = s.to_dense()
    assert dense.flags.writeable and not np.shares_memory(dense, x)
    dense[0, 0] = 99  # a copy: the tensor is unchanged
    assert s.to_dense()[0, 0] == 0
    t = qv.Tensor.from_numpy(x)
    assert qv.SparseCOOTensor.from_tensor(t) == s
    assert qv.SparseCSFTensor.from_tensor(t, axis_order=[1, 0]).axis_order == (1, 0)


# --- invalid input ----------------------------------------------------------------------

D2 = np.array([1.0, 2.0])


@pytest.mark.parametrize(
    "make, error, words",
    [
        (
            lambda: qv.SparseCOOTensor.from_numpy(D2, [[0, 5], [1, 0]], (2, 3)),
            ValueError,
            ["coords", "5", "out of range"],
        ),
        (
            lambda: qv.SparseCOOTensor.from_numpy(D2, [[0, -1], [1, 0]], (2, 3)),
            ValueError,
            ["coords", "-1", "out of range"],
        ),
        (
            lambda: qv.SparseCOOTensor.from_numpy(D2, [[1, 0], [0, 1]], (2, 3), canonical=True),
            ValueError,
            ["canonical", "row 1"],
        ),
        (
            lambda: qv.SparseCOOTensor.from_numpy(D2, [[0, 0], [0, 0]], (2, 3), canonical=True),
            ValueError,
            ["canonical"],
        ),
        (
            lambda: qv.SparseCOOTensor.from_numpy(D2, [[0, 0, 0], [1, 0, 0]], (2, 3)),
            ValueError,
            ["coords", "shape"],
        ),
        (
            lambda: qv.SparseCOOTensor.from_numpy(D2, [[0, 0]], (2, 3)),
            ValueError,
            ["coords", "shape"],
        ),
        (lambda: qv.SparseCOOTensor.from_numpy(D2, [0, 1], (2,)), ValueError, ["coords", "2-D"]),
        (
            lambda: qv.SparseCOOTensor.from_numpy(D2, [[0.0, 1.0], [1.0, 0.0]], (2, 3)),
            TypeError,
            ["coords", "float64", "integers"],
        ),
        (
            lambda: qv.SparseCSRMatrix.from_numpy(D2, [1, 1, 2], [0, 1], (2, 3)),
            ValueError,
            ["indptr[0]", "expected 0"],
        ),
        (
            lambda: qv.SparseCSRMatrix.from_numpy(D2, [0, 2, 1], [0, 1], (2, 3)),
            ValueError,
            ["indptr[2]", "less than"],
        ),
        (
            lambda: qv.SparseCSRMatrix.from_numpy(D2, [0, 1, 1], [0, 1], (2, 3)),
            ValueError,
            ["indptr[2]", "expected 2"],
        ),
        (
            lambda: qv.SparseCSRMatrix.from_numpy(D2, [0, 1, 1, 2], [0, 1], (2, 3)),
            ValueError,
            ["indptr", "4 entries", "expected 3"],
        ),
        (
            lambda: qv.SparseCSRMatrix.from_numpy(D2, [0, 1, 2], [0, 3], (2, 3)),
            ValueError,
            ["indices[1]", "out of range"],
        ),
        (
            lambda: qv.SparseCSCMatrix.from_numpy(D2, [0, 1, 2, 2], [0, 2], (2, 3)),
            ValueError,
            ["indices[1]", "out of range"],
        ),
        (
            lambda: qv.SparseCSRMatrix.from_numpy(D2, [0, 1, 2], [0, 1], (2, 3, 1)),
            ValueError,
            ["2-D"],
        ),
        (
            lambda: qv.SparseCSRMatrix.from_numpy(D2, np.array([0.0, 1, 2]), [0, 1], (2, 3)),
            TypeError,
            ["indptr", "float64"],
        ),
        (
            lambda: qv.SparseCSRMatrix.from_numpy(D2, [0, 1, 2], np.array([True, False]), (2, 3)),
            TypeError,
            ["indices", "bool"],
        ),
        (
            lambda: qv.SparseCSRMatrix.from_numpy(D2, [0, 1, 2], [0, 1], (2, "3")),
            TypeError,
            ["shape[1]"],
        ),
        (
            lambda: qv.SparseCSRMatrix.from_numpy(D2, [0, 1, 2], [0, 1], 6),
            TypeError,
            ["shape", "sequence"],
        ),
        (
            lambda: qv.SparseCSRMatrix.from_numpy(np.ones((2, 2)), [0, 1, 2], [0, 1], (2, 3)),
            ValueError,
            ["data", "1-D"],
        ),
        (
            lambda: qv.SparseCSRMatrix.from_numpy(D2.astype(complex), [0, 1, 2], [0, 1], (2, 3)),
            TypeError,
            ["data", "complex"],
        ),
        (
            lambda: qv.SparseCSFTensor.from_numpy(
                D2, [[0, 1, 2]], [[0, 1], [0, 1]], (2, 3), axis_order=[0, 0]
            ),
            ValueError,
            ["axis_order", "permutation"],
        ),
        (
            lambda: qv.SparseCSFTensor.from_numpy(
                D2, [[0, 1, 2]], [[0, 1], [0, 1]], (2, 3), axis_order=[0, 2]
            ),
            ValueError,
            ["axis_order", "permutation"],
        ),
        (
            lambda: qv.SparseCSFTensor.from_numpy(D2, [[0, 1, 2]], [[0, 1, 1], [0, 1]], (2, 3)),
            ValueError,
            ["indptr[0]", "entries"],
        ),
        (
            lambda: qv.SparseCSFTensor.from_numpy(D2, [[0, 1, 2]], [[0], [0, 1]], (2, 3)),
            ValueError,
            ["indptr[0]", "entries"],
        ),
        (
            lambda: qv.SparseCSFTensor.from_numpy(D2, [], [[0, 1], [0, 1]], (2, 3)),
            ValueError,
            ["indptr", "expected 1"],
        ),
        (
            lambda: qv.SparseCSFTensor.from_numpy(D2, [[0, 1, 2]], [[0, 1], [0, 3]], (2, 3)),
            ValueError,
            ["indices[1]", "out of range"],
        ),
        (
            lambda: qv.SparseCSFTensor.from_numpy(
                D2, np.array([0, 1, 2]), [[0, 1], [0, 1]], (2, 3)
            ),
            TypeError,
            ["indptr", "list"],
        ),
        (
            lambda: qv.SparseCSFTensor.from_numpy(D2, [[0, 1, 2]], [[0, 1], [0.5, 1]], (2, 3)),
            TypeError,
            ["indices[1]", "float64"],
        ),
        (
            lambda: qv.SparseCSRMatrix.from_dense_numpy(np.ones((2, 2, 2))),
            ValueError,
            ["CSR", "2-D"],
        ),
        (
            lambda: qv.SparseCOOTensor.from_dense_numpy(np.float64(3)),
            ValueError,
            ["at least one dimension"],
        ),
        (
            lambda: qv.SparseCOOTensor.from_dense_numpy(np.ones((300, 2)), index_type="int8"),
            ValueError,
            ["does not fit", "int8"],
        ),
        (
            lambda: qv.SparseCOOTensor.from_dense_numpy(np.ones((3, 2)), index_type="float32"),
            TypeError,
            ["index_type", "float32"],
        ),
        (
            lambda: qv.SparseCOOTensor.from_dense_numpy(np.array(["a", "b"])),
            TypeError,
            ["array", "strings"],
        ),
        (
            lambda: qv.SparseCOOTensor.from_dense_numpy(np.ma.masked_array([1, 2], [0, 1])),
            TypeError,
            ["masked"],
        ),
        (
            lambda: qv.SparseCSFTensor.from_dense_numpy(np.ones((3, 2)), axis_order=[0, 2]),
            ValueError,
            ["axis_order", "permutation"],
        ),
        (
            lambda: qv.SparseCOOTensor.from_dense_numpy(np.ones((2, 2))).to_csf(axis_order=[1, 1]),
            ValueError,
            ["axis_order"],
        ),
        (
            lambda: qv.SparseCOOTensor.from_dense_numpy(np.ones((2, 2, 2))).to_csr(),
            ValueError,
            ["2-D"],
        ),
        (
            lambda: qv.SparseCSRMatrix.from_scipy(np.ones((2, 2))),
            TypeError,
            ["from_scipy", "ndarray"],
        ),
        (
            lambda: qv.SparseCOOTensor.from_pydata_sparse(np.ones(2)),
            TypeError,
            ["from_pydata_sparse", "ndarray"],
        ),
        (
            lambda: qv.SparseCOOTensor.from_pydata_sparse(pydata.full((2, 2), np.nan)),
            ValueError,
            ["fill_value", "nan"],
        ),
        (
            lambda: qv.SparseCOOTensor.from_dense_numpy(np.ones(3)).dim_name(1),
            IndexError,
            ["dim_name(1)", "1 axes"],
        ),
        (
            lambda: qv.SparseCSRMatrix.from_dense_numpy(np.ones((2, 2), np.float16)).to_scipy(),
            ValueError,
            ["float16"],
        ),
    ],
)
def test_invalid_input_raises_a_clear_error(make, error, words):
    with pytest.raises(error) as info:
        make()
    for word in words:
        assert word in str(info.value), (word, str(info.value))


def test_empty_index_lists_are_accepted():
    s = qv.SparseCOOTensor.from_numpy([], [], (2, 3))
    assert s.non_zero_length == 0 and s.to_numpy()[1].shape == (0, 2)
    assert s == qv.SparseCSRMatrix.from_numpy([], [0, 0, 0], [], (2, 3))
    assert qv.SparseCSFTensor.from_numpy([], [[0]], [[], []], (2, 3)).to_dense().shape == (2, 3)


def test_canonical_flag_is_found_or_checked():
    sorted_coords = np.array([[0, 1], [1, 0]])
    assert qv.SparseCOOTensor.from_numpy(D2, sorted_coords, (2, 2)).has_canonical_format
    assert not qv.SparseCOOTensor.from_numpy(D2, sorted_coords[::-1], (2, 2)).has_canonical_format
    assert not qv.SparseCOOTensor.from_numpy(
        D2, sorted_coords, (2, 2), canonical=False
    ).has_canonical_format
    assert qv.SparseCOOTensor.from_numpy(
        D2, sorted_coords, (2, 2), canonical=True
    ).has_canonical_format


# --- properties, equality, repr ---------------------------------------------------------


def test_properties():
    x = np.zeros((2, 3, 4), np.float32)
    x[1, 2, 3], x[0, 1, 0] = 5, -1
    s = qv.SparseCSFTensor.from_dense_numpy(x, dim_names=["a", "b", "c"], axis_order=[2, 0, 1])
    assert s.shape == (2, 3, 4) and s.ndim == 3 and s.size == 24 and s.non_zero_length == 2
    assert s.dim_names == ["a", "b", "c"] and s.dim_name(2) == "c"
    assert s.dtype == np.float32 and s.type == qv.type_for("float32")
    assert s.axis_order == (2, 0, 1) and s.format == "csf"
    assert s.to_coo().dim_names == ["a", "b", "c"]
    assert qv.SparseCOOTensor.from_dense_numpy(x).dim_names is None
    assert qv.SparseCOOTensor.from_dense_numpy(x).dim_name(0) == ""
    assert isinstance(s, qv.SparseTensor)
    b = qv.SparseCOOTensor.from_dense_numpy(np.array([True, False, True]))
    assert b.dtype == np.bool_ and b.type == qv.type_for("bool8")
    np.testing.assert_array_equal(b.to_dense(), [True, False, True])


def test_equality_across_formats_and_index_types():
    x = np.array([[0, 1, 0], [2, 0, np.nan]])
    y = np.array([[0, 1, 0], [2, 0, 3.0]])
    finite = [
        CLASSES[f].from_dense_numpy(y, index_type=t) for f in CLASSES for t in ("int8", "uint64")
    ]
    assert all(a == b and a.equals(b) for a in finite for b in finite)
    assert finite[0] != qv.SparseCOOTensor.from_dense_numpy(y * 2)
    assert finite[0] != qv.SparseCOOTensor.from_dense_numpy(y.astype(np.float32))  # value type
    assert finite[0] != qv.SparseCOOTensor.from_dense_numpy(y[:, :2])  # shape
    assert finite[0] != y and not (finite[0] == "x")
    nan = qv.SparseCSRMatrix.from_dense_numpy(x)
    assert nan != nan.to_coo()  # NaN != NaN, as in NumPy
    # Explicit zeros equal absent ones; dim names do not count.
    explicit = qv.SparseCOOTensor.from_numpy(
        [1.0, 0.0, 2.0, 3.0], [[0, 1], [1, 1], [1, 0], [1, 2]], (2, 3), dim_names=["r", "c"]
    )
    assert explicit == finite[0]
    with pytest.raises(TypeError):
        hash(finite[0])


def test_repr_snapshots():
    x = np.array([[0, 1.5, 0], [-2, 0, 0]], np.float32)
    assert repr(qv.SparseCOOTensor.from_dense_numpy(x, dim_names=["r", "c"])) == (
        "quiver.SparseCOOTensor<float32> shape=(2, 3) nnz=2 dim_names=[r, c]\n"
        "  (0, 1)  1.5\n"
        "  (1, 0)  -2.0"
    )
    assert repr(qv.SparseCSCMatrix.from_dense_numpy(x)) == (
        "quiver.SparseCSCMatrix<float32> shape=(2, 3) nnz=2\n  (1, 0)  -2.0\n  (0, 1)  1.5"
    )
    assert repr(qv.SparseCSRMatrix.from_dense_numpy(np.zeros((2, 2), np.int8))) == (
        "quiver.SparseCSRMatrix<int8> shape=(2, 2) nnz=0"
    )
    long = qv.SparseCSFTensor.from_dense_numpy(
        np.arange(1, 21, dtype=np.int64).reshape(4, 5), axis_order=[1, 0]
    )
    assert repr(long) == (
        "quiver.SparseCSFTensor<int64> shape=(4, 5) nnz=20 axis_order=(1, 0)\n"
        "  (0, 0)  1\n"
        "  (1, 0)  6\n"
        "  (2, 0)  11\n"
        "  ...\n"
        "  (1, 4)  10\n"
        "  (2, 4)  15\n"
        "  (3, 4)  20"
    )
    assert repr(qv.SparseCOOTensor.from_dense_numpy(np.array([False, True]))) == (
        "quiver.SparseCOOTensor<bool8> shape=(2,) nnz=1\n  (1,)  True"
    )


# --- pickling and copies -------------------------------------------------------------------


def sample_tensors():
    x = np.zeros((3, 4, 2), np.float64)
    x[0, 1, 1], x[2, 3, 0], x[1, 0, 0] = 1.5, -2.0, np.inf
    m = x[:, :, 0]
    return {
        "coo": (qv.SparseCOOTensor.from_dense_numpy(x, dim_names=["a", "b", "c"]), 2),
        "coo-unsorted": (qv.SparseCOOTensor.from_numpy([1, 2], [[1, 0], [0, 1]], (2, 2)), 2),
        "csr": (qv.SparseCSRMatrix.from_dense_numpy(m, index_type="uint16"), 3),
        "csc": (qv.SparseCSCMatrix.from_dense_numpy(m), 3),
        "csf": (qv.SparseCSFTensor.from_dense_numpy(x, axis_order=[2, 0, 1]), 6),
    }


@pytest.mark.parametrize("name", list(sample_tensors()))
@pytest.mark.parametrize("protocol", [2, 5])
def test_pickle_round_trips(name, protocol):
    s, buffer_count = sample_tensors()[name]
    back = pickle.loads(pickle.dumps(s, protocol=protocol))
    assert type(back) is type(s) and back == s
    assert back.dim_names == s.dim_names and back.has_canonical_format == s.has_canonical_format
    for a, b in zip(index_arrays(back), index_arrays(s)):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    if protocol == 5:
        buffers = []
        payload = pickle.dumps(s, protocol=5, buffer_callback=buffers.append)
        assert len(buffers) == buffer_count  # values and every index array, out of band
        assert sum(b.raw().nbytes for b in buffers) == s.to_numpy()[0].nbytes + sum(
            a.nbytes for a in index_arrays(s)
        )
        back = pickle.loads(payload, buffers=buffers)
        assert back == s
        # The values travel first, and the rebuilt tensor reads them where they are.
        assert np.shares_memory(back.to_numpy()[0], np.frombuffer(buffers[0], np.uint8))
    assert copy.copy(s) is s
    deep = copy.deepcopy(s)
    assert deep == s and not np.shares_memory(deep.to_numpy()[0], s.to_numpy()[0])


def test_tampered_pickles_are_rejected():
    s = qv.SparseCSRMatrix.from_dense_numpy(np.eye(3))
    rebuild, (state,) = s.__reduce_ex__(4)
    assert rebuild(state) == s
    smaller = (state[0], (3, 2)) + state[2:]  # indices now out of range
    with pytest.raises(ValueError, match="out of range"):
        rebuild(smaller)
    with pytest.raises(ValueError, match="format"):
        rebuild((b"XYZ",) + state[1:])
    coo = qv.SparseCOOTensor.from_numpy([1, 2], [[1, 0], [0, 1]], (2, 2))
    rebuild, (state,) = coo.__reduce_ex__(4)
    with pytest.raises(ValueError, match="canonical"):
        rebuild(state[:3] + (True,) + state[4:])  # claims sorted coordinates


# --- IPC (the SparseTensor message) ---------------------------------------------------------


@pytest.mark.parametrize("name", list(sample_tensors()))
def test_ipc_round_trips(name, tmp_path):
    s, _ = sample_tensors()[name]
    path = tmp_path / "sparse.arrow"
    qv.ipc.write_sparse_tensor(s, path)
    back = qv.ipc.read_sparse_tensor(path)
    assert type(back) is type(s) and back == s and back.dim_names == s.dim_names
    sink = io.BytesIO()
    qv.ipc.write_sparse_tensor(s, sink)
    data = bytearray(sink.getvalue())
    assert data == path.read_bytes()
    from_bytes = qv.ipc.read_sparse_tensor(data)
    assert from_bytes == s
    # Read from memory, the tensor points into it.
    assert np.shares_memory(from_bytes.to_numpy()[0], np.frombuffer(data, np.uint8))
    assert qv.ipc.read_sparse_tensor(str(path), memory_map=False) == s


def test_ipc_rejects_what_is_not_a_sparse_tensor(tmp_path):
    with pytest.raises(TypeError, match="sparse tensor"):
        qv.ipc.write_sparse_tensor(qv.Tensor.from_numpy(np.ones(2)), tmp_path / "x.arrow")
