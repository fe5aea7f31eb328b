"""Sparse tensors under hostile Python inputs: strided and
reversed index arrays, arrays mutated after construction, huge shapes with
few non-zeros, narrow index types and tampered pickles."""

import pickle

import numpy as np
import pytest

import quiver as qv


def test_reversed_and_strided_coords_read_right():
    coords = np.array([[1, 2], [0, 1], [2, 0]], dtype=np.int64)[::-1]  # negative row stride
    data = np.array([3.0, 2.0, 1.0])
    s = qv.SparseCOOTensor.from_numpy(data, coords, (3, 3))
    expected = np.zeros((3, 3))
    expected[tuple(coords.T)] = data
    np.testing.assert_array_equal(s.to_dense(), expected)
    wide = np.zeros((4, 6), dtype=np.int32)
    wide[::2, ::3] = [[0, 1], [2, 0]]  # a (2, 2) view with gaps
    s = qv.SparseCOOTensor.from_numpy([5, 6], wide[::2, ::3], (3, 3))
    assert s.to_dense()[0, 1] == 5 and s.to_dense()[2, 0] == 6


def test_indices_mutated_after_construction_never_read_out_of_bounds():
    indptr = np.array([0, 1, 2], dtype=np.int64)
    indices = np.array([0, 1], dtype=np.int64)
    s = qv.SparseCSRMatrix.from_numpy(np.array([1.0, 2.0]), indptr, indices, (2, 2))
    indices[1] = 10**12  # the arrays are shared, not copied
    for call in (s.to_dense, s.to_coo, s.to_csc, lambda: s.to_csf()):
        with pytest.raises(ValueError, match="out of range"):
            call()
    indices[1] = 1
    indptr[1] = 5
    with pytest.raises(ValueError):
        s.to_dense()


def test_huge_shapes_with_few_non_zeros():
    s = qv.SparseCOOTensor.from_numpy([1.0], [[5, 7]], (2**31, 2**31))
    assert s.to_csf().to_coo().equals(s)
    tall = qv.SparseCOOTensor.from_numpy([1.0], [[0, 0]], (2**44, 2))
    with pytest.raises(MemoryError):
        tall.to_csr()  # indptr of 2^44 + 1 entries: 128 TiB
    taller = qv.SparseCOOTensor.from_numpy([1.0], [[0, 0]], (2**61, 2))
    with pytest.raises(ValueError, match="overflows"):
        taller.to_csc().to_csr()  # its bytes do not fit int64
    wide = qv.SparseCOOTensor.from_numpy([1.0], [[0, 3]], (1, 2**62))
    assert wide.to_csr().to_coo().equals(wide)
    empty = qv.SparseCOOTensor.from_numpy(
        np.zeros(0), np.zeros((0, 3), np.int64), (0, 2**40, 2**40)
    )
    assert empty.to_tensor().shape == (0, 2**40, 2**40)  # (NumPy refuses that shape itself)


def test_canonicalize_narrow_index_type():
    s = qv.SparseCSRMatrix.from_numpy(
        np.array([1.0, 2.0]), np.array([0, 2, 2], np.int8), np.array([5, 3], np.int8), (2, 200)
    )
    c = s.canonicalize()
    assert c.has_canonical_format
    np.testing.assert_array_equal(c.to_dense(), s.to_dense())


def test_tampered_pickle_is_refused():
    s = qv.SparseCOOTensor.from_numpy([1.0, 2.0], [[0, 0], [1, 1]], (2, 2))
    func, (state,) = s.__reduce_ex__(4)
    state = list(state)
    state[1] = (1, 1)  # shape no longer holds the coordinates
    with pytest.raises(ValueError):
        func(tuple(state))
    state[1] = (2, 2)
    state[3] = True
    dup = qv.SparseCOOTensor.from_numpy([1.0, 2.0], [[1, 1], [1, 1]], (2, 2))
    f2, (st2,) = dup.__reduce_ex__(4)
    st2 = list(st2)
    st2[3] = True  # a false canonical claim
    with pytest.raises(ValueError, match="canonical"):
        f2(tuple(st2))
    assert pickle.loads(pickle.dumps(s, protocol=5)).equals(s)


def test_float16_and_bool_values():
    x = np.array([[0, -0.0, np.nan], [1, 0, 65504]], dtype=np.float16)
    for cls in (qv.SparseCOOTensor, qv.SparseCSRMatrix, qv.SparseCSCMatrix, qv.SparseCSFTensor):
        s = cls.from_dense_numpy(x)
        assert s.non_zero_length == 3
        np.testing.assert_array_equal(s.to_dense(), x)
    b = np.array([[True, False], [False, True]])
    s = qv.SparseCSRMatrix.from_dense_numpy(b)
    assert s.non_zero_length == 2
    np.testing.assert_array_equal(s.to_dense().astype(bool), b)
