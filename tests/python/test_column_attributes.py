"""NumPy-like attributes of tensor columns (shape, dtype, ndim, nbytes),
NumPy indexing of fixed-shape columns with tuples, and Dask arrays over them."""

import numpy as np
import pyarrow as pa
import pytest

import quiver as qv

CELLS = np.arange(10 * 3 * 4, dtype=np.float32).reshape(10, 3, 4)


def fixed(nd=CELLS, **kwargs):
    return qv.FixedShapeTensorArray.from_numpy(nd, **kwargs)


# --- shape, dtype, ndim -------------------------------------------------------------


def test_fixed_shape_column_attributes_follow_to_numpy():
    col = fixed(dim_names=["H", "W"])
    assert col.shape == (10, 3, 4) and col.ndim == 3 and col.dtype == np.dtype("float32")
    # A transposed layout records a permutation; the attributes are logical.
    permuted = fixed(np.ascontiguousarray(CELLS.transpose(0, 2, 1)).transpose(0, 2, 1))
    assert permuted.type.permutation == [1, 0] and permuted.type.shape == (4, 3)
    assert permuted.shape == (10, 3, 4) == permuted.to_numpy().shape
    assert col[2:5].shape == (3, 3, 4) and col[:0].shape == (0, 3, 4)
    assert fixed(np.zeros((2, 5), np.int16)).shape == (2, 5)
    assert fixed(np.zeros((4, 2), bool)).dtype == np.dtype(bool)
    scalars = qv.array(pa.FixedShapeTensorArray.from_numpy_ndarray(np.zeros((3, 2, 2), np.uint8)))
    assert scalars.dtype == np.uint8 and scalars.ndim == 3


def test_variable_shape_column_attributes_and_no_shape():
    col = qv.VariableShapeTensorArray.from_numpy(
        [np.zeros((2, 3), np.int64), None, np.ones((1, 1), np.int64)]
    )
    assert col.dtype == np.dtype("int64") and col.ndim == 3
    assert not hasattr(col, "shape")  # rows differ in shape: shapes() lists them
    assert qv.VariableShapeTensorArray.from_numpy([np.zeros(4, bool)]).dtype == np.dtype(bool)


# --- nbytes -------------------------------------------------------------------------


@pytest.mark.parametrize("mask", [None, [i % 3 == 1 for i in range(10)]])
@pytest.mark.parametrize(
    "rows", [slice(None), slice(3, 8), slice(7, 9), slice(5, 5), slice(9, None)]
)
def test_fixed_nbytes_is_pyarrows(mask, rows):
    col = fixed(mask=mask)[rows]
    n = len(col)
    # (pyarrow counts one bitmap byte for an empty slice inside a byte.)
    assert col.nbytes == (pa.array(col).nbytes if n else 0)
    bitmap = 0 if mask is None or n == 0 else (col.offset + n + 7) // 8 - col.offset // 8
    assert col.nbytes == n * 3 * 4 * 4 + bitmap


def test_variable_nbytes_counts_what_the_rows_reference():
    rows = [np.zeros((2, 3), np.float64), None, np.ones((1, 4), np.float64), np.ones((5, 1))]
    col = qv.VariableShapeTensorArray.from_numpy(rows)
    storage = pa.array(col.storage)
    # pyarrow leaves out the struct's bitmap and the last data offset.
    assert col.nbytes == storage.nbytes + 1 + 4
    # struct bitmap 1 + data: list offsets 5 * 4 + 15 values * 8 + shapes 4 * 2 * 4
    assert col.nbytes == 1 + 5 * 4 + 15 * 8 + 4 * 2 * 4
    tail = col[2:]
    assert tail.nbytes == 1 + 3 * 4 + 9 * 8 + 2 * 2 * 4
    assert col[1:2].nbytes == 1 + 2 * 4 + 0 + 2 * 4
    assert col[:0].nbytes == 0


# --- tuple indexing -----------------------------------------------------------------

KEYS = [
    (0,),
    (slice(None),),
    (slice(2, 7), 1),
    (slice(None), 0),
    (-1, slice(None), slice(None, None, -1)),
    (Ellipsis, 2),
    (slice(None, None, -3), Ellipsis, 0),
    (3, 2, 1),
    (slice(0, 0),),
    (slice(None), None, 1),
    Ellipsis,
    None,
    (slice(None, None, 2), slice(1, 3), slice(None, None, 2)),
]


@pytest.mark.parametrize("key", KEYS, ids=repr)
@pytest.mark.parametrize("permuted", [False, True])
def test_tuple_keys_index_like_numpy(key, permuted):
    nd = np.ascontiguousarray(CELLS.transpose(0, 2, 1)).transpose(0, 2, 1) if permuted else CELLS
    col = fixed(nd)
    got = col[key]
    assert isinstance(got, (np.ndarray, np.generic))
    np.testing.assert_array_equal(got, nd[key])
    if np.size(got) > 0 and isinstance(got, np.ndarray):
        assert np.shares_memory(got, col.to_numpy())  # zero-copy


def test_tuple_keys_and_null_rows():
    col = fixed(mask=[i == 4 for i in range(10)])
    np.testing.assert_array_equal(col[:4, 0], CELLS[:4, 0])
    np.testing.assert_array_equal(col[5:, ..., 1], CELLS[5:, ..., 1])
    np.testing.assert_array_equal(col[::4][::2, 1], CELLS[[0, 8], 1])  # row 4 is skipped
    for key in [(4,), (slice(None), 0), (slice(3, 6), Ellipsis), (slice(8, None, -2),)]:
        with pytest.raises(ValueError, match="selection includes null rows"):
            col[key]
    with pytest.raises(ValueError):
        col[4]  # a plain row index keeps its meaning: one row, null is an error


def test_bad_keys():
    col = fixed()
    np.testing.assert_array_equal(col[np.int64(2)], CELLS[2])  # NumPy integers pick rows
    np.testing.assert_array_equal(col[np.int32(-1)], CELLS[-1])
    with pytest.raises(TypeError, match="got bool"):
        col[True]
    with pytest.raises(TypeError, match="got float"):
        col[1.0]
    with pytest.raises(IndexError):
        col[10, 0]
    with pytest.raises(IndexError):
        col[0, 0, 0, 0]
    with pytest.raises(TypeError, match=r"take\(\) picks a list of rows"):
        col[[0, 1]]
    with pytest.raises(TypeError, match="got str"):
        col["x"]


# --- Dask ----------------------------------------------------------------------------


@pytest.mark.parametrize("chunks", ["auto", 3, (4, 2, 3)])
def test_dask_array_from_a_fixed_shape_column(chunks):
    da = pytest.importorskip("dask.array")
    nd = np.random.default_rng(0).standard_normal((25, 3, 4)).astype(np.float64)
    col = fixed(np.ascontiguousarray(nd.transpose(0, 2, 1)).transpose(0, 2, 1))  # permuted too
    x = da.from_array(col, chunks=chunks)
    assert x.shape == (25, 3, 4) and x.dtype == np.float64
    assert np.isclose(x.sum().compute(), nd.sum())
    np.testing.assert_allclose(x.mean(axis=0).compute(), nd.mean(axis=0))
    np.testing.assert_array_equal(x[::-2, 1].compute(), nd[::-2, 1])
